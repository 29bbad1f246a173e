"""IEEE floating-point evaluation without NumPy's RuntimeWarnings."""
import numpy as np

# ---- quiet floating point -------------------------------------------------------------------------
# log(0) = -inf and 0/0 = nan are the IEEE answers we promise, without NumPy's RuntimeWarnings.
# np.errstate costs ~2 us per entry; setting the context variable it wraps costs ~0.25 us, so
# only primitives that can raise floating-point flags in normal use (division, log, sqrt, pow,
# exp) go through `quiet`, and the engine quiets each backward pass once as a whole.
try:
    from numpy._core._multiarray_umath import _extobj_contextvar, _make_extobj

    _IGNORE = _make_extobj(all="ignore")
    _set, _reset = _extobj_contextvar.set, _extobj_contextvar.reset

    # `quiet_on()` / `quiet_off(token)`: the same, inlined by the hottest paths (operators)
    def quiet(f, *args):
        """f(*args) with NumPy's floating-point warnings off."""
        token = _set(_IGNORE)
        try:
            return f(*args)
        finally:
            _reset(token)

    class quiet_region:
        """Context manager: NumPy floating-point warnings off inside."""

        __slots__ = ("_token",)

        def __enter__(self):
            self._token = _set(_IGNORE)

        def __exit__(self, *exc):
            _reset(self._token)
            return False

except ImportError:  # a NumPy without the context variable: the public, slower spelling
    _IGNORE = "ignore"

    def _set(mode):
        return np.seterr(all=mode)

    def _reset(old):
        np.seterr(**old)

    def quiet(f, *args):
        with np.errstate(all="ignore"):
            return f(*args)

    def quiet_region():
        return np.errstate(all="ignore")
