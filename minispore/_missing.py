"""The AttributeError for a name a minispore module lacks: it says whether the name is part of
MindSpore 2.10 (and so not implemented here yet) or unknown to MindSpore too, and suggests close
names. Modules install it as their module-level `__getattr__` (`missing_names(__name__,
globals())`). The message is composed only when shown: `hasattr` and `getattr(m, n, default)`
probe missing names often and pay only for raising."""
import difflib

from ._mindspore_names import NAMES


class MissingName(AttributeError):
    def __init__(self, module_name, name, namespace):
        super().__init__(module_name, name)
        self.name, self._module, self._namespace = name, module_name, namespace

    def __str__(self):
        mindspore_name = "mindspore" + self._module[len("minispore"):]
        close = difflib.get_close_matches(
            self.name, [n for n in self._namespace if not n.startswith("_")], n=3, cutoff=0.75)
        hint = f" Did you mean: {', '.join(repr(c) for c in close)}?" if close else ""
        if f" {self.name} " in f" {NAMES.get(mindspore_name, '')}":
            return (f"'{mindspore_name}.{self.name}' is part of MindSpore 2.10 but not "
                    f"implemented in minispore.{hint}")
        return (f"module {self._module!r} has no attribute {self.name!r}; it is not a "
                f"MindSpore 2.10 name either.{hint}")


def missing_names(module_name, namespace):
    """A module `__getattr__` for `module_name`, whose attributes are `namespace`."""
    def __getattr__(name):
        if name.startswith("__"):  # import machinery probes (__path__, __wrapped__, ...)
            raise AttributeError(f"module {module_name!r} has no attribute {name!r}")
        raise MissingName(module_name, name, namespace)
    return __getattr__
