"""Framework-owned random streams: `set_seed` resets every one of them (never NumPy's global state)."""
import threading

import numpy as np

__all__ = ["set_seed", "get_seed", "generator", "on_seed"]

_lock = threading.Lock()
_seed = None
_global = np.random.default_rng()  # fresh entropy until set_seed is called
_by_op_seed = {}
_listeners = []  # callables run by set_seed (dropout and dataset streams reset themselves)


def set_seed(seed):
    """Seed every framework random stream: ops, initializers, dropout, dataset shuffles.

    Two runs that call `set_seed(n)` and then make the same calls draw the same numbers.
    """
    global _seed, _global
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)):
        raise TypeError(f"For 'set_seed', 'seed' must be an int, but got {type(seed).__name__}")
    if seed < 0:
        raise ValueError(f"For 'set_seed', 'seed' must be non-negative, but got {seed}")
    with _lock:
        _seed = int(seed)
        _global = np.random.default_rng(_seed)
        _by_op_seed.clear()
        listeners = list(_listeners)
    for fn in listeners:
        fn(_seed)


def get_seed():
    """The seed set by `set_seed`, or None."""
    return _seed


def generator(seed=None):
    """The NumPy Generator to draw from: the global stream, or the stream of an op-level `seed`
    (derived from the global seed too, so `set_seed` changes it)."""
    if seed is None:
        return _global
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
        raise ValueError(f"'seed' must be a non-negative int, but got {seed!r}")
    with _lock:
        g = _by_op_seed.get(int(seed))
        if g is None:
            base = 0 if _seed is None else _seed
            g = _by_op_seed[int(seed)] = np.random.default_rng([base, int(seed)])
        return g


def on_seed(fn):
    """Register fn(seed), run by every later `set_seed` (for streams owned elsewhere)."""
    with _lock:
        _listeners.append(fn)
    return fn


def _streams_state():
    """Every framework stream as it is now, to replay the same draws later (recompute)."""
    with _lock:
        return (_seed, _global, _global.bit_generator.state,
                {k: (g, g.bit_generator.state) for k, g in _by_op_seed.items()})


def _set_streams_state(state):
    """Put every framework stream back to a `_streams_state()` snapshot."""
    global _seed, _global
    seed, gen, gen_state, by_op_seed = state
    with _lock:
        _seed = seed
        gen.bit_generator.state = gen_state
        _global = gen
        _by_op_seed.clear()
        for k, (g, s) in by_op_seed.items():
            g.bit_generator.state = s
            _by_op_seed[k] = g
