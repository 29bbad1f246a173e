"""`minispore.train.metrics`: the metrics, whose home is `minispore.nn.metrics` (MindSpore
exports them from both namespaces; they depend on Tensor only)."""
from ...nn.metrics import *  # noqa: F401,F403
from ...nn.metrics import __all__  # noqa: F401
