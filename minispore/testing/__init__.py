"""`minispore.testing`: gradient checks for users' own tests.

`check_grads(fn, args, order=2)` compares gradients with float64 central differences along
random directions; `minispore.testing.strategies` (needs hypothesis) has strategies for shapes,
broadcastable shapes and tensors with value domains.
"""
from ._gradcheck import GradcheckError, check_grads

__all__ = ["check_grads", "GradcheckError"]
