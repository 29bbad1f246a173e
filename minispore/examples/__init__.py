"""Runnable examples: `python -m minispore.examples.<name>`."""
