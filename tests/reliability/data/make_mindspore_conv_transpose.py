"""Writes mindspore_conv_transpose.npz: MindSpore 2.10 (CPU) nn.Conv2dTranspose outputs with an
output_padding at or above the stride (allowed while it is below the dilation), for
tests/reliability/test_reliability_init_conv.py.

MindSpore adds the output_padding rows after the bias, as zeros; minispore computes them as the
transposed convolution's own rows (the adjoint of conv2d). The two agree where those rows get no
contribution: with no bias and no bottom/right padding, the cases below.

Run with real MindSpore (CPU), from the repository root:
    python tests/reliability/data/make_mindspore_conv_transpose.py
"""
import os

import mindspore as ms
import numpy as np
from mindspore import Tensor, nn

# name: (x shape, nn.Conv2dTranspose arguments)
CASES = {
    "s1d2": ((1, 1, 3, 3), dict(in_channels=1, out_channels=1, kernel_size=2, stride=1,
                                dilation=2, output_padding=1)),
    "mixed": ((2, 4, 4, 5), dict(in_channels=4, out_channels=6, kernel_size=(3, 2), stride=(1, 2),
                                 dilation=(3, 1), padding=(1, 0, 2, 0), output_padding=(2, 1),
                                 group=2)),
    "d3s2": ((1, 2, 3, 4), dict(in_channels=2, out_channels=3, kernel_size=3, stride=2,
                                dilation=3, padding=(2, 0, 0, 0), output_padding=2)),
}


def main():
    ms.set_context(mode=ms.PYNATIVE_MODE, device_target="CPU")
    rng = np.random.default_rng(20260611)
    out = {}
    for name, (shape, kw) in CASES.items():
        cell = nn.Conv2dTranspose(pad_mode="pad", has_bias=False, **kw)
        w = rng.standard_normal(cell.weight.shape).astype(np.float32)
        x = rng.standard_normal(shape).astype(np.float32)
        cell.weight.set_data(Tensor(w))
        out[f"{name}_w"], out[f"{name}_x"] = w, x
        out[f"{name}_y"] = cell(Tensor(x)).asnumpy()
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "mindspore_conv_transpose.npz")
    np.savez(path, **out)
    print({k: v.shape for k, v in out.items()})


if __name__ == "__main__":
    main()
