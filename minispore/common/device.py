"""`DeviceCtx`: run a block on a chosen device (docs/runtime.md).

minispore computes on the host CPU. `DeviceCtx("CPU", n)` makes that the current device (and
`device_id` n) inside the block. `DeviceCtx("meta")` is MindSpore's device of shapes without
values: Parameters made inside it have a shape and dtype and no storage (reading them raises
RuntimeError, as in MindSpore) until `Cell.to_empty()` or `set_data` gives them some. Unlike
MindSpore, plain Tensors and op results made inside a 'meta' block still hold values.
"""
import threading

from .. import context
from .parameter import Parameter

__all__ = ["DeviceCtx"]

_TARGETS = ("CPU", "GPU", "Ascend", "meta")


class _Stack(threading.local):
    entered = None


_stack = _Stack()


class DeviceCtx:
    """Context manager: inside it `name` ('CPU' or 'meta'; 'GPU' and 'Ascend' are not
    available here and raise RuntimeError) is the current device, with `device_id` (default
    0)."""

    def __init__(self, name: str, device_id=None):
        self.name = name
        self.device_id = device_id

    def __enter__(self):
        if self.name not in _TARGETS:
            raise ValueError(f"For DeviceCtx, the name must be one of {list(_TARGETS)}, but got "
                             f"{self.name}.")
        if self.device_id is not None and self.device_id < 0:
            raise ValueError("For DeviceCtx, the device_id must be greater than or equal to 0.")
        if self.name in ("GPU", "Ascend"):
            raise RuntimeError(f"Unsupported device target {self.name}: minispore runs on NumPy "
                               "and supports only 'CPU'")
        if self.device_id is None:
            self.device_id = 0
        if _stack.entered is None:
            _stack.entered = []
        with context._lock:
            _stack.entered.append((context._context["device_target"],
                                   context._context["device_id"], Parameter._on_meta))
            context._context["device_target"] = self.name
            context._context["device_id"] = self.device_id
        Parameter._on_meta = self.name == "meta"
        return self

    def __exit__(self, *exc):
        target, device_id, on_meta = _stack.entered.pop()
        with context._lock:
            context._context["device_target"] = target
            context._context["device_id"] = device_id
        Parameter._on_meta = on_meta
        return False
