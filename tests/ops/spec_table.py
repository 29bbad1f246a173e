"""The whole spec table: specs.py and every family module that adds to it. Tests that walk the
table import SPECS from here, so they see the same table whatever ran first."""
from . import specs_comm, specs_fft, specs_image, specs_linalg, specs_losses  # noqa: F401
from . import specs_misc, specs_nn  # noqa: F401
from . import specs_nn_extra, specs_random, specs_scatter, specs_shape, specs_special  # noqa: F401
from .specs import SPECS, Spec  # noqa: F401
