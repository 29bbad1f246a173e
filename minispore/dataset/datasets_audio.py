"""Audio datasets read from local folders in their published layouts: `YesNoDataset`,
`SpeechCommandsDataset`, `LJSpeechDataset`, `CMUArcticDataset`, `LibriTTSDataset` and
`TedliumDataset`.

Waveforms come from PCM WAV files (8-bit unsigned, 16-, 24- or 32-bit signed) as float32 arrays
of shape (channels, samples): the integer sample divided by its largest value (32767 for 16-bit,
as MindSpore does). MindSpore 2.10 reads every file as 16-bit mono, so its values for 8, 24 and
32-bit files are garbage and multi-channel files come out interleaved as one channel; here they
are read by their real format. The file list is read when the dataset is made, the audio when a
row is read. Files are listed in sorted order (MindSpore 2.10 lists some folders in directory
order, which depends on the file system).
"""
import csv
import io
import os
import wave

import numpy as np

from .._validator import check_one_of, check_type
from ._base import MappableDataset, check_workers
from .samplers import select_sampler

__all__ = ["CMUArcticDataset", "LJSpeechDataset", "LibriTTSDataset", "SpeechCommandsDataset",
           "TedliumDataset", "YesNoDataset"]


def read_wav(owner, path):
    """(float32 array (channels, samples), sample rate) of a PCM WAV file."""
    try:
        with wave.open(path, "rb") as w:
            channels, width, rate = w.getnchannels(), w.getsampwidth(), w.getframerate()
            raw = w.readframes(w.getnframes())
    except (wave.Error, EOFError) as e:
        raise ValueError(f"For '{owner}', {path!r} is not a PCM WAV file: {e}") from None
    if width == 1:
        samples = (np.frombuffer(raw, np.uint8).astype(np.float64) - 128) / 127
    elif width == 3:
        b = np.frombuffer(raw, np.uint8).reshape(-1, 3).astype(np.int32)
        ints = b[:, 0] | (b[:, 1] << 8) | (b[:, 2] << 16)
        ints = np.where(ints >= 1 << 23, ints - (1 << 24), ints)
        samples = ints.astype(np.float64) / ((1 << 23) - 1)
    elif width in (2, 4):
        ints = np.frombuffer(raw, {2: "<i2", 4: "<i4"}[width])
        samples = ints.astype(np.float64) / ((1 << (8 * width - 1)) - 1)
    else:
        raise ValueError(f"For '{owner}', {path!r} has {8 * width}-bit samples: only 8, 16, 24 "
                         f"and 32-bit PCM are read")
    samples = np.asarray(samples, np.float32)
    usable = len(samples) - len(samples) % channels
    return np.ascontiguousarray(samples[:usable].reshape(-1, channels).T), rate


def _folder(owner, dataset_dir):
    path = os.fspath(check_type(dataset_dir, (str, os.PathLike), "dataset_dir", owner,
                                "a str or path"))
    if not os.path.isdir(path):
        raise ValueError(f"For '{owner}', 'dataset_dir' {path!r} does not exist or is not a "
                         f"directory")
    return path


def _read_lines(owner, path):
    if not os.path.isfile(path):
        raise ValueError(f"For '{owner}', the file {path!r} does not exist")
    with open(path, encoding="utf-8-sig") as f:
        return f.read().splitlines()


class _AudioSource(MappableDataset):
    """A random-access audio source: subclasses set `_owner` and `_names` and build
    `self._items`, one (wav path, other column values...) tuple per row."""

    _owner = "AudioDataset"
    _names = ("waveform", "sample_rate")
    _rate_type = np.int32

    def __init__(self, items, num_samples, num_parallel_workers, shuffle, sampler, num_shards,
                 shard_id):
        if not items:
            raise ValueError(f"For '{self._owner}', no audio files were found")
        self._items = items
        super().__init__(check_workers(self._owner, num_parallel_workers),
                         select_sampler(self._owner, num_samples, shuffle, sampler, num_shards,
                                        shard_id))

    def _columns(self):
        return list(self._names)

    def _num_rows(self):
        return len(self._items)

    def _source_workers(self):
        return self.num_parallel_workers or 1

    def _get_row(self, index):
        path, *rest = self._items[index]
        waveform, rate = read_wav(self._owner, path)
        return (waveform, np.array(rate, self._rate_type)) + tuple(np.array(v) for v in rest)


class YesNoDataset(_AudioSource):
    """The Yes/No corpus: `dataset_dir` holds WAV files named by their 8 words, e.g.
    `0_1_0_0_1_0_1_1.wav`. Columns `waveform` (float32), `sample_rate` (int32 scalar) and
    `label` (int32, 8 values)."""

    _owner = "YesNoDataset"
    _names = ("waveform", "sample_rate", "label")

    def __init__(self, dataset_dir, num_samples=None, num_parallel_workers=None, shuffle=None,
                 sampler=None, num_shards=None, shard_id=None, cache=None):
        root = _folder(self._owner, dataset_dir)
        items = []
        for name in sorted(os.listdir(root)):
            stem, ext = os.path.splitext(name)
            words = stem.split("_")
            if ext.lower() != ".wav" or not all(w in ("0", "1") for w in words):
                continue
            items.append((os.path.join(root, name), np.array(words, dtype=np.int32)))
        self.dataset_dir = root
        super().__init__(items, num_samples, num_parallel_workers, shuffle, sampler, num_shards,
                         shard_id)


class SpeechCommandsDataset(_AudioSource):
    """Speech Commands: one folder per word of `<speaker>_nohash_<n>.wav` files;
    `validation_list.txt` and `testing_list.txt` name the 'valid' and 'test' files, the rest
    is 'train' ('all': every file; `_background_noise_` is skipped). Columns `waveform`,
    `sample_rate` (int32), `label` and `speaker_id` (str), `utterance_number` (int32)."""

    _owner = "SpeechCommandsDataset"
    _names = ("waveform", "sample_rate", "label", "speaker_id", "utterance_number")

    def __init__(self, dataset_dir, usage=None, num_samples=None, num_parallel_workers=None,
                 shuffle=None, sampler=None, num_shards=None, shard_id=None, cache=None):
        owner = self._owner
        root = _folder(owner, dataset_dir)
        usage = "all" if usage is None else usage
        check_one_of(usage, ("train", "valid", "test", "all"), "usage", owner)
        listed = {}
        for split, name in (("valid", "validation_list.txt"), ("test", "testing_list.txt")):
            path = os.path.join(root, name)
            lines = _read_lines(owner, path) if os.path.isfile(path) else []
            listed[split] = {os.path.normpath(x.strip()) for x in lines if x.strip()}
        items = []
        for label in sorted(os.listdir(root)):
            folder = os.path.join(root, label)
            if not os.path.isdir(folder) or label.startswith("_"):
                continue
            for name in sorted(os.listdir(folder)):
                stem, ext = os.path.splitext(name)
                if ext.lower() != ".wav" or "_nohash_" not in stem:
                    continue
                rel = os.path.normpath(os.path.join(label, name))
                split = "valid" if rel in listed["valid"] else \
                    "test" if rel in listed["test"] else "train"
                if usage not in ("all", split):
                    continue
                speaker, _, number = stem.partition("_nohash_")
                try:
                    number = int(number)
                except ValueError:
                    raise ValueError(f"For '{owner}', {rel!r} does not end in _nohash_<int>.wav"
                                     ) from None
                items.append((os.path.join(folder, name), label, speaker,
                              np.int32(number)))
        self.dataset_dir, self.usage = root, usage
        super().__init__(items, num_samples, num_parallel_workers, shuffle, sampler, num_shards,
                         shard_id)


class LJSpeechDataset(_AudioSource):
    """LJ Speech: `metadata.csv` (id|transcription|normalized transcription, one row per
    line) and `wavs/<id>.wav`. Columns `waveform`, `sample_rate` (int32), `transcription` and
    `normalized_transcription` (str)."""

    _owner = "LJSpeechDataset"
    _names = ("waveform", "sample_rate", "transcription", "normalized_transcription")

    def __init__(self, dataset_dir, num_samples=None, num_parallel_workers=None, shuffle=None,
                 sampler=None, num_shards=None, shard_id=None, cache=None):
        owner = self._owner
        root = _folder(owner, dataset_dir)
        text = "\n".join(_read_lines(owner, os.path.join(root, "metadata.csv")))
        items = []
        for k, row in enumerate(csv.reader(io.StringIO(text), delimiter="|",
                                           quoting=csv.QUOTE_NONE)):
            if not row:
                continue
            if len(row) < 3:
                raise ValueError(f"For '{owner}', line {k + 1} of metadata.csv must have 3 "
                                 f"fields separated by '|', but has {len(row)}")
            items.append((os.path.join(root, "wavs", row[0] + ".wav"), row[1], row[2]))
        self.dataset_dir = root
        super().__init__(items, num_samples, num_parallel_workers, shuffle, sampler, num_shards,
                         shard_id)


_ARCTIC_NAMES = ("aew", "ahw", "aup", "awb", "axb", "bdl", "clb", "eey", "fem", "gka", "jmk",
                 "ksp", "ljm", "lnh", "rms", "rxr", "slp", "slt")


class CMUArcticDataset(_AudioSource):
    """CMU Arctic: `cmu_us_<name>_arctic/etc/txt.done.data` (lines `( arctic_a0001 "text" )`)
    and `cmu_us_<name>_arctic/wav/<utterance>.wav`; `name` is the speaker ('aew' by default).
    Columns `waveform`, `sample_rate` (uint32), `transcript` and `utterance_id` (str, without
    its `arctic_` prefix)."""

    _owner = "CMUArcticDataset"
    _names = ("waveform", "sample_rate", "transcript", "utterance_id")
    _rate_type = np.uint32

    def __init__(self, dataset_dir, name=None, num_samples=None, num_parallel_workers=None,
                 shuffle=None, sampler=None, num_shards=None, shard_id=None, cache=None):
        owner = self._owner
        root = _folder(owner, dataset_dir)
        name = "aew" if name is None else name
        check_one_of(name, _ARCTIC_NAMES, "name", owner)
        base = os.path.join(root, f"cmu_us_{name}_arctic")
        items = []
        for k, line in enumerate(_read_lines(owner, os.path.join(base, "etc",
                                                                   "txt.done.data"))):
            line = line.strip()
            if not line:
                continue
            inner = line.strip("()").strip()
            utt, _, rest = inner.partition(" ")
            if not rest.strip().startswith('"') or not rest.strip().endswith('"'):
                raise ValueError(f"For '{owner}', line {k + 1} of txt.done.data is not "
                                 f"'( <utterance> \"<text>\" )': {line!r}")
            items.append((os.path.join(base, "wav", utt + ".wav"), rest.strip()[1:-1],
                          utt.replace("arctic_", "", 1)))
        self.dataset_dir, self.name = root, name
        super().__init__(items, num_samples, num_parallel_workers, shuffle, sampler, num_shards,
                         shard_id)


_LIBRI_USAGES = ("dev-clean", "dev-other", "test-clean", "test-other", "train-clean-100",
                 "train-clean-360", "train-other-500")


class LibriTTSDataset(_AudioSource):
    """LibriTTS: `<usage>/<speaker>/<chapter>/<speaker>_<chapter>.trans.tsv` (utterance id,
    original text, normalized text) beside the utterances' WAV files; `usage` is one of the
    subsets ('dev-clean', ..., 'train-other-500') or 'all' (the default). Columns `waveform`,
    `sample_rate` (uint32), `original_text`, `normalized_text` (str), `speaker_id`,
    `chapter_id` (uint32) and `utterance_id` (str)."""

    _owner = "LibriTTSDataset"
    _names = ("waveform", "sample_rate", "original_text", "normalized_text", "speaker_id",
              "chapter_id", "utterance_id")
    _rate_type = np.uint32

    def __init__(self, dataset_dir, usage=None, num_samples=None, num_parallel_workers=None,
                 shuffle=None, sampler=None, num_shards=None, shard_id=None, cache=None):
        owner = self._owner
        root = _folder(owner, dataset_dir)
        usage = "all" if usage is None else usage
        check_one_of(usage, _LIBRI_USAGES + ("all",), "usage", owner)
        items = []
        for subset in (_LIBRI_USAGES if usage == "all" else (usage,)):
            top = os.path.join(root, subset)
            if not os.path.isdir(top):
                continue
            for speaker in sorted(os.listdir(top)):
                for chapter in sorted(os.listdir(os.path.join(top, speaker))):
                    folder = os.path.join(top, speaker, chapter)
                    trans = os.path.join(folder, f"{speaker}_{chapter}.trans.tsv")
                    if not os.path.isfile(trans):
                        continue
                    for line in _read_lines(owner, trans):
                        fields = line.split("\t")
                        if len(fields) < 3:
                            continue
                        try:
                            ids = np.uint32(int(speaker)), np.uint32(int(chapter))
                        except ValueError:
                            raise ValueError(f"For '{owner}', speaker and chapter folders must "
                                             f"be numbers, but got {speaker}/{chapter}") from None
                        items.append((os.path.join(folder, fields[0] + ".wav"), fields[1],
                                      fields[2], *ids, fields[0]))
        self.dataset_dir, self.usage = root, usage
        super().__init__(items, num_samples, num_parallel_workers, shuffle, sampler, num_shards,
                         shard_id)


def read_sph(owner, path):
    """(float32 (channels, samples) array, sample rate) of an uncompressed 16-bit NIST SPHERE
    file (TED-LIUM's format)."""
    with open(path, "rb") as f:
        magic = f.read(16)
        if not magic.startswith(b"NIST_1A"):
            raise ValueError(f"For '{owner}', {path!r} is not a NIST SPHERE file")
        try:
            head_size = int(magic[8:].strip())
        except ValueError:
            raise ValueError(f"For '{owner}', {path!r} has a bad SPHERE header size") from None
        if not 16 <= head_size <= 1 << 20:
            raise ValueError(f"For '{owner}', {path!r} claims a {head_size}-byte header")
        header = magic + f.read(head_size - 16)
        data = f.read()
    fields = {}
    for line in header.decode("latin-1").splitlines()[2:]:
        parts = line.split(None, 2)
        if parts and parts[0] == "end_head":
            break
        if len(parts) == 3:
            fields[parts[0]] = parts[2].strip()
    coding = fields.get("sample_coding", "pcm")
    width = int(fields.get("sample_n_bytes", 2))
    channels = int(fields.get("channel_count", 1))
    if not coding.startswith("pcm") or width != 2:
        raise ValueError(f"For '{owner}', {path!r} holds {coding} samples of {width} bytes: "
                         f"only uncompressed 16-bit PCM is read")
    order = ">" if fields.get("sample_byte_format") == "10" else "<"
    ints = np.frombuffer(data[:len(data) - len(data) % (2 * channels)], order + "i2")
    samples = (ints.astype(np.float64) / 32767).astype(np.float32)
    return np.ascontiguousarray(samples.reshape(-1, channels).T), int(fields.get("sample_rate",
                                                                               16000))


class TedliumDataset(_AudioSource):
    """TED-LIUM: per talk, `stm/<talk>.stm` (lines `talk channel speaker start end <label>
    transcript`) and `sph/<talk>.sph`; one row per stm line, its waveform cut from start to end
    (seconds); rows are ordered by line number, then by stm file path, as in MindSpore.
    Releases 1 and 2 have `train`, `dev` and `test` folders (`usage`, or 'all'),
    release 3 one `data` folder ('all' only). Columns `waveform`, `sample_rate` (int32),
    `transcript`, `talk_id`, `speaker_id` and `identifier` (the label, str).

    MindSpore 2.10 returned all-zero waveforms for the SPHERE files of this package's tests;
    here the samples are those of the file, divided by 32767.
    """

    _owner = "TedliumDataset"
    _names = ("waveform", "sample_rate", "transcript", "talk_id", "speaker_id", "identifier")

    def __init__(self, dataset_dir, release, usage=None, extensions=None, num_samples=None,
                 num_parallel_workers=None, shuffle=None, sampler=None, num_shards=None,
                 shard_id=None, cache=None):
        owner = self._owner
        root = _folder(owner, dataset_dir)
        check_one_of(release, ("release1", "release2", "release3"), "release", owner)
        usage = "all" if usage is None else usage
        if release == "release3":
            check_one_of(usage, ("all",), "usage", owner)
            folders = ["data"]
        else:
            check_one_of(usage, ("train", "test", "dev", "all"), "usage", owner)
            folders = ["train", "test", "dev"] if usage == "all" else [usage]
        extensions = ".sph" if extensions is None else extensions
        check_one_of(extensions, (".sph",), "extensions", owner)
        items = []
        for folder in folders:
            stm_dir = os.path.join(root, folder, "stm")
            if not os.path.isdir(stm_dir):
                raise ValueError(f"For '{owner}', the folder {stm_dir!r} does not exist")
            for name in sorted(os.listdir(stm_dir)):
                if not name.endswith(".stm"):
                    continue
                talk = name[:-4]
                sph = os.path.join(root, folder, "sph", talk + extensions)
                for k, line in enumerate(_read_lines(owner, os.path.join(stm_dir, name))):
                    parts = line.split(" ", 6)
                    if len(parts) < 6 or not line.strip():
                        continue
                    try:
                        start, end = float(parts[3]), float(parts[4])
                    except ValueError:
                        raise ValueError(f"For '{owner}', line {k + 1} of {name} has bad times "
                                         f"{parts[3:5]}") from None
                    text = parts[6] if len(parts) > 6 else ""
                    items.append(((k, os.path.join(stm_dir, name)),
                                  (sph, (start, end), text, parts[0], parts[2], parts[5])))
        items = [item for _, item in sorted(items, key=lambda kv: kv[0])]
        self.dataset_dir, self.release, self.usage = root, release, usage
        super().__init__(items, num_samples, num_parallel_workers, shuffle, sampler, num_shards,
                         shard_id)

    def _get_row(self, index):
        path, (start, end), *rest = self._items[index]
        waveform, rate = read_sph(self._owner, path)
        cut = waveform[:, int(start * rate):int(end * rate)]
        return (np.ascontiguousarray(cut), np.array(rate, np.int32)) + \
            tuple(np.array(v) for v in rest)
