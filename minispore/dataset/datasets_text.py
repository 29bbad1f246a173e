"""Datasets read from local text files: TextFileDataset, CSVDataset, CLUEDataset, the CSV corpora
(AGNews, AmazonReview, DBpedia, SogouNews, YahooAnswers, YelpReview), IMDB, the line corpora
(EnWik9, PennTreebank, WikiText), IWSLT 2016 / 2017, Multi30k, SST2, UDPOS, CoNLL2000 and
SQuAD.

Every column is a NumPy str scalar (MindSpore's string tensors) unless said otherwise. The files
are read on first use; rows come in file order (with usage 'all', the files sorted by path, as
MindSpore reads them), then line order, and `shuffle` (True or
`Shuffle.GLOBAL`: all rows; `Shuffle.FILES`: the order of the files; `Shuffle.INFILE`: the rows
inside each file; False: none) is redrawn every epoch from the dataset seed. `num_shards` /
`shard_id` give shard k a block of ceil(n / num_shards) consecutive rows (wrapping to the first
rows so every shard has as many), as in MindSpore.
"""
import csv
import enum
import glob
import io
import json
import mmap
import os
import xml.etree.ElementTree as ET

import numpy as np

from .._validator import check_one_of, check_sequence, check_type
from ._base import MappableDataset, check_workers
from .datasets_vision import _Lazy
from .samplers import BuiltinSampler, _check_shard, select_sampler

__all__ = ["AGNewsDataset", "AmazonReviewDataset", "CLUEDataset", "CoNLL2000Dataset",
           "CSVDataset", "DBpediaDataset", "EnWik9Dataset", "IMDBDataset", "IWSLT2016Dataset",
           "IWSLT2017Dataset", "Multi30kDataset",
           "PennTreebankDataset", "SQuADDataset", "SST2Dataset", "Shuffle", "SogouNewsDataset",
           "TextFileDataset", "UDPOSDataset", "WikiTextDataset", "YahooAnswersDataset",
           "YelpReviewDataset"]

_MAX_TEXT_FILE_BYTES = 2**31


class Shuffle(str, enum.Enum):
    """How a file-based dataset shuffles: GLOBAL (all rows), FILES (file order), INFILE (rows
    within each file)."""
    GLOBAL = "global"
    FILES = "files"
    INFILE = "infile"


class _FileOrderSampler(BuiltinSampler):
    """Rows in file order with the files (FILES) or the rows inside each file (INFILE) shuffled
    anew each epoch."""

    def __init__(self, mode, bounds, num_samples=None):
        super().__init__(num_samples)
        self.mode, self.bounds = mode, bounds

    def _indices(self, n, rng_for):
        rng = rng_for(False)
        spans = [np.arange(a, b, dtype=np.int64) for a, b in zip(self.bounds, self.bounds[1:])]
        if self.mode is Shuffle.FILES:
            spans = [spans[int(k)] for k in rng.permutation(len(spans))]
        else:
            spans = [rng.permutation(s) for s in spans]
        idx = np.concatenate(spans) if spans else np.zeros(0, np.int64)
        return idx[:self._limit(len(idx))]

    def _count(self, n):
        return self._limit(n)

    def _is_shuffled(self):
        return True


class _BlockShardSampler(BuiltinSampler):
    """Shard k of a file-based dataset: ceil(n / num_shards) consecutive rows from row
    k * ceil(n / num_shards) of the (shuffled) order, wrapping around to the first rows so
    every shard has as many (MindSpore's sharding of its text readers)."""

    def __init__(self, num_shards, shard_id, shuffle, num_samples=None):
        super().__init__(num_samples)
        self.num_shards, self.shard_id, self.shuffle = num_shards, shard_id, shuffle

    def _positions(self, n):
        if n == 0:
            return np.zeros(0, np.int64)
        per = -(-n // self.num_shards)
        pos = (self.shard_id * per + np.arange(per, dtype=np.int64)) % n
        return pos[:self._limit(per)]

    def _indices(self, n, rng_for):
        pos = self._positions(n)
        return rng_for(True).permutation(n).astype(np.int64)[pos] if self.shuffle else pos

    def _count(self, n):
        return len(self._positions(n))

    def _is_shuffled(self):
        return self.shuffle

    def _is_sharded(self):
        return self.num_shards > 1


def _check_files(owner, dataset_files):
    """The list of files of `dataset_files` (a path, a glob pattern or a list of paths)."""
    if isinstance(dataset_files, (str, os.PathLike)):
        pattern = os.fspath(dataset_files)
        files = sorted(glob.glob(pattern)) if glob.has_magic(pattern) else [pattern]
    else:
        files = [os.fspath(check_type(f, (str, os.PathLike), "dataset_files", owner))
                 for f in check_sequence(dataset_files, "dataset_files", owner, non_empty=True)]
    if not files:
        raise ValueError(f"For '{owner}', no file matches 'dataset_files' {dataset_files!r}")
    for f in files:
        if not os.path.isfile(f):
            raise ValueError(f"For '{owner}', the file {f!r} does not exist or is not a regular "
                             f"file")
    return files


def _read_text(owner, path):
    """The text of a UTF-8 file (a BOM is dropped), refusing files over 2 GiB."""
    size = os.path.getsize(path)
    if size > _MAX_TEXT_FILE_BYTES:
        raise ValueError(f"For '{owner}', {path!r} is {size} bytes, over the 2 GiB limit")
    with open(path, "rb") as f:
        data = f.read()
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as e:
        raise ValueError(f"For '{owner}', {path!r} is not UTF-8 text: {e}") from None


def _lines(owner, path):
    """The lines of a text file, without their line ends."""
    return _read_text(owner, path).splitlines()


def _check_shuffle(owner, shuffle):
    if shuffle is None or isinstance(shuffle, Shuffle):
        return shuffle
    if isinstance(shuffle, (bool, np.bool_)):
        return bool(shuffle)
    raise TypeError(f"For '{owner}', the 'shuffle' must be a bool or a Shuffle, but got "
                    f"{type(shuffle).__name__}")


def _usage(owner, usage, allowed):
    return check_one_of("all" if usage is None else usage, allowed + ("all",), "usage", owner)


def _dataset_dir(owner, dataset_dir):
    path = os.fspath(check_type(dataset_dir, (str, os.PathLike), "dataset_dir", owner,
                                "a str or path"))
    if not os.path.isdir(path):
        raise ValueError(f"For '{owner}', 'dataset_dir' {path!r} does not exist or is not a "
                         f"directory")
    return path


class _TextSource(MappableDataset):
    """A source of rows parsed from files: subclasses set `_owner`, `_names`, `self._files` and
    define `_parse(path)`, a list of rows (tuples of str or arrays) of one file."""

    _owner = "TextDataset"
    _names = ("text",)

    def __init__(self, files, num_samples, num_parallel_workers, shuffle, num_shards, shard_id,
                 sampler=None, default_shuffle=True):
        owner = self._owner
        self._files = files
        shuffle = _check_shuffle(owner, shuffle)
        self._mode = shuffle if shuffle in (Shuffle.FILES, Shuffle.INFILE) else None
        flag = shuffle if isinstance(shuffle, bool) or shuffle is None else True
        sampler = select_sampler(owner, num_samples, flag, sampler, num_shards, shard_id,
                                 default_shuffle)
        if num_shards is not None:
            num_shards, shard_id = _check_shard(num_shards, shard_id, owner)
            sampler = _BlockShardSampler(num_shards, shard_id, sampler._is_shuffled(),
                                         sampler.num_samples)
        self._store = _Lazy(self._load)
        super().__init__(check_workers(owner, num_parallel_workers), sampler)

    def _load(self):
        rows, bounds = [], [0]
        for path in self._files:
            rows.extend(self._parse(path))
            bounds.append(len(rows))
        self._file_order(bounds)
        return rows

    def _file_order(self, bounds):
        """Use the FILES / INFILE order now that the rows of each file are known."""
        if self._mode is not None and not self.sampler._is_sharded():
            self.sampler = _FileOrderSampler(self._mode, bounds, self.sampler.num_samples)

    def _columns(self):
        return list(self._names)

    def _num_rows(self):
        return len(self._store.get())

    def _indices(self, p):
        self._store.get()
        return super()._indices(p)

    def _get_row(self, index):
        return tuple(np.array(v) for v in self._store.get()[index])

    def _size(self):
        self._store.get()
        return super()._size()


_SCAN_BYTES = 1 << 26


class _LineFile:
    """The lines of a text file, split at '\\n' (a '\\r' before it dropped) and decoded on
    access: the file is memory-mapped and only the line offsets are kept, so a corpus of a
    gigabyte costs its offsets, not a gigabyte of Python strings."""

    def __init__(self, owner, path, keep_empty):
        self.owner, self.path = owner, path
        size = os.path.getsize(path)
        if size > _MAX_TEXT_FILE_BYTES:
            raise ValueError(f"For '{owner}', {path!r} is {size} bytes, over the 2 GiB limit")
        if size == 0:
            self._data, self.starts, self.ends = b"", np.zeros(0, np.int64), np.zeros(0, np.int64)
            return
        with open(path, "rb") as f:
            self._data = mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ)
        buf = np.frombuffer(self._data, np.uint8)
        breaks = [np.flatnonzero(buf[a:a + _SCAN_BYTES] == 10) + a
                  for a in range(0, size, _SCAN_BYTES)]
        breaks = np.concatenate(breaks).astype(np.int64)
        starts = np.concatenate(([0], breaks + 1))
        ends = np.concatenate((breaks, [size]))
        if starts[-1] == size:  # the file ends with a line break
            starts, ends = starts[:-1], ends[:-1]
        ends = ends - ((ends > starts) & (buf[np.maximum(ends - 1, 0)] == 13))
        if self._data[:3] == b"\xef\xbb\xbf":
            starts[0] = min(3, ends[0])
        if not keep_empty:
            keep = ends > starts
            starts, ends = starts[keep], ends[keep]
        self.starts, self.ends = starts, ends

    def __len__(self):
        return len(self.starts)

    def line(self, k):
        raw = self._data[int(self.starts[k]):int(self.ends[k])]
        try:
            return raw.decode("utf-8")
        except UnicodeDecodeError as e:
            raise ValueError(f"For '{self.owner}', the line at byte {int(self.starts[k])} of "
                             f"{self.path!r} is not UTF-8 text: {e}") from None


class _LineSource(_TextSource):
    """One row (column `text`) per line of each file, read through `_LineFile`."""

    _keep_empty = False

    def _load(self):
        files = [_LineFile(self._owner, p, self._keep_empty) for p in self._files]
        bounds = np.cumsum([0] + [len(f) for f in files])
        self._file_order(list(bounds))
        return files, bounds

    def _num_rows(self):
        return int(self._store.get()[1][-1])

    def _get_row(self, index):
        files, bounds = self._store.get()
        k = int(np.searchsorted(bounds, index, side="right")) - 1
        return (np.array(files[k].line(index - int(bounds[k]))),)


class TextFileDataset(_LineSource):
    """One row per line of the text files `dataset_files` (a path, a glob pattern or a list),
    column `text`.

    Example:
        >>> ds = TextFileDataset("corpus.txt", shuffle=False)
    """

    _owner = "TextFileDataset"

    def __init__(self, dataset_files, num_samples=None, num_parallel_workers=None,
                 shuffle=Shuffle.GLOBAL, num_shards=None, shard_id=None, cache=None):
        self.dataset_files = _check_files(self._owner, dataset_files)
        super().__init__(self.dataset_files, num_samples, num_parallel_workers, shuffle,
                         num_shards, shard_id)


def _csv_rows(owner, path, delim, skip_header=False):
    rows = list(csv.reader(io.StringIO(_read_text(owner, path), newline=""), delimiter=delim))
    rows = [r for r in rows if r]
    return rows[1:] if skip_header else rows


class CSVDataset(_TextSource):
    """Rows of CSV files (RFC 4180 quoting; `field_delim` separates fields).

    Args:
        dataset_files: a path, a glob pattern or a list of paths.
        field_delim (str): one character (default ',').
        column_defaults (list, optional): one value per column, an int, float or str: the type
            of the column (int32, float32 or str) and, for numbers, the value of its empty
            fields (empty str fields stay ''). Without it every column is str.
        column_names (list[str], optional): the column names; by default the first line of the
            first file, and the first line of every file is then a header, not a row.
    """

    _owner = "CSVDataset"

    def __init__(self, dataset_files, field_delim=",", column_defaults=None, column_names=None,
                 num_samples=None, num_parallel_workers=None, shuffle=Shuffle.GLOBAL,
                 num_shards=None, shard_id=None, cache=None):
        owner = self._owner
        self.dataset_files = _check_files(owner, dataset_files)
        check_type(field_delim, str, "field_delim", owner)
        if len(field_delim) != 1 or field_delim in '"\r\n':
            raise ValueError(f"For '{owner}', the 'field_delim' must be one character other than "
                             f"a quote or line end, but got {field_delim!r}")
        self.field_delim = field_delim
        if column_defaults is not None:
            for k, v in enumerate(check_sequence(column_defaults, "column_defaults", owner)):
                if isinstance(v, bool) or not isinstance(v, (int, float, str)):
                    raise TypeError(f"For '{owner}', column_defaults[{k}] must be an int, float "
                                    f"or str, but got {type(v).__name__}")
            column_defaults = list(column_defaults)
        self.column_defaults = column_defaults
        self._header = column_names is None
        if self._header:
            first = _csv_rows(owner, self.dataset_files[0], field_delim)
            if not first:
                raise ValueError(f"For '{owner}', {self.dataset_files[0]!r} has no header line "
                                 f"to take the column names from")
            column_names = first[0]
        names = list(check_sequence(column_names, "column_names", owner, non_empty=True))
        for n in names:
            check_type(n, str, "column_names", owner, "a list of str")
        if len(set(names)) != len(names):
            raise ValueError(f"For '{owner}', the column names must be unique, but got {names}")
        if column_defaults is not None and len(column_defaults) != len(names):
            raise ValueError(f"For '{owner}', 'column_defaults' has {len(column_defaults)} values "
                             f"but there are {len(names)} columns")
        self._names = tuple(names)
        super().__init__(self.dataset_files, num_samples, num_parallel_workers, shuffle,
                         num_shards, shard_id)

    def _value(self, path, line, k, field):
        default = None if self.column_defaults is None else self.column_defaults[k]
        if default is None or isinstance(default, str):
            return np.array(field)
        if field == "":
            field = default
        kind = np.int32 if isinstance(default, int) else np.float32
        try:
            return np.array(kind(field) if kind is np.float32 else int(field), kind)
        except (ValueError, OverflowError):
            raise ValueError(f"For '{self._owner}', field {k} of line {line} of {path!r} is "
                             f"{field!r}, not a{'n int' if kind is np.int32 else ' float'}") \
                from None

    def _parse(self, path):
        skip = self._header  # each file's first line is its header then, as in MindSpore
        rows = _csv_rows(self._owner, path, self.field_delim, skip)
        out = []
        for line, fields in enumerate(rows, 1 + skip):
            if len(fields) != len(self._names):
                raise ValueError(f"For '{self._owner}', line {line} of {path!r} has "
                                 f"{len(fields)} fields, expected {len(self._names)}")
            out.append(tuple(self._value(path, line, k, f) for k, f in enumerate(fields)))
        return out

    def _get_row(self, index):
        return tuple(v.copy() for v in self._store.get()[index])


class _CSVCorpus(_TextSource):
    """`train.csv` / `test.csv` in `dataset_dir`, every field quoted, fixed columns."""

    _usages = ("train", "test")
    _sorted = True  # usage 'all' reads test.csv first (MindSpore; train first for some)

    def __init__(self, dataset_dir, usage=None, num_samples=None, num_parallel_workers=None,
                 shuffle=Shuffle.GLOBAL, num_shards=None, shard_id=None, cache=None):
        owner = self._owner
        self.dataset_dir = _dataset_dir(owner, dataset_dir)
        self.usage = _usage(owner, usage, self._usages)
        names = self._usages if self.usage == "all" else (self.usage,)
        files = [os.path.join(self.dataset_dir, f"{u}.csv") for u in names]
        files = sorted(files) if self._sorted else files
        for f in files:
            if not os.path.isfile(f):
                raise ValueError(f"For '{owner}', the file {f!r} does not exist")
        super().__init__(files, num_samples, num_parallel_workers, shuffle, num_shards,
                         shard_id)

    def _parse(self, path):
        out = []
        for line, fields in enumerate(_csv_rows(self._owner, path, ","), 1):
            if len(fields) != len(self._names):
                raise ValueError(f"For '{self._owner}', line {line} of {path!r} has "
                                 f"{len(fields)} fields, expected {len(self._names)}")
            out.append(tuple(fields))
        return out


class AGNewsDataset(_CSVCorpus):
    """AG News: `train.csv` / `test.csv` rows of (index, title, description)."""
    _owner, _names = "AGNewsDataset", ("index", "title", "description")


class AmazonReviewDataset(_CSVCorpus):
    """Amazon reviews: `train.csv` / `test.csv` rows of (label, title, content)."""
    _owner, _names = "AmazonReviewDataset", ("label", "title", "content")


class DBpediaDataset(_CSVCorpus):
    """DBpedia: `train.csv` / `test.csv` rows of (class, title, content)."""
    _owner, _names = "DBpediaDataset", ("class", "title", "content")


class SogouNewsDataset(_CSVCorpus):
    """Sogou News: `train.csv` / `test.csv` rows of (index, title, content)."""
    _owner, _names = "SogouNewsDataset", ("index", "title", "content")
    _sorted = False

    def __init__(self, dataset_dir, usage=None, num_samples=None, shuffle=Shuffle.GLOBAL,
                 num_shards=None, shard_id=None, num_parallel_workers=None, cache=None):
        super().__init__(dataset_dir, usage, num_samples, num_parallel_workers, shuffle,
                         num_shards, shard_id, cache)


class YahooAnswersDataset(_CSVCorpus):
    """Yahoo! Answers: `train.csv` / `test.csv` rows of (class, title, content, answer)."""
    _owner, _names = "YahooAnswersDataset", ("class", "title", "content", "answer")


class YelpReviewDataset(_CSVCorpus):
    """Yelp reviews: `train.csv` / `test.csv` rows of (label, text)."""
    _owner, _names = "YelpReviewDataset", ("label", "text")
    _sorted = False

    def __init__(self, dataset_dir, usage=None, num_samples=None, shuffle=Shuffle.GLOBAL,
                 num_shards=None, shard_id=None, num_parallel_workers=None, cache=None):
        super().__init__(dataset_dir, usage, num_samples, num_parallel_workers, shuffle,
                         num_shards, shard_id, cache)


def _corpus_files(source, dataset_dir, usage):
    """Sets `source.dataset_dir` and `source.usage` and returns the sorted paths of the corpus
    files of that usage (`source._files_of`: usage -> file name), each checked to exist."""
    owner = source._owner
    source.dataset_dir = _dataset_dir(owner, dataset_dir)
    source.usage = _usage(owner, usage, tuple(source._files_of))
    names = list(source._files_of) if source.usage == "all" else [source.usage]
    files = sorted(os.path.join(source.dataset_dir, source._files_of[u]) for u in names)
    for f in files:
        if not os.path.isfile(f):
            raise ValueError(f"For '{owner}', the file {f!r} does not exist")
    return files


class _LineCorpus(_LineSource):
    """One row (column `text`) per non-empty line of the corpus files of `usage`."""

    _files_of = {}

    def __init__(self, dataset_dir, usage=None, num_samples=None, num_parallel_workers=None,
                 shuffle=Shuffle.GLOBAL, num_shards=None, shard_id=None, cache=None):
        files = _corpus_files(self, dataset_dir, usage)
        super().__init__(files, num_samples, num_parallel_workers, shuffle, num_shards,
                         shard_id)


class PennTreebankDataset(_LineCorpus):
    """Penn Treebank: the lines of `ptb.train.txt`, `ptb.valid.txt`, `ptb.test.txt`."""
    _owner = "PennTreebankDataset"
    _files_of = {"train": "ptb.train.txt", "test": "ptb.test.txt", "valid": "ptb.valid.txt"}


class WikiTextDataset(_LineCorpus):
    """WikiText: the lines of `wiki.train.tokens`, `wiki.valid.tokens`, `wiki.test.tokens`."""
    _owner = "WikiTextDataset"
    _files_of = {"train": "wiki.train.tokens", "test": "wiki.test.tokens",
                 "valid": "wiki.valid.tokens"}


class EnWik9Dataset(_LineCorpus):
    """EnWik9: the lines of the file `enwik9` in `dataset_dir`, empty lines included."""
    _owner = "EnWik9Dataset"
    _files_of = {"all": "enwik9"}
    _keep_empty = True

    def __init__(self, dataset_dir, num_samples=None, num_parallel_workers=None, shuffle=True,
                 num_shards=None, shard_id=None, cache=None):
        super().__init__(dataset_dir, "all", num_samples, num_parallel_workers, shuffle,
                         num_shards, shard_id, cache)


_CLUE_COLUMNS = {  # task: (train/eval columns, test columns), in MindSpore's (sorted) order
    "AFQMC": (["label", "sentence1", "sentence2"], ["id", "sentence1", "sentence2"]),
    "TNEWS": (["keywords", "label", "label_desc", "sentence"], ["id", "keywords", "sentence"]),
    "IFLYTEK": (["label", "label_des", "sentence"], ["id", "sentence"]),
    "CMNLI": (["label", "sentence1", "sentence2"], ["id", "sentence1", "sentence2"]),
    "WSC": (["idx", "label", "span1_index", "span1_text", "span2_index", "span2_text", "text"],
            ["idx", "span1_index", "span1_text", "span2_index", "span2_text", "text"]),
    "CSL": (["abst", "id", "keyword", "label"], ["abst", "id", "keyword"]),
}
_CLUE_INT = {"id", "idx", "span1_index", "span2_index"}


class CLUEDataset(_TextSource):
    """CLUE benchmark files (one JSON object per line) of `task` (AFQMC, TNEWS, IFLYTEK, CMNLI,
    WSC, CSL) and `usage` ('train', 'test' or 'eval'; eval has the train columns), columns in
    sorted order as in MindSpore. Integer fields (id, idx, span indices) are uint32 scalars,
    CSL's `keyword` a str array, the rest str; a field missing from a line is an error."""

    _owner = "CLUEDataset"

    def __init__(self, dataset_files, task="AFQMC", usage="train", num_samples=None,
                 num_parallel_workers=None, shuffle=Shuffle.GLOBAL, num_shards=None,
                 shard_id=None, cache=None):
        owner = self._owner
        self.dataset_files = _check_files(owner, dataset_files)
        self.task = check_one_of(task, tuple(_CLUE_COLUMNS), "task", owner)
        self.usage = check_one_of(usage, ("train", "test", "eval"), "usage", owner)
        self._names = tuple(_CLUE_COLUMNS[task][usage == "test"])
        super().__init__(self.dataset_files, num_samples, num_parallel_workers, shuffle,
                         num_shards, shard_id)

    def _field(self, obj, name, where):
        holder = obj.get("target", obj) if name.startswith("span") else obj
        if not isinstance(holder, dict) or name not in holder:
            raise ValueError(f"For '{self._owner}', {where} has no key '{name}'")
        value = holder[name]
        if name in _CLUE_INT:
            try:
                v = int(value)
            except (TypeError, ValueError):
                raise ValueError(f"For '{self._owner}', {where}: '{name}' must be an int, but "
                                 f"got {value!r}") from None
            if not 0 <= v < 2**32:
                raise ValueError(f"For '{self._owner}', {where}: '{name}' {v} is out of the "
                                 f"uint32 range")
            return np.array(v, np.uint32)
        if name == "keyword" and isinstance(value, list):
            return np.array([str(v) for v in value], dtype=str)
        return np.array(str(value))

    def _parse(self, path):
        out = []
        for line, text in enumerate(_lines(self._owner, path), 1):
            if not text.strip():
                continue
            where = f"line {line} of {path!r}"
            try:
                obj = json.loads(text)
            except json.JSONDecodeError as e:
                raise ValueError(f"For '{self._owner}', {where} is not JSON: {e}") from None
            if not isinstance(obj, dict):
                raise ValueError(f"For '{self._owner}', {where} is not a JSON object")
            out.append(tuple(self._field(obj, n, where) for n in self._names))
        return out

    def _get_row(self, index):
        return tuple(v.copy() for v in self._store.get()[index])


class IMDBDataset(_TextSource):
    """The IMDB reviews in `dataset_dir` (aclImdb layout: `train/pos`, `train/neg`, `test/pos`,
    `test/neg`, one review per `.txt` file): columns `text` (str) and `label` (int32: 1 pos,
    0 neg)."""

    _owner, _names = "IMDBDataset", ("text", "label")

    def __init__(self, dataset_dir, usage=None, num_samples=None, num_parallel_workers=None,
                 shuffle=None, sampler=None, num_shards=None, shard_id=None, cache=None):
        owner = self._owner
        self.dataset_dir = _dataset_dir(owner, dataset_dir)
        self.usage = _usage(owner, usage, ("train", "test"))
        usages = ("train", "test") if self.usage == "all" else (self.usage,)
        self._reviews = []
        for u in usages:
            for label, name in ((1, "pos"), (0, "neg")):
                folder = os.path.join(self.dataset_dir, u, name)
                if not os.path.isdir(folder):
                    raise ValueError(f"For '{owner}', the folder {folder!r} does not exist")
                for f in sorted(os.listdir(folder)):
                    path = os.path.join(folder, f)
                    if f.endswith(".txt") and os.path.isfile(path):
                        self._reviews.append((path, label))
        super().__init__([], num_samples, num_parallel_workers, shuffle, num_shards, shard_id,
                         sampler)

    def _load(self):
        return [(_read_text(self._owner, p), np.array(label, np.int32))
                for p, label in self._reviews]

    def _num_rows(self):
        return len(self._reviews)


class Multi30kDataset(_TextSource):
    """Multi30k: line-aligned `.en` / `.de` files in `dataset_dir` (`training/train.*`,
    `validation/val.*`, `mmt16_task1_test/test.*`); columns `text` and `translation` in the
    `language_pair` order (default ['en', 'de'])."""

    _owner, _names = "Multi30kDataset", ("text", "translation")
    _usages = ("train", "valid", "test")
    _paths = {"train": ("training", "train"), "valid": ("validation", "val"),
              "test": ("mmt16_task1_test", "test")}

    def __init__(self, dataset_dir, usage=None, language_pair=None, num_samples=None,
                 num_parallel_workers=None, shuffle=None, num_shards=None, shard_id=None,
                 cache=None):
        owner = self._owner
        self.dataset_dir = _dataset_dir(owner, dataset_dir)
        self.usage = _usage(owner, usage, self._usages)
        pair = ["en", "de"] if language_pair is None else list(
            check_sequence(language_pair, "language_pair", owner, lengths=2))
        if sorted(pair) != ["de", "en"]:
            raise ValueError(f"For '{owner}', the 'language_pair' must be ['en', 'de'] or "
                             f"['de', 'en'], but got {pair}")
        self.language_pair = pair
        usages = self._usages if self.usage == "all" else (self.usage,)
        files = []
        for u in sorted(usages, key=lambda u: self._paths[u]):
            for lang in pair:
                f = self._path(u, lang)
                if not os.path.isfile(f):
                    raise ValueError(f"For '{owner}', the file {f!r} does not exist")
            files.append(u)
        super().__init__(files, num_samples, num_parallel_workers, shuffle, num_shards,
                         shard_id)

    def _path(self, usage, lang):
        folder, stem = self._paths[usage]
        return os.path.join(self.dataset_dir, folder, f"{stem}.{lang}")

    def _parse(self, usage):
        src, dst = (self._path(usage, lang) for lang in self.language_pair)
        a, b = _lines(self._owner, src), _lines(self._owner, dst)
        if len(a) != len(b):
            raise ValueError(f"For '{self._owner}', {src!r} has {len(a)} lines but {dst!r} has "
                             f"{len(b)}")
        return [(x, y) for x, y in zip(a, b) if x or y]


class SST2Dataset(_TextSource):
    """SST-2: `train.tsv`, `dev.tsv` (columns `sentence`, `label`, both str) and `test.tsv`
    (`sentence`) in `dataset_dir`, each with a header line. `usage`: 'train', 'dev' or
    'test'."""

    _owner = "SST2Dataset"

    def __init__(self, dataset_dir, usage=None, num_samples=None, num_parallel_workers=None,
                 shuffle=Shuffle.GLOBAL, num_shards=None, shard_id=None, cache=None):
        owner = self._owner
        self.dataset_dir = _dataset_dir(owner, dataset_dir)
        self.usage = check_one_of("train" if usage is None else usage, ("train", "dev", "test"),
                                  "usage", owner)
        path = os.path.join(self.dataset_dir, f"{self.usage}.tsv")
        if not os.path.isfile(path):
            raise ValueError(f"For '{owner}', the file {path!r} does not exist")
        self._names = ("sentence",) if self.usage == "test" else ("sentence", "label")
        super().__init__([path], num_samples, num_parallel_workers, shuffle, num_shards,
                         shard_id)

    def _parse(self, path):
        lines = _lines(self._owner, path)[1:]
        out = []
        for line, text in enumerate(lines, 2):
            if not text:
                continue
            fields = text.split("\t")
            if self.usage == "test":
                out.append((fields[-1],))
            elif len(fields) != 2:
                raise ValueError(f"For '{self._owner}', line {line} of {path!r} has "
                                 f"{len(fields)} tab-separated fields, expected 2")
            else:
                out.append((fields[0], fields[1]))
        return out


class _TaggedCorpus(_TextSource):
    """Sentences of one token per line (fields separated by `_sep`), blank lines between
    sentences: each sentence is a row of str arrays, one per field."""

    _sep = None
    _files_of = {}

    def __init__(self, dataset_dir, usage=None, num_samples=None, shuffle=Shuffle.GLOBAL,
                 num_shards=None, shard_id=None, num_parallel_workers=None, cache=None):
        files = _corpus_files(self, dataset_dir, usage)
        super().__init__(files, num_samples, num_parallel_workers, shuffle, num_shards,
                         shard_id)

    def _parse(self, path):
        out, sentence = [], []
        n = len(self._names)
        for line, text in enumerate(_lines(self._owner, path) + [""], 1):
            if text.strip():
                fields = text.split(self._sep)
                if len(fields) != n:
                    raise ValueError(f"For '{self._owner}', line {line} of {path!r} has "
                                     f"{len(fields)} fields, expected {n}")
                sentence.append(fields)
            elif sentence:
                out.append(tuple(np.array(col) for col in zip(*sentence)))
                sentence = []
        return out

    def _get_row(self, index):
        return tuple(v.copy() for v in self._store.get()[index])


class UDPOSDataset(_TaggedCorpus):
    """UDPOS: `en-ud-tag.v2.{train,dev,test}.txt` with `word<TAB>universal<TAB>stanford`
    lines; columns `word`, `universal`, `stanford` (one str array per sentence); `usage`
    'valid' reads the dev file."""
    _owner, _names, _sep = "UDPOSDataset", ("word", "universal", "stanford"), "\t"
    _files_of = {"train": "en-ud-tag.v2.train.txt", "test": "en-ud-tag.v2.test.txt",
                 "valid": "en-ud-tag.v2.dev.txt"}


class CoNLL2000Dataset(_TaggedCorpus):
    """CoNLL-2000 chunking: `train.txt`, `test.txt` with `word pos chunk` lines; columns
    `word`, `pos_tag`, `chunk_tag` (one str array per sentence)."""
    _owner, _names, _sep = "CoNLL2000Dataset", ("word", "pos_tag", "chunk_tag"), " "
    _files_of = {"train": "train.txt", "test": "test.txt"}


class SQuADDataset(_TextSource):
    """SQuAD 1.1 / 2.0 JSON (`train-v1.1.json` / `dev-v1.1.json`, or the v2.0 names) in
    `dataset_dir`: one row per question, columns `context`, `question` (str), `text` (str
    array of the answers) and `answer_start` (uint32 array); unanswerable questions get [''] and
    [-1 as uint32]."""

    _owner = "SQuADDataset"
    _names = ("context", "question", "text", "answer_start")

    def __init__(self, dataset_dir, usage=None, num_samples=None, num_parallel_workers=None,
                 shuffle=Shuffle.GLOBAL, num_shards=None, shard_id=None, cache=None):
        owner = self._owner
        self.dataset_dir = _dataset_dir(owner, dataset_dir)
        self.usage = _usage(owner, usage, ("train", "dev"))
        files = []
        for u in (("train", "dev") if self.usage == "all" else (self.usage,)):
            found = [os.path.join(self.dataset_dir, f"{u}-v{v}.json") for v in ("1.1", "2.0")]
            found = [f for f in found if os.path.isfile(f)]
            if not found:
                raise ValueError(f"For '{owner}', no {u}-v1.1.json or {u}-v2.0.json in "
                                 f"{self.dataset_dir!r}")
            files.extend(found)
        super().__init__(files, num_samples, num_parallel_workers, shuffle, num_shards,
                         shard_id)

    def _parse(self, path):
        try:
            doc = json.loads(_read_text(self._owner, path))
            out = []
            for article in doc["data"]:
                for para in article["paragraphs"]:
                    for qa in para["qas"]:
                        answers = qa.get("answers") or []
                        texts = [a["text"] for a in answers] or [""]
                        starts = [int(a["answer_start"]) for a in answers] or [-1]
                        out.append((para["context"], qa["question"], np.array(texts),
                                    np.array(starts, np.int64).astype(np.uint32)))
        except (json.JSONDecodeError, KeyError, TypeError, ValueError) as e:
            raise ValueError(f"For '{self._owner}', {path!r} is not SQuAD JSON: {e!r}") from None
        return out

    def _get_row(self, index):
        return tuple(np.array(v).copy() for v in self._store.get()[index])


_IWSLT_TAGS = ("<url", "<keywords", "<talkid", "<description", "<reviewer", "<translator",
               "<title", "<speaker", "<doc", "</doc")


class _IWSLT(_TextSource):
    """IWSLT TED talks: `train.tags.<src>-<tgt>.<lang>` line-aligned files (lines of talk
    metadata skipped) and the `IWSLT<yy>.TED.<set>.<src>-<tgt>.<lang>.xml` files of the
    validation and test sets (the `<seg>` elements of each `<doc>`); columns `text` and
    `translation`, stripped of spaces. MindSpore writes cleaned copies into `dataset_dir`;
    minispore reads the files as they are and writes nothing."""

    _names = ("text", "translation")
    _year = ""

    def _init(self, dataset_dir, usage, language_pair, valid_set, test_set, num_samples,
              num_parallel_workers, shuffle, num_shards, shard_id):
        owner = self._owner
        self.dataset_dir = _dataset_dir(owner, dataset_dir)
        self.usage = _usage(owner, usage, ("train", "valid", "test"))
        pair = ("de", "en") if language_pair is None else tuple(
            check_sequence(language_pair, "language_pair", owner, lengths=2))
        if pair not in self._pairs:
            raise ValueError(f"For '{owner}', the 'language_pair' must be one of "
                             f"{sorted(self._pairs)}, but got {pair}")
        self.language_pair = list(pair)
        self.valid_set, self.test_set = valid_set, test_set
        folder = self._folder(*pair)
        src, tgt = pair
        files = []
        if self.usage in ("train", "all"):
            files.append(tuple(os.path.join(folder, f"train.tags.{src}-{tgt}.{lang}")
                               for lang in pair))
        for use, name in (("valid", valid_set), ("test", test_set)):
            if self.usage in (use, "all"):
                files.append(tuple(os.path.join(
                    folder, f"IWSLT{self._year}.TED.{name}.{src}-{tgt}.{lang}.xml")
                    for lang in pair))
        for both in files:
            for f in both:
                if not os.path.isfile(f):
                    raise ValueError(f"For '{owner}', the file {f!r} does not exist")
        super().__init__(files, num_samples, num_parallel_workers, shuffle, num_shards,
                         shard_id)

    def _parse(self, both):
        if both[0].endswith(".xml"):
            return list(zip(*(self._segments(f) for f in both)))
        src, tgt = (_lines(self._owner, f) for f in both)
        return [(a.strip(" "), b.strip(" ")) for a, b in zip(src, tgt)
                if not any(t in a or t in b for t in _IWSLT_TAGS)]

    def _segments(self, path):
        try:
            root = ET.fromstring(_read_text(self._owner, path))
        except ET.ParseError as e:
            raise ValueError(f"For '{self._owner}', {path!r} is not XML: {e}") from None
        sets = list(root)
        if not sets:
            raise ValueError(f"For '{self._owner}', {path!r} has no set element")
        segs = []
        for doc in sets[0].iter("doc"):
            segs.extend((seg.text or "").strip(" ") for seg in doc.iter("seg"))
        return segs


class IWSLT2016Dataset(_IWSLT):
    """IWSLT 2016 in `dataset_dir/texts/<src>/<tgt>/<src>-<tgt>/` (`language_pair` default
    ('de', 'en'); `valid_set` default 'tst2013', `test_set` 'tst2014')."""

    _owner, _year = "IWSLT2016Dataset", "16"
    _pairs = {("en", "fr"), ("en", "de"), ("en", "cs"), ("en", "ar"), ("fr", "en"), ("de", "en"),
              ("cs", "en"), ("ar", "en")}
    _sets = ("dev2010", "tst2010", "tst2011", "tst2012", "tst2013", "tst2014")

    def __init__(self, dataset_dir, usage=None, language_pair=None, valid_set=None,
                 test_set=None, num_samples=None, shuffle=Shuffle.GLOBAL, num_shards=None,
                 shard_id=None, num_parallel_workers=None, cache=None):
        owner = self._owner
        valid_set = check_one_of("tst2013" if valid_set is None else valid_set, self._sets,
                                 "valid_set", owner)
        test_set = check_one_of("tst2014" if test_set is None else test_set, self._sets,
                                "test_set", owner)
        self._init(dataset_dir, usage, language_pair, valid_set, test_set, num_samples,
                   num_parallel_workers, shuffle, num_shards, shard_id)

    def _folder(self, src, tgt):
        return os.path.join(self.dataset_dir, "texts", src, tgt, f"{src}-{tgt}")


class IWSLT2017Dataset(_IWSLT):
    """IWSLT 2017 (multilingual) in `dataset_dir/texts/DeEnItNlRo/DeEnItNlRo/
    DeEnItNlRo-DeEnItNlRo/`: pairs of 'en', 'de', 'it', 'nl', 'ro' (default ('de', 'en')),
    validation set dev2010, test set tst2010."""

    _owner, _year = "IWSLT2017Dataset", "17"
    _pairs = {(a, b) for a in ("en", "de", "it", "nl", "ro") for b in ("en", "de", "it", "nl",
                                                                        "ro") if a != b}

    def __init__(self, dataset_dir, usage=None, language_pair=None, num_samples=None,
                 shuffle=Shuffle.GLOBAL, num_shards=None, shard_id=None,
                 num_parallel_workers=None, cache=None):
        self._init(dataset_dir, usage, language_pair, "dev2010", "tst2010", num_samples,
                   num_parallel_workers, shuffle, num_shards, shard_id)

    def _folder(self, src, tgt):
        name = "DeEnItNlRo"
        return os.path.join(self.dataset_dir, "texts", name, name, f"{name}-{name}")
