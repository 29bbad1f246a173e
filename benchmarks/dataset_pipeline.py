"""Dataset pipeline throughput: does `num_parallel_workers` pay off, and what does a light,
MNIST-like pipeline cost per row?

1. A map with a heavy NumPy transform (a 256x256 float32 FFT per row: pocketfft releases the
   GIL) on 1, 2 and 4 worker threads. The speedup is bounded by the cores the machine really
   gives: the reference line times 16 FFT jobs on 1 and 2 processes.
2. A latency-bound map (2 ms of waiting per row, like reading or decoding a file), which shows
   the pipeline's own scheduling whatever the core count.
3. The quick-start pipeline (Rescale, Normalize, HWC2CHW, TypeCast, batch 64) over 28x28 uint8
   rows, serial vs 2 workers, in microseconds per row.

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


if __name__ == "__main__":
    main()
