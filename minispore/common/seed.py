"""Framework-owned random streams: `set_seed` resets every one of them (never NumPy's global state)."""
import struct
import threading

import numpy as np

from .tensor import Tensor

__all__ = ["set_seed", "get_seed", "generator", "on_seed", "get_rng_state", "set_rng_state",
           "register_stream", "Generator", "default_generator", "initial_seed", "seed"]

_lock = threading.Lock()
_seed = None
_global = np.random.default_rng()  # fresh entropy until set_seed is called
_by_op_seed = {}
_listeners = []  # callables run by set_seed (dropout and dataset streams reset themselves)
_streams = {}  # name -> (getter, setter): streams owned elsewhere that get_rng_state saves too


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


# ---- saving and restoring every stream ---------------------------------------------------------
# A state is a uint8 Tensor (as MindSpore's): magic and version, the seed (-1: none), the number of
# streams, then per stream its name (length byte + UTF-8: "global", "op/<seed>", or a registered
# name) and its PCG64 state (state and increment as 128-bit little-endian, has_uint32, uinteger).
_MAGIC = b"MSPRNG\x00\x01"
_HEAD = struct.Struct("<8sqI")
_PCG = struct.Struct("<16s16sBI")


def register_stream(name, getter, setter):
    """Have `get_rng_state` / `set_rng_state` cover a stream owned elsewhere (the dataset's):
    `getter()` returns its current `np.random.Generator` (PCG64), `setter(generator)` installs
    one."""
    if not isinstance(name, str) or not name or name == "global" or name.startswith("op/") or \
            len(name.encode()) > 255:
        raise ValueError(f"For 'register_stream', 'name' must be a short str other than 'global' "
                         f"and 'op/...', but got {name!r}")
    with _lock:
        _streams[name] = (getter, setter)


def _pack_stream(name, gen):
    st = gen.bit_generator.state
    if st["bit_generator"] != "PCG64":
        raise RuntimeError(f"For 'get_rng_state', stream {name!r} is not a PCG64 generator")
    raw = name.encode()
    return bytes([len(raw)]) + raw + _PCG.pack(
        st["state"]["state"].to_bytes(16, "little"), st["state"]["inc"].to_bytes(16, "little"),
        st["has_uint32"], st["uinteger"])


def get_rng_state():
    """Every framework random stream as it is now (the global and op-seeded streams that ops,
    initializers and dropout draw from, and the streams registered by other packages), with the
    seed, as a 1-D uint8 Tensor for `set_rng_state`. Drawing nothing, it changes nothing.

    Unlike MindSpore 2.10 on CPU, whose state (16 bytes, all zeros after `set_seed`) does not
    bring back the draws of `ops.randn` and friends, a restored state here reproduces them.
    """
    with _lock:
        seed = -1 if _seed is None else _seed
        gens = [("global", _global)] + [(f"op/{k}", g) for k, g in _by_op_seed.items()]
        extra = list(_streams.items())
    gens += [(name, get()) for name, (get, _) in extra]
    body = b"".join(_pack_stream(name, g) for name, g in gens)
    return Tensor(np.frombuffer(_HEAD.pack(_MAGIC, seed, len(gens)) + body, np.uint8).copy())


def _parse_state(state):
    """(seed, {name: Generator}) from a `get_rng_state` Tensor; raises on anything malformed."""
    if not isinstance(state, Tensor):
        raise TypeError(f"For 'set_rng_state', 'state' must be a Tensor from get_rng_state, but "
                        f"got {type(state).__name__}")
    data = state.asnumpy()
    if data.dtype != np.uint8 or data.ndim != 1:
        raise TypeError(f"For 'set_rng_state', 'state' must be a 1-D uint8 Tensor, but got "
                        f"{state.dtype} of shape {data.shape}")
    raw = data.tobytes()
    if len(raw) < _HEAD.size or raw[:8] != _MAGIC:
        raise ValueError(f"For 'set_rng_state', 'state' ({len(raw)} bytes) is not a state made "
                         "by get_rng_state")
    _, seed, count = _HEAD.unpack_from(raw)
    if seed < -1:
        raise ValueError(f"For 'set_rng_state', the state's seed {seed} is negative")
    pos, gens = _HEAD.size, {}
    for _ in range(count):
        if pos >= len(raw) or pos + 1 + raw[pos] + _PCG.size > len(raw):
            raise ValueError(f"For 'set_rng_state', 'state' is truncated ({len(raw)} bytes "
                             f"for {count} streams)")
        n = raw[pos]
        try:
            name = raw[pos + 1:pos + 1 + n].decode()
        except UnicodeDecodeError:
            raise ValueError("For 'set_rng_state', 'state' has a stream with a malformed "
                             "name") from None
        state_b, inc_b, has_uint32, uinteger = _PCG.unpack_from(raw, pos + 1 + n)
        pos += 1 + n + _PCG.size
        inc = int.from_bytes(inc_b, "little")
        if name in gens or has_uint32 > 1 or inc % 2 == 0:  # PCG's increment is always odd
            raise ValueError(f"For 'set_rng_state', stream {name!r} of 'state' is malformed")
        gen = np.random.Generator(np.random.PCG64())
        gen.bit_generator.state = {
            "bit_generator": "PCG64", "has_uint32": has_uint32, "uinteger": uinteger,
            "state": {"state": int.from_bytes(state_b, "little"), "inc": inc}}
        gens[name] = gen
    if pos != len(raw):
        raise ValueError(f"For 'set_rng_state', 'state' has {len(raw) - pos} bytes after its "
                         f"{count} streams")
    if "global" not in gens:
        raise ValueError("For 'set_rng_state', 'state' has no global stream")
    return (None if seed == -1 else seed), gens


def set_rng_state(state):
    """Put every framework random stream back as `get_rng_state` saw it (and the seed that
    `get_seed` reports): the same calls then draw the same numbers, bit for bit.

    Raises:
        TypeError: `state` is not a 1-D uint8 Tensor.
        ValueError: it is not a well-formed state, or names a stream this process does not
            have. Nothing changes then.
    """
    global _seed, _global
    seed, gens = _parse_state(state)
    op_streams = {}
    for name, gen in gens.items():
        if name.startswith("op/"):
            key = name[3:]
            if not key.isdigit() or key != str(int(key)):
                raise ValueError(f"For 'set_rng_state', stream {name!r} of 'state' is malformed")
            op_streams[int(key)] = gen
    with _lock:
        extra = dict(_streams)
    named = {n for n in gens if n != "global" and not n.startswith("op/")}
    if named != set(extra):
        raise ValueError(f"For 'set_rng_state', 'state' has the streams {sorted(named)} besides "
                         f"the global and op-seeded ones, but this process has {sorted(extra)}")
    with _lock:
        _seed = seed
        _global = gens["global"]
        _by_op_seed.clear()
        _by_op_seed.update(op_streams)
    for name in sorted(named):
        extra[name][1](gens[name])


class Generator:
    """A random stream of its own (MindSpore's `mindspore.Generator`): `manual_seed(n)` seeds it,
    `seed()` seeds it from fresh entropy and returns the seed, `get_state()`/`set_state()` save
    and restore it."""

    def __init__(self):
        self._initial = 0
        self._rng = np.random.default_rng(0)

    def manual_seed(self, seed):
        if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
            raise ValueError(f"For 'Generator.manual_seed', 'seed' must be a non-negative int, "
                             f"but got {seed!r}")
        self._initial = int(seed)
        self._rng = np.random.default_rng(self._initial)
        return self

    def seed(self):
        fresh = int(np.random.SeedSequence().entropy % (2 ** 32))
        self.manual_seed(fresh)
        return fresh

    def initial_seed(self):
        return self._initial

    def get_state(self):
        """The stream's state as a uint8 Tensor (for `set_state`), in `get_rng_state`'s
        format."""
        raw = _HEAD.pack(_MAGIC, self._initial, 1) + _pack_stream("global", self._rng)
        return Tensor(np.frombuffer(raw, np.uint8).copy())

    def set_state(self, state):
        seed, gens = _parse_state(state)
        self._initial, self._rng = (0 if seed is None else seed), gens["global"]
        return self


class _DefaultGenerator(Generator):
    """The framework's global stream (the one `set_seed` seeds), seen as a Generator."""

    def __init__(self):
        pass

    def manual_seed(self, seed):
        set_seed(seed)
        return self

    def initial_seed(self):
        return 0 if _seed is None else _seed

    def get_state(self):
        return get_rng_state()

    def set_state(self, state):
        set_rng_state(state)
        return self


default_generator = _DefaultGenerator()


def initial_seed():
    """The seed of the global stream (0 until `set_seed` is called)."""
    return default_generator.initial_seed()


def seed():
    """Seed the global stream from fresh entropy; returns the seed."""
    return default_generator.seed()
