"""`mindspore.nn.utils`: delaying parameter initialisation."""
from ..common.parameter import no_init_parameters

__all__ = ["no_init_parameters"]
