"""Make mindspore_numpy.npz: the inputs, and for each case of numpy_cases.py the outputs (values,
dtypes) or the exception type of MindSpore 2.10's `mindspore.numpy`, gradients of GRAD_CASES, and
the signatures of all its public names. Run with real MindSpore (CPU), from the project root:

    /tmp/msvenv/bin/python tests/numpy/data/make_mindspore_numpy.py
"""
import inspect
import json
import os
import sys

import mindspore as ms
import mindspore.numpy as mnp
import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from numpy_cases import CASES, GRAD_CASES, PROBES, make_inputs, tensor_tutorial

HERE = os.path.dirname(os.path.abspath(__file__))


def flatten(value):
    """A case's result as a list of (ndarray, dtype name)."""
    if isinstance(value, (tuple, list)):
        return [item for v in value for item in flatten(v)]
    if isinstance(value, ms.Tensor):
        return [(value.asnumpy(), str(value.dtype))]
    if isinstance(value, (bool, int, float)):
        return [(np.array(value), type(value).__name__)]
    return [(np.array(str(value)), "str")]


def settle():
    """Runs trivial ops until one succeeds: after a failing call, MindSpore's PyNative runtime
    may raise that failure again from the next op."""
    for _ in range(5):
        try:
            (ms.Tensor(np.ones(2, np.float32)) + 1).asnumpy()
            return
        except Exception:  # noqa: BLE001, S112
            continue


def main():
    inputs = make_inputs()
    data = {f"in_{k}": v for k, v in inputs.items()}
    env = {"mnp": mnp, "np": np, **{k: ms.Tensor(v) for k, v in inputs.items()}}
    meta = {}
    for name, expr in CASES + PROBES:
        try:
            outs = flatten(eval(expr, env))
        except Exception as exc:  # noqa: BLE001
            meta[name] = "raises " + type(exc).__name__
            print(name, "raises", type(exc).__name__, str(exc)[:200].replace("\n", " "))
            settle()
            continue
        meta[name] = [d for _, d in outs]
        for n, (arr, _) in enumerate(outs):
            data[f"out_{name}_{n}"] = arr
    for name, fn, arg in GRAD_CASES:
        f = eval(fn, env)
        try:
            data[f"grad_{name}"] = ms.grad(lambda x, f=f: f(x).sum())(env[arg]).asnumpy()
        except Exception as exc:  # noqa: BLE001
            print("grad", name, "raises", type(exc).__name__, str(exc)[:200].replace("\n", " "))
    with open(os.path.join(HERE, "mindspore_numpy_names.json")) as fh:
        names = json.load(fh)
    sigs = {}
    for n in names:
        try:
            sigs[n] = str(inspect.signature(getattr(mnp, n)))
        except (TypeError, ValueError):
            sigs[n] = None
    data["meta"] = np.array(json.dumps({"cases": meta, "signatures": sigs}))
    data.update(tutorial())
    np.savez_compressed(os.path.join(HERE, "mindspore_numpy.npz"), **data)



def tutorial():
    """The tutorial calls' results, for test_tutorial.py."""
    data = {}
    dtypes = {}
    for name, value in tensor_tutorial(ms, mnp).items():
        data[f"tut_{name}"] = value.asnumpy()
        dtypes[name] = str(value.dtype)
    data["tut_meta"] = np.array(json.dumps(dtypes))
    return data


if __name__ == "__main__":
    main()
