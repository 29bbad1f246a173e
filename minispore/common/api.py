"""`jit`: MindSpore's graph-compilation decorator. minispore runs the function eagerly."""
import functools

__all__ = ["jit", "jit_class", "JitConfig"]


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


class JitConfig:
    """Options for compiling a Cell (`cell.set_jit_config(JitConfig(jit_level="O1"))`), kept in
    `jit_config_dict`. Cells run eagerly here, so the options are recorded, checked and
    reported, not acted on."""

    def __init__(self, jit_level="", exc_mode="auto", jit_syntax_level="", debug_level="RELEASE",
                 infer_boost="off", **kwargs):
        for name, value, allowed in (("jit_level", jit_level, ("", "O0", "O1", "O2")),
                                     ("exc_mode", exc_mode, ("auto", "sink", "no_sink")),
                                     ("jit_syntax_level", jit_syntax_level,
                                      ("", "STRICT", "COMPATIBLE", "LAX")),
                                     ("debug_level", debug_level, ("RELEASE", "DEBUG")),
                                     ("infer_boost", infer_boost, ("on", "off"))):
            if value not in allowed:
                raise ValueError(f"For 'JitConfig', '{name}' must be one of {allowed}, but got "
                                 f"{value!r}")
        self.jit_config_dict = {"jit_level": jit_level, "exc_mode": exc_mode,
                                "jit_syntax_level": jit_syntax_level, "debug_level": debug_level,
                                "infer_boost": infer_boost, **kwargs}
