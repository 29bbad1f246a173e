"""Checkpoints: `save_checkpoint`, `load_checkpoint`, `load_param_into_net`, in MindSpore's `.ckpt`
format (`_ckpt_format`) and in safetensors (`_safetensors_format`); docs/checkpoint_format.md
describes both files.

Each public function checks its arguments first (nothing is written, read or waited for when
one is wrong), then does its work in the helpers below it.
"""
import io
import os
import re
import tempfile
import threading
from concurrent.futures import ThreadPoolExecutor

import numpy as np

from .._validator import check_bool, check_callable, check_one_of, check_positive_int, check_type
from ..common import dtype as mstype
from ..common.parameter import Parameter
from ..common.tensor import Tensor
from ..nn.cell import Cell
from . import _ckpt_format, _safetensors_format
from ._ckpt_format import CheckpointError

__all__ = ["CheckpointError", "async_ckpt_thread_status", "ckpt_to_safetensors",
           "load_checkpoint", "load_checkpoint_async", "load_param_into_net",
           "safetensors_to_ckpt", "save_checkpoint"]

_FORMATS = ("ckpt", "safetensors")
_SAVE_KWARGS = frozenset({"remove_redundancy", "incremental", "global_step_num"})


# ---- argument checks ------------------------------------------------------------------------

def _file_name(value, arg, func):
    """A str or os.PathLike file name, as a str."""
    if isinstance(value, os.PathLike):
        value = os.fspath(value)
    return check_type(value, str, arg, func, "a str or os.PathLike")


def _check_no_encryption(key, key_arg, mode, mode_arg, format, func):
    """`key` must be None or bytes, `mode` a str; a key is refused, encryption not supported."""
    check_type(mode, str, mode_arg, func)
    if key is None:
        return
    check_type(key, bytes, key_arg, func, "None or bytes")
    if format == "safetensors":
        raise ValueError(f"For '{func}', the '{key_arg}' must be None when format is "
                         "'safetensors', but got bytes")
    raise NotImplementedError(f"For '{func}', encrypted checkpoints ({key_arg}) are not supported "
                              "by minispore")


def _check_save_args(integrated_save, async_save, enc_key, enc_mode, choice_func, crc_check,
                     format, kwargs):
    """The checked `remove_redundancy` (None when not given)."""
    op = "save_checkpoint"
    check_one_of(format, _FORMATS, "format", op)
    check_bool(integrated_save, "integrated_save", op)
    check_type(async_save, (bool, str), "async_save", op, "a bool or str")
    if isinstance(async_save, str):
        check_one_of(async_save, ("process", "thread"), "async_save", op)
    if choice_func is not None:
        check_callable(choice_func, "choice_func", op)
    check_bool(crc_check, "crc_check", op)
    unknown = set(kwargs) - _SAVE_KWARGS
    if unknown:
        raise TypeError(f"For '{op}', unexpected keyword argument(s) "
                        f"{', '.join(sorted(unknown))}")
    remove_redundancy = kwargs.get("remove_redundancy")
    if remove_redundancy is not None:
        remove_redundancy = check_bool(remove_redundancy, "remove_redundancy", op)
    _check_no_encryption(enc_key, "enc_key", enc_mode, "enc_mode", format, op)
    if format == "safetensors":
        _safetensors_format.import_safetensors(op)
    return remove_redundancy


def _save_path(ckpt_file_name, format):
    """The absolute path to write: the format appended, its directory existing."""
    path = os.path.realpath(_file_name(ckpt_file_name, "ckpt_file_name", "save_checkpoint"))
    if not path.endswith(format):  # MindSpore's rule: 'net' -> 'net.ckpt', 'netckpt' stays
        path += "." + format
    if os.path.isdir(path):
        raise IsADirectoryError(f"For 'save_checkpoint', 'ckpt_file_name' {path!r} is a "
                                "directory, it must be a file name")
    folder = os.path.dirname(path)
    if not os.path.isdir(folder):
        raise FileNotFoundError(f"For 'save_checkpoint', the directory {folder!r} of "
                                f"{path!r} does not exist")
    return path


def _check_load_args(ckpt_file_name, net, strict_load, dec_key, dec_mode, choice_func,
                     crc_check, remove_redundancy, format):
    """The file to read: a BytesIO, or a str file name ending with `format`."""
    op = "load_checkpoint"
    check_one_of(format, _FORMATS, "format", op)
    if isinstance(ckpt_file_name, io.BytesIO):
        if format == "ckpt":
            raise TypeError(f"For '{op}', a BytesIO is only read with format='safetensors'")
        source = ckpt_file_name
    else:
        source = _file_name(ckpt_file_name, "ckpt_file_name", op)
        if not source.endswith(format):
            raise ValueError(f"For '{op}', the file name must end with the format {format!r}, "
                             f"but got {source!r}")
    if net is not None:
        check_type(net, Cell, "net", op, "a Cell or None")
    check_bool(strict_load, "strict_load", op)
    if choice_func is not None:
        check_callable(choice_func, "choice_func", op)
    check_bool(crc_check, "crc_check", op)
    check_bool(remove_redundancy, "remove_redundancy", op)
    _check_no_encryption(dec_key, "dec_key", dec_mode, "dec_mode", format, op)
    return source


def _prefixes(prefix, arg):
    """None, or `prefix` (a str, or a non-empty list or tuple of non-empty str) as a tuple."""
    if prefix is None:
        return None
    op = "load_checkpoint"
    check_type(prefix, (str, list, tuple), arg, op, "a str, list[str] or tuple[str]")
    if not prefix:
        raise ValueError(f"For '{op}', the '{arg}' must not be empty, but got {prefix!r}")
    prefix = (prefix,) if isinstance(prefix, str) else tuple(prefix)
    for i, p in enumerate(prefix):
        check_type(p, str, f"{arg}[{i}]", op)
        if not p:
            raise ValueError(f"For '{op}', the '{arg}' must not contain '', but got {prefix!r}")
    return prefix


def _check_load_param_args(net, parameter_dict, strict_load, remove_redundancy):
    op = "load_param_into_net"
    check_type(net, Cell, "net", op)
    check_type(parameter_dict, dict, "parameter_dict", op)
    for key, value in parameter_dict.items():
        if not isinstance(key, str) or not isinstance(value, (Tensor, str)):
            raise TypeError(f"For '{op}', the 'parameter_dict' must map str to Parameter (or "
                            f"Tensor, or str), but got {type(key).__name__} -> "
                            f"{type(value).__name__}")
    check_bool(strict_load, "strict_load", op)
    check_bool(remove_redundancy, "remove_redundancy", op)


def _check_convert_args(func, file_path, save_path, name_map, file_name_regex, processes_num):
    """(file_path, save_path) as str (save_path may be None)."""
    file_path = _file_name(file_path, "file_path", func)
    if save_path is not None:
        save_path = _file_name(save_path, "save_path", func)
        if os.path.splitext(save_path)[1]:
            raise ValueError(f"For '{func}', the 'save_path' must be a directory, but got "
                             f"{save_path!r}")
    if name_map is not None:
        check_type(name_map, dict, "name_map", func)
    if file_name_regex is not None:
        check_type(file_name_regex, str, "file_name_regex", func)
    check_positive_int(processes_num, "processes_num", func)
    return file_path, save_path


# ---- what to save ---------------------------------------------------------------------------

def _list_item(i, entry, as_dicts):
    """(name, data) of element i of a list `save_obj`: of dicts or of Parameters."""
    if not as_dicts:
        if not isinstance(entry, Parameter):
            raise TypeError(f"For 'save_checkpoint', 'save_obj' is a list of Parameters, but "
                            f"element {i} is {type(entry).__name__}")
        return entry.name, entry
    if not (isinstance(entry, dict) and "name" in entry and "data" in entry):
        raise TypeError(f"For 'save_checkpoint', 'save_obj' is a list of dicts, so every element "
                        f"must be a dict with keys 'name' and 'data', but element {i} is "
                        f"{entry!r:.80}")
    name, data = entry["name"], entry["data"]
    if not isinstance(name, str):
        raise TypeError(f"For 'save_checkpoint', the 'name' of element {i} of 'save_obj' must "
                        f"be a str, but got {type(name).__name__}")
    if not isinstance(data, Tensor):
        raise TypeError(f"For 'save_checkpoint', the 'data' of element {i} ({name!r}) of "
                        f"'save_obj' must be a Parameter or Tensor, but got "
                        f"{type(data).__name__}")
    return name, data


def _dict_item(name, data):
    if not isinstance(name, str):
        raise TypeError(f"For 'save_checkpoint', the keys of 'save_obj' must be str, but got "
                        f"{type(name).__name__}")
    if not isinstance(data, (Tensor, np.ndarray, str)):
        raise TypeError(f"For 'save_checkpoint', 'save_obj'[{name!r}] must be a Parameter, "
                        f"Tensor, NumPy array or str, but got {type(data).__name__}")
    return name, data


def _items_of(save_obj, choice_func):
    """(name, Tensor | ndarray | str) pairs to save, in order."""
    if isinstance(save_obj, Cell):
        items = [(p.name, p) for _, p in save_obj.parameters_and_names()]
    elif isinstance(save_obj, list):
        as_dicts = bool(save_obj) and isinstance(save_obj[0], dict)
        items = [_list_item(i, entry, as_dicts) for i, entry in enumerate(save_obj)]
    elif isinstance(save_obj, dict):
        items = [_dict_item(name, data) for name, data in save_obj.items()]
    else:
        raise TypeError(f"For 'save_checkpoint', 'save_obj' must be a Cell, list or dict, but got "
                        f"{type(save_obj).__name__}")
    return items if choice_func is None else [it for it in items if choice_func(it[0])]


def _append_items(append_dict):
    """append_dict's entries as (name, Tensor | str): ints become int64, floats float32, bools
    Bool 0-d tensors, as in MindSpore."""
    if append_dict is None:
        return []
    check_type(append_dict, dict, "append_dict", "save_checkpoint")
    items = []
    for name, value in append_dict.items():
        if not isinstance(name, str) or not isinstance(value, (int, float, str, Tensor)):
            raise TypeError(f"For 'save_checkpoint', 'append_dict' must map str to int, float, "
                            f"bool, str, Parameter or Tensor, but got key {type(name).__name__} "
                            f"with value {type(value).__name__}")
        if not isinstance(value, (str, Tensor)):
            try:
                value = Tensor(value)
            except ValueError as e:
                raise ValueError(f"For 'save_checkpoint', append_dict[{name!r}] = {value!r} cannot "
                                 f"be stored: {e}") from None
        items.append((name, value))
    return items


def _check_entries(items, format):
    """Every name once and valid Unicode, then every dtype storable in `format`."""
    seen = set()
    for name, _ in items:
        if name in seen:
            raise ValueError(f"For 'save_checkpoint', the name {name!r} appears twice among the "
                             "parameters and 'append_dict': a checkpoint holds one entry per name")
        seen.add(name)
        try:
            name.encode("utf-8")
        except UnicodeEncodeError:
            raise ValueError(f"For 'save_checkpoint', the name {name!r} is not valid Unicode "
                             "(it holds a lone surrogate)") from None
    for name, value in items:
        if isinstance(value, str):
            continue
        dtype = value.dtype if isinstance(value, np.ndarray) else value._data.dtype
        if dtype.newbyteorder("=") not in mstype.NP_TO_MS:
            raise TypeError(f"For 'save_checkpoint', {name!r} has dtype {dtype}, which no "
                            "checkpoint holds")
        if format == "safetensors" and dtype.kind == "c" and dtype.itemsize == 16:
            raise TypeError(f"For 'save_checkpoint', {name!r} is complex128, which safetensors "
                            "cannot store: save it with format='ckpt'")


def _snapshot(items, copy, format):
    """(name, little-endian C-contiguous ndarray | str) pairs; every name and dtype checked
    before anything is copied."""
    _check_entries(items, format)

    def stored(v):
        if isinstance(v, str):
            return v
        arr = v if isinstance(v, np.ndarray) else v._data
        # (np.array, not np.ascontiguousarray, which turns a 0-d array into 1-d)
        # (np.array(copy=True) / np.asarray rather than copy=None, which NumPy 1.x refuses)
        make = np.array if copy else np.asarray
        return make(arr, dtype=arr.dtype.newbyteorder("<"), order="C")
    return [(name, stored(v)) for name, v in items]


# ---- writing --------------------------------------------------------------------------------

def _replace_atomically(path, fill):
    """Run fill(temp_path) on a new file beside `path`, then rename it over `path`: readers see
    the old file or the whole new one, never a part."""
    folder, base = os.path.split(path)
    fd, tmp = tempfile.mkstemp(prefix=f".{base}.", suffix=".tmp", dir=folder)
    os.close(fd)
    try:
        fill(tmp)
        with open(tmp, "rb+") as f:
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


def _exec_save(path, entries, crc_check, format, remove_redundancy):
    if format == "ckpt":
        def fill(tmp):
            with open(tmp, "wb") as f:
                _ckpt_format.write_ckpt(f, entries, crc_check)
    else:
        def fill(tmp):
            _safetensors_format.write_safetensors(tmp, entries, crc_check, remove_redundancy)
    _replace_atomically(path, fill)


# One background save at a time (MindSpore's thread name, so async_ckpt_thread_status sees it).
_ASYNC_NAME = "asyn_save_ckpt"
_async_lock = threading.Lock()  # guards _async
_async_start_lock = threading.Lock()  # one caller at a time waits for the last save and starts
_async = {"thread": None, "error": None}


def _wait_async_save():
    """Wait for a running background save; re-raise its failure here, once."""
    thread = _async["thread"]
    if thread is not None:
        thread.join()
    with _async_lock:
        error, _async["error"] = _async["error"], None
        _async["thread"] = None
    if error is not None:
        path, exc = error
        raise RuntimeError(f"For 'save_checkpoint', the asynchronous save of {path!r} failed: "
                           f"{type(exc).__name__}: {exc}") from exc


def _async_save(path, entries, crc_check, format, remove_redundancy):
    try:
        _exec_save(path, entries, crc_check, format, remove_redundancy)
    except BaseException as e:  # noqa: BLE001  (handed to the next caller that waits)
        with _async_lock:
            _async["error"] = (path, e)


def _start_async_save(path, items, crc_check, format, remove_redundancy):
    """Copy the values now (whatever training does next) and write them in a thread."""
    if not os.access(os.path.dirname(path), os.W_OK):
        raise PermissionError(f"For 'save_checkpoint', cannot write to the directory of {path!r}")
    entries = _snapshot(items, True, format)
    with _async_start_lock:
        _wait_async_save()
        thread = threading.Thread(target=_async_save, name=_ASYNC_NAME,
                                  args=(path, entries, crc_check, format, remove_redundancy))
        with _async_lock:
            _async["thread"] = thread
        thread.start()


def save_checkpoint(save_obj, ckpt_file_name, integrated_save=True, async_save=False,
                    append_dict=None, enc_key=None, enc_mode="AES-GCM", choice_func=None,
                    crc_check=False, format="ckpt", **kwargs):
    """Save parameters to a checkpoint file, atomically (a temporary file renamed into place).

    Args:
        save_obj (Union[Cell, list, dict]): a Cell (every parameter, BatchNorm statistics
            included, under its `name`), a list of Parameters or of `{"name": str, "data":
            Tensor}` dicts, or a dict name -> Parameter, Tensor, NumPy array or str (such as
            `load_checkpoint`'s result).
        ckpt_file_name (str): the file; `.ckpt` (or `.safetensors`) is appended when the name
            does not end with the format's name. An existing file is replaced.
        integrated_save (bool): model-parallel merging in MindSpore; a single process has
            nothing to merge.
        async_save (Union[bool, str]): True, "thread" or "process": copy the values now and
            write in a background thread (minispore uses a thread for "process" too). A later
            save or load waits for it and raises its error, if any.
        append_dict (dict): extra entries, str -> int (stored as int64), float (float32), bool,
            str, Parameter or Tensor.
        enc_key (bytes): encryption is not supported: must be None.
        choice_func (callable): name -> bool; only parameters it accepts are saved
            (`append_dict` entries always are).
        crc_check (bool): append a CRC-32 of the content, checked by
            `load_checkpoint(..., crc_check=True)`.
        format (str): "ckpt" (MindSpore's protobuf) or "safetensors" (needs the `safetensors`
            package; entries sorted by name, strings kept in the metadata).
        kwargs: `remove_redundancy` (bool, recorded in safetensors metadata), `incremental` and
            `global_step_num` (accepted, unused).

    The file is readable and writable by its owner only (MindSpore makes it owner-read-only).
    Empty tensors are written with their shape; MindSpore 2.10 drops them when saving, and
    reads a shape-(0,) entry back as a 0-d tensor.

    Raises:
        TypeError: an argument of the wrong type, or an unsupported value in `save_obj`.
        ValueError: a bad `format` or `async_save`, or a name that appears twice.

    Example:
        >>> save_checkpoint(net, "./lenet.ckpt", append_dict={"epoch": 3})
    """
    remove_redundancy = _check_save_args(integrated_save, async_save, enc_key, enc_mode,
                                         choice_func, crc_check, format, kwargs)
    path = _save_path(ckpt_file_name, format)
    items = _items_of(save_obj, choice_func) + _append_items(append_dict)
    crc_check = bool(crc_check)
    if async_save:
        _start_async_save(path, items, crc_check, format, remove_redundancy)
        return
    entries = _snapshot(items, False, format)
    _wait_async_save()
    _exec_save(path, entries, crc_check, format, remove_redundancy)


def async_ckpt_thread_status():
    """True while an asynchronous `save_checkpoint` is still writing."""
    return any(t.name == _ASYNC_NAME and t.is_alive() for t in threading.enumerate())


# ---- reading --------------------------------------------------------------------------------

def _chooser(specify_prefix, filter_prefix, choice_func):
    """MindSpore's selection: the prefixes, when given, override choice_func."""
    if specify_prefix is None and filter_prefix is None:
        return (lambda name: True) if choice_func is None else choice_func

    def chosen(name):
        if specify_prefix and not name.startswith(specify_prefix):
            return False
        return not (filter_prefix and name.startswith(filter_prefix))
    return chosen


def _existing_file(name):
    """The absolute path of an existing file (not a directory)."""
    path = os.path.realpath(name)
    if not os.path.exists(path):
        raise ValueError(f"For 'load_checkpoint', the checkpoint file {path!r} does not exist")
    if os.path.isdir(path):
        raise CheckpointError(f"For 'load_checkpoint', {path!r} is a directory, not a "
                              "checkpoint file")
    return path


def _new_parameter(arr, name):
    p = Parameter(np.zeros((), arr.dtype), name=name)
    p._data = arr  # perf: adopt the array just read instead of copying it again
    return p


def _read(source, name, format, chosen, crc_check):
    """name -> Parameter | str of the entries `chosen` accepts (a warning for a missing CRC
    points at the caller of load_checkpoint)."""
    if format == "ckpt":
        values = _ckpt_format.read_ckpt(source, chosen, crc_check)
    else:
        values = _safetensors_format.read_safetensors(source, name, chosen, crc_check)
    return {k: v if isinstance(v, str) else _new_parameter(v, k) for k, v in values.items()}


def load_checkpoint(ckpt_file_name, net=None, strict_load=False, filter_prefix=None,
                    dec_key=None, dec_mode="AES-GCM", specify_prefix=None, choice_func=None,
                    crc_check=False, remove_redundancy=False, format="ckpt"):
    """Load a checkpoint file (and, with `net`, its values into the network).

    Args:
        ckpt_file_name (Union[str, io.BytesIO]): a file whose name ends with `format` (a BytesIO
            for safetensors only).
        net (Cell): if given, `load_param_into_net(net, result, strict_load)` runs on the result.
        strict_load (bool): see `load_param_into_net`.
        filter_prefix, specify_prefix (Union[str, list[str], tuple[str]]): skip the names that
            start with one of `filter_prefix`; keep only those that start with one of
            `specify_prefix`. Either overrides `choice_func`.
        dec_key (bytes): decryption is not supported: must be None.
        choice_func (callable): name -> bool; entries it rejects are not read.
        crc_check (bool): verify the CRC written by `save_checkpoint(..., crc_check=True)`
            (a warning if the file has none).
        remove_redundancy (bool): for data-parallel checkpoints in MindSpore; one process has
            every value, so nothing is restored.
        format (str): "ckpt" or "safetensors".

    Returns:
        dict: name -> Parameter (requires_grad True, named by its key), in file order (sorted
        for safetensors); strings from `append_dict` come back as str. BFloat16 entries are
        widened exactly to float32 (NumPy has no bfloat16).

    Raises:
        CheckpointError (a ValueError): a corrupt, truncated, hostile or foreign file, naming
            the file and the entry; nothing is loaded into `net`.
        ValueError: a missing file, a name not ending in `format`, or nothing left to load.
    """
    source = _check_load_args(ckpt_file_name, net, strict_load, dec_key, dec_mode, choice_func,
                              crc_check, remove_redundancy, format)
    chosen = _chooser(_prefixes(specify_prefix, "specify_prefix"),
                      _prefixes(filter_prefix, "filter_prefix"), choice_func)
    _wait_async_save()  # the file may still be being written
    if isinstance(source, io.BytesIO):
        name = "<BytesIO>"
    else:
        source = name = _existing_file(source)
    parameter_dict = _read(source, name, format, chosen, bool(crc_check))
    if not parameter_dict:
        raise ValueError(f"For 'load_checkpoint', nothing was loaded from {name!r}: the file holds "
                         "no entries, or 'filter_prefix', 'specify_prefix' or 'choice_func' "
                         "rejected them all")
    if net is not None:
        load_param_into_net(net, parameter_dict, strict_load, remove_redundancy)
    return parameter_dict


class _ParamDictFuture:
    """What `load_checkpoint_async` returns: `result()` gives `load_checkpoint`'s dict."""

    def __init__(self, executor, future):
        self._executor, self._future = executor, future

    def result(self):
        try:
            return self._future.result()
        finally:
            self._executor.shutdown(wait=False)


def load_checkpoint_async(ckpt_file_name, net=None, strict_load=False, filter_prefix=None,
                          dec_key=None, dec_mode="AES-GCM", specify_prefix=None, choice_func=None):
    """`load_checkpoint` in a background thread; `.result()` on the return value waits for it
    (and raises its error, if any). The format follows the file name's ending."""
    name = _file_name(ckpt_file_name, "ckpt_file_name", "load_checkpoint_async")
    format = "safetensors" if name.endswith(".safetensors") else "ckpt"
    executor = ThreadPoolExecutor(max_workers=1)
    future = executor.submit(load_checkpoint, name, net, strict_load, filter_prefix, dec_key,
                             dec_mode, specify_prefix, choice_func, format=format)
    return _ParamDictFuture(executor, future)


# ---- loading into a network -----------------------------------------------------------------

_FLOATS = frozenset("efd")  # float16, float32, float64 (NumPy dtype chars)
_SIGNED = frozenset("bhilq")  # int8 .. int64


def _convertible(src, dst):
    """MindSpore converts between floats, or between signed ints, when not strict_load."""
    return ({src.char, dst.char} <= _FLOATS) or ({src.char, dst.char} <= _SIGNED)


def _next_prefix(pending, parameter_dict, usable):
    """The prefix of the first key (in dict order) that ends with the first pending name (in
    net order) having one; None when no pending name is a proper suffix of a usable key."""
    for p in pending:
        name = p.name
        for key in parameter_dict:
            if len(key) > len(name) and key.endswith(name) and usable(key):
                return key[:-len(name)]
    return None


def _match(net, parameter_dict, strict_load):
    """(plan, pending): (parameter, key) pairs to load, and the parameters with no key."""
    def usable(key):
        return key in parameter_dict and not isinstance(parameter_dict[key], str)

    plan, pending = [], []
    for _, p in net.parameters_and_names():
        if usable(p.name):
            plan.append((p, p.name))
        elif not (p.name.startswith("accu_grads") and p.name not in parameter_dict):
            pending.append(p)
    while pending and not strict_load:
        prefix = _next_prefix(pending, parameter_dict, usable)
        if prefix is None:
            break
        still = []
        for p in pending:
            if usable(prefix + p.name):
                plan.append((p, prefix + p.name))
            else:
                still.append(p)
        pending = still
    return plan, pending


def _values_to_write(plan, parameter_dict, strict_load):
    """(parameter, array) pairs, once every value's shape and dtype fit its parameter."""
    writes, shape_errors, dtype_errors = [], [], []
    for p, key in plan:
        arr, target = parameter_dict[key]._data, p._data
        if arr.shape != target.shape:
            n = target.ndim
            if arr.ndim > n and arr.shape[:n] == target.shape and \
                    all(d == 1 for d in arr.shape[n:]):
                arr = arr.reshape(target.shape)
            else:
                shape_errors.append(f"{p.name!r} has shape {target.shape} in the net but "
                                    f"{key!r} has shape {arr.shape} in 'parameter_dict'")
                continue
        if arr.dtype != target.dtype and (strict_load or not _convertible(arr.dtype,
                                                                           target.dtype)):
            dtype_errors.append(f"{p.name!r} has dtype {mstype.NP_TO_MS[target.dtype]} in the "
                                f"net but {key!r} has dtype {mstype.NP_TO_MS[arr.dtype]} in "
                                "'parameter_dict'")
            continue
        writes.append((p, arr))
    if shape_errors or dtype_errors:
        rule = "" if not dtype_errors else (
            " (strict_load=True needs equal dtypes)" if strict_load else
            " (only float -> float and int -> int are converted)")
        cls = ValueError if shape_errors else TypeError
        raise cls("For 'load_param_into_net', nothing was loaded: " +
                  "; ".join(shape_errors + dtype_errors) + rule)
    return writes


def load_param_into_net(net, parameter_dict, strict_load=False, remove_redundancy=False):
    """Copy values from `parameter_dict` into the parameters of `net` (each Parameter object is
    kept and written in place, bumping its version, so a value saved for a pending backward
    cannot be silently changed).

    Every net parameter whose `name` is a key is loaded. Unless `strict_load`, the rest are then
    matched by suffix: a key ending in a missing parameter's name fixes a prefix (`'net.'` in
    `'net.fc.weight'`), and every missing parameter found under that prefix is loaded; this
    repeats while new prefixes turn up. Unless `strict_load`, a float value is cast to a float
    parameter's dtype and an int value to an int parameter's; a value with extra trailing
    size-1 dims is reshaped to the parameter's shape.

    Everything is checked before anything is written: on any error no parameter changes.

    Args:
        net (Cell): the network.
        parameter_dict (dict): name -> Parameter or Tensor (str values are skipped), e.g. the
            result of `load_checkpoint`.
        strict_load (bool): exact names and dtypes only.
        remove_redundancy (bool): for data-parallel checkpoints in MindSpore; nothing to do in one
            process.

    Returns:
        tuple(list, list): `param_not_load`, the net's parameter names that got no value (in net
        order), and `ckpt_not_load`, the keys that were not used (in dict order).
        (MindSpore 2.10 also lists keys used by the suffix match in `ckpt_not_load`, contrary to
        its documentation; here they are not listed. MindSpore also leaves a trailing-1 value in
        its own shape, and silently skips a parameter whose key holds a str: here that parameter
        is in `param_not_load`.)

    Raises:
        TypeError: `net` not a Cell, `parameter_dict` not a dict of str -> Parameter/Tensor/str,
            or a dtype mismatch (any with `strict_load`; float vs int otherwise).
        ValueError: a shape mismatch. Messages name every mismatched parameter and both shapes
            or dtypes. (MindSpore raises RuntimeError here, after loading the parameters before.)
    """
    _check_load_param_args(net, parameter_dict, strict_load, remove_redundancy)
    plan, pending = _match(net, parameter_dict, bool(strict_load))
    for p, arr in _values_to_write(plan, parameter_dict, bool(strict_load)):
        p._write(arr)
    used = {key for _, key in plan}
    return [p.name for p in pending], [k for k in parameter_dict if k not in used]


# ---- format conversion ----------------------------------------------------------------------

def _conversion_tasks(func, file_path, save_path, file_name_regex, src):
    """(input file, output directory) pairs: one file, or every `.src` file of the `rank*`
    directories under `file_path`."""
    if os.path.isfile(file_path):
        if not file_path.endswith("." + src):
            raise ValueError(f"For '{func}', the input file must be a .{src} file, but got "
                             f"{file_path!r}")
        if file_name_regex is not None and not re.search(file_name_regex, file_path):
            raise ValueError(f"For '{func}', the input file does not match 'file_name_regex'")
        return [(file_path, save_path or os.path.dirname(os.path.realpath(file_path)))]
    if not os.path.isdir(file_path):
        raise ValueError(f"For '{func}', 'file_path' must be a file or directory, but got "
                         f"{file_path!r}")
    ranks = sorted(d for d in os.listdir(file_path)
                   if d.startswith("rank") and os.path.isdir(os.path.join(file_path, d)))
    if not ranks:
        raise ValueError(f"For '{func}', no directories starting with 'rank' found in "
                         f"{file_path!r}")
    tasks = []
    for rank in ranks:
        folder = os.path.join(file_path, rank)
        out = os.path.join(save_path, rank) if save_path else folder
        for fn in sorted(os.listdir(folder)):
            if fn.endswith("." + src) and (file_name_regex is None or
                                           re.search(file_name_regex, fn)):
                tasks.append((os.path.join(folder, fn), out))
    return tasks


def _convert(func, file_path, save_path, name_map, file_name_regex, processes_num, src, dst):
    file_path, save_path = _check_convert_args(func, file_path, save_path, name_map,
                                               file_name_regex, processes_num)
    # Sequential: NumPy reads and writes at disk speed; worker processes would buy nothing.
    for path, out in _conversion_tasks(func, file_path, save_path, file_name_regex, src):
        params = load_checkpoint(path, format=src)
        if name_map:
            params = {name_map.get(k, k): v for k, v in params.items()}
        os.makedirs(out, exist_ok=True)
        base = os.path.basename(path)[:-len(src)] + dst
        save_checkpoint(params, os.path.join(out, base), format=dst)


def ckpt_to_safetensors(file_path, save_path=None, name_map=None, file_name_regex=None,
                        processes_num=1):
    """Convert a `.ckpt` file, or every `.ckpt` in the `rank*` folders of a directory, to
    `.safetensors` (beside it, or under `save_path`), renaming entries by `name_map`."""
    _convert("ckpt_to_safetensors", file_path, save_path, name_map, file_name_regex,
             processes_num, "ckpt", "safetensors")


def safetensors_to_ckpt(file_path, save_path=None, name_map=None, file_name_regex=None,
                        processes_num=1):
    """Convert a `.safetensors` file, or every one in the `rank*` folders of a directory, to
    `.ckpt` (beside it, or under `save_path`), renaming entries by `name_map`."""
    _convert("safetensors_to_ckpt", file_path, save_path, name_map, file_name_regex,
             processes_num, "safetensors", "ckpt")
