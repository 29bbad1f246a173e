"""Specs of the special primitives (same format as specs.py)."""
