"""`mindspore.train.amp`: `build_train_network` and the mixed-precision functions, which live in
`minispore.amp.mixed_precision` (one implementation for `Model(amp_level=...)` and
`amp.auto_mixed_precision`)."""
from ..amp.mixed_precision import (  # noqa: F401
    auto_mixed_precision, build_train_network, custom_mixed_precision, get_black_list,
    get_white_list)

__all__ = ["build_train_network", "auto_mixed_precision", "custom_mixed_precision",
           "get_white_list", "get_black_list"]
