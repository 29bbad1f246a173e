"""The project's gradient check is the public one users get (`minispore.testing`)."""
from minispore.testing import GradcheckError, check_grads

__all__ = ["check_grads", "GradcheckError"]
