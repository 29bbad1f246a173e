"""Specs of the random primitives (same format as specs.py)."""
