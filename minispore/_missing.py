"""The AttributeError for a name a minispore module lacks: it says whether the name is part of
MindSpore 2.10 (and so not implemented here yet) or unknown to MindSpore too, and suggests close
names. Modules install it as their module-level `__getattr__` (`missing_names(__name__,
globals())`)."""
import difflib

from ._mindspore_names import NAMES


def missing_names(module_name, namespace):
    """A module `__getattr__` for `module_name`, whose attributes are `namespace`."""
    mindspore_name = "mindspore" + module_name[len("minispore"):]
    theirs = NAMES.get(mindspore_name, "")

    def __getattr__(name):
        if name.startswith("__"):  # import machinery probes (__path__, __wrapped__, ...)
            raise AttributeError(f"module {module_name!r} has no attribute {name!r}")
        close = difflib.get_close_matches(name, [n for n in namespace if not n.startswith("_")],
                                          n=3, cutoff=0.75)
        hint = f" Did you mean: {', '.join(repr(c) for c in close)}?" if close else ""
        if f" {name} " in f" {theirs}":
            raise AttributeError(f"'{mindspore_name}.{name}' is part of MindSpore 2.10 but not "
                                 f"implemented in minispore.{hint}")
        raise AttributeError(f"module {module_name!r} has no attribute {name!r}; it is not a "
                             f"MindSpore 2.10 name either.{hint}")
    return __getattr__
