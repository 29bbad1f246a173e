"""Specs of the nn extra primitives (same format as specs.py)."""
