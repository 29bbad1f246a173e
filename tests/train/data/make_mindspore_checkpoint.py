"""Make the MindSpore 2.10 checkpoints that tests/train/test_serialization.py loads:

- mindspore_lenet_like.ckpt: a small Conv2d + BatchNorm2d + Dense network trained two steps with
  nn.Momentum inside TrainOneStepCell (so optimizer state and BatchNorm statistics appear), with
  append_dict holding an int, a float, a bool and a str;
- mindspore_lenet_like.safetensors: the same values in MindSpore's safetensors form;
- mindspore_dtypes.ckpt: one entry per dtype MindSpore writes (0-d, bool, ints, uints, float16,
  float64, bfloat16), saved with crc_check=True;
- mindspore_checkpoint_expected.npz: every expected value (bfloat16 as float32), and the names
  in file order.

Run once in a separate venv with real MindSpore (`pip install mindspore "numpy<2"`):
    python make_mindspore_checkpoint.py
"""
import os

import mindspore as ms
import numpy as np
from mindspore import Tensor, nn

HERE = os.path.dirname(os.path.abspath(__file__))
ms.set_seed(0)
rng = np.random.default_rng(0)


class LeNetLike(nn.Cell):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(1, 4, 3, pad_mode="valid", has_bias=True)
        self.bn = nn.BatchNorm2d(4)
        self.relu = nn.ReLU()
        self.flatten = nn.Flatten()
        self.fc = nn.Dense(4 * 4 * 4, 3)

    def construct(self, x):
        return self.fc(self.flatten(self.relu(self.bn(self.conv(x)))))


net = LeNetLike()
loss = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
opt = nn.Momentum(net.trainable_params(), learning_rate=0.1, momentum=0.9)
train = nn.TrainOneStepCell(nn.WithLossCell(net, loss), opt)
train.set_train()
x = Tensor(rng.standard_normal((4, 1, 6, 6)).astype(np.float32))
y = Tensor(np.array([0, 1, 2, 1], np.int32))
for _ in range(2):
    train(x, y)

append = {"epoch_num": 3, "lr": 0.01, "flag": True, "tag": "minispore fixture"}
lenet = os.path.join(HERE, "mindspore_lenet_like.ckpt")
ms.save_checkpoint(train, lenet, append_dict=append)
# MindSpore's safetensors writer cannot store strings; the str entry is left out there.
ms.save_checkpoint(train, os.path.join(HERE, "mindspore_lenet_like.safetensors"),
                   append_dict={k: v for k, v in append.items() if k != "tag"},
                   format="safetensors")

expected = {}
names = []
for name, value in ms.load_checkpoint(lenet).items():
    names.append(name)
    expected["lenet/" + name] = np.array(value) if isinstance(value, str) else value.asnumpy()
expected["lenet_names"] = np.array(names)

dtypes = {
    "scalar_f32": Tensor(np.float32(2.5)),
    "bool": Tensor(np.array([True, False, True])),
    "int8": Tensor(np.array([-128, 0, 127], np.int8)),
    "uint8": Tensor(np.array([0, 200, 255], np.uint8)),
    "int16": Tensor(np.array([[-32768], [32767]], np.int16)),
    "uint16": Tensor(np.array([65535, 1], np.uint16)),
    "int32": Tensor(np.array([-(2 ** 31), 2 ** 31 - 1], np.int32)),
    "uint32": Tensor(np.array([2 ** 32 - 1], np.uint32)),
    "int64": Tensor(np.array([-(2 ** 63), 2 ** 63 - 1], np.int64)),
    "uint64": Tensor(np.array([2 ** 64 - 1], np.uint64)),
    "float16": Tensor(rng.standard_normal((2, 3)).astype(np.float16)),
    "float64": Tensor(rng.standard_normal((3, 1, 2))),
    "bfloat16": Tensor(np.array([1.0, -2.5, 3.140625], np.float32), ms.bfloat16),
}
dtype_file = os.path.join(HERE, "mindspore_dtypes.ckpt")
ms.save_checkpoint([{"name": k, "data": v} for k, v in dtypes.items()], dtype_file,
                   crc_check=True)
for name, value in ms.load_checkpoint(dtype_file, crc_check=True).items():
    arr = value.float().asnumpy() if value.dtype == ms.bfloat16 else value.asnumpy()
    expected["dtypes/" + name] = arr
    expected["dtypes_type/" + name] = np.array(str(value.dtype))
np.savez(os.path.join(HERE, "mindspore_checkpoint_expected.npz"), **expected)
for fn in sorted(os.listdir(HERE)):
    print(fn, os.path.getsize(os.path.join(HERE, fn)))
