"""IEEE floating-point evaluation without NumPy's RuntimeWarnings."""
import numpy as np

# ---- quiet floating point -------------------------------------------------------------------------
# log(0) = -inf and 0/0 = nan are the IEEE answers we promise, without NumPy's RuntimeWarnings.
# np.errstate costs ~2-3 us per entry; setting the state it wraps directly costs ~0.3-0.7 us, so
# only primitives that can raise floating-point flags in normal use (division, log, sqrt, pow,
# exp) go through `quiet`, and the engine quiets each backward pass once as a whole.
# `_set(_IGNORE)` -> token / `_reset(token)`: the same, inlined by the hottest paths (operators).
# Three spellings, fastest first (measured per quiet(np.log, 8 floats), over a bare np.log):
#   NumPy 2.x   the context variable np.errstate itself sets (private)       +0.3 us
#   NumPy 1.x   np.geterrobj / np.seterrobj (public in 1.x, removed in 2.0)   +0.7 us
#   otherwise   np.errstate, public in every version                         +3 us
try:
    from numpy._core._multiarray_umath import _extobj_contextvar, _make_extobj

    _IGNORE = _make_extobj(all="ignore")
    _set, _reset = _extobj_contextvar.set, _extobj_contextvar.reset
except ImportError:
    _extobj_contextvar = None

if _extobj_contextvar is None and hasattr(np, "seterrobj"):  # NumPy 1.x
    _IGNORE = 0  # the error mask: every floating-point error ignored
    _geterrobj, _seterrobj = np.geterrobj, np.seterrobj

    def _set(mask):
        old = _geterrobj()  # [buffer size, error mask, error callback]; keep size and callback
        _seterrobj([old[0], mask, old[2]])
        return old

    _reset = _seterrobj

if _extobj_contextvar is not None or hasattr(np, "seterrobj"):

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

else:  # neither: the public, slower spelling
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


def is_quiet():
    """Whether every floating-point error is ignored now (inside `quiet` or `quiet_region`, or
    by the user's own setting). Not for hot paths."""
    return all(v == "ignore" for k, v in np.geterr().items() if k != "under")
