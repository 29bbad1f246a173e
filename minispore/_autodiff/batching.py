"""vmap: a function mapped over a batch axis, computed as an exact loop (slice, call, stack).

There are no batching rules: each example is one call of the function on its slices, so the
result equals a Python loop for every primitive and every piece of Python control flow, the
function sees one example's shapes (as under MindSpore's vmap), and slicing (Unstack) and
stacking (Stack) are primitives, so gradients flow through vmap and vmap through gradients.
The cost is one call per example.
"""
import numpy as np

from ..common import _writes
from ..common.tensor import Tensor
from ..ops.operations.array_ops import Stack, Unstack
from .engine import _target
from .tape import const

__all__ = ["vmap"]

_NUMBERS = (bool, int, float, np.bool_, np.integer, np.floating)


def _check_spec(spec, name):
    """`in_axes`/`out_axes`: an int, None, or a (nested) tuple/list of them."""
    if spec is None or (isinstance(spec, int) and not isinstance(spec, bool)):
        return
    if isinstance(spec, (tuple, list)):
        for s in spec:
            _check_spec(s, name)
        return
    raise TypeError(f"For 'vmap', '{name}' must hold ints, Nones and tuples or lists of them, "
                    f"but got {type(spec).__name__}")


# ---- trees of tuples and lists ------------------------------------------------------------------

def _flatten(tree, leaves):
    """Append the leaves of `tree` to `leaves`; returns its structure (None for a leaf)."""
    if isinstance(tree, (tuple, list)):
        return type(tree), [_flatten(t, leaves) for t in tree]
    leaves.append(tree)
    return None


def _unflatten(treedef, it):
    if treedef is None:
        return next(it)
    kind, children = treedef
    return kind(_unflatten(c, it) for c in children)


def _count(treedef):
    return 1 if treedef is None else sum(_count(c) for c in treedef[1])


def _spec_leaves(spec, treedef, name, where):
    """One axis per leaf of `treedef`: an int or None covers a whole subtree; a tuple/list
    must match the tree there entry by entry."""
    if not isinstance(spec, (tuple, list)):
        return [spec] * _count(treedef)
    if treedef is None or len(treedef[1]) != len(spec):
        got = "a single value" if treedef is None else f"a {treedef[0].__name__} of " \
            f"{len(treedef[1])}"
        side = "arguments" if name == "in_axes" else "output"
        raise ValueError(f"For 'vmap', '{name}'{where} has {len(spec)} entries but the {side} "
                         f"there is {got}")
    axes = []
    for k, (s, c) in enumerate(zip(spec, treedef[1])):
        axes.extend(_spec_leaves(s, c, name, f"{where}[{k}]"))
    return axes


# ---- vmap ---------------------------------------------------------------------------------------

def vmap(fn, in_axes=0, out_axes=0):
    """`fn` mapped over an axis of its arguments, stacking its outputs along `out_axes`.

    Args:
        fn (Union[Function, Cell, CellList]): the function to map; with a `CellList` (model
            ensembling), example i is computed by cell i.
        in_axes (Union[int, None, tuple, list]): the mapped axis of every argument, or one
            entry per positional argument (nested like tuple/list arguments); None passes an
            argument whole to every example. Keyword arguments are passed whole. Default: 0.
        out_axes (Union[int, None, tuple, list]): where the mapped axis goes in each output
            (nested like the output). None returns an output that is the same for every
            example as is. Default: 0.

    Returns:
        The mapped function. Every example is one call of `fn` (an exact loop, no batching
        rules), so the result equals stacking a Python loop's results; gradients flow through
        it. For a batch of size 0, `fn` is called once on zeros of one example's shape to learn
        the outputs' shapes.

    Raises:
        TypeError: axes that are not ints, Nones, tuples or lists; a mapped argument that is
            not a Tensor; outputs that are not Tensors, numbers or None.
        ValueError: mapped axes of different sizes; all of `in_axes` None (except for a
            CellList); an axis out of range; axes not matching the arguments or outputs;
            outputs whose shapes or structure differ between examples; `out_axes` None for
            an output that differs between examples. (MindSpore raises RuntimeError here.)

    Example:
        >>> vmap(lambda x, y: x * y, in_axes=(0, None))(Tensor(np.ones((4, 3))), Tensor(2.0)).shape
        (4, 3)
    """
    fn = _target(fn, "vmap")
    _check_spec(in_axes, "in_axes")
    _check_spec(out_axes, "out_axes")

    def vmapped(*args, **kwargs):
        with _writes.guarded():  # a failure in any example rolls back the writes of all of them
            return _map(fn, in_axes, out_axes, args, kwargs)

    return vmapped


def _cells_of(fn):
    """`fn` if it is a list of cells to map one per slice (nn.CellList says so), else None."""
    return fn if getattr(type(fn), "_vmap_per_cell", False) else None


def _map(fn, in_axes, out_axes, args, kwargs):
    cells = _cells_of(fn)
    leaves = []
    treedef = _flatten(tuple(args), leaves)
    if isinstance(in_axes, (tuple, list)) and len(in_axes) != len(args):
        raise ValueError(f"For 'vmap', 'in_axes' has {len(in_axes)} entries but the function was "
                         f"called with {len(args)} positional arguments")
    axes = _spec_leaves(in_axes, treedef, "in_axes", "")
    size, first = None, None
    for k, (leaf, ax) in enumerate(zip(leaves, axes)):
        if ax is None:
            continue
        if not isinstance(leaf, Tensor):
            raise TypeError(f"For 'vmap', argument leaf {k} is mapped along axis {ax} but is a "
                            f"{type(leaf).__name__}, not a Tensor (give it in_axes None)")
        nd = leaf._data.ndim
        if not -nd <= ax < nd:
            raise ValueError(f"For 'vmap', the axis {ax} in 'in_axes' is out of range for "
                             f"argument leaf {k} of shape {leaf.shape}")
        axes[k] = ax % nd
        n = leaf._data.shape[axes[k]]
        if size is None:
            size, first = n, k
        elif n != size:
            raise ValueError(f"For 'vmap', the mapped axes must have one size, but argument leaf "
                             f"{first} has {size} and argument leaf {k} (shape {leaf.shape}, "
                             f"axis {axes[k]}) has {n}")
    if cells is not None:
        if size is None:
            size = len(cells)
        elif size != len(cells):
            raise ValueError(f"For 'vmap', the mapped axes have size {size} but the CellList "
                             f"holds {len(cells)} cells")
        if size == 0:
            raise ValueError("For 'vmap', the CellList is empty")
    elif size is None:
        raise ValueError(f"For 'vmap', 'in_axes' cannot be all None (got {in_axes!r}): "
                         "nothing would be mapped")
    if size == 0:
        return _empty(fn, leaves, axes, treedef, kwargs, out_axes)
    slices = {k: Unstack(ax)(leaves[k]) for k, ax in enumerate(axes) if ax is not None}
    results = []
    for i in range(size):
        example = [slices[k][i] if k in slices else leaf for k, leaf in enumerate(leaves)]
        f = cells[i] if cells is not None else fn
        results.append(f(*_unflatten(treedef, iter(example)), **kwargs))
    return _stack_outputs(results, out_axes)


def _output_leaves(results, out_axes):
    flat = []
    treedef = _flatten(results[0], flat)
    columns = [[v] for v in flat]
    for i, r in enumerate(results[1:], 1):
        leaves = []
        if _flatten(r, leaves) != treedef:
            raise ValueError(f"For 'vmap', the function's outputs must have one structure for "
                             f"every example, but example 0 gave {_describe(results[0])} and "
                             f"example {i} gave {_describe(r)}")
        for col, v in zip(columns, leaves):
            col.append(v)
    return treedef, columns, _spec_leaves(out_axes, treedef, "out_axes", "")


def _describe(tree):
    if isinstance(tree, (tuple, list)):
        return f"a {type(tree).__name__} of {len(tree)}"
    return type(tree).__name__


def _stack_outputs(results, out_axes):
    treedef, columns, axes = _output_leaves(results, out_axes)
    out = []
    for k, (col, ax) in enumerate(zip(columns, axes)):
        v0 = col[0]
        if ax is None:
            if not all(_same(v0, v) for v in col[1:]):
                raise ValueError(f"For 'vmap', output leaf {k} differs between examples, so its "
                                 "'out_axes' cannot be None")
            out.append(v0)
        elif v0 is None:
            if any(v is not None for v in col):
                raise ValueError(f"For 'vmap', output leaf {k} is None for some examples only")
            out.append(None)
        elif isinstance(v0, Tensor):
            for i, v in enumerate(col):
                if not isinstance(v, Tensor) or v._data.shape != v0._data.shape \
                        or v._data.dtype != v0._data.dtype:
                    raise ValueError(f"For 'vmap', output leaf {k} must have one shape and dtype "
                                     f"for every example, but example 0 gave {_kind(v0)} and "
                                     f"example {i} gave {_kind(v)}")
            out.append(Stack(_out_axis(ax, v0._data.ndim, k))(col))
        elif isinstance(v0, _NUMBERS):
            if not all(isinstance(v, _NUMBERS) for v in col):
                raise ValueError(f"For 'vmap', output leaf {k} is a number for some examples "
                                 "only")
            _out_axis(ax, 0, k)
            out.append(Tensor(list(col)))
        else:
            raise TypeError(f"For 'vmap', the function must return Tensors, numbers or None "
                            f"(in tuples or lists), but output leaf {k} is a "
                            f"{type(v0).__name__}")
    return _unflatten(treedef, iter(out))


def _kind(v):
    if isinstance(v, Tensor):
        return f"shape {v.shape} and dtype {v.dtype}"
    return type(v).__name__


def _same(a, b):
    if isinstance(a, Tensor) and isinstance(b, Tensor):
        return a._data.shape == b._data.shape and a._data.dtype == b._data.dtype and \
            np.array_equal(a._data, b._data, equal_nan=a._data.dtype.kind in "fc")
    if isinstance(a, Tensor) or isinstance(b, Tensor):
        return False
    return a is b or a == b


def _out_axis(ax, nd, k):
    if not -(nd + 1) <= ax <= nd:
        raise ValueError(f"For 'vmap', the axis {ax} in 'out_axes' is out of range for output "
                         f"leaf {k}, which has {nd} dimensions per example")
    return ax % (nd + 1)


def _empty(fn, leaves, axes, treedef, kwargs, out_axes):
    """The outputs for a batch of size 0: one call on zeros gives their shapes and dtypes."""
    example = [const(np.zeros(np.delete(np.array(leaf._data.shape, dtype=int), ax),
                             leaf._data.dtype)) if ax is not None else leaf
               for leaf, ax in zip(leaves, axes)]
    result = fn(*_unflatten(treedef, iter(example)), **kwargs)
    treedef_out, columns, out_ax = _output_leaves([result], out_axes)
    out = []
    for k, (col, ax) in enumerate(zip(columns, out_ax)):
        v = col[0]
        if ax is None or v is None:
            out.append(v)
        elif isinstance(v, Tensor):
            shape = list(v._data.shape)
            shape.insert(_out_axis(ax, len(shape), k), 0)
            out.append(const(np.zeros(shape, v._data.dtype)))
        elif isinstance(v, _NUMBERS):
            _out_axis(ax, 0, k)
            out.append(const(np.zeros((0,), Tensor(v)._data.dtype)))
        else:
            raise TypeError(f"For 'vmap', the function must return Tensors, numbers or None "
                            f"(in tuples or lists), but output leaf {k} is a "
                            f"{type(v).__name__}")
    return _unflatten(treedef_out, iter(out))
