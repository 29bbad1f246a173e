"""`SummaryLandscape`: loss landscapes around the checkpoints `SummaryCollector` keeps with
`collect_specified_data={'collect_landscape': {...}}`, written to a summary file."""
import json
import multiprocessing
import os
import shutil
from concurrent.futures import ProcessPoolExecutor

import numpy as np

from ..._validator import check_callable, check_type
from ...common.tensor import Tensor
from ..metrics import get_metrics
from ..serialization import load_checkpoint
from ._record import SummaryRecord

__all__ = ["SummaryLandscape"]

LANDSCAPE_KEYS = ("landscape_size", "unit", "num_samples", "create_landscape", "intervals")
METADATA_FILE = "train_metadata.json"
_METADATA_KEYS = ("epoch_group", "model_params_file_map", "step_per_epoch", "unit",
                  "num_samples", "landscape_size", "create_landscape")
_PROZ = 0.2  # the margin around the trajectory, as a share of its extent (MindSpore's)
_OWNER = "SummaryLandscape"


def _is_int(value):
    return isinstance(value, int) and not isinstance(value, bool)


def check_landscape_options(options, owner, where="collect_landscape", complete=False):
    """Checks the keys and values of a `collect_landscape` dict (with `complete`, every key
    but 'intervals' may be left out, 'intervals' may not, as `SummaryCollector` needs it)."""
    if not isinstance(options, dict):
        raise TypeError(f"For '{owner}', '{where}' must be a dict, but got "
                        f"{type(options).__name__}")
    for key in options:
        if key not in LANDSCAPE_KEYS:
            raise ValueError(f"For '{owner}', the keys of '{where}' must be in "
                             f"{list(LANDSCAPE_KEYS)}, but got {key!r}")
    if "landscape_size" in options:
        size = options["landscape_size"]
        if not _is_int(size):
            raise TypeError(f"For '{owner}', 'landscape_size' in '{where}' must be an int, but "
                            f"got {type(size).__name__}")
        if not 3 <= size <= 256:
            raise ValueError(f"For '{owner}', 'landscape_size' in '{where}' must be in [3, 256], "
                             f"but got {size}")
    if "unit" in options:
        unit = options["unit"]
        if not isinstance(unit, str):
            raise TypeError(f"For '{owner}', 'unit' in '{where}' must be a str, but got "
                            f"{type(unit).__name__}")
        if unit not in ("step", "epoch"):
            raise ValueError(f"For '{owner}', 'unit' in '{where}' must be 'step' or 'epoch', but "
                             f"got {unit!r}")
    if "num_samples" in options and not _is_int(options["num_samples"]):
        raise TypeError(f"For '{owner}', 'num_samples' in '{where}' must be an int, but got "
                        f"{type(options['num_samples']).__name__}")
    if "create_landscape" in options:
        _check_create(options["create_landscape"], owner, where, need_both=not complete)
    if "intervals" in options or complete:
        _check_intervals(options.get("intervals"), owner, where)


def _check_create(create, owner, where, need_both):
    if not isinstance(create, dict):
        raise TypeError(f"For '{owner}', 'create_landscape' in '{where}' must be a dict, but got "
                        f"{type(create).__name__}")
    for key, value in create.items():
        if key not in ("train", "result"):
            raise ValueError(f"For '{owner}', the keys of 'create_landscape' must be 'train' or "
                             f"'result', but got {key!r}")
        if not isinstance(value, bool):
            raise TypeError(f"For '{owner}', 'create_landscape[{key!r}]' must be a bool, but got "
                            f"{type(value).__name__}")
    if need_both and len(create) < 2:
        raise ValueError(f"For '{owner}', 'create_landscape' must have both keys 'train' and "
                         f"'result', but got {list(create)}")


def _check_intervals(intervals, owner, where):
    if not isinstance(intervals, list):
        raise TypeError(f"For '{owner}', 'intervals' in '{where}' must be a list of lists, but "
                        f"got {type(intervals).__name__}")
    for interval in intervals:
        if not isinstance(interval, list):
            raise TypeError(f"For '{owner}', each interval in 'intervals' must be a list, but got "
                            f"{type(interval).__name__}")
        if len(interval) < 3:
            raise ValueError(f"For '{owner}', each interval in 'intervals' must hold at least 3 "
                             f"steps or epochs, but got {interval}")
        for item in interval:
            if not _is_int(item):
                raise TypeError(f"For '{owner}', the values in 'intervals' must be int, but got "
                                f"{type(item).__name__}")


def _direction_param(name):
    """Whether a parameter moves along the landscape's directions: weights and biases, not an
    optimizer's moments (MindSpore's rule, by name)."""
    return ("weight" in name or "bias" in name) and "moment" not in name


def _filter_normalise(names, values, directions):
    """Scale each parameter's slice of a direction to that parameter's norm; zero the slices of
    parameters that do not move."""
    out = []
    for name, value, d in zip(names, values, directions):
        if _direction_param(name):
            out.append(d * (np.linalg.norm(value) / np.linalg.norm(d)))
        else:
            out.append(d * 0)
    return out


def _split(vector, values, moving_only):
    """A flat vector cut into the shapes of `values` (only the moving ones with `moving_only`;
    the others keep their values, as MindSpore does, to be zeroed by the normalisation)."""
    parts, at = [], 0
    for name, value in values.items():
        if moving_only and not _direction_param(name):
            parts.append(np.array(value, np.float32))
            continue
        parts.append(np.array(vector[at:at + value.size].reshape(value.shape), np.float32))
        at += value.size
    return parts


def _principal_directions(trajectory):
    """The first two principal components of the (checkpoints - 1, features) differences from
    the final checkpoint, each column centred, signs fixed by each component's largest entry.
    Exact SVD (MindSpore switches to a randomised SVD past 500 features)."""
    x = trajectory.T.astype(np.float64)
    x = x - x.mean(axis=0)
    u, s, _ = np.linalg.svd(x, full_matrices=False)
    rows = np.argmax(np.abs(u), axis=0)
    u = u * np.sign(u[rows, np.arange(u.shape[1])])
    s = np.where(s == 0, 1e-19, s)
    components = u[:, :2] * s[:2]
    return components[:, 0], components[:, -1]


def _losses(callback_fn, final, v, w, points, num_samples):
    """The mean of the 'Loss' metric over `num_samples` samples of the callback's dataset, with
    the parameters at final + a * v + b * w for each (a, b) of `points`."""
    returned = callback_fn()
    if not isinstance(returned, (tuple, list)) or len(returned) != 4:
        raise TypeError(f"For '{_OWNER}', 'callback_fn' must return (model, network, dataset, "
                        f"metrics), but got {type(returned).__name__}")
    model, network, dataset, metrics = returned
    batches = num_samples // dataset.get_batch_size()
    if batches < 1:
        raise ValueError(f"For '{_OWNER}', 'num_samples' ({num_samples}) must be at least the "
                         f"dataset's batch size ({dataset.get_batch_size()})")
    dataset = dataset.take(batches)
    metric_fns = get_metrics(metrics)
    if "Loss" not in metric_fns:
        raise ValueError(f"For '{_OWNER}', the metrics of 'callback_fn' must hold a 'Loss' "
                         f"metric, but got {list(metric_fns)}")
    params = {p.name: p for p in network.get_parameters()}
    missing = [name for name in final if name not in params]
    if missing:
        raise ValueError(f"For '{_OWNER}', the network of 'callback_fn' has no parameters "
                         f"{missing} of the checkpoints")
    train_network = model.train_network
    train_network.set_train(True)
    losses = []
    for a, b in points:
        for i, (name, value) in enumerate(final.items()):
            params[name].set_data(Tensor((value + a * v[i] + b * w[i]).astype(np.float32)))
        for metric in metric_fns.values():
            metric.clear()
        for row in dataset.create_tuple_iterator():
            out = train_network(*row)
            metric_fns["Loss"].update(out[0] if isinstance(out, (tuple, list)) else out)
        losses.append(float(metric_fns["Loss"].eval()))
    return losses


class SummaryLandscape:
    """Loss landscapes from the checkpoints a `SummaryCollector` with 'collect_landscape' kept in
    `{summary_dir}/ckpt_dir` (with its `train_metadata.json`).

    For each interval of checkpoints, a training-process landscape: the loss on a grid in the
    plane of the two principal directions of the parameter trajectory (relative to the
    interval's last checkpoint), with the trajectory itself as a path; and for the last
    checkpoint a result landscape: the loss on a grid spanned by two random Gaussian directions
    (`numpy.random.normal`, so `np.random.seed` makes it repeatable), both directions scaled per
    parameter to the parameter's norm. Only parameters named '...weight...' or '...bias...'
    (and not '...moment...') move.

    Args:
        summary_dir (str): the summary directory of the `SummaryCollector` run.

    Raises:
        TypeError: `summary_dir` is not a str.
    """

    def __init__(self, summary_dir):
        check_type(summary_dir, str, "summary_dir", _OWNER)
        self._summary_dir = os.path.realpath(summary_dir)
        self._ckpt_dir = os.path.join(self._summary_dir, "ckpt_dir")
        os.makedirs(self._ckpt_dir, exist_ok=True)

    def clean_ckpt(self):
        """Remove the checkpoint directory (the checkpoints and their metadata)."""
        shutil.rmtree(self._ckpt_dir, ignore_errors=True)

    def gen_landscapes_with_multi_process(self, callback_fn, collect_landscape=None,
                                          device_ids=None, output=None):
        """Compute the landscapes and write them to a summary file in `output` (default: the
        summary directory), as tensor events at step 0 under 'landscape_<first>_<last>/...'
        (training process) and 'landscape_<last>/...' (result): 'x' and 'y' (the grid's axes),
        'z' (the losses, z[i, j] at (x[j], y[i])), for a training process 'path_x', 'path_y',
        'path_z' (the checkpoints in the plane and their losses), 'convergence' (x, y, z of the
        final checkpoint), and the settings as text ('custom_lineage_data/landscape_...').

        Args:
            callback_fn (callable): takes no argument and returns (model, network, dataset,
                metrics): a `Model` whose `train_network` gives the loss, its network (its
                parameters are set at each grid point), the dataset to evaluate on, and metrics
                holding a 'Loss' metric.
            collect_landscape (dict): overrides of the run's settings (the keys of
                `SummaryCollector`'s 'collect_landscape'); they are saved into the metadata.
                Default: None.
            device_ids (list[int]): with more than one id, the grid is split between that many
                CPU worker processes (forked; ids in [0, 7], as MindSpore's device ids); None
                or one id: computed in this process. MindSpore 2.10 raises a TypeError for None.
            output (str): the directory of the summary file. Default: None.

        Raises:
            TypeError, ValueError: arguments or metadata of the wrong type or value.
            FileNotFoundError: no `train_metadata.json` in the checkpoint directory.
        """
        owner = f"{_OWNER}.gen_landscapes_with_multi_process"
        check_callable(callback_fn, "callback_fn", owner)
        if device_ids is not None:
            if not isinstance(device_ids, list):
                raise TypeError(f"For '{owner}', 'device_ids' must be a list of int or None, but "
                                f"got {type(device_ids).__name__}")
            for i in device_ids:
                if not _is_int(i):
                    raise TypeError(f"For '{owner}', 'device_ids' must hold int, but got "
                                    f"{type(i).__name__}")
                if not 0 <= i <= 7:
                    raise ValueError(f"For '{owner}', 'device_ids' must be in [0, 7], but got {i}")
        if output is not None:
            check_type(output, str, "output", owner)
        if collect_landscape is not None:
            check_landscape_options(collect_landscape, owner)
        data = self._metadata(collect_landscape)
        workers = len(device_ids) if device_ids else 1
        landscapes = list(self._landscapes(data, callback_fn, workers))
        out_dir = os.path.realpath(output) if output is not None else self._summary_dir
        with SummaryRecord(out_dir) as record:
            for tag, arrays, settings in landscapes:
                for key, value in arrays.items():
                    record.add_value("tensor", f"{tag}/{key}", Tensor(np.asarray(value)))
                record.add_value("custom_lineage_data", tag, settings)
            record.record(0)

    def _metadata(self, overrides):
        path = os.path.join(self._ckpt_dir, METADATA_FILE)
        if not os.path.isfile(path):
            raise FileNotFoundError(f"For '{_OWNER}', there is no {METADATA_FILE} in "
                                    f"{self._ckpt_dir}: train with a SummaryCollector whose "
                                    "'collect_landscape' is set first")
        with open(path, encoding="utf-8") as f:
            data = json.load(f)
        if overrides:
            for key, value in overrides.items():
                if key in data:
                    data[key] = value
            if "intervals" in overrides:
                data["epoch_group"] = {str(i): list(v)
                                       for i, v in enumerate(overrides["intervals"])}
            with open(path, "w", encoding="utf-8") as f:
                json.dump(data, f)
        self._check_metadata(data)
        return data

    @staticmethod
    def _check_metadata(data):
        for key in data:
            if key not in _METADATA_KEYS:
                raise ValueError(f"For '{_OWNER}', the keys of {METADATA_FILE} must be in "
                                 f"{list(_METADATA_KEYS)}, but got {key!r}")
        missing = [k for k in _METADATA_KEYS if k not in data]
        if missing:
            raise ValueError(f"For '{_OWNER}', {METADATA_FILE} lacks {missing}")
        for steps in data["epoch_group"].values():
            if len(steps) < 3:
                raise ValueError(f"For '{_OWNER}', each group of 'epoch_group' in {METADATA_FILE} "
                                 f"must hold at least 3 checkpoints, but got {steps}")
            for step in steps:
                if str(step) not in data["model_params_file_map"]:
                    raise ValueError(f"For '{_OWNER}', {METADATA_FILE} has no checkpoint of "
                                     f"{data['unit']} {step}")
        if not _is_int(data["step_per_epoch"]):
            raise TypeError(f"For '{_OWNER}', 'step_per_epoch' in {METADATA_FILE} must be an int")
        check_landscape_options({k: data[k] for k in LANDSCAPE_KEYS if k != "intervals"},
                                _OWNER, METADATA_FILE)

    def _checkpoint(self, data, step):
        path = data["model_params_file_map"][str(step)]
        if not os.path.isabs(path):
            path = os.path.join(self._ckpt_dir, path)
        return {name: np.asarray(p.asnumpy()) for name, p in load_checkpoint(path).items()}

    def _grid(self, callback_fn, final, v, w, points, num_samples, workers):
        if workers <= 1 or len(points) < 2:
            return _losses(callback_fn, final, v, w, points, num_samples)
        chunks = [c.tolist() for c in np.array_split(np.asarray(points), workers) if len(c)]
        with ProcessPoolExecutor(len(chunks), mp_context=multiprocessing.get_context("fork")) as ex:
            parts = ex.map(_losses, *zip(*[(callback_fn, final, v, w, c, num_samples)
                                           for c in chunks]))
            return [z for part in parts for z in part]

    def _landscapes(self, data, callback_fn, workers):
        size, num_samples = data["landscape_size"], data["num_samples"]
        settings = {"unit": data["unit"], "step_per_epoch": data["step_per_epoch"],
                    "num_samples": num_samples}
        groups = list(data["epoch_group"].values())
        if data["create_landscape"].get("train"):
            for steps in groups:
                checkpoints = [self._checkpoint(data, s) for s in steps]
                final = checkpoints[-1]
                moving = [n for n in final if _direction_param(n)]
                flat = np.stack([np.concatenate([c[n].ravel() for n in moving])
                                 for c in checkpoints])
                v_all, w_all = _principal_directions(flat[:-1] - flat[-1])
                values = list(final.values())
                v = _filter_normalise(final, values, _split(v_all, final, True))
                w = _filter_normalise(final, values, _split(w_all, final, True))
                basis = np.stack([np.concatenate([v[i].ravel() for i, n in enumerate(final)
                                                  if _direction_param(n)]),
                                  np.concatenate([w[i].ravel() for i, n in enumerate(final)
                                                  if _direction_param(n)])], axis=1)
                coefs = np.array([np.linalg.lstsq(basis, row - flat[-1], rcond=None)[0]
                                  for row in flat])
                axes = []
                for c in coefs.T:
                    extent = c.max() - c.min()
                    axes.append(np.linspace(c.min() - _PROZ * extent, c.max() + _PROZ * extent,
                                            size))
                points = [(a, b) for b in axes[1] for a in axes[0]] + [tuple(c) for c in coefs]
                z = self._grid(callback_fn, final, v, w, points, num_samples, workers)
                path_z = np.array(z[size * size:])
                arrays = {"x": axes[0], "y": axes[1],
                          "z": np.array(z[:size * size]).reshape(size, size),
                          "path_x": coefs[:, 0], "path_y": coefs[:, 1], "path_z": path_z,
                          "convergence": np.array([0.0, 0.0, path_z[-1]])}
                yield (f"landscape_{steps[0]}_{steps[-1]}", arrays,
                       dict(settings, decomposition="PCA", intervals=list(steps)))
        if data["create_landscape"].get("result"):
            last = groups[-1][-1]
            final = self._checkpoint(data, last)
            values = list(final.values())
            total = sum(x.size for x in values)
            v_all = np.random.normal(size=total)
            w_all = np.random.normal(size=total)
            v = _filter_normalise(final, values, _split(v_all, final, False))
            w = _filter_normalise(final, values, _split(w_all, final, False))
            axis = np.linspace(-_PROZ * 5, _PROZ * 5, size)
            points = [(a, b) for b in axis for a in axis]
            z = np.array(self._grid(callback_fn, final, v, w, points, num_samples,
                                    workers)).reshape(size, size)
            mid = size // 2
            arrays = {"x": axis, "y": axis, "z": z,
                      "convergence": np.array([axis[mid], axis[mid], z[mid, mid]])}
            yield (f"landscape_{last}", arrays,
                   dict(settings, decomposition="Random", intervals=[last]))
