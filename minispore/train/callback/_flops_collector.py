"""`FlopsUtilizationCollector`: model and hardware FLOPs utilisation (MFU / HFU) per step."""
import math
import os
import time
import weakref

from ..._validator import check_bool, check_positive_int
from ...communication.management import get_group_size, get_rank
from ...context import get_auto_parallel_context
from ...profiler import _flops
from ._callback import Callback

__all__ = ["FlopsUtilizationCollector"]


def _floored_percent(label, value):
    return f"{label}{math.floor(value * 10000) / 100:.2f}%"


class FlopsUtilizationCollector(Callback):
    """Counts the FLOPs of one step (MatMul, BatchMatMul, Dense, convolutions, forward and
    backward; docs/flops.md) and prints the model and hardware FLOPs utilisation of each step
    against `computility`, the peak FLOP/s of one device.

    The first step of each mode (train, eval) is counted as it runs; the later steps run
    untouched. With data parallel, "full" counts every rank's step and "shard" this rank's.

    Args:
        data_size (int): steps between two quiet steps (as MindSpore, a step whose number is a
            multiple of it prints nothing).
        computility (int): peak FLOP/s of one device. Default: 1.
        full_flops (bool): report the whole model's FLOPs (else this rank's). Default: True.
        enable_ma_collector (bool): also write the FLOPs and step times to
            `$MA_LOG_DIR/flops_rank_<r>.txt` and `time_step_rank_<r>.txt`. Default: False.
            With `computility=1` it alone reports (nothing printed).

    MindSpore counts the FLOPs of the compiled graph and refuses PyNative mode; here the first
    step is counted as it runs, in either mode.
    """

    def __init__(self, data_size, computility=1, full_flops=True, enable_ma_collector=False):
        super().__init__()
        self.full_flops = check_bool(full_flops, "full_flops", "FlopsUtilizationCollector")
        self.ma = check_bool(enable_ma_collector, "enable_ma_collector",
                             "FlopsUtilizationCollector")
        self.data_size = check_positive_int(data_size, "data_size", "FlopsUtilizationCollector")
        self.computility = computility
        self.verbose = not (computility == 1 and enable_ma_collector)
        self.step_time = time.time()
        self.batch_step_size = None
        self._counting = None
        self._per_mode = {}  # mode -> (full model, full hardware, shard model, shard hardware)
        self.time_step_path = ""

    def _world(self):
        mode = get_auto_parallel_context("parallel_mode")
        return (get_group_size(), get_rank()) if mode != "stand_alone" else (1, 0)

    def step_begin(self, run_context):
        cb_params = run_context.original_args()
        if self.batch_step_size is None:
            batch_num = cb_params.get("batch_num")
            self.batch_step_size = batch_num if isinstance(batch_num, int) and batch_num > 0 \
                else self.data_size
        mode = cb_params.get("mode", "train")
        if mode not in self._per_mode and self._counting is None:
            counter = _flops.count().__enter__()
            # closes the count once: at the step's end, or when the collector goes (a step that
            # raised never reaches its end)
            self._counting = (mode, counter, weakref.finalize(self, counter.__exit__, None, None,
                                                              None))
        self.step_time = time.time()

    def _finish_count(self, cb_params):
        mode, counter, close = self._counting
        close()
        self._counting = None
        model, hardware = float(counter.model), float(counter.hardware)
        if cb_params.get("dataset_sink_mode"):
            model, hardware = model / self.batch_step_size, hardware / self.batch_step_size
        world, rank = self._world()
        self._per_mode[mode] = (model * world, hardware * world, model, hardware)
        _flops.record(mode, model, hardware)
        if self.ma:
            self._write_flops(rank, model, hardware)
        if self.verbose:
            # as MindSpore prints them: through the utilisation, FLOPs / computility
            full_model = model * world / self.computility * self.computility
            full_hardware = hardware * world / self.computility * self.computility
            if self.full_flops:
                print(f"Full model flops is {full_model}, Full hardware flops is "
                      f"{full_hardware}, Shard model flops is {model}, Shard hardware flops "
                      f"is {hardware}.", flush=True)
            else:
                print(f"Shard model flops is {model}, Shard hardware flops is {hardware}.",
                      flush=True)

    def _write_flops(self, rank, model, hardware):
        folder = os.path.realpath(os.getenv("MA_LOG_DIR", "./"))
        self.time_step_path = os.path.join(folder, f"time_step_rank_{rank}.txt")
        stamp = int(round(time.time() * 1000))
        with open(os.path.join(folder, f"flops_rank_{rank}.txt"), "w", encoding="utf-8") as f:
            f.write(f'flops{{type="model_flops", rank_id="{rank}"}} {model} {stamp}\n')
            f.write(f'flops{{type="hardware_flops", rank_id="{rank}"}} {hardware} {stamp}\n')

    def step_end(self, run_context):
        step_ms = (time.time() - self.step_time) * 1000
        cb_params = run_context.original_args()
        if self._counting is not None:
            self._finish_count(cb_params)
        mode = cb_params.get("mode", "train")
        if mode not in self._per_mode:
            return
        if cb_params.get("dataset_sink_mode"):
            step_ms /= self.batch_step_size
        world, rank = self._world()
        if self.ma:
            with open(self.time_step_path, "w", encoding="utf-8") as f:
                f.write(f'time_monitor{{type="per_step_time", rank_id="{rank}"}} {step_ms} '
                        f'{int(round(time.time() * 1000))}\n')
        if self.verbose and cb_params.get("cur_step_num", 0) % self.data_size:
            full_model, full_hardware, model, hardware = self._per_mode[mode]
            if self.full_flops:  # per device: the whole model's FLOPs over every device
                model, hardware = full_model / world, full_hardware / world
            mfu = 1000 * model / self.computility / step_ms
            hfu = 1000 * hardware / self.computility / step_ms
            print(f"{mode.title()} per step time: {step_ms:5.3f} ms" +
                  _floored_percent(" mfu:", mfu) + _floored_percent(" hfu:", hfu), flush=True)
