"""Elementwise optimizer steps run chunk by chunk, so their temporaries stay in cache."""
from .optimizer import _CHUNK


def run_in_chunks(step, arrays, *args):
    """Call `step(*chunks, *args)` on matching flat slices of the same-shaped `arrays` (the
    weight, its gradient and its state), `_CHUNK` elements at a time; `step` updates its chunks
    in place. A step with a dozen passes over parameter-sized temporaries spends more time in
    page faults than in arithmetic (measured: Rprop on 1M floats, 10-14 ms whole, 6-8 ms chunked)."""
    if arrays[0].size <= _CHUNK or not all(a.flags.c_contiguous for a in arrays):
        step(*arrays, *args)
        return
    flat = [a.reshape(-1) for a in arrays]
    for start in range(0, flat[0].size, _CHUNK):
        stop = start + _CHUNK
        step(*[a[start:stop] for a in flat], *args)
