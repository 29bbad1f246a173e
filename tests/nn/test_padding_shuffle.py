"""nn padding cells (ConstantPad, ReflectionPad, ReplicationPad 1d/2d/3d) and PixelShuffle,
PixelUnshuffle, ChannelShuffle: outputs equal MindSpore 2.10's (CPU), MindSpore's signatures and
exception types, gradients (to second order) against central differences.

MS_CASES was made with MindSpore 2.10 on CPU by running, for each (name, args, shape):

    x = (np.arange(np.prod(shape), dtype=np.float32) + 1).reshape(shape)
    y = getattr(mindspore.nn, name)(*args)(mindspore.Tensor(x)).asnumpy()

and writing y.shape and y.ravel() below.
"""
import inspect

import numpy as np
import pytest

from minispore import Tensor
from minispore.nn.layer import padding as P
from minispore.testing import check_grads

# name, constructor args, input shape (input: arange + 1, float32), MindSpore 2.10's output
# shape and its values in C order (made by the script in this module's docstring).
MS_CASES = [
    ('ConstantPad1d', ((1, 2), 0.5), (2, 3, 4), (2, 3, 7),
     [0.5, 1, 2, 3, 4, 0.5, 0.5, 0.5, 5, 6, 7, 8, 0.5, 0.5, 0.5, 9, 10, 11, 12, 0.5, 0.5, 0.5, 13,
      14, 15, 16, 0.5, 0.5, 0.5, 17, 18, 19, 20, 0.5, 0.5, 0.5, 21, 22, 23, 24, 0.5, 0.5]),
    ('ConstantPad1d', (2, -1.0), (3, 4), (3, 8),
     [-1, -1, 1, 2, 3, 4, -1, -1, -1, -1, 5, 6, 7, 8, -1, -1, -1, -1, 9, 10, 11, 12, -1, -1]),
    ('ConstantPad1d', ((-1, 2), 3), (1, 2, 4), (1, 2, 5),
     [2, 3, 4, 3, 3, 6, 7, 8, 3, 3]),
    ('ConstantPad1d', ((1, 1), 0.5), (5,), (7,),
     [0.5, 1, 2, 3, 4, 5, 0.5]),
    ('ConstantPad2d', ((1, 1, 0, 2), 0.5), (1, 2, 3, 4), (1, 2, 5, 6),
     [0.5, 1, 2, 3, 4, 0.5, 0.5, 5, 6, 7, 8, 0.5, 0.5, 9, 10, 11, 12, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5,
      0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 13, 14, 15, 16, 0.5, 0.5, 17, 18, 19, 20, 0.5, 0.5,
      21, 22, 23, 24, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5]),
    ('ConstantPad2d', (1, 0.0), (2, 3), (4, 5),
     [0, 0, 0, 0, 0, 0, 1, 2, 3, 0, 0, 4, 5, 6, 0, 0, 0, 0, 0, 0]),
    ('ConstantPad2d', ((1, 2), 1.5), (2, 3, 4), (2, 3, 7),
     [1.5, 1, 2, 3, 4, 1.5, 1.5, 1.5, 5, 6, 7, 8, 1.5, 1.5, 1.5, 9, 10, 11, 12, 1.5, 1.5, 1.5, 13,
      14, 15, 16, 1.5, 1.5, 1.5, 17, 18, 19, 20, 1.5, 1.5, 1.5, 21, 22, 23, 24, 1.5, 1.5]),
    ('ConstantPad2d', ((1, -1, -1, 2), 2.0), (2, 3, 4), (2, 4, 4),
     [2, 5, 6, 7, 2, 9, 10, 11, 2, 2, 2, 2, 2, 2, 2, 2, 2, 17, 18, 19, 2, 21, 22, 23, 2, 2, 2, 2,
      2, 2, 2, 2]),
    ('ConstantPad3d', (1, 0.5), (1, 2, 2, 3), (1, 4, 4, 5),
     [0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5,
      0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 1, 2, 3, 0.5, 0.5, 4, 5, 6, 0.5, 0.5, 0.5, 0.5, 0.5,
      0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 7, 8, 9, 0.5, 0.5, 10, 11, 12, 0.5, 0.5, 0.5, 0.5, 0.5,
      0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5,
      0.5, 0.5, 0.5]),
    ('ConstantPad3d', ((1, 0, 0, 1, 2, 1), -1.0), (2, 2, 3), (5, 3, 4),
     [-1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1,
      -1, -1, 1, 2, 3, -1, 4, 5, 6, -1, -1, -1, -1, -1, 7, 8, 9, -1, 10, 11, 12, -1, -1, -1, -1,
      -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1]),
    ('ConstantPad3d', ((1, 1, 1, 1), 0.5), (1, 2, 3), (1, 4, 5),
     [0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 1, 2, 3, 0.5, 0.5, 4, 5, 6, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5]),
    ('ReflectionPad1d', ((3, 1),), (1, 2, 4), (1, 2, 8),
     [4, 3, 2, 1, 2, 3, 4, 3, 8, 7, 6, 5, 6, 7, 8, 7]),
    ('ReflectionPad1d', (2,), (2, 3), (2, 7),
     [3, 2, 1, 2, 3, 2, 1, 6, 5, 4, 5, 6, 5, 4]),
    ('ReflectionPad1d', (1,), (1, 2, 3, 4), (1, 2, 3, 6),
     [2, 1, 2, 3, 4, 3, 6, 5, 6, 7, 8, 7, 10, 9, 10, 11, 12, 11, 14, 13, 14, 15, 16, 15, 18, 17,
      18, 19, 20, 19, 22, 21, 22, 23, 24, 23]),
    ('ReflectionPad1d', ((1, 1, 1, 1),), (2, 3, 4), (2, 5, 6),
     [6, 5, 6, 7, 8, 7, 2, 1, 2, 3, 4, 3, 6, 5, 6, 7, 8, 7, 10, 9, 10, 11, 12, 11, 6, 5, 6, 7, 8,
      7, 18, 17, 18, 19, 20, 19, 14, 13, 14, 15, 16, 15, 18, 17, 18, 19, 20, 19, 22, 21, 22, 23,
      24, 23, 18, 17, 18, 19, 20, 19]),
    ('ReflectionPad2d', (1,), (1, 2, 3), (1, 4, 5),
     [5, 4, 5, 6, 5, 2, 1, 2, 3, 2, 5, 4, 5, 6, 5, 2, 1, 2, 3, 2]),
    ('ReflectionPad2d', ((1, 2, 2, 0),), (1, 1, 3, 4), (1, 1, 5, 7),
     [10, 9, 10, 11, 12, 11, 10, 6, 5, 6, 7, 8, 7, 6, 2, 1, 2, 3, 4, 3, 2, 6, 5, 6, 7, 8, 7, 6, 10,
      9, 10, 11, 12, 11, 10]),
    ('ReflectionPad2d', ((2, 1, 1, 1),), (3, 4), (5, 7),
     [7, 6, 5, 6, 7, 8, 7, 3, 2, 1, 2, 3, 4, 3, 7, 6, 5, 6, 7, 8, 7, 11, 10, 9, 10, 11, 12, 11, 7,
      6, 5, 6, 7, 8, 7]),
    ('ReflectionPad2d', (1,), (1, 1, 2, 3, 3), (1, 1, 2, 5, 5),
     [5, 4, 5, 6, 5, 2, 1, 2, 3, 2, 5, 4, 5, 6, 5, 8, 7, 8, 9, 8, 5, 4, 5, 6, 5, 14, 13, 14, 15,
      14, 11, 10, 11, 12, 11, 14, 13, 14, 15, 14, 17, 16, 17, 18, 17, 14, 13, 14, 15, 14]),
    ('ReflectionPad3d', (1,), (1, 2, 2, 3), (1, 4, 4, 5),
     [11, 10, 11, 12, 11, 8, 7, 8, 9, 8, 11, 10, 11, 12, 11, 8, 7, 8, 9, 8, 5, 4, 5, 6, 5, 2, 1, 2,
      3, 2, 5, 4, 5, 6, 5, 2, 1, 2, 3, 2, 11, 10, 11, 12, 11, 8, 7, 8, 9, 8, 11, 10, 11, 12, 11, 8,
      7, 8, 9, 8, 5, 4, 5, 6, 5, 2, 1, 2, 3, 2, 5, 4, 5, 6, 5, 2, 1, 2, 3, 2]),
    ('ReflectionPad3d', ((1, 2, 0, 1, 1, 0),), (2, 3, 4), (3, 4, 7),
     [14, 13, 14, 15, 16, 15, 14, 18, 17, 18, 19, 20, 19, 18, 22, 21, 22, 23, 24, 23, 22, 18, 17,
      18, 19, 20, 19, 18, 2, 1, 2, 3, 4, 3, 2, 6, 5, 6, 7, 8, 7, 6, 10, 9, 10, 11, 12, 11, 10, 6,
      5, 6, 7, 8, 7, 6, 14, 13, 14, 15, 16, 15, 14, 18, 17, 18, 19, 20, 19, 18, 22, 21, 22, 23, 24,
      23, 22, 18, 17, 18, 19, 20, 19, 18]),
    ('ReplicationPad1d', ((3, 1),), (1, 2, 4), (1, 2, 8),
     [1, 1, 1, 1, 2, 3, 4, 4, 5, 5, 5, 5, 6, 7, 8, 8]),
    ('ReplicationPad1d', (2,), (2, 3), (2, 7),
     [1, 1, 1, 2, 3, 3, 3, 4, 4, 4, 5, 6, 6, 6]),
    ('ReplicationPad1d', ((-1, 2),), (1, 2, 4), (1, 2, 5),
     [2, 3, 4, 4, 4, 6, 7, 8, 8, 8]),
    ('ReplicationPad2d', (1,), (1, 2, 3), (1, 4, 5),
     [1, 1, 2, 3, 3, 1, 1, 2, 3, 3, 4, 4, 5, 6, 6, 4, 4, 5, 6, 6]),
    ('ReplicationPad2d', ((1, 2, 2, 0),), (1, 1, 3, 4), (1, 1, 5, 7),
     [1, 1, 2, 3, 4, 4, 4, 1, 1, 2, 3, 4, 4, 4, 1, 1, 2, 3, 4, 4, 4, 5, 5, 6, 7, 8, 8, 8, 9, 9, 10,
      11, 12, 12, 12]),
    ('ReplicationPad2d', ((2, -1, 1, 3),), (1, 2, 3), (1, 6, 4),
     [1, 1, 1, 2, 1, 1, 1, 2, 4, 4, 4, 5, 4, 4, 4, 5, 4, 4, 4, 5, 4, 4, 4, 5]),
    ('ReplicationPad3d', (1,), (1, 2, 2, 3), (1, 4, 4, 5),
     [1, 1, 2, 3, 3, 1, 1, 2, 3, 3, 4, 4, 5, 6, 6, 4, 4, 5, 6, 6, 1, 1, 2, 3, 3, 1, 1, 2, 3, 3, 4,
      4, 5, 6, 6, 4, 4, 5, 6, 6, 7, 7, 8, 9, 9, 7, 7, 8, 9, 9, 10, 10, 11, 12, 12, 10, 10, 11, 12,
      12, 7, 7, 8, 9, 9, 7, 7, 8, 9, 9, 10, 10, 11, 12, 12, 10, 10, 11, 12, 12]),
    ('ReplicationPad3d', ((1, 2, 0, 1, 2, 0),), (1, 1, 2, 2, 3), (1, 1, 4, 3, 6),
     [1, 1, 2, 3, 3, 3, 4, 4, 5, 6, 6, 6, 4, 4, 5, 6, 6, 6, 1, 1, 2, 3, 3, 3, 4, 4, 5, 6, 6, 6, 4,
      4, 5, 6, 6, 6, 1, 1, 2, 3, 3, 3, 4, 4, 5, 6, 6, 6, 4, 4, 5, 6, 6, 6, 7, 7, 8, 9, 9, 9, 10,
      10, 11, 12, 12, 12, 10, 10, 11, 12, 12, 12]),
    ('PixelShuffle', (2,), (1, 8, 2, 3), (1, 2, 4, 6),
     [1, 7, 2, 8, 3, 9, 13, 19, 14, 20, 15, 21, 4, 10, 5, 11, 6, 12, 16, 22, 17, 23, 18, 24, 25,
      31, 26, 32, 27, 33, 37, 43, 38, 44, 39, 45, 28, 34, 29, 35, 30, 36, 40, 46, 41, 47, 42, 48]),
    ('PixelShuffle', (2,), (8, 2, 2), (2, 4, 4),
     [1, 5, 2, 6, 9, 13, 10, 14, 3, 7, 4, 8, 11, 15, 12, 16, 17, 21, 18, 22, 25, 29, 26, 30, 19,
      23, 20, 24, 27, 31, 28, 32]),
    ('PixelShuffle', (3,), (2, 1, 9, 1, 2), (2, 1, 1, 3, 6),
     [1, 3, 5, 2, 4, 6, 7, 9, 11, 8, 10, 12, 13, 15, 17, 14, 16, 18, 19, 21, 23, 20, 22, 24, 25,
      27, 29, 26, 28, 30, 31, 33, 35, 32, 34, 36]),
    ('PixelUnshuffle', (2,), (1, 2, 4, 6), (1, 8, 2, 3),
     [1, 3, 5, 13, 15, 17, 2, 4, 6, 14, 16, 18, 7, 9, 11, 19, 21, 23, 8, 10, 12, 20, 22, 24, 25,
      27, 29, 37, 39, 41, 26, 28, 30, 38, 40, 42, 31, 33, 35, 43, 45, 47, 32, 34, 36, 44, 46, 48]),
    ('PixelUnshuffle', (2,), (1, 4, 2), (4, 2, 1),
     [1, 5, 2, 6, 3, 7, 4, 8]),
    ('PixelUnshuffle', (3,), (2, 1, 1, 3, 6), (2, 1, 9, 1, 2),
     [1, 4, 2, 5, 3, 6, 7, 10, 8, 11, 9, 12, 13, 16, 14, 17, 15, 18, 19, 22, 20, 23, 21, 24, 25,
      28, 26, 29, 27, 30, 31, 34, 32, 35, 33, 36]),
    ('ChannelShuffle', (2,), (1, 4, 2, 2), (1, 4, 2, 2),
     [1, 2, 3, 4, 9, 10, 11, 12, 5, 6, 7, 8, 13, 14, 15, 16]),
    ('ChannelShuffle', (3,), (2, 6), (2, 6),
     [1, 3, 5, 2, 4, 6, 7, 9, 11, 8, 10, 12]),
    ('ChannelShuffle', (2,), (1, 4, 3), (1, 4, 3),
     [1, 2, 3, 7, 8, 9, 4, 5, 6, 10, 11, 12]),
    ('ChannelShuffle', (2,), (1, 4, 1, 2, 2), (1, 4, 1, 2, 2),
     [1, 2, 3, 4, 9, 10, 11, 12, 5, 6, 7, 8, 13, 14, 15, 16]),
]


def _input(shape, dtype=np.float32):
    return (np.arange(int(np.prod(shape)), dtype=dtype) + 1).reshape(shape)


@pytest.mark.parametrize("name,args,shape,out_shape,values", MS_CASES,
                         ids=[f"{c[0]}-{k}" for k, c in enumerate(MS_CASES)])
def test_matches_mindspore(name, args, shape, out_shape, values):
    y = getattr(P, name)(*args)(Tensor(_input(shape)))
    got = y.asnumpy()
    assert got.dtype == np.float32
    assert got.shape == out_shape
    np.testing.assert_array_equal(got.ravel(), np.array(values, np.float32))


@pytest.mark.parametrize("name,args,shape,out_shape,values", MS_CASES,
                         ids=[f"{c[0]}-{k}" for k, c in enumerate(MS_CASES)])
def test_gradients(name, args, shape, out_shape, values):
    cell = getattr(P, name)(*args)
    x = np.random.default_rng(len(values)).standard_normal(shape)
    check_grads(lambda t: cell(t), (Tensor(x),), order=2)


# MindSpore 2.10's signatures (inspect.signature on mindspore.nn.<name>).
SIGNATURES = {
    "ConstantPad1d": "(padding, value)", "ConstantPad2d": "(padding, value)",
    "ConstantPad3d": "(padding, value)", "ReflectionPad1d": "(padding)",
    "ReflectionPad2d": "(padding)", "ReflectionPad3d": "(padding)",
    "ReplicationPad1d": "(padding)", "ReplicationPad2d": "(padding)",
    "ReplicationPad3d": "(padding)", "PixelShuffle": "(upscale_factor)",
    "PixelUnshuffle": "(downscale_factor)", "ChannelShuffle": "(groups)",
}


def test_signatures_and_all():
    assert sorted(P.__all__) == sorted(SIGNATURES)
    for name, sig in SIGNATURES.items():
        assert str(inspect.signature(getattr(P, name))) == sig, name


def _t(*shape):
    return Tensor(_input(shape))


# Each raises the exception type MindSpore 2.10 raises for the same call (the constructor
# checks of PixelShuffle / PixelUnshuffle run at construction here, at the first call there).
BAD = [
    ("CP1d list", lambda: P.ConstantPad1d([1, 2], 0.5), TypeError, "padding"),
    ("CP1d float", lambda: P.ConstantPad1d(1.5, 0.5), TypeError, "padding"),
    ("CP1d float element", lambda: P.ConstantPad1d((1.0, 2), 0.5), TypeError, "padding"),
    ("CP1d len 3", lambda: P.ConstantPad1d((1, 2, 1), 0.5), ValueError, "multiple of 2"),
    ("CP1d len 4", lambda: P.ConstantPad1d((1, 2, 1, 1), 0.5), ValueError, "must be 2"),
    ("CP2d len 6", lambda: P.ConstantPad2d((1,) * 6, 0.5), ValueError, "at most 4"),
    ("CP3d len 8", lambda: P.ConstantPad3d((1,) * 8, 0.5), ValueError, "at most 6"),
    ("CP value str", lambda: P.ConstantPad1d(1, "0"), TypeError, "value"),
    ("CP3d rank", lambda: P.ConstantPad3d(1, 0.5)(_t(2, 2)), ValueError, "rank"),
    ("CP empty out", lambda: P.ConstantPad1d((-3, -1), 1.0)(_t(2, 3, 4)), ValueError,
     "positive"),
    ("CP not tensor", lambda: P.ConstantPad1d(1, 1.0)(np.ones((1, 2), np.float32)), TypeError,
     "Tensor"),
    ("Refl list", lambda: P.ReflectionPad1d([1, 1]), TypeError, "padding"),
    ("Refl float", lambda: P.ReflectionPad1d(1.0), TypeError, "padding"),
    ("Refl float element", lambda: P.ReflectionPad2d((1.0, 1, 1, 1)), TypeError, "int"),
    ("Refl len 3", lambda: P.ReflectionPad1d((1, 1, 1)), ValueError, "multiple of 2"),
    ("Refl negative", lambda: P.ReflectionPad1d((-1, 1)), ValueError, ">= 0"),
    ("Refl pad = size", lambda: P.ReflectionPad1d(4)(_t(2, 3, 4)), ValueError, "smaller"),
    ("Refl2d rank", lambda: P.ReflectionPad2d((1,) * 6)(_t(2, 3)), ValueError, "rank"),
    ("Refl3d rank", lambda: P.ReflectionPad3d(1)(_t(3, 3)), ValueError, "rank"),
    ("Refl not tensor", lambda: P.ReflectionPad1d(1)(np.ones((1, 2, 3))), TypeError, "Tensor"),
    ("Rep list", lambda: P.ReplicationPad1d([1, 1]), TypeError, "padding"),
    ("Rep float element", lambda: P.ReplicationPad1d((1.0, 1)), TypeError, "int"),
    ("Rep len 3", lambda: P.ReplicationPad1d((1, 1, 1)), ValueError, "multiple of 2"),
    ("Rep1d 1-D", lambda: P.ReplicationPad1d(1)(_t(3)), ValueError, "rank 2 or 3"),
    ("Rep1d 4-D", lambda: P.ReplicationPad1d(1)(_t(1, 2, 3, 4)), ValueError, "rank 2 or 3"),
    ("Rep1d len 4", lambda: P.ReplicationPad1d((1,) * 4)(_t(2, 3, 4)), ValueError, "rank 4"),
    ("Rep2d 2-D", lambda: P.ReplicationPad2d(1)(_t(2, 3)), ValueError, "rank 3 or 4"),
    ("Rep2d 5-D", lambda: P.ReplicationPad2d(1)(_t(1, 1, 2, 3, 3)), ValueError, "rank 3 or 4"),
    ("Rep2d len 2", lambda: P.ReplicationPad2d((1, 1))(_t(1, 2, 3, 4)), ValueError, "rank 3"),
    ("Rep3d 3-D", lambda: P.ReplicationPad3d(1)(_t(2, 3, 4)), ValueError, "rank 4 or 5"),
    ("Rep not tensor", lambda: P.ReplicationPad1d(1)(np.ones((1, 2, 3))), TypeError, "Tensor"),
    ("PS 0", lambda: P.PixelShuffle(0), ValueError, "upscale_factor"),
    ("PS -1", lambda: P.PixelShuffle(-1), ValueError, "upscale_factor"),
    ("PS float", lambda: P.PixelShuffle(2.0), TypeError, "upscale_factor"),
    ("PS bool", lambda: P.PixelShuffle(True), TypeError, "upscale_factor"),
    ("PS 2-D", lambda: P.PixelShuffle(2)(_t(8, 2)), ValueError, "rank"),
    ("PS channels", lambda: P.PixelShuffle(2)(_t(1, 6, 2, 3)), ValueError, "divisible"),
    ("PS not tensor", lambda: P.PixelShuffle(2)(np.ones((1, 4, 2, 2))), TypeError, "Tensor"),
    ("PU 0", lambda: P.PixelUnshuffle(0), ValueError, "downscale_factor"),
    ("PU float", lambda: P.PixelUnshuffle(2.0), TypeError, "downscale_factor"),
    ("PU 2-D", lambda: P.PixelUnshuffle(2)(_t(4, 6)), ValueError, "rank"),
    ("PU H W", lambda: P.PixelUnshuffle(2)(_t(1, 2, 4, 5)), ValueError, "divisible"),
    ("CS 0", lambda: P.ChannelShuffle(0), ValueError, "groups"),
    ("CS float", lambda: P.ChannelShuffle(2.0), TypeError, "groups"),
    ("CS channels", lambda: P.ChannelShuffle(3)(_t(1, 4, 2, 2)), ValueError, "divisible"),
    ("CS not tensor", lambda: P.ChannelShuffle(2)(np.ones((1, 4, 2, 2))), TypeError, "Tensor"),
]


@pytest.mark.parametrize("label,call,exc,words", BAD, ids=[b[0] for b in BAD])
def test_bad_arguments(label, call, exc, words):
    with pytest.raises(exc, match=f"^For '[A-Za-z0-9]+', .*{words}"):
        call()


def test_integer_inputs_keep_their_dtype():
    # MindSpore 2.10: ConstantPad1d(1, 2.7) on int32 ones pads with 2 and stays int32.
    y = P.ConstantPad1d(1, 2.7)(Tensor(np.ones((2, 3), np.int32))).asnumpy()
    assert y.dtype == np.int32
    np.testing.assert_array_equal(y, [[2, 1, 1, 1, 2]] * 2)
    x = np.arange(8, dtype=np.int32).reshape(1, 4, 2, 1)
    assert P.ChannelShuffle(2)(Tensor(x)).asnumpy().dtype == np.int32


def test_zero_reflection_padding_is_identity():
    x = _t(2, 3)
    assert P.ReflectionPad1d(0)(x).shape == (2, 3)
    assert P.ReflectionPad1d(())(x).shape == (2, 3)


def test_pixel_unshuffle_inverts_pixel_shuffle():
    x = _t(2, 18, 2, 3)
    y = P.PixelUnshuffle(3)(P.PixelShuffle(3)(x))
    np.testing.assert_array_equal(y.asnumpy(), x.asnumpy())


def test_repr():
    assert repr(P.ConstantPad2d(1, 0.5)) == "ConstantPad2d(padding=(1, 1, 1, 1), value=0.5)"
    assert repr(P.ChannelShuffle(2)) == "ChannelShuffle(groups=2)"
