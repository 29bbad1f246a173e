"""Make mindspore_special.npz: inputs, outputs and gradients of MindSpore 2.10's special
functions and remaining elementwise math (ops.bessel_*, ops.igamma, ops.xlogy, ops.cummax, ...),
and the signatures of those names, for tests/ops/test_special_family.py. Run with real MindSpore
(CPU):

    /tmp/msvenv/bin/python tests/ops/data/make_mindspore_special.py

Each case is an expression over x0, x1, ... that reads the same in MindSpore and minispore; the
npz keeps the expression, the inputs, every output, a random cotangent per float output and
the gradients of sum(output * cotangent) with respect to the float inputs named in `diff`.
Names whose CPU kernels fail in MindSpore 2.10 (fmin, quantile, nanquantile, fills,
AccumulateNV2, CountNonZero, LerpScalar, the gradients of cummax/cummin) are tested against
NumPy in the test file instead.
"""
import inspect
import json
import os

import mindspore as ms
import numpy as np
from mindspore import Tensor, ops

rng = np.random.default_rng(0)


def f32(*shape, low=-2.0, high=2.0):
    return rng.uniform(low, high, shape).astype(np.float32)


def ints(*shape, low=-20, high=20, dtype=np.int32):
    return rng.integers(low, high, shape).astype(dtype)


POS = {"low": 0.2, "high": 3.0}
UNIT = {"low": 0.05, "high": 0.95}
V = np.array([[1., 3., 3., 2., 5., 5.], [4., 2., 2., 1., 7., 0.]], np.float32)
DISTINCT = (rng.permutation(24).reshape(2, 3, 4) * 0.25 - 3).astype(np.float32)

# (name, expression, inputs, positions of the inputs to differentiate)
CASES = [(f"bessel_{k}", f"ops.bessel_{k}(x0)", [f32(3, 4)], (0,))
         for k in ("i0", "i0e", "i1", "i1e", "j0", "j1")]
CASES += [(f"bessel_{k}", f"ops.bessel_{k}(x0)", [f32(3, 4, **POS)], (0,))
          for k in ("k0", "k0e", "k1", "k1e", "y0", "y1")]
CASES += [
    ("i0", "ops.i0(x0)", [f32(5)], (0,)),
    ("bessel_j0_f64", "ops.bessel_j0(x0)", [f32(4).astype(np.float64)], (0,)),
    ("bessel_i1_f16", "ops.bessel_i1(x0)", [f32(4).astype(np.float16)], ()),
    ("lgamma", "ops.lgamma(x0)", [f32(3, 4, low=-3.3, high=4)], (0,)),
    ("lgamma_int", "ops.lgamma(x0)", [ints(5, low=1, high=9)], ()),
    ("digamma", "ops.digamma(x0)", [f32(3, 4, **POS)], (0,)),
    ("polygamma", "ops.polygamma(x0, x1)", [np.array(2, np.int64), f32(3, 4, **POS)], (1,)),
    ("polygamma0", "ops.polygamma(x0, x1)", [np.array(0, np.int32), f32(4, **POS)], (1,)),
    ("mvlgamma", "ops.mvlgamma(x0, 3)", [f32(2, 3, low=1.1, high=4)], (0,)),
    ("Mvlgamma", "ops.Mvlgamma(p=2)(x0)", [f32(4, low=0.6, high=4)], (0,)),
    ("igamma", "ops.igamma(x0, x1)", [f32(3, 4, **POS), f32(3, 4, **POS)], (0, 1)),
    ("igammac", "ops.igammac(x0, x1)", [f32(3, 4, **POS), f32(3, 4, **POS)], (0, 1)),
    ("igamma_bcast", "ops.igamma(x0, x1)", [f32(3, 1, **POS), f32(4, **POS)], (0, 1)),
    ("igamma_edge", "ops.igamma(x0, x1)", [np.array([0., 1., -1., 1., 2.], np.float32),
                                           np.array([1., 0., 1., -1., 0.], np.float32)], ()),
    ("igamma_f64", "ops.igamma(x0, x1)", [f32(5, **POS).astype(np.float64),
                                          f32(5, low=0.1, high=9).astype(np.float64)], (0, 1)),
    ("betainc", "ops.Betainc()(x0, x1, x2)", [f32(6, **POS), f32(6, **POS), f32(6, **UNIT)],
     (0, 1, 2)),
    ("zeta", "ops.zeta(x0, x1)", [f32(6, low=1.2, high=4), f32(6, **POS)], (0, 1)),
    ("sinc", "ops.sinc(x0)", [np.array([0., 0.5, -1.5, 2.25, 0.05], np.float32)], (0,)),
    ("sinc_int", "ops.sinc(x0)", [ints(4)], ()),
    ("xlogy", "ops.xlogy(x0, x1)", [f32(3, 4), f32(3, 4, **POS)], (0, 1)),
    ("xlogy_scalar", "ops.xlogy(x0, 2.5)", [f32(4)], (0,)),
    ("xdivy", "ops.xdivy(x0, x1)", [f32(3, 4), f32(3, 4, **POS)], (0, 1)),
    ("xdivy_zero", "ops.xdivy(x0, x1)", [np.array([0., 0., 1.], np.float32),
                                         np.array([0., 2., 0.], np.float32)], ()),
    ("logit", "ops.logit(x0)", [f32(8, **UNIT)], (0,)),
    ("logit_eps", "ops.logit(x0, 0.2)", [np.array([0.1, 0.3, 0.5, 0.7, 0.9, 0.0, 1.0],
                                                  np.float32)], (0,)),
    ("Logit", "ops.Logit(0.1)(x0)", [f32(6, low=0.15, high=0.85)], (0,)),
    ("nan_to_num", "ops.nan_to_num(x0)", [np.array([np.nan, np.inf, -np.inf, 1.5],
                                                   np.float32)], (0,)),
    ("nan_to_num_args", "ops.nan_to_num(x0, 1.0, 2.0, -3.0)",
     [np.array([np.nan, np.inf, -np.inf, 1.5], np.float32)], ()),
    ("nan_to_num_f16", "ops.nan_to_num(x0)", [np.array([np.nan, np.inf, -np.inf], np.float16)],
     ()),
    ("gcd", "ops.gcd(x0, x1)", [ints(3, 4), ints(3, 4)], ()),
    ("gcd_bcast", "ops.gcd(x0, x1)", [ints(3, 1, dtype=np.int64), ints(4, dtype=np.int64)], ()),
    ("lcm", "ops.lcm(x0, x1)", [ints(3, 4), ints(3, 4)], ()),
    ("heaviside", "ops.heaviside(x0, x1)", [np.array([-1., 0., 2., 0.], np.float32),
                                            np.array([0.5, 0.25, 0.5, 3.], np.float32)], ()),
    ("heaviside_int", "ops.heaviside(x0, x1)", [np.array([-1, 0, 2], np.int32),
                                                np.array([7], np.int32)], ()),
    ("hypot", "ops.hypot(x0, x1)", [f32(3, 4), f32(3, 4)], (0, 1)),
    ("fmax", "ops.fmax(x0, x1)", [np.array([np.nan, 1., np.nan, 2., -1.], np.float32),
                                  np.array([2., np.nan, np.nan, 3., -2.], np.float32)], (0, 1)),
    ("fmax_int", "ops.fmax(x0, x1)", [ints(4), ints(4)], ()),
    ("nextafter", "ops.nextafter(x0, x1)", [f32(5), f32(5)], (0, 1)),
    ("nextafter_f64", "ops.nextafter(x0, x1)", [f32(5).astype(np.float64),
                                                f32(5).astype(np.float64)], ()),
    ("copysign", "ops.copysign(x0, x1)", [f32(6), f32(6)], (0,)),
    ("copysign_scalar", "ops.copysign(x0, -1.0)", [f32(4)], (0,)),
    ("copysign_int", "ops.copysign(x0, x1)", [ints(4), f32(4)], ()),
    ("ldexp", "ops.ldexp(x0, x1)", [f32(5), ints(5, low=-3, high=4)], (0,)),
    ("ldexp_float", "ops.ldexp(x0, x1)", [f32(5), f32(5)], (0, 1)),
    ("frac", "ops.frac(x0)", [f32(6) * 3], (0,)),
    ("frac_int", "ops.frac(x0)", [ints(4)], ()),
    ("float_power", "ops.float_power(x0, x1)", [f32(5, **POS), f32(5)], (0, 1)),
    ("float_power_scalar", "ops.float_power(x0, 2)", [f32(5)], (0,)),
    ("float_power_int", "ops.float_power(x0, x1)", [ints(4, low=1, high=5),
                                                    ints(4, low=0, high=4)], ()),
    ("float_power_ext", "ops.float_power_ext(x0, 0.5)", [f32(4, **POS)], ()),
    ("deg2rad", "ops.deg2rad(x0)", [f32(4) * 90], (0,)),
    ("rad2deg", "ops.rad2deg(x0)", [f32(4).astype(np.float64)], (0,)),
    ("trapz", "ops.trapz(x0)", [f32(2, 6)], (0,)),
    ("trapz_x", "ops.trapz(x0, x1)", [f32(2, 6), np.sort(f32(6))], (0, 1)),
    ("trapz_x2d", "ops.trapz(x0, x1, dim=0)", [f32(4, 3), f32(4, 3)], (0, 1)),
    ("trapz_dx", "ops.trapz(x0, dx=0.5, dim=0)", [f32(4, 3)], (0,)),
    ("trapz_int", "ops.trapz(x0)", [ints(5)], ()),
    ("sgn", "ops.sgn(x0)", [np.array([-2., 0., 3.], np.float32)], ()),
    ("sgn_int", "ops.sgn(x0)", [np.array([-2, 0, 3], np.int32)], ()),
    ("sgn_complex", "ops.sgn(x0)", [np.array([3 + 4j, 0, -1j], np.complex64)], ()),
    ("signbit", "ops.signbit(x0)", [np.array([-2., 0., 3., -0.5], np.float32)], ()),
    ("signbit_int", "ops.signbit(x0)", [np.array([-2, 0, 3], np.int32)], ()),
    ("isposinf", "ops.isposinf(x0)", [np.array([-np.inf, np.inf, 3., np.nan], np.float32)], ()),
    ("isneginf", "ops.isneginf(x0)", [np.array([-np.inf, np.inf, 3., np.nan], np.float32)], ()),
    ("truncate_div", "ops.truncate_div(x0, x1)", [f32(6) * 4, f32(6, **POS)], (0, 1)),
    ("truncate_div_int", "ops.truncate_div(x0, x1)", [ints(6), ints(6, low=1, high=5) *
                                                      np.array([1, -1, 1, -1, 1, -1],
                                                               np.int32)], ()),
    ("truncate_mod", "ops.truncate_mod(x0, x1)", [np.array([-7.5, 7.5, 2.5], np.float32),
                                                  np.array([3., -3., 0.75], np.float32)], (0, 1)),
    ("truncate_mod_int", "ops.truncate_mod(x0, x1)", [ints(6), ints(6, low=1, high=5)], ()),
    ("Mod", "ops.Mod()(x0, x1)", [np.array([-7., 7., 5.5], np.float32),
                                  np.array([3., -3., 2.], np.float32)], ()),
    ("Mod_int", "ops.Mod()(x0, x1)", [np.array([-7, 7], np.int32), np.array([3, -3], np.int32)],
     ()),
    ("floor_mod", "ops.floor_mod(x0, x1)", [f32(6) * 4, f32(6, **POS)], (0, 1)),
    ("floormod", "ops.floormod(x0, x1)", [f32(6) * 4, f32(6, **POS)], ()),
    ("floordiv", "ops.floordiv(x0, x1)", [f32(6) * 4, f32(6, **POS)], ()),
    ("arccosh", "ops.arccosh(x0)", [f32(4, low=1.2, high=3)], (0,)),
    ("arcsinh", "ops.arcsinh(x0)", [f32(4)], (0,)),
    ("arctanh", "ops.arctanh(x0)", [f32(4, low=-0.9, high=0.9)], (0,)),
    ("arctan2", "ops.arctan2(x0, x1)", [f32(4), f32(4)], (0, 1)),
    ("divide", "ops.divide(x0, x1)", [f32(4), f32(4, **POS)], (0, 1)),
    ("divide_floor", "ops.divide(x0, x1, rounding_mode='floor')", [f32(4) * 3, f32(4, **POS)],
     ()),
    ("multiply", "ops.multiply(x0, x1)", [f32(4), f32(4)], (0, 1)),
    ("subtract", "ops.subtract(x0, x1, alpha=2)", [f32(4), f32(4)], (0, 1)),
    ("positive", "ops.positive(x0)", [f32(4)], ()),
    ("logaddexp", "ops.logaddexp(x0, x1)", [f32(3, 4) * 3, f32(4) * 3], (0, 1)),
    ("logaddexp_big", "ops.logaddexp(x0, x1)", [np.array([1000., -1000.], np.float32),
                                                np.array([1000., 1.], np.float32)], (0, 1)),
    ("logaddexp2", "ops.logaddexp2(x0, x1)", [f32(3, 4) * 3, f32(3, 4) * 3], (0, 1)),
    ("logcumsumexp", "ops.logcumsumexp(x0, 1)", [f32(2, 5, 3) * 3], (0,)),
    ("CumulativeLogsumexp", "ops.CumulativeLogsumexp(False, True)(x0, x1)",
     [f32(3, 4) * 3, np.array(0, np.int64)], (0,)),
    ("CumulativeLogsumexp_excl", "ops.CumulativeLogsumexp(True, False)(x0, x1)",
     [f32(3, 4) * 3, np.array(1, np.int64)], (0,)),
    ("cummax", "ops.cummax(x0, 1)", [V], ()),
    ("cummax_nan", "ops.cummax(x0, 0)", [np.array([1., np.nan, 3., 0.], np.float32)], ()),
    ("cummin_nan", "ops.cummin(x0, 0)", [np.array([1., 0., np.nan, -2.], np.float32)], ()),
    ("cummax_int", "ops.cummax(x0, 0)", [ints(4, 3)], ()),
    ("cummin", "ops.cummin(x0, 1)", [V], ()),
    ("Cummax", "ops.Cummax(axis=-1)(x0)", [DISTINCT], ()),
    ("Cummin", "ops.Cummin(axis=0)(x0)", [DISTINCT], ()),
    ("CumProd", "ops.CumProd(True, True)(x0, 1)", [f32(3, 4)], (0,)),
    ("CumProd_plain", "ops.CumProd()(x0, 0)", [f32(3, 4)], (0,)),
    ("median", "ops.median(x0, 1)", [V], ()),
    ("median_distinct", "ops.median(x0, 1, True)", [DISTINCT], (0,)),
    ("median_default", "ops.median(x0)", [DISTINCT], (0,)),
    ("median_int", "ops.median(x0, 0)", [ints(5, 3)], ()),
    ("median_i16", "ops.median(x0, 1)", [ints(3, 5, dtype=np.int16)], ()),
    ("median_nan", "ops.median(x0, 0)", [np.array([1., np.nan, 2.], np.float32)], ()),
    ("Median_global", "ops.Median(True)(x0)", [V], (0,)),
    ("Median_axis", "ops.Median(False, 2, True)(x0)", [DISTINCT], (0,)),
    ("Median_ignore_nan", "ops.Median(False, 0, False, True)(x0)",
     [np.array([1., np.nan, 2., 5.], np.float32)], ()),
    ("nanmedian", "ops.nanmedian(x0, 1)", [np.array([[1., np.nan, 3., 2.], [np.nan, 5, 1, 8],
                                                     [4., 1., 2., 6.]], np.float32)], ()),
    ("nanmedian_grad", "ops.nanmedian(x0, 1)", [np.array([[1., np.nan, 3., 2.]], np.float32)],
     (0,)),
    ("nansum", "ops.nansum(x0, 1)", [np.array([[1., np.nan], [2., 3.]], np.float32)], (0,)),
    ("nansum_all", "ops.nansum(x0)", [np.array([[1., np.nan], [2., 3.]], np.float32)], (0,)),
    ("nansum_int", "ops.nansum(x0, 0, True)", [ints(3, 2)], ()),
    ("nansum_dtype", "ops.nansum(x0, dtype=ms.float64)",
     [np.array([[1., np.nan], [2., 3.]], np.float32)], ()),
    ("nanmean", "ops.nanmean(x0, 1)", [np.array([[1., np.nan], [2., 3.]], np.float32)], (0,)),
    ("nanmean_all", "ops.nanmean(x0)", [np.array([[1., np.nan], [2., 3.]], np.float32)], (0,)),
    ("addn", "ops.addn([x0, x1, x2])", [f32(3), f32(3), f32(3)], (0, 1, 2)),
    ("AddN", "ops.AddN()((x0, x1))", [ints(3), ints(3)], ()),
    ("aminmax", "ops.aminmax(x0, axis=1)", [DISTINCT], (0,)),
    ("aminmax_keep", "ops.aminmax(x0, axis=-1, keepdims=True)", [DISTINCT], ()),
    ("left_shift", "ops.bitwise_left_shift(x0, x1)", [ints(6), ints(6, low=0, high=8)], ()),
    ("left_shift_wrap", "ops.bitwise_left_shift(x0, x1)",
     [np.array([1, 1, 3], np.int32), np.array([-1, 40, 33], np.int32)], ()),
    ("left_shift_u8", "ops.bitwise_left_shift(x0, x1)", [np.array([255, 3], np.uint8),
                                                         np.array([1, 2], np.uint8)], ()),
    ("left_shift_i8", "ops.bitwise_left_shift(x0, x1)", [np.array([1, 1, -3], np.int8),
                                                         np.array([7, 9, 2], np.int8)], ()),
    ("right_shift", "ops.bitwise_right_shift(x0, x1)", [ints(6, low=-100, high=100),
                                                        ints(6, low=0, high=8)], ()),
    ("right_shift_wrap", "ops.bitwise_right_shift(x0, x1)",
     [np.array([-8, 8, 1024], np.int32), np.array([1, 40, 33], np.int32)], ()),
    ("invert", "ops.invert(x0)", [ints(5, dtype=np.int16)], ()),
    ("invert_u8", "ops.invert(x0)", [np.array([2, 1], np.uint8)], ()),
    ("inv", "ops.inv(x0)", [f32(5, **POS)], (0,)),
    ("inv_int", "ops.inv(x0)", [np.array([2, 1, -1, 5], np.int32)], ()),
    ("population_count", "ops.population_count(x0)", [ints(6, low=-300, high=300,
                                                            dtype=np.int16)], ()),
    ("population_count_i64", "ops.population_count(x0)", [np.array([7, -1], np.int64)], ()),
    ("approximate_equal", "ops.approximate_equal(x0, x1, 0.5)", [f32(6), f32(6)], ()),
    ("ApproximateEqual", "ops.ApproximateEqual()(x0, x1)",
     [np.array([1., 2.], np.float32), np.array([1.000001, 2.1], np.float32)], ()),
    ("isnan_ext", "ops.isnan_ext(x0)", [np.array([1., np.nan], np.float32)], ()),
    ("eps", "ops.eps(x0)", [f32(3)], ()),
    ("eps_f16", "ops.eps(x0)", [f32(3).astype(np.float16)], ()),
    ("Eps_f64", "ops.Eps()(x0)", [f32(3).astype(np.float64)], ()),
    ("EqualCount", "ops.EqualCount()(x0, x1)", [np.array([1., 2., 3.], np.float32),
                                                np.array([1., 0., 3.], np.float32)], ()),
    ("IsClose", "ops.IsClose(equal_nan=True)(x0, x1)",
     [np.array([np.nan, 2., 1.], np.float32), np.array([np.nan, 2.1, 1.], np.float32)], ()),
    ("Addcdiv", "ops.Addcdiv()(x0, x1, x2, x3)", [f32(3), f32(3), f32(3, **POS),
                                                  np.array(2., np.float32)], (0, 1, 2)),
    ("Addcmul", "ops.Addcmul()(x0, x1, x2, x3)", [f32(3), f32(3), f32(3),
                                                  np.array([0.5], np.float32)], (0, 1, 2)),
    ("Lerp", "ops.Lerp()(x0, x1, x2)", [f32(3), f32(3), f32(3, **UNIT)], (0, 1, 2)),
    ("Lerp_scalar", "ops.Lerp()(x0, x1, 0.25)", [f32(3), f32(3)], (0, 1)),
    ("SquaredDifference", "ops.SquaredDifference()(x0, x1)", [f32(3, 4), f32(4)], (0, 1)),
    ("SquaredDifference_int", "ops.SquaredDifference()(x0, x1)", [ints(4), ints(4)], ()),
    ("SquareSumAll", "ops.SquareSumAll()(x0, x1)", [f32(3, 2), f32(3, 2)], (0, 1)),
    ("DivNoNan", "ops.DivNoNan()(x0, x1)", [np.array([1., 0., 2., -3.], np.float32),
                                            np.array([0., 0., 4., 1.5], np.float32)], (0, 1)),
    ("MulNoNan", "ops.MulNoNan()(x0, x1)", [np.array([np.inf, np.nan, 2., 3.], np.float32),
                                            np.array([0., 0., 4., -1.], np.float32)], ()),
    ("MulNoNan_grad", "ops.MulNoNan()(x0, x1)", [f32(4), np.array([0., 1., 0., 2.], np.float32)],
     (0, 1)),
    ("MulNoNan_int", "ops.MulNoNan()(x0, x1)", [ints(4), np.array([0, 1, 0, 2], np.int32)], ()),
    ("Rint", "ops.Rint()(x0)", [np.array([0.5, 1.5, 2.5, -0.5, -1.7], np.float32)], ()),
    ("CheckNumerics", "ops.CheckNumerics()(x0)", [f32(3)], ()),
    ("TensorAdd", "ops.TensorAdd()(x0, x1)", [f32(3), f32(3)], (0, 1)),
    ("reduce_max", "ops.reduce_max(x0, 1)", [DISTINCT], (0,)),
    ("reduce_min", "ops.reduce_min(x0, (0, 2))", [DISTINCT], (0,)),
    ("tensor_add", "ops.tensor_add(x0, x1)", [f32(3), f32(3)], ()),
    ("tensor_sub", "ops.tensor_sub(x0, x1)", [f32(3), f32(3)], ()),
    ("tensor_mul", "ops.tensor_mul(x0, x1)", [f32(3), f32(3)], ()),
    ("tensor_div", "ops.tensor_div(x0, x1)", [f32(3), f32(3, **POS)], ()),
    ("tensor_exp", "ops.tensor_exp(x0)", [f32(3)], ()),
    ("tensor_expm1", "ops.tensor_expm1(x0)", [f32(3)], ()),
    ("tensor_floordiv", "ops.tensor_floordiv(x0, x1)", [f32(3) * 4, f32(3, **POS)], ()),
    ("tensor_ge", "ops.tensor_ge(x0, x1)", [f32(3), f32(3)], ()),
    ("tensor_gt", "ops.tensor_gt(x0, x1)", [f32(3), f32(3)], ()),
    ("tensor_le", "ops.tensor_le(x0, x1)", [f32(3), f32(3)], ()),
    ("tensor_lt", "ops.tensor_lt(x0, x1)", [f32(3), f32(3)], ()),
    ("tensor_mod", "ops.tensor_mod(x0, x1)", [f32(3) * 4, f32(3, **POS)], ()),
    ("tensor_muls", "ops.tensor_muls(x0, 2.5)", [f32(3)], ()),
    ("pows", "ops.pows(x0, x1)", [f32(3, **POS), f32(3)], ()),
    ("is_floating_point", "ops.is_floating_point(x0)", [ints(2)], ()),
    ("is_nonzero", "ops.is_nonzero(x0)", [np.array([0.5], np.float32)], ()),
    ("is_tensor", "ops.is_tensor(x0)", [f32(1)], ()),
]

SIGNATURE_NAMES = sorted({
    "bessel_i0", "bessel_i0e", "bessel_i1", "bessel_i1e", "bessel_j0", "bessel_j1", "bessel_k0",
    "bessel_k0e", "bessel_k1", "bessel_k1e", "bessel_y0", "bessel_y1", "digamma", "igamma",
    "igammac", "lgamma", "polygamma", "zeta", "mvlgamma", "sinc", "xdivy", "xlogy", "logit",
    "nan_to_num", "nansum", "nanmean", "nanmedian", "nanquantile", "gcd", "lcm", "heaviside",
    "hypot", "fmax", "fmin", "nextafter", "copysign", "ldexp", "frac", "float_power",
    "float_power_ext", "deg2rad", "rad2deg", "trapz", "i0", "sgn", "signbit", "isposinf",
    "isneginf", "truncate_div", "truncate_mod", "floor_mod", "floordiv", "floormod", "arccosh",
    "arcsinh", "arctan2", "arctanh", "divide", "multiply", "subtract", "positive", "logaddexp",
    "logaddexp2", "logcumsumexp", "cummax", "cummin", "median", "quantile", "accumulate_n",
    "addn", "aminmax", "bitwise_left_shift", "bitwise_right_shift", "invert", "inv",
    "population_count", "approximate_equal", "isnan_ext", "is_floating_point", "is_tensor",
    "is_nonzero", "eps", "fills", "reduce_max", "reduce_min", "tensor_add", "tensor_sub",
    "tensor_mul", "tensor_div", "tensor_exp", "tensor_expm1", "tensor_floordiv", "tensor_ge",
    "tensor_gt", "tensor_le", "tensor_lt", "tensor_mod", "tensor_muls", "pows"})
CLASS_NAMES = sorted({
    "Logit", "NanToNum", "Mvlgamma", "Cummax", "Cummin", "CumProd", "CumulativeLogsumexp",
    "Median", "Quantile", "IsClose", "ApproximateEqual", "CountNonZero"})


def _run(expr, inputs):
    env = {"ops": ops, "ms": ms}
    env.update({f"x{i}": Tensor(a) for i, a in enumerate(inputs)})
    return eval(expr, env)  # the expressions above


def _outputs(result):
    return list(result) if isinstance(result, (tuple, list)) else [result]


def main():
    data = {}
    table = []
    for name, expr, inputs, diff in CASES:
        outs = _outputs(_run(expr, inputs))
        for i, a in enumerate(inputs):
            data[f"{name}/in{i}"] = a
        cots = []
        for k, o in enumerate(outs):
            value = o.asnumpy() if isinstance(o, Tensor) else np.asarray(o)
            data[f"{name}/out{k}"] = value
            cot = rng.uniform(-1, 1, value.shape).astype(value.dtype) \
                if value.dtype.kind == "f" else None
            cots.append(cot)
            if cot is not None:
                data[f"{name}/cot{k}"] = cot
        if diff:
            def loss(*xs, expr=expr, inputs=inputs, cots=cots, diff=diff):
                env = {"ops": ops, "ms": ms}
                env.update({f"x{i}": Tensor(a) for i, a in enumerate(inputs)})
                env.update({f"x{i}": x for i, x in zip(diff, xs)})
                total = 0
                for o, c in zip(_outputs(eval(expr, env)), cots):
                    if c is not None:
                        total = total + (o * Tensor(c)).sum()
                return total
            grads = ms.grad(loss, grad_position=tuple(range(len(diff))))(
                *[Tensor(inputs[i]) for i in diff])
            grads = grads if isinstance(grads, tuple) else (grads,)
            for i, g in zip(diff, grads):
                data[f"{name}/d{i}"] = g.asnumpy()
        table.append({"name": name, "expr": expr, "n_in": len(inputs), "n_out": len(outs),
                      "diff": list(diff)})
    signatures = {n: str(inspect.signature(getattr(ops, n))) for n in SIGNATURE_NAMES}
    signatures.update({n: str(inspect.signature(getattr(ops, n).__init__)) for n in CLASS_NAMES})
    data["__cases__"] = np.array(json.dumps(table))
    data["__signatures__"] = np.array(json.dumps(signatures))
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "mindspore_special.npz")
    np.savez_compressed(path, **data)
    print(f"wrote {path}: {len(CASES)} cases")


if __name__ == "__main__":
    main()
