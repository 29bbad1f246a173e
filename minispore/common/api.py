"""`jit`: MindSpore's graph-compilation decorator. minispore runs the function eagerly."""
import functools

__all__ = ["jit", "jit_class"]


def jit(function=None, *, capture_mode="ast", jit_level="O0", dynamic=0, fullgraph=False,
        backend="", **options):
    """Decorator accepted for compatibility: until minispore has a graph mode the decorated
    function (or Cell method) runs eagerly, with results and gradients identical to eager.

    Usable as `@jit` or `@jit(capture_mode=..., jit_level=..., ...)`.
    """
    if capture_mode not in ("ast", "bytecode", "trace"):
        raise ValueError(f"For 'jit', 'capture_mode' must be 'ast', 'bytecode' or 'trace', but "
                         f"got {capture_mode!r}")

    def wrap(fn):
        if not callable(fn):
            raise TypeError(f"For 'jit', the decorated object must be callable, but got "
                            f"{type(fn).__name__}")

        @functools.wraps(fn)
        def jitted(*args, **kwargs):
            return fn(*args, **kwargs)
        return jitted

    return wrap if function is None else wrap(function)


def jit_class(cls):
    """Accepted for compatibility; returns the class unchanged."""
    return cls
