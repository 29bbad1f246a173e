"""Specs of the fft primitives (same format as specs.py)."""
