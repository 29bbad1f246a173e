"""A LeNet-5 trained with `Model.train` on real handwritten digits, through MindSpore's
quick-start pipeline (MnistDataset, map, batch, Model): evaluated, saved to a checkpoint, loaded
into a fresh network and used to predict.

The data are scikit-learn's `load_digits` (1,797 real 8x8 scans of handwritten digits), written
once as MNIST-format IDX files (upscaled to 28x28, a fixed 80/20 train/test split), so the
pipeline below is exactly the one MindSpore's quick start runs on MNIST: pass `--data-dir` with a
real MNIST directory to train on MNIST itself.

Run: python -m minispore.examples.quick_start [--data-dir DIR] [--epochs N]
"""
import argparse
import os
import struct
import tempfile
import time

import numpy as np

import minispore as mindspore
from minispore import nn
from minispore.common.initializer import Normal
from minispore.dataset import MnistDataset, transforms, vision
from minispore.train import Accuracy, History, LossMonitor, Model, TimeMonitor

TRAIN_FILES = ("train-images-idx3-ubyte", "train-labels-idx1-ubyte")
TEST_FILES = ("t10k-images-idx3-ubyte", "t10k-labels-idx1-ubyte")


# ---- the data: real digits as MNIST IDX files -------------------------------------------------

def write_idx(path, array):
    """An unsigned-byte IDX file (MNIST's format): magic, dims, then the bytes."""
    with open(path, "wb") as f:
        f.write(struct.pack(">HBB", 0, 0x08, array.ndim))
        f.write(struct.pack(">" + "I" * array.ndim, *array.shape))
        f.write(np.ascontiguousarray(array, np.uint8).tobytes())


def digits_as_mnist(directory):
    """Write scikit-learn's digits as MNIST IDX files in `directory` (once) and return it."""
    if all(os.path.exists(os.path.join(directory, f)) for f in TRAIN_FILES + TEST_FILES):
        return directory
    try:
        from sklearn.datasets import load_digits
    except ImportError:
        raise SystemExit("The digits come from scikit-learn: pip install 'minispore[examples]' "
                         "(or pass --data-dir with a real MNIST directory)") from None
    digits = load_digits()
    images = np.round(digits.images * (255 / 16)).astype(np.uint8)[..., None]  # (N, 8, 8, 1)
    upscale = vision.Resize((28, 28), vision.Inter.BILINEAR)
    images = np.stack([upscale(im) for im in images]).reshape(-1, 28, 28)
    labels = digits.target.astype(np.uint8)
    order = np.random.default_rng(0).permutation(len(labels))
    n_test = len(labels) // 5
    test, train = order[:n_test], order[n_test:]
    os.makedirs(directory, exist_ok=True)
    for (img_file, lbl_file), idx in ((TRAIN_FILES, train), (TEST_FILES, test)):
        write_idx(os.path.join(directory, img_file), images[idx])
        write_idx(os.path.join(directory, lbl_file), labels[idx])
    return directory


# ---- MindSpore's quick start --------------------------------------------------------------------

def create_dataset(data_path, usage, batch_size=32):
    """The quick start's pipeline: resize to LeNet's 32x32, rescale, normalise, HWC -> CHW."""
    mnist = MnistDataset(data_path, usage=usage, shuffle=(usage == "train"))
    image_ops = [vision.Resize((32, 32), interpolation=vision.Inter.LINEAR),
                 vision.Rescale(1.0 / 255.0, 0.0),
                 vision.Rescale(1 / 0.3081, -0.1307 / 0.3081),
                 vision.HWC2CHW()]
    mnist = mnist.map(operations=image_ops, input_columns="image")
    mnist = mnist.map(operations=transforms.TypeCast(mindspore.int32), input_columns="label")
    return mnist.batch(batch_size, drop_remainder=(usage == "train"))


class LeNet5(nn.Cell):
    """LeNet-5 as in MindSpore's model zoo."""

    def __init__(self, num_class=10, num_channel=1):
        super().__init__()
        self.conv1 = nn.Conv2d(num_channel, 6, 5, pad_mode="valid")
        self.conv2 = nn.Conv2d(6, 16, 5, pad_mode="valid")
        self.fc1 = nn.Dense(16 * 5 * 5, 120, weight_init=Normal(0.02))
        self.fc2 = nn.Dense(120, 84, weight_init=Normal(0.02))
        self.fc3 = nn.Dense(84, num_class, weight_init=Normal(0.02))
        self.relu = nn.ReLU()
        self.max_pool2d = nn.MaxPool2d(kernel_size=2, stride=2)
        self.flatten = nn.Flatten()

    def construct(self, x):
        x = self.max_pool2d(self.relu(self.conv1(x)))
        x = self.max_pool2d(self.relu(self.conv2(x)))
        x = self.flatten(x)
        x = self.relu(self.fc1(x))
        x = self.relu(self.fc2(x))
        return self.fc3(x)


def single_threaded_blas():
    """One BLAS thread: LeNet's GEMMs are small, and on a shared 2-core machine OpenBLAS's
    spinning threads fight the data pipeline's (measured: a conv-filter GEMM 0.4 ms on one
    thread, 60 ms on two under load). threadpoolctl comes with scikit-learn."""
    try:
        from threadpoolctl import threadpool_limits
    except ImportError:
        return None
    return threadpool_limits(limits=1, user_api="blas")


def main():
    single_threaded_blas()
    parser = argparse.ArgumentParser(description=" ".join(__doc__.split("\n\n")[0].split()))
    parser.add_argument("--data-dir", help="a directory of MNIST IDX files (default: the digits)")
    parser.add_argument("--epochs", type=int, default=12)
    parser.add_argument("--ckpt", default=os.path.join(tempfile.gettempdir(), "lenet_digits.ckpt"))
    args = parser.parse_args()
    start = time.perf_counter()
    mindspore.set_seed(1)
    data_dir = args.data_dir or digits_as_mnist(
        os.path.join(tempfile.gettempdir(), "minispore_digits_idx"))
    train_set = create_dataset(data_dir, "train")
    test_set = create_dataset(data_dir, "test")
    print(f"data: {data_dir} ({train_set.get_dataset_size()} train batches, "
          f"{test_set.get_dataset_size()} test batches)")

    net = LeNet5()
    loss = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
    steps = train_set.get_dataset_size()
    lr = nn.cosine_decay_lr(0.0005, 0.05, steps * args.epochs, steps, args.epochs)
    optimizer = nn.Momentum(net.trainable_params(), learning_rate=lr, momentum=0.9)
    model = Model(net, loss, optimizer, metrics={"Accuracy": Accuracy()})
    history = History()
    model.train(args.epochs, train_set,
                callbacks=[LossMonitor(steps), TimeMonitor(steps), history])
    accuracy = model.eval(test_set)["Accuracy"]
    print(f"held-out accuracy: {accuracy:.2%}")

    mindspore.save_checkpoint(net, args.ckpt)
    fresh = LeNet5()
    not_loaded, _ = mindspore.load_param_into_net(fresh, mindspore.load_checkpoint(args.ckpt))
    if not_loaded:
        raise SystemExit(f"parameters missing from the checkpoint: {not_loaded}")
    images, labels = next(test_set.create_tuple_iterator())
    predicted = Model(fresh).predict(images[:10]).asnumpy().argmax(axis=1)
    print(f"checkpoint {args.ckpt} loaded into a fresh LeNet-5; its predictions on 10 test "
          f"images:\n  predicted: {predicted.tolist()}\n  true:      "
          f"{labels[:10].asnumpy().tolist()}")
    try:
        curve = history.plot(os.path.join(os.path.dirname(os.path.abspath(args.ckpt)),
                                          "training.png"))
        print(f"training curve (loss per epoch): {curve}")
    except ImportError:  # matplotlib is optional: pip install 'minispore[plot]'
        print("training curve: not drawn (matplotlib is not installed)")
    print(f"done in {time.perf_counter() - start:.1f} s")


if __name__ == "__main__":
    main()
