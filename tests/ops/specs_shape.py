"""Specs of the shape primitives (same format as specs.py)."""
