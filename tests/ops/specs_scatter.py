"""Specs of the scatter primitives (same format as specs.py)."""
