"""Text utilities (`mindspore.dataset.text.utils`): Vocab, SentencePieceVocab, the enums of the
text transforms, `to_str` / `to_bytes`, and the pre-trained word vectors (Vectors, FastText,
GloVe, CharNGram)."""
import collections
import enum
import io
import os

import numpy as np

from ..._validator import check_bool, check_int_range, check_sequence, check_type
from ..transforms.transforms import _to_array

__all__ = ["CharNGram", "FastText", "GloVe", "JiebaMode", "NormalizeForm", "SentencePieceModel",
           "SentencePieceVocab", "SPieceTokenizerLoadType", "SPieceTokenizerOutType", "Vectors",
           "Vocab", "to_bytes", "to_str"]

_INT32_MAX = 2**31 - 1


class JiebaMode(enum.IntEnum):
    """JiebaTokenizer modes: MIX (max probability then HMM), MP (max probability), HMM."""
    MIX = 0
    MP = 1
    HMM = 2


class NormalizeForm(enum.IntEnum):
    """Unicode normalization forms of NormalizeUTF8 (NONE: unchanged)."""
    NONE = 0
    NFC = 1
    NFKC = 2
    NFD = 3
    NFKD = 4


class SentencePieceModel(enum.IntEnum):
    """SentencePiece model types."""
    UNIGRAM = 0
    BPE = 1
    CHAR = 2
    WORD = 3


class SPieceTokenizerOutType(enum.IntEnum):
    """SentencePieceTokenizer output: STRING pieces or INT ids."""
    STRING = 0
    INT = 1


class SPieceTokenizerLoadType(enum.IntEnum):
    """Where a SentencePieceTokenizer model comes from: a FILE or a MODEL (SentencePieceVocab)."""
    FILE = 0
    MODEL = 1


def _str_array(owner, x, name="input"):
    """A NumPy str array of a text input: str, bytes (UTF-8), lists, str/bytes arrays; other
    data is a RuntimeError, as in MindSpore's kernels."""
    arr = _to_array(owner, x, name)
    if arr.dtype.kind == "S":
        arr = np.char.decode(arr, "utf-8") if arr.size else arr.astype(str)
    if arr.dtype.kind != "U":
        raise RuntimeError(f"For '{owner}', the {name} must be strings, but got dtype "
                           f"{arr.dtype}")
    return arr


def to_str(array, encoding="utf8"):
    """A bytes array (`|S`) decoded to a str array."""
    check_type(encoding, str, "encoding", "to_str")
    if not isinstance(array, np.ndarray):
        raise TypeError(f"For 'to_str', the 'array' must be a NumPy array, but got "
                        f"{type(array).__name__}")
    if array.dtype.kind != "S":
        raise TypeError(f"For 'to_str', the 'array' must hold bytes, but got dtype {array.dtype}")
    return np.char.decode(array, encoding)


def to_bytes(array, encoding="utf8"):
    """A str array encoded to a bytes array (`|S`)."""
    check_type(encoding, str, "encoding", "to_bytes")
    if not isinstance(array, np.ndarray):
        raise TypeError(f"For 'to_bytes', the 'array' must be a NumPy array, but got "
                        f"{type(array).__name__}")
    if array.dtype.kind != "U":
        raise TypeError(f"For 'to_bytes', the 'array' must hold str, but got dtype {array.dtype}")
    return np.char.encode(array, encoding)


def _check_word_list(owner, words, arg):
    words = list(check_sequence(words, arg, owner))
    for w in words:
        if not isinstance(w, str):
            raise TypeError(f"For '{owner}', every element of '{arg}' must be a str, but got "
                            f"{w!r}")
    return words


def _with_specials(owner, words, special_tokens, special_first):
    """Word list with the special tokens before or after it, duplicates refused."""
    words = _check_word_list(owner, words, "word_list")
    seen = set()
    for w in words:
        if w in seen:
            raise ValueError(f"For '{owner}', the 'word_list' contains duplicate word: {w!r}")
        seen.add(w)
    specials = [] if special_tokens is None else _check_word_list(owner, special_tokens,
                                                                  "special_tokens")
    if len(set(specials)) != len(specials):
        raise ValueError(f"For '{owner}', the 'special_tokens' contain duplicates: {specials}")
    both = seen.intersection(specials)
    if both:
        raise ValueError(f"For '{owner}', the 'special_tokens' and 'word_list' share words: "
                         f"{sorted(both)}")
    check_bool(special_first, "special_first", owner)
    return specials + words if special_first else words + specials


class Vocab:
    """A map between tokens and ids, built by `from_list`, `from_dict`, `from_file` or
    `from_dataset`; used by Lookup, WordpieceTokenizer and BertTokenizer.

    Example:
        >>> vocab = Vocab.from_list(["a", "b"], special_tokens=["<unk>"])
        >>> vocab.tokens_to_ids(["b", "zz"])
        [2, -1]
    """

    def __init__(self):
        self._ids = None
        self._tokens = None

    def _built(self):
        if self._ids is None:
            raise RuntimeError("The Vocab has not been built yet: use Vocab.from_dataset(), "
                               "Vocab.from_list(), Vocab.from_file() or Vocab.from_dict()")
        return self._ids

    @classmethod
    def _of(cls, ids):
        vocab = cls()
        vocab._ids = dict(ids)
        vocab._tokens = {i: w for w, i in vocab._ids.items()}
        return vocab

    def vocab(self):
        """The {token: id} dict."""
        return dict(self._built())

    def tokens_to_ids(self, tokens):
        """Id of a token (str) or ids of a list of tokens; -1 for a token not in the vocab."""
        ids = self._built()
        if isinstance(tokens, np.ndarray):
            tokens = tokens.tolist()
        if isinstance(tokens, str):
            return ids.get(tokens, -1)
        tokens = _check_word_list("tokens_to_ids", tokens, "tokens")
        return [ids.get(t, -1) for t in tokens]

    def ids_to_tokens(self, ids):
        """Token of an id (int) or tokens of a list of ids; '' for an id not in the vocab."""
        self._built()
        if isinstance(ids, np.ndarray):
            ids = ids.tolist()
        if isinstance(ids, (int, np.integer)) and not isinstance(ids, bool):
            return self._tokens.get(int(ids), "")
        ids = check_sequence(ids, "ids", "ids_to_tokens")
        out = []
        for i in ids:
            if not isinstance(i, (int, np.integer)) or isinstance(i, bool):
                raise TypeError(f"For 'ids_to_tokens', every id must be an int, but got {i!r}")
            if i < 0:
                raise ValueError(f"For 'ids_to_tokens', ids must be non-negative, but got {i}")
            out.append(self._tokens.get(int(i), ""))
        return out

    @classmethod
    def from_list(cls, word_list, special_tokens=None, special_first=True):
        """Ids in list order; `special_tokens` go first (or last with `special_first=False`)."""
        words = _with_specials("from_list", word_list, special_tokens, special_first)
        return cls._of((w, i) for i, w in enumerate(words))

    @classmethod
    def from_dict(cls, word_dict):
        """The vocab of a {token: id} dict (ids in [0, 2**31 - 1])."""
        check_type(word_dict, dict, "word_dict", "from_dict")
        for w, i in word_dict.items():
            if not isinstance(w, str):
                raise TypeError(f"For 'from_dict', the keys must be str, but got {w!r}")
            check_int_range(i, f"word_dict[{w!r}]", "from_dict", 0, _INT32_MAX)
        return cls._of(word_dict)

    @classmethod
    def from_file(cls, file_path, delimiter="", vocab_size=None, special_tokens=None,
                  special_first=True):
        """One token per line (the text before `delimiter`, or the whole line), at most
        `vocab_size` lines read."""
        owner = "from_file"
        path = os.fspath(check_type(file_path, (str, os.PathLike), "file_path", owner))
        check_type(delimiter, str, "delimiter", owner)
        if vocab_size is not None:
            check_int_range(vocab_size, "vocab_size", owner, 1, _INT32_MAX)
        if not os.path.isfile(path):
            raise ValueError(f"For '{owner}', the vocab file {path!r} does not exist")
        words = []
        with open(path, encoding="utf-8") as f:
            for line in f:
                if vocab_size is not None and len(words) >= vocab_size:
                    break
                line = line.rstrip("\n").rstrip("\r")
                words.append(line.split(delimiter, 1)[0] if delimiter else line)
        return cls.from_list(words, special_tokens, special_first)

    @classmethod
    def from_dataset(cls, dataset, columns=None, freq_range=None, top_k=None,
                     special_tokens=None, special_first=True):
        """Count the tokens of `columns` of `dataset` (default all); keep those with a count in
        `freq_range` (min, max; None ends are open), then the `top_k` most frequent; ids by
        descending count, ties in lexicographic order."""
        owner = "from_dataset"
        if not hasattr(dataset, "create_tuple_iterator"):
            raise TypeError(f"For '{owner}', the 'dataset' must be a Dataset, but got "
                            f"{type(dataset).__name__}")
        if isinstance(columns, str):
            columns = [columns]
        lo, hi = 0, _INT32_MAX
        if freq_range is not None:
            freq_range = check_sequence(freq_range, "freq_range", owner, lengths=2)
            lo = 0 if freq_range[0] is None else check_int_range(freq_range[0], "freq_range[0]",
                                                                  owner, 0, _INT32_MAX)
            hi = _INT32_MAX if freq_range[1] is None else check_int_range(
                freq_range[1], "freq_range[1]", owner, 0, _INT32_MAX)
            if lo > hi:
                raise ValueError(f"For '{owner}', the 'freq_range' must be (min, max) with min "
                                 f"<= max, but got {freq_range}")
        if top_k is not None:
            check_int_range(top_k, "top_k", owner, 1, _INT32_MAX)
        counts = collections.Counter()
        for row in dataset.create_tuple_iterator(columns=columns, num_epochs=1,
                                                 output_numpy=True):
            for col in row:
                col = _str_array(owner, col, "column")
                counts.update(col.reshape(-1).tolist())
        kept = sorted((w for w, c in counts.items() if lo <= c <= hi),
                      key=lambda w: (-counts[w], w))
        if top_k is not None:
            kept = kept[:top_k]
        specials = [] if special_tokens is None else _check_word_list(owner, special_tokens,
                                                                      "special_tokens")
        both = sorted(set(kept).intersection(specials))
        if both:
            raise RuntimeError(f"For '{owner}', the special tokens {both} are already in the "
                               f"vocab")
        return cls.from_list(kept, specials, special_first)


def _sentencepiece():
    try:
        import sentencepiece
    except ImportError:
        raise ImportError("SentencePieceVocab and SentencePieceTokenizer need the sentencepiece "
                          "package: pip install 'minispore[text]'") from None
    return sentencepiece


_SP_MODEL_TYPES = {SentencePieceModel.UNIGRAM: "unigram", SentencePieceModel.BPE: "bpe",
                   SentencePieceModel.CHAR: "char", SentencePieceModel.WORD: "word"}


class SentencePieceVocab:
    """A trained SentencePiece model (the `sentencepiece` package), built by `from_file` or
    `from_dataset` and saved by `save_model`."""

    def __init__(self):
        self._model = None

    def _proto(self):
        if self._model is None:
            raise RuntimeError("The SentencePieceVocab has not been built yet: use "
                               "SentencePieceVocab.from_file() or from_dataset()")
        return self._model

    @classmethod
    def _train(cls, owner, sentences, vocab_size, character_coverage, model_type, params):
        spm = _sentencepiece()
        check_int_range(vocab_size, "vocab_size", owner, 1, _INT32_MAX)
        if not isinstance(character_coverage, (int, float)) or isinstance(character_coverage,
                                                                          bool):
            raise TypeError(f"For '{owner}', the 'character_coverage' must be a float, but got "
                            f"{type(character_coverage).__name__}")
        if not isinstance(model_type, SentencePieceModel):
            raise TypeError(f"For '{owner}', the 'model_type' must be a SentencePieceModel, but "
                            f"got {model_type!r}")
        check_type(params, dict, "params", owner)
        model = io.BytesIO()
        try:
            spm.SentencePieceTrainer.train(sentence_iterator=iter(sentences), model_writer=model,
                                           vocab_size=vocab_size,
                                           character_coverage=float(character_coverage),
                                           model_type=_SP_MODEL_TYPES[model_type],
                                           minloglevel=2, **params)
        except RuntimeError as e:  # sentencepiece's checks (coverage in [0.98, 1], vocab size)
            raise RuntimeError(f"For '{owner}', SentencePiece training failed: {e}") from None
        vocab = cls()
        vocab._model = model.getvalue()
        return vocab

    @classmethod
    def from_file(cls, file_path, vocab_size, character_coverage, model_type, params):
        """Train on the lines of the text files `file_path` (a list of paths)."""
        owner = "SentencePieceVocab.from_file"
        paths = check_sequence(file_path, "file_path", owner, non_empty=True)
        for p in paths:
            if not os.path.isfile(p):
                raise ValueError(f"For '{owner}', the file {p!r} does not exist")

        def lines():
            for p in paths:
                with open(p, encoding="utf-8") as f:
                    for line in f:
                        yield line.rstrip("\n")
        return cls._train(owner, lines(), vocab_size, character_coverage, model_type, params)

    @classmethod
    def from_dataset(cls, dataset, col_names, vocab_size, character_coverage, model_type,
                     params):
        """Train on the strings of column `col_names` (a list of one name) of `dataset`."""
        owner = "SentencePieceVocab.from_dataset"
        cols = check_sequence(col_names, "col_names", owner, lengths=1)

        def lines():
            for (col,) in dataset.create_tuple_iterator(columns=list(cols), num_epochs=1,
                                                        output_numpy=True):
                yield from _str_array(owner, col, "column").reshape(-1).tolist()
        return cls._train(owner, lines(), vocab_size, character_coverage, model_type, params)

    @classmethod
    def save_model(cls, vocab, path, filename):
        """Write the model of `vocab` to `path/filename` (loadable by SentencePieceTokenizer)."""
        check_type(vocab, SentencePieceVocab, "vocab", "save_model")
        if not os.path.isdir(path):
            raise ValueError(f"For 'save_model', the 'path' {path!r} is not a directory")
        with open(os.path.join(path, filename), "wb") as f:
            f.write(vocab._proto())


# ---- pre-trained word vectors ------------------------------------------------------------------

class Vectors:
    """Word vectors read from a text file: one token per line followed by its values, separated
    by spaces (a first line of two integers, as in FastText's .vec files, is a header)."""

    def __init__(self):
        self._index, self._vectors, self.dim = {}, np.zeros((0, 0), np.float32), 0

    @classmethod
    def from_file(cls, file_path, max_vectors=None):
        """Read at most `max_vectors` vectors from `file_path`."""
        owner = f"{cls.__name__}.from_file"
        path = os.fspath(check_type(file_path, (str, os.PathLike), "file_path", owner))
        if max_vectors is not None:
            check_int_range(max_vectors, "max_vectors", owner, 0, _INT32_MAX)
        if not os.path.isfile(path):
            raise ValueError(f"For '{owner}', the file {path!r} does not exist")
        cls._check_path(owner, path)
        tokens, rows, dim = [], [], None
        with open(path, encoding="utf-8") as f:
            for n, line in enumerate(f):
                if max_vectors is not None and len(rows) >= max_vectors:
                    break
                parts = line.rstrip("\n").rstrip(" ").split(" ")
                if n == 0 and len(parts) == 2 and all(p.isdigit() for p in parts):
                    continue
                if len(parts) < 2:
                    continue
                if dim is None:
                    dim = len(parts) - 1
                elif len(parts) - 1 != dim:
                    raise ValueError(f"For '{owner}', line {n + 1} of {path!r} has "
                                     f"{len(parts) - 1} values, expected {dim}")
                try:
                    rows.append([float(v) for v in parts[1:]])
                except ValueError:
                    raise ValueError(f"For '{owner}', line {n + 1} of {path!r} holds a value "
                                     f"that is not a number") from None
                tokens.append(parts[0])
        vec = cls()
        vec.dim = dim or 0
        vec._vectors = np.asarray(rows, np.float32).reshape(len(rows), vec.dim)
        for i, t in enumerate(tokens):
            vec._index.setdefault(t, i)
        return vec

    @classmethod
    def _check_path(cls, owner, path):
        pass

    def _lookup(self, token, unk, lower_case_backup):
        i = self._index.get(token.lower()) if lower_case_backup else None
        if i is None:
            i = self._index.get(token)
        return unk if i is None else self._vectors[i]


class FastText(Vectors):
    """FastText vectors from a `.vec` file."""

    @classmethod
    def _check_path(cls, owner, path):
        if not path.endswith(".vec"):
            raise RuntimeError(f"For '{owner}', FastText vectors are read from a .vec file, but "
                             f"got {path!r}")


class GloVe(Vectors):
    """GloVe vectors from a `glove.6B.*.txt` file."""

    @classmethod
    def _check_path(cls, owner, path):
        name = os.path.basename(path)
        if not (name.startswith("glove.6B.") and name.endswith(".txt")):
            raise RuntimeError(f"For '{owner}', GloVe vectors are read from a file named "
                             f"'glove.6B.*.txt', but got {path!r}")


class CharNGram(Vectors):
    """Character n-gram vectors (keys such as `2gram-ab`): a word's vector is the mean of the
    vectors of its 2-, 3- and 4-grams (with `#BEGIN#` / `#END#` padding)."""

    def _lookup(self, token, unk, lower_case_backup):
        chars = ["#BEGIN#"] + list(token) + ["#END#"]
        found = []
        for n in (2, 3, 4):
            for k in range(len(chars) - n + 1):
                i = self._index.get(f"{n}gram-{''.join(chars[k:k + n])}")
                if i is not None:
                    found.append(self._vectors[i])
        return np.mean(found, axis=0).astype(np.float32) if found else unk
