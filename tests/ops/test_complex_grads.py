"""Gradients through complex intermediates follow MindSpore's convention (dL/dRe + i dL/dIm):
the product and quotient rules conjugate the other factor, and |z| has the gradient z/|z|."""
import numpy as np

import minispore as ms
from minispore import Tensor, ops
from minispore.testing import check_grads

C = ops.Complex()


def test_first_order_values():
    c = Tensor(np.array([1 + 2j]))
    x = Tensor(np.array([0.5]))
    assert ms.grad(lambda a: ops.real(C(a, a * 0) * c).sum())(x).asnumpy()[0] == 1.0
    np.testing.assert_allclose(ms.grad(lambda a: ops.real(C(a, a * 0) / c).sum())(x).asnumpy(),
                               [0.2])  # Re(1 / (1 + 2j))
    g = ms.grad(lambda a: ops.abs(C(a * 0, a)).sum())(Tensor(np.array([-2.0])))
    assert g.asnumpy()[0] == -1.0


def test_second_order_through_products_quotients_and_abs():
    a, b = Tensor(np.array([0.3, -0.7])), Tensor(np.array([1.3, 0.2]))
    c = Tensor(np.array([1 + 2j, -0.5 + 0.1j]))
    check_grads(lambda x: ops.abs(C(x, x * 2) * c).sum(), [a], order=2)
    check_grads(lambda x, y: ops.real(C(x, y) / C(y, x + 1)), [a, b], order=2)
    check_grads(lambda x, y: ops.imag(C(x, y) * C(y, x + 1)), [a, b], order=2)


def test_cast_of_complex_to_real_keeps_the_real_part_quietly(recwarn):
    z = Tensor(np.array([1.5 + 2j], np.complex64))
    assert z.astype(ms.float32).asnumpy().tolist() == [1.5]
    assert not [w for w in recwarn if "ComplexWarning" in str(w.category)]


def test_powers_of_complex_values():
    a, b = Tensor(np.array([0.3, -0.7])), Tensor(np.array([1.3, 0.2]))
    check_grads(lambda x, y: ops.real(C(x, y) ** 2) + ops.imag(C(x, y) ** 3), [a, b], order=2)
    check_grads(lambda x: ops.abs(C(x, x + 1) ** C(x * 0 + 2, x * 0)), [a], order=2)
