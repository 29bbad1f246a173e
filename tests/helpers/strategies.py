"""The project's Hypothesis strategies are the public ones (`minispore.testing.strategies`)."""
from minispore.testing.strategies import *  # noqa: F401,F403
from minispore.testing.strategies import __all__  # noqa: F401
