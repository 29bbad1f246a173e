"""`minispore.train.metrics.bleu_score`: see `minispore.nn.metrics.bleu_score`."""
from ...nn.metrics.bleu_score import BleuScore  # noqa: F401

__all__ = ["BleuScore"]
