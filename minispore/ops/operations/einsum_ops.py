"""Einsum: Einstein summation over any number of operands, differentiable to any order."""
import string

import numpy as np

from ..._autodiff.tape import apply
from ...common.tensor import Tensor
from ..primitive import Primitive, register, shared

_LETTERS = string.ascii_letters


def _check_term(term, equation):
    letters = term.replace("...", "", 1)
    if any(c not in _LETTERS for c in letters):
        raise ValueError(f"For 'Einsum', subscripts must be letters, ',', '->' or one '...' per "
                         f"term, but got {equation!r}")
    return term


@register
class Einsum(Primitive):
    """Einstein summation of `equation` (NumPy's rules: an explicit output after '->', else the
    labels used once in alphabetical order; '...' broadcasts; a label repeated within one
    operand takes its diagonal). Called with a tuple of Tensors of one dtype.

    d operand_k = Einsum(dout, the other operands -> operand_k's labels), where a label repeated
    in operand_k puts the gradient on the diagonal (an identity matrix joins the sum), a label
    operand_k holds but no other term does is broadcast (a vector of ones joins), and a size-1
    dim that was broadcast is summed: so every order of gradient is an einsum again."""

    amp_auto = "low"
    inputs = "*"

    def __init__(self, equation):
        super().__init__()
        if not isinstance(equation, str):
            raise TypeError(f"For 'Einsum', 'equation' must be a str, but got "
                            f"{type(equation).__name__}")
        self.equation = equation
        eq = equation.replace(" ", "")
        lhs, arrow, rhs = eq.partition("->")
        if "->" in rhs or not lhs:
            raise ValueError(f"For 'Einsum', the equation must be 'terms' or 'terms->output', "
                             f"but got {equation!r}")
        self._terms = tuple(_check_term(t, equation) for t in lhs.split(","))
        self._out = _check_term(rhs, equation) if arrow else None
        self._plans = {}

    def __call__(self, inputs):
        if isinstance(inputs, Tensor):
            inputs = (inputs,)
        if not isinstance(inputs, (tuple, list)) or not all(
                isinstance(t, Tensor) for t in inputs):
            raise TypeError(f"For 'Einsum', the operands must be a tuple of Tensors, but got "
                            f"{inputs!r}")
        return apply(self, tuple(inputs))

    def save(self, args, out):
        return tuple(args)

    def _plan(self, shapes):
        """(labels of each operand, output labels, size of each label) for these shapes, with
        '...' spelt out in letters the equation does not use (right-aligned, as it broadcasts)."""
        plan = self._plans.get(shapes)
        if plan is not None:
            return plan
        terms, eq = self._terms, self.equation
        if len(shapes) != len(terms):
            raise ValueError(f"For 'Einsum', the equation {eq!r} has {len(terms)} terms but "
                             f"{len(shapes)} operands were given")
        spare = [c for c in _LETTERS if c not in eq]
        extra = []
        for k, (t, s) in enumerate(zip(terms, shapes)):
            named = len(t.replace("...", ""))
            e = len(s) - named if "..." in t else 0
            if e < 0 or ("..." not in t and len(s) != named):
                raise ValueError(f"For 'Einsum', operand {k} has shape {s} but its subscripts "
                                 f"{t!r} in {eq!r} name {named} dims")
            extra.append(e)
        n_ell = max(extra, default=0)
        ell = "".join(spare[:n_ell])
        labels = tuple(t.replace("...", ell[n_ell - e:]) for t, e in zip(terms, extra))
        sizes = {}
        for k, (lab, s) in enumerate(zip(labels, shapes)):
            own = {}
            for c, n in zip(lab, s):
                if own.setdefault(c, n) != n:
                    raise ValueError(f"For 'Einsum', operand {k} of shape {s} repeats a label "
                                     f"over dims of different sizes in {eq!r}")
                have = sizes.get(c, 1)
                if have == 1 or c not in sizes:
                    sizes[c] = n
                elif n not in (1, have):
                    raise ValueError(f"For 'Einsum', the dims labelled {c!r} in {eq!r} do not "
                                     f"match (or broadcast): sizes {have} and {n} in "
                                     f"shapes {shapes}")
        if self._out is None:
            used = "".join(labels)
            out = ell + "".join(sorted(c for c in set(used) - set(ell) if used.count(c) == 1))
        else:
            if n_ell and "..." not in self._out:
                raise ValueError(f"For 'Einsum', the operands have '...' dims but the output of "
                                 f"{eq!r} has no '...'")
            out = self._out.replace("...", ell)
            if len(set(out)) != len(out) or any(c not in sizes for c in out):
                raise ValueError(f"For 'Einsum', each output label of {eq!r} must appear once "
                                 f"and in some operand")
        plan = (labels, out, sizes, ",".join(labels) + "->" + out)
        if len(self._plans) >= 64:
            self._plans.clear()
        self._plans[shapes] = plan
        return plan

    def forward(self, *xs):
        if not xs:
            raise ValueError("For 'Einsum', at least one operand is needed")
        if any(x.dtype != xs[0].dtype for x in xs):
            raise TypeError(f"For 'Einsum', all operands must have one dtype, but got "
                            f"{[str(x.dtype) for x in xs]}")
        eq = self._plan(tuple(x.shape for x in xs))[3]
        # perf: with two or more operands the optimised path contracts through BLAS
        return np.asarray(np.einsum(eq, *xs, optimize=len(xs) > 1))

    def bprop(self, saved, dout, needs):
        labels, out, sizes, _ = self._plan(tuple(x.shape for x in saved))
        return tuple(_operand_grad(k, saved, labels, out, sizes, dout) if need else None
                     for k, need in enumerate(needs))


def _operand_grad(k, xs, labels, out, sizes, dout):
    """The gradient of operand k: one Einsum of dout, the other operands and constants."""
    own = labels[k]
    # labels some other term carries at their full (broadcast) size
    full = set(out).union(*(
        (c for c, n in zip(lab, x.shape) if n == sizes[c])
        for j, (lab, x) in enumerate(zip(labels, xs)) if j != k))
    spare = iter(c for c in _LETTERS if c not in "".join(labels) + out)
    dtype = dout._data.dtype
    target, terms, consts = [], [], []
    for p, (c, n) in enumerate(zip(own, xs[k].shape)):
        if n == sizes[c] and c not in own[:p]:
            target.append(c)
            if c not in full:  # no other term spans it: the gradient is constant along it
                terms.append(c)
                consts.append(np.ones(n, dtype))
            continue
        f = next(spare, None)
        if f is None:
            raise ValueError(f"For 'Einsum', the gradient of {','.join(labels)}->{out} needs "
                             f"more than {len(_LETTERS)} distinct labels")
        target.append(f)
        if n != sizes[c]:  # a size-1 dim broadcast against the others: summed over
            terms.append(f)
            consts.append(np.ones(1, dtype))
        else:  # a repeated label: the gradient lies on the diagonal
            terms.append(c + f)
            consts.append(np.eye(n, dtype=dtype))
    eq = ",".join([out] + [lab for j, lab in enumerate(labels) if j != k] + terms) + "->" + \
        "".join(target)
    operands = (dout,) + tuple(x for j, x in enumerate(xs) if j != k) + tuple(
        Tensor(a) for a in consts)
    return apply(shared(Einsum, eq), operands)
