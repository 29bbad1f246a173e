"""Dataset pipeline throughput: does `num_parallel_workers` pay off, and what does a light,
MNIST-like pipeline cost per row?

1. A map with a heavy NumPy transform (a 256x256 float32 FFT per row: pocketfft releases the
   GIL) on 1, 2 and 4 worker threads. The speedup is bounded by the cores the machine really
   gives: the reference line times 16 FFT jobs on 1 and 2 processes.
2. A latency-bound map (2 ms of waiting per row, like reading or decoding a file), which shows
   the pipeline's own scheduling whatever the core count.
3. The quick-start pipeline (Rescale, Normalize, HWC2CHW, TypeCast, batch 64) over 28x28 uint8
   rows, serial vs 2 workers, in microseconds per row.
4. An image pipeline over JPEG files (decode, random crop, flip, normalize, HWC2CHW, batch 64)
   on 1 and 2 thread workers and 2 process workers, beside a NumPy floor (the same steps in a
   plain loop) and, where PyTorch is installed, a torch DataLoader doing the same steps.

Run: python benchmarks/dataset_pipeline.py (BLAS is pinned to one thread, so the speedup shown is
the pipeline's own)."""
import os

for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import sys
import time
from concurrent.futures import ProcessPoolExecutor

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import minispore as ms
from benchmarks._harness import interleaved_rounds, summarize
from minispore import dataset as ds
from minispore.dataset import transforms, vision


def heavy(x):
    return np.abs(np.fft.rfft2(x)).astype(np.float32)[:, :8]


def waiting(x):
    time.sleep(0.002)
    return x


def heavy_pass(workers, n=64):
    data = np.random.default_rng(1).standard_normal((n, 256, 256)).astype(np.float32)
    d = ds.NumpySlicesDataset(data, ["x"], shuffle=False).map(heavy, "x",
                                                              num_parallel_workers=workers)
    return lambda: sum(1 for _ in d.create_tuple_iterator(output_numpy=True))


def waiting_pass(workers, n=64):
    d = ds.NumpySlicesDataset(np.arange(n), ["x"], shuffle=False).map(
        waiting, "x", num_parallel_workers=workers)
    return lambda: sum(1 for _ in d.create_tuple_iterator(output_numpy=True))


def _fft_job(_):
    x = np.random.default_rng(0).standard_normal((256, 256)).astype(np.float32)
    for _ in range(8):
        heavy(x)


def process_scaling():
    """Seconds for 16 FFT jobs on 1 and on 2 processes: what the machine's cores allow."""
    out = []
    for w in (1, 2):
        with ProcessPoolExecutor(w) as pool:
            list(pool.map(_fft_job, range(w)))
            t0 = time.perf_counter()
            list(pool.map(_fft_job, range(16)))
            out.append(time.perf_counter() - t0)
    return out


def quickstart_pass(workers, n=4096):
    rng = np.random.default_rng(2)
    images = rng.integers(0, 256, (n, 28, 28, 1), dtype=np.uint8)
    labels = rng.integers(0, 10, n).astype(np.uint32)
    d = ds.NumpySlicesDataset({"image": images, "label": labels}, shuffle=False)
    d = d.map([vision.Rescale(1 / 255, 0), vision.Normalize((0.1307,), (0.3081,)),
               vision.HWC2CHW()], "image", num_parallel_workers=workers)
    d = d.map(transforms.TypeCast(ms.int32), "label", num_parallel_workers=workers)
    d = d.batch(64, num_parallel_workers=workers)
    return lambda: sum(1 for _ in d.create_tuple_iterator())


IMAGE_ROWS, IMAGE_SIDE, CROP = 512, 160, 128
MEAN = np.array([0.485, 0.456, 0.406], np.float32) * 255
STD = np.array([0.229, 0.224, 0.225], np.float32) * 255


def write_images(folder):
    """IMAGE_ROWS JPEG files of IMAGE_SIDE x IMAGE_SIDE noise-and-gradient images."""
    from PIL import Image
    rng = np.random.default_rng(4)
    ramp = np.linspace(0, 200, IMAGE_SIDE, dtype=np.float32)
    paths = []
    for k in range(IMAGE_ROWS):
        img = ramp[None, :, None] + rng.integers(0, 55, (IMAGE_SIDE, IMAGE_SIDE, 3))
        path = os.path.join(folder, f"{k:04d}.jpg")
        Image.fromarray(img.astype(np.uint8)).save(path, quality=90)
        paths.append(path)
    return paths


def read_bytes(paths):
    out = []
    for p in paths:
        with open(p, "rb") as f:
            out.append(np.frombuffer(f.read(), np.uint8))
    return out


def image_pass(paths, workers, processes=False):
    files = read_bytes(paths)
    d = ds.GeneratorDataset(lambda: ((f,) for f in files), ["image"])
    d = d.map([vision.Decode(), vision.RandomCrop(CROP), vision.RandomHorizontalFlip(),
               vision.Normalize(MEAN.tolist(), STD.tolist()), vision.HWC2CHW()], "image",
              num_parallel_workers=workers, python_multiprocessing=processes)
    d = d.batch(64)
    return lambda: sum(1 for _ in d.create_tuple_iterator(output_numpy=True))


def numpy_floor(paths):
    """The same work in a plain loop: PIL decode, crop, flip, normalize, transpose, stack."""
    import io

    from PIL import Image
    files = read_bytes(paths)
    rng = np.random.default_rng(5)

    def run():
        batch, n = [], 0
        for f in files:
            img = np.asarray(Image.open(io.BytesIO(f.tobytes())).convert("RGB"))
            y, x = rng.integers(0, IMAGE_SIDE - CROP + 1, 2)
            img = img[y:y + CROP, x:x + CROP]
            if rng.random() < 0.5:
                img = img[:, ::-1]
            batch.append(((img - MEAN) / STD).transpose(2, 0, 1).astype(np.float32))
            if len(batch) == 64:
                np.stack(batch)
                batch, n = [], n + 1
        return n
    return run


def torch_pass(paths, workers):
    """A torch DataLoader over the same files with the same steps (None without torch)."""
    try:
        import torch
        from torch.utils.data import DataLoader
        from torch.utils.data import Dataset as TorchDataset
    except ImportError:
        return None
    import io

    from PIL import Image
    files = read_bytes(paths)

    class Files(TorchDataset):
        def __len__(self):
            return len(files)

        def __getitem__(self, k):
            img = np.asarray(Image.open(io.BytesIO(files[k].tobytes())).convert("RGB"))
            y, x = np.random.randint(0, IMAGE_SIDE - CROP + 1, 2)
            img = img[y:y + CROP, x:x + CROP]
            if np.random.rand() < 0.5:
                img = img[:, ::-1]
            return torch.from_numpy(((img - MEAN) / STD).transpose(2, 0, 1).astype(np.float32))

    loader = DataLoader(Files(), batch_size=64, num_workers=0 if workers == 1 else workers)
    return lambda: sum(1 for _ in loader)


def image_benchmark():
    import tempfile
    with tempfile.TemporaryDirectory() as folder:
        paths = write_images(folder)
        names = ["NumPy floor (1 thread)", "minispore 1 worker", "minispore 2 threads",
                 "minispore 2 processes"]
        cases = [numpy_floor(paths), image_pass(paths, 1), image_pass(paths, 2),
                 image_pass(paths, 2, processes=True)]
        for workers in (1, 2):
            case = torch_pass(paths, workers)
            if case is not None:
                names.append(f"torch DataLoader {workers} worker(s)")
                cases.append(case)
        rounds = interleaved_rounds(cases, repeat=3, warmup=1)
        best, ratio = summarize(rounds)
        print(f"image pipeline, {IMAGE_ROWS} JPEGs {IMAGE_SIDE}x{IMAGE_SIDE} -> crop {CROP}, "
              f"batch 64 (images/s; ratio: time over the NumPy floor's)")
        for name, b, r in zip(names, best, ratio):
            print(f"  {name:28s} {IMAGE_ROWS / b:8.0f} img/s   x{r:4.2f}")
        if len(names) == 4:
            print("  (PyTorch is not installed: no DataLoader column)")


def main():
    one, two = process_scaling()
    print(f"CPUs: {os.cpu_count()}; 16 FFT jobs: 1 process {one:.2f} s, 2 processes {two:.2f} s "
          f"(x{one / two:.2f})")
    rounds = interleaved_rounds([heavy_pass(1), heavy_pass(2), heavy_pass(4)], repeat=5)
    best, ratio = summarize(rounds)
    print("heavy map, 64 rows of 256x256:")
    for name, b, r in zip(["1 worker", "2 workers", "4 workers"], best, ratio):
        print(f"  {name:10s} {b * 1e3:8.1f} ms   x{1 / r:4.2f} speedup (median ratio)")
    rounds = interleaved_rounds([waiting_pass(1), waiting_pass(2), waiting_pass(4)], repeat=3)
    best, ratio = summarize(rounds)
    print("latency-bound map, 64 rows x 2 ms:")
    for name, b, r in zip(["1 worker", "2 workers", "4 workers"], best, ratio):
        print(f"  {name:10s} {b * 1e3:8.1f} ms   x{1 / r:4.2f} speedup (median ratio)")
    rounds = interleaved_rounds([quickstart_pass(1), quickstart_pass(2)], repeat=5)
    best, ratio = summarize(rounds)
    print("quick-start pipeline, 4096 rows of 28x28 (batch 64):")
    for name, b, r in zip(["1 worker", "2 workers"], best, ratio):
        print(f"  {name:10s} {b / 4096 * 1e6:8.1f} us/row   ratio to serial {r:4.2f}")
    image_benchmark()


if __name__ == "__main__":
    main()
