"""Specs of the image primitives (same format as specs.py)."""
