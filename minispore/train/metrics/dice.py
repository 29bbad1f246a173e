"""`minispore.train.metrics.dice`: see `minispore.nn.metrics.dice`."""
from ...nn.metrics.dice import Dice  # noqa: F401

__all__ = ["Dice"]
