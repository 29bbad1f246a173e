"""Autodiff internals: the tape (recording) and the engine (reverse walk, transforms)."""
