"""`minispore.train.metrics.perplexity`: see `minispore.nn.metrics.perplexity`."""
from ...nn.metrics.perplexity import Perplexity  # noqa: F401

__all__ = ["Perplexity"]
