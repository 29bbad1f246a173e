"""Specs of the linalg primitives (same format as specs.py)."""
