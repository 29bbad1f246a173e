"""View families: which Tensors are views of which base, and how to make each view again
(docs/versions_and_undo.md).

A view op (reshape, transpose, squeeze, expand_dims, basic indexing, diagonal, unbind...) whose
result shares memory with its input makes the result a view of the input's *root*: the first
Tensor of the chain that is no view itself. The view keeps the root alive and remembers its
steps, the view ops that make it from the root, as (primitive, other arguments) pairs. The root
lists its live views.

Outside transforms a write goes into the shared memory and NumPy shows it through every view.
A write that has to make a new array instead (under a gradient transform, whose saved values
may hold the old one; or into read-only memory) uses this table to carry the write to the root
and make every view of it again, so the family shares memory and tape links as before.

Recording costs one dict lookup for each result of a view op; nothing for other ops.
"""
import threading
import weakref

import numpy as np

_lock = threading.RLock()  # re-entrant: a weakref callback may run inside a locked region
# id(view) -> (weakref to the view, root Tensor, steps)
_of = {}
# id(root) -> (weakref to the root, {id(view): weakref to the view})
_family = {}


def _forget_view(key, ref):
    with _lock:
        entry = _of.get(key)
        if entry is not None and entry[0] is ref:
            del _of[key]
            members = _family.get(id(entry[1]))
            if members is not None:
                members[1].pop(key, None)


def _forget_root(key, ref):
    with _lock:
        entry = _family.get(key)
        if entry is not None and entry[0] is ref:
            del _family[key]


def lookup(t):
    """(root, steps) if Tensor `t` is a live view, else None."""
    entry = _of.get(id(t))
    if entry is not None and entry[0]() is t:
        return entry[1], entry[2]
    return None


def note(out, x, step):
    """Record Tensor `out`, made from Tensor `x` by `step` = (primitive, other arguments), as a
    view when its array shares memory with `x`'s."""
    if not np.may_share_memory(out._data, x._data):
        return
    found = lookup(x)
    root, steps = found if found is not None else (x, ())
    key = id(out)
    ref = weakref.ref(out, lambda r, k=key: _forget_view(k, r))
    with _lock:
        _of[key] = (ref, root, steps + (step,))
        rkey = id(root)
        members = _family.get(rkey)
        if members is None or members[0]() is not root:
            members = _family[rkey] = (weakref.ref(root, lambda r, k=rkey: _forget_root(k, r)),
                                       {})
        members[1][key] = ref


def views_of(root):
    """The live views of `root`, each with its steps."""
    with _lock:
        members = _family.get(id(root))
        if members is None or members[0]() is not root:
            return []
        refs = list(members[1].values())
    found = []
    for ref in refs:
        v = ref()
        if v is not None:
            entry = lookup(v)
            if entry is not None:
                found.append((v, entry[1]))
    return found

