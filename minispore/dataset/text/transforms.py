"""Text transforms (`mindspore.dataset.text`) on NumPy str arrays: tokenizers, normalizers,
Lookup, Ngram, ToNumber, SlidingWindow, truncation. Tokens come back as NumPy str arrays; with
`with_offsets=True` a tokenizer also returns the start and end byte offsets (UTF-8, uint32) of
each token in the text it tokenized. Data errors raise RuntimeError, as MindSpore's kernels do.
User regex patterns are ICU-style: they are compiled with the `regex` package when it is there
(`\\p{...}` classes), else with `re`."""
import functools
import math
import numbers
import os
import re
import unicodedata

import numpy as np

from ..._validator import (check_bool, check_callable, check_int_range, check_sequence,
                           check_type)
from ...common import dtype as mstype
from ..transforms.transforms import TensorOperation, _to_array
from .utils import (JiebaMode, NormalizeForm, SentencePieceVocab, SPieceTokenizerOutType, Vectors,
                    Vocab, _sentencepiece, _str_array)

__all__ = ["AddToken", "BasicTokenizer", "BertTokenizer", "CaseFold", "FilterWikipediaXML",
           "JiebaTokenizer", "Lookup", "Ngram", "NormalizeUTF8", "PythonTokenizer",
           "RegexReplace", "RegexTokenizer", "SentencePieceTokenizer", "SlidingWindow",
           "ToNumber", "ToVectors", "Truncate", "TruncateSequencePair", "UnicodeCharTokenizer",
           "UnicodeScriptTokenizer", "WhitespaceTokenizer", "WordpieceTokenizer"]

_INT32_MAX = 2**31 - 1


def _compile(owner, pattern):
    try:
        import regex as engine
    except ImportError:
        engine = re
    try:
        return engine.compile(pattern)
    except Exception as e:  # noqa: BLE001 - either engine's error type
        raise ValueError(f"For '{owner}', the pattern {pattern!r} is not a valid regex: {e}") \
            from None


def _scalar_text(owner, x):
    arr = _str_array(owner, x)
    if arr.ndim != 0:
        raise RuntimeError(f"For '{owner}', the input must be one string (a scalar), but got "
                           f"shape {arr.shape}")
    return str(arr)


def _tokens(tokens):
    """A str array of tokens; [''] where there are none (MindSpore's empty result)."""
    return np.array(tokens if tokens else [""], dtype=str)


def _byte_offsets(text, spans):
    """UTF-8 byte offsets (start and end arrays, uint32) of character spans of `text`."""
    pos = np.zeros(len(text) + 1, np.int64)
    if text:
        pos[1:] = np.cumsum([len(c.encode("utf-8")) for c in text])
    if not spans:
        return np.zeros(1, np.uint32), np.zeros(1, np.uint32)
    starts = np.array([pos[s] for s, _ in spans], np.uint32)
    ends = np.array([pos[e] for _, e in spans], np.uint32)
    return starts, ends


def _tokenize_result(text, pieces, with_offsets):
    """pieces: (token, start char, end char) in `text`."""
    tokens = _tokens([p[0] for p in pieces])
    if not with_offsets:
        return tokens
    starts, ends = _byte_offsets(text, [(p[1], p[2]) for p in pieces])
    return tokens, starts, ends


class TextTensorOperation(TensorOperation):
    """Base of the text transforms."""


class _Tokenizer(TextTensorOperation):
    """A tokenizer of one string: `_pieces(text)` gives (token, start, end) in characters."""

    def __init__(self, with_offsets=False):
        self.with_offsets = check_bool(with_offsets, "with_offsets", type(self).__name__)

    def _apply(self, x):
        text = _scalar_text(type(self).__name__, x)
        return _tokenize_result(text, self._pieces(text), self.with_offsets)


class WhitespaceTokenizer(_Tokenizer):
    """Split a string on runs of Unicode whitespace.

    Example:
        >>> WhitespaceTokenizer()("Welcome to  Beijing!")
        array(['Welcome', 'to', 'Beijing!'], dtype='<U8')
    """

    def _pieces(self, text):
        return [(m.group(), m.start(), m.end()) for m in re.finditer(r"\S+", text)]


class UnicodeCharTokenizer(_Tokenizer):
    """Split a string into its Unicode characters."""

    def _pieces(self, text):
        return [(c, i, i + 1) for i, c in enumerate(text)]


def _split_keep(text, delim, keep):
    """Pieces of `text` between matches of `delim`; a match is a piece too where `keep` matches
    it whole."""
    pieces, last = [], 0
    for m in delim.finditer(text):
        if m.start() == m.end():
            continue
        if m.start() > last:
            pieces.append((text[last:m.start()], last, m.start()))
        if keep is not None and keep.fullmatch(m.group()):
            pieces.append((m.group(), m.start(), m.end()))
        last = m.end()
    if last < len(text):
        pieces.append((text[last:], last, len(text)))
    return pieces


_SCRIPTS = ("Common", "Inherited", "Latin", "Greek", "Cyrillic", "Armenian", "Hebrew", "Arabic",
            "Syriac", "Thaana", "Devanagari", "Bengali", "Gurmukhi", "Gujarati", "Oriya", "Tamil",
            "Telugu", "Kannada", "Malayalam", "Sinhala", "Thai", "Lao", "Tibetan", "Myanmar",
            "Georgian", "Hangul", "Ethiopic", "Cherokee", "Canadian_Aboriginal", "Ogham",
            "Runic", "Khmer", "Mongolian", "Hiragana", "Katakana", "Bopomofo", "Han", "Yi",
            "Coptic", "Tagalog", "Javanese", "Balinese", "Tifinagh", "Nko", "Vai")


@functools.lru_cache(maxsize=4096)
def _script(c):
    """The Unicode script of a character (through the `regex` package where it is installed,
    else from the character's category and name)."""
    try:
        import regex
    except ImportError:
        regex = None
    if regex is not None:
        for name in _SCRIPTS:
            if regex.match(rf"\p{{Script={name}}}", c):
                return name
    cat = unicodedata.category(c)
    if cat[0] in "NPSZC":
        return "Common"
    if cat in ("Mn", "Me"):
        return "Inherited"
    words = unicodedata.name(c, "UNKNOWN").split()
    return "Han" if words[0] == "CJK" else words[0]


class UnicodeScriptTokenizer(_Tokenizer):
    """Split a string where the Unicode script changes (Latin, Han, Common for digits and
    punctuation, Inherited for combining marks, ...); whitespace runs are separators, kept as
    tokens with `keep_whitespace`."""

    def __init__(self, keep_whitespace=False, with_offsets=False):
        super().__init__(with_offsets)
        self.keep_whitespace = check_bool(keep_whitespace, "keep_whitespace",
                                          "UnicodeScriptTokenizer")

    def _pieces(self, text):
        pieces, start, key = [], 0, None
        for i, c in enumerate(text):
            k = " " if c.isspace() else _script(c)
            if k != key and i > start:
                pieces.append((text[start:i], start, i, key))
                start = i
            key = k
        if start < len(text):
            pieces.append((text[start:], start, len(text), key))
        return [p[:3] for p in pieces if p[3] != " " or self.keep_whitespace]


class RegexTokenizer(_Tokenizer):
    """Split a string on matches of `delim_pattern`; delimiters matching `keep_delim_pattern`
    are kept as tokens.

    Example:
        >>> RegexTokenizer(r"\\s+|,", ",")("a, b  c")
        array(['a', ',', 'b', 'c'], dtype='<U1')
    """

    def __init__(self, delim_pattern, keep_delim_pattern="", with_offsets=False):
        super().__init__(with_offsets)
        self.delim_pattern = check_type(delim_pattern, str, "delim_pattern", "RegexTokenizer")
        self.keep_delim_pattern = check_type(keep_delim_pattern, str, "keep_delim_pattern",
                                             "RegexTokenizer")
        self._delim = _compile("RegexTokenizer", delim_pattern)
        self._keep = _compile("RegexTokenizer", keep_delim_pattern) if keep_delim_pattern \
            else None

    def _pieces(self, text):
        return _split_keep(text, self._delim, self._keep)


def _icu_replacement(owner, replace):
    """A function of a match from an ICU replacement string (`$1`, `${name}`, `\\x` literal)."""
    parts, i = [], 0
    while i < len(replace):
        c = replace[i]
        if c == "\\" and i + 1 < len(replace):
            parts.append(replace[i + 1])
            i += 2
        elif c == "$" and i + 1 < len(replace) and replace[i + 1] == "{":
            end = replace.find("}", i)
            if end < 0:
                raise ValueError(f"For '{owner}', the 'replace' has an unclosed '${{': "
                                 f"{replace!r}")
            name = replace[i + 2:end]
            parts.append((int(name) if name.isdigit() else name,))
            i = end + 1
        elif c == "$" and i + 1 < len(replace) and replace[i + 1].isdigit():
            j = i + 1
            while j < len(replace) and replace[j].isdigit():
                j += 1
            parts.append((int(replace[i + 1:j]),))
            i = j
        else:
            parts.append(c)
            i += 1

    def expand(m):
        return "".join(p if isinstance(p, str) else (m.group(p[0]) or "") for p in parts)
    return expand


def _map_strings(arr, fn):
    """fn applied to every string of a str array (shape kept)."""
    flat = [fn(s) for s in arr.reshape(-1).tolist()]
    return np.array(flat if flat else [], dtype=str).reshape(arr.shape)


class RegexReplace(TextTensorOperation):
    """Replace the matches of `pattern` with `replace` (ICU syntax: `$1` is group 1), all of
    them or only the first.

    Example:
        >>> RegexReplace("a+", "X")("caaab aa")
        array('cXb X', dtype='<U5')
    """

    def __init__(self, pattern, replace, replace_all=True):
        self.pattern = check_type(pattern, str, "pattern", "RegexReplace")
        self.replace = check_type(replace, str, "replace", "RegexReplace")
        self.replace_all = check_bool(replace_all, "replace_all", "RegexReplace")
        self._re = _compile("RegexReplace", pattern)
        self._expand = _icu_replacement("RegexReplace", replace)

    def _apply(self, x):
        arr = _str_array("RegexReplace", x)
        count = 0 if self.replace_all else 1
        return _map_strings(arr, lambda s: self._re.sub(self._expand, s, count=count))


_IGNORABLE = re.compile("[\u00ad\u034f\u061c\u115f\u1160\u17b4\u17b5\u180b-\u180f"
                        "\u200b-\u200f\u202a-\u202e\u2060-\u206f\u3164\ufe00-\ufe0f"
                        "\ufeff\uffa0\ufff0-\ufff8\U0001bca0-\U0001bca3"
                        "\U0001d173-\U0001d17a\U000e0000-\U000e0fff]")


def _nfkc_casefold(s):
    """Unicode NFKC_Casefold (ICU's case folding for text matching): compatibility forms
    unified, case folded, default-ignorable characters removed."""
    s = _IGNORABLE.sub("", unicodedata.normalize("NFKC", s))
    return unicodedata.normalize("NFKC", s.casefold())


class CaseFold(TextTensorOperation):
    """Unicode NFKC case folding, a stronger lower-casing: 'ß' becomes 'ss', '①' '1', and
    invisible format characters such as zero-width spaces are removed."""

    def _apply(self, x):
        return _map_strings(_str_array("CaseFold", x), _nfkc_casefold)


_FORMS = {NormalizeForm.NFC: "NFC", NormalizeForm.NFKC: "NFKC", NormalizeForm.NFD: "NFD",
          NormalizeForm.NFKD: "NFKD"}


def _check_form(owner, form):
    if not isinstance(form, NormalizeForm):
        raise TypeError(f"For '{owner}', the 'normalize_form' must be a NormalizeForm, but got "
                        f"{form!r}")
    return form


def _normalize(form, s):
    return s if form == NormalizeForm.NONE else unicodedata.normalize(_FORMS[form], s)


class NormalizeUTF8(TextTensorOperation):
    """Unicode normalization (NFC, NFKC, NFD, NFKD; NONE leaves the text unchanged)."""

    def __init__(self, normalize_form=NormalizeForm.NFKC):
        self.normalize_form = _check_form("NormalizeUTF8", normalize_form)

    def _apply(self, x):
        form = self.normalize_form
        return _map_strings(_str_array("NormalizeUTF8", x), lambda s: _normalize(form, s))


# ---- BERT tokenization -------------------------------------------------------------------------

_CJK_RANGES = ((0x4E00, 0x9FFF), (0x3400, 0x4DBF), (0x20000, 0x2A6DF), (0x2A700, 0x2B73F),
               (0x2B740, 0x2B81F), (0x2B820, 0x2CEAF), (0xF900, 0xFAFF), (0x2F800, 0x2FA1F))
_UNUSED_TOKEN = re.compile(r"\[(?:UNK|CLS|SEP|MASK|PAD|unused\d+)\]")


def _is_cjk(c):
    cp = ord(c)
    return any(lo <= cp <= hi for lo, hi in _CJK_RANGES)


def _is_punct(c):
    cp = ord(c)
    return 33 <= cp <= 47 or 58 <= cp <= 64 or 91 <= cp <= 96 or 123 <= cp <= 126 or \
        unicodedata.category(c).startswith("P")


def _basic_clean(text, lower_case, form):
    if lower_case:
        text = unicodedata.normalize("NFD", _nfkc_casefold(text))
        text = "".join(c for c in text if unicodedata.category(c) != "Mn")
    else:
        text = _normalize(form, text)
    return "".join(" " if unicodedata.category(c) in ("Cc", "Cf") else c for c in text)


def _basic_split(text, keep_whitespace, offset):
    """(token, start, end) of a cleaned text: whitespace splits (runs kept as tokens with
    `keep_whitespace`), each punctuation mark and CJK character is a token."""
    pieces, start = [], None
    for i, c in enumerate(text):
        if c.isspace() or _is_punct(c) or _is_cjk(c):
            if start is not None:
                pieces.append([text[start:i], start, i])
                start = None
            if not c.isspace():
                pieces.append([c, i, i + 1])
            elif keep_whitespace:
                if pieces and pieces[-1][0].isspace() and pieces[-1][2] == i:
                    pieces[-1][0] += c
                    pieces[-1][2] = i + 1
                else:
                    pieces.append([c, i, i + 1])
        elif start is None:
            start = i
    if start is not None:
        pieces.append([text[start:], start, len(text)])
    return [(t, s + offset, e + offset) for t, s, e in pieces]


def _check_basic(owner, lower_case, keep_whitespace, normalization_form, preserve_unused_token):
    return (check_bool(lower_case, "lower_case", owner),
            check_bool(keep_whitespace, "keep_whitespace", owner),
            _check_form(owner, normalization_form),
            check_bool(preserve_unused_token, "preserve_unused_token", owner))


def _basic_tokenize(text, lower_case, keep_whitespace, form, preserve):
    """(cleaned text, pieces in it): the text is cleaned piecewise around the preserved
    tokens ([UNK], [CLS], [SEP], [MASK], [PAD], [unusedN]), which stay whole."""
    segments, last = [], 0
    if preserve:
        for m in _UNUSED_TOKEN.finditer(text):
            segments.append((text[last:m.start()], False))
            segments.append((m.group(), True))
            last = m.end()
    segments.append((text[last:], False))
    out, pieces = "", []
    for seg, kept in segments:
        if kept:
            pieces.append((seg, len(out), len(out) + len(seg)))
            out += seg
        else:
            seg = _basic_clean(seg, lower_case, form)
            pieces.extend(_basic_split(seg, keep_whitespace, len(out)))
            out += seg
    return out, pieces


class BasicTokenizer(_Tokenizer):
    """BERT's basic tokenization: optional lower-casing (case folding and accent stripping) or
    normalization, control characters to spaces, then a split on whitespace with every
    punctuation mark and CJK character its own token. `preserve_unused_token` keeps [UNK],
    [CLS], [SEP], [MASK], [PAD] and [unusedN] whole. Offsets index the normalized text.

    MindSpore 2.10 repeats tokens when `lower_case` and a preserved token meet; minispore gives
    each token once.
    """

    def __init__(self, lower_case=False, keep_whitespace=False,
                 normalization_form=NormalizeForm.NONE, preserve_unused_token=True,
                 with_offsets=False):
        super().__init__(with_offsets)
        (self.lower_case, self.keep_whitespace, self.normalization_form,
         self.preserve_unused_token) = _check_basic("BasicTokenizer", lower_case,
                                                    keep_whitespace, normalization_form,
                                                    preserve_unused_token)

    def _apply(self, x):
        text = _scalar_text("BasicTokenizer", x)
        text, pieces = _basic_tokenize(text, self.lower_case, self.keep_whitespace,
                                       self.normalization_form, self.preserve_unused_token)
        return _tokenize_result(text, pieces, self.with_offsets)


def _check_wordpiece(owner, vocab, suffix_indicator, max_bytes_per_token, unknown_token):
    check_type(vocab, Vocab, "vocab", owner)
    return (vocab._built(), check_type(suffix_indicator, str, "suffix_indicator", owner),
            check_int_range(max_bytes_per_token, "max_bytes_per_token", owner, 0, _INT32_MAX),
            check_type(unknown_token, str, "unknown_token", owner))


def _wordpiece(word, ids, suffix, max_bytes, unknown):
    """(piece, start byte, end byte) of one word, greedy longest match first."""
    raw = word.encode("utf-8")
    whole = [(unknown or word, 0, len(raw))]
    if len(raw) > max_bytes:
        return whole
    pieces, start = [], 0
    while start < len(word):
        end = len(word)
        while end > start:
            sub = word[start:end] if start == 0 else suffix + word[start:end]
            if sub in ids:
                break
            end -= 1
        if end == start:
            return whole
        b0 = len(word[:start].encode("utf-8"))
        pieces.append((sub, b0, b0 + len(word[start:end].encode("utf-8"))))
        start = end
    return pieces


class WordpieceTokenizer(TextTensorOperation):
    """Split each word of a 1-D str array into word pieces of `vocab` (greedy longest match;
    later pieces carry `suffix_indicator`). A word with no split, or longer than
    `max_bytes_per_token` bytes, becomes `unknown_token` (itself when that is ''). Offsets are
    bytes within each word."""

    def __init__(self, vocab, suffix_indicator="##", max_bytes_per_token=100,
                 unknown_token="[UNK]", with_offsets=False):
        owner = "WordpieceTokenizer"
        _check_wordpiece(owner, vocab, suffix_indicator, max_bytes_per_token, unknown_token)
        self.vocab, self.suffix_indicator = vocab, suffix_indicator
        self.max_bytes_per_token, self.unknown_token = max_bytes_per_token, unknown_token
        self.with_offsets = check_bool(with_offsets, "with_offsets", owner)

    def _pieces(self, words):
        ids = self.vocab._built()
        return [p for w in words for p in _wordpiece(w, ids, self.suffix_indicator,
                                                     self.max_bytes_per_token,
                                                     self.unknown_token)]

    def _apply(self, x):
        words = _str_array("WordpieceTokenizer", x)
        if words.ndim > 1:
            raise RuntimeError(f"For 'WordpieceTokenizer', the input must be a 1-D str array, "
                               f"but got shape {words.shape}")
        pieces = self._pieces(words.reshape(-1).tolist())
        tokens = _tokens([p[0] for p in pieces])
        if not self.with_offsets:
            return tokens
        return (tokens, np.array([p[1] for p in pieces] or [0], np.uint32),
                np.array([p[2] for p in pieces] or [0], np.uint32))


class BertTokenizer(_Tokenizer):
    """BasicTokenizer followed by WordpieceTokenizer; offsets are bytes in the normalized
    text."""

    def __init__(self, vocab, suffix_indicator="##", max_bytes_per_token=100,
                 unknown_token="[UNK]", lower_case=False, keep_whitespace=False,
                 normalization_form=NormalizeForm.NONE, preserve_unused_token=True,
                 with_offsets=False):
        owner = "BertTokenizer"
        super().__init__(with_offsets)
        _check_wordpiece(owner, vocab, suffix_indicator, max_bytes_per_token, unknown_token)
        self.vocab, self.suffix_indicator = vocab, suffix_indicator
        self.max_bytes_per_token, self.unknown_token = max_bytes_per_token, unknown_token
        (self.lower_case, self.keep_whitespace, self.normalization_form,
         self.preserve_unused_token) = _check_basic(owner, lower_case, keep_whitespace,
                                                    normalization_form, preserve_unused_token)

    def _apply(self, x):
        text = _scalar_text("BertTokenizer", x)
        text, words = _basic_tokenize(text, self.lower_case, self.keep_whitespace,
                                      self.normalization_form, self.preserve_unused_token)
        ids = self.vocab._built()
        tokens, starts, ends = [], [], []
        pos = np.zeros(len(text) + 1, np.int64)
        if text:
            pos[1:] = np.cumsum([len(c.encode("utf-8")) for c in text])
        for word, s, _ in words:
            for piece, b0, b1 in _wordpiece(word, ids, self.suffix_indicator,
                                            self.max_bytes_per_token, self.unknown_token):
                tokens.append(piece)
                starts.append(pos[s] + b0)
                ends.append(pos[s] + b1)
        out = _tokens(tokens)
        if not self.with_offsets:
            return out
        return (out, np.array(starts or [0], np.uint32), np.array(ends or [0], np.uint32))


class PythonTokenizer(TextTensorOperation):
    """Tokenize one string with a Python function returning a list of tokens."""

    def __init__(self, tokenizer):
        self.tokenizer = check_callable(tokenizer, "tokenizer", "PythonTokenizer")

    def _apply(self, x):
        text = _scalar_text("PythonTokenizer", x)
        tokens = self.tokenizer(text)
        try:
            return np.array(list(tokens) if len(tokens) else [""], dtype=str)
        except TypeError:
            raise TypeError(f"For 'PythonTokenizer', the tokenizer must return a list of str, "
                            f"but got {type(tokens).__name__}") from None


_WIKI_PATTERNS = dict([
    (r"<.*>", ""), (r"&amp;", "&"), ("&lt;", "<"), ("&gt;", ">"), (r"<ef[^<]*<\/ef>", ""),
    ("<[^>]*>", ""), (r"\[http:[^] ]*", "["), (r"\|thumb", ""), (r"\|left", ""),
    (r"\|right", ""), (r"\|\d+px", ""), (r"\[\[image:[^\[\]]*\|", ""),
    (r"\[\[category:([^|\]]*)[^]]*\]\]", r"[[\1]]"), (r"\[\[[a-z\-]*:[^\]]*\]\]", ""),
    (r"\[\[[^\|\]]*\|", "[["), (r"\{\{[^\}]*\}\}", ""), (r"\{[^\}]*\}", ""), (r"\[", ""),
    (r"\]", ""), ("&[^;]*;", " "),
    *((chr(c), chr(c + 32)) for c in range(ord("A"), ord("Z") + 1)),
    *((str(d), f" {w} ") for d, w in enumerate(("zero", "one", "two", "three", "four", "five",
                                                  "six", "seven", "eight", "nine"))),
    (r"[^a-z\n]+", " "), (r"\n ", ""), (r"\s+", " "), (r"\n\s*\n", r"\n")])
# MindSpore keeps these rules in a map and so applies them in the sorted order of their
# patterns, trimming the text after each: that order is part of the result.
_WIKI_RULES = [(re.compile(p), r) for p, r in sorted(_WIKI_PATTERNS.items())]


def _filter_wiki(text):
    if "#redirect" in text or "#REDIRECT" in text:
        return ""
    for pattern, repl in _WIKI_RULES:
        text = pattern.sub(repl, text).strip()
    return text


class FilterWikipediaXML(TextTensorOperation):
    """Clean Wikipedia XML text to lower-case letters and spaces (digits spelled out, markup
    dropped); pages with `#redirect` become ''. MindSpore 2.10 cleans only the first string of
    an array (the rest become '') and drops the letter 'R'; minispore cleans every string and
    lower-cases 'R' as the other letters."""

    def _apply(self, x):
        return _map_strings(_str_array("FilterWikipediaXML", x), _filter_wiki)


# ---- vocab lookup and sequence transforms ------------------------------------------------------

def _numeric_type(owner, data_type, arg="data_type"):
    try:
        np_type = mstype.to_np(data_type)
    except TypeError:
        raise TypeError(f"For '{owner}', the '{arg}' must be a numeric MindSpore dtype, but got "
                        f"{data_type!r}") from None
    if np.dtype(np_type).kind not in "iuf":
        raise TypeError(f"For '{owner}', the '{arg}' must be a numeric dtype, but got "
                        f"{data_type!r}")
    return np_type


class Lookup(TextTensorOperation):
    """Ids of tokens in `vocab`; a token not in it takes the id of `unknown_token` (an error
    without one).

    Example:
        >>> vocab = Vocab.from_list(["<unk>", "a", "b"])
        >>> Lookup(vocab, "<unk>")(np.array(["b", "zz"]))
        array([2, 0], dtype=int32)
    """

    def __init__(self, vocab, unknown_token=None, data_type=mstype.int32):
        owner = "Lookup"
        self.vocab = check_type(vocab, Vocab, "vocab", owner)
        ids = vocab._built()
        if unknown_token is not None:
            check_type(unknown_token, str, "unknown_token", owner)
            if unknown_token not in ids:
                raise ValueError(f"For '{owner}', the 'unknown_token' {unknown_token!r} is not "
                                 f"in the vocab")
        self.unknown_token, self.data_type = unknown_token, data_type
        self._np = _numeric_type(owner, data_type)

    def _apply(self, x):
        arr = _str_array("Lookup", x)
        ids = self.vocab._built()
        unk = None if self.unknown_token is None else ids[self.unknown_token]
        out = []
        for t in arr.reshape(-1).tolist():
            i = ids.get(t, unk)
            if i is None:
                raise RuntimeError(f"For 'Lookup', the token {t!r} is not in the vocab and no "
                                   f"'unknown_token' was given")
            out.append(i)
        return np.array(out, dtype=np.int64).reshape(arr.shape).astype(self._np)


def _check_pad(owner, pad, arg):
    pad = check_sequence(pad, arg, owner, lengths=2)
    check_type(pad[0], str, f"{arg}[0]", owner)
    check_int_range(pad[1], f"{arg}[1]", owner, 0, _INT32_MAX)
    return pad


class Ngram(TextTensorOperation):
    """The n-grams of a 1-D str array for each n in `n`, joined by `separator`; the sequence is
    padded with up to n - 1 copies of `left_pad[0]` / `right_pad[0]` (at most `left_pad[1]` /
    `right_pad[1]`). No n-gram at all gives ['']."""

    def __init__(self, n, left_pad=("", 0), right_pad=("", 0), separator=" "):
        owner = "Ngram"
        ns = [n] if isinstance(n, numbers.Integral) and not isinstance(n, bool) else n
        if not isinstance(ns, (list, tuple)) or not ns or not all(
                isinstance(k, numbers.Integral) and not isinstance(k, bool) for k in ns):
            raise ValueError(f"For '{owner}', the 'n' must be a positive int or a non-empty list "
                             f"of them, but got {n!r}")
        self.n = [check_int_range(k, "n", owner, 1, _INT32_MAX) for k in ns]
        self.left_pad = _check_pad(owner, left_pad, "left_pad")
        self.right_pad = _check_pad(owner, right_pad, "right_pad")
        self.separator = check_type(separator, str, "separator", owner)

    def _apply(self, x):
        arr = _str_array("Ngram", x)
        if arr.ndim != 1:
            raise RuntimeError(f"For 'Ngram', the input must be a 1-D str array, but got shape "
                               f"{arr.shape}")
        words = arr.tolist()
        out = []
        for n in self.n:
            seq = ([self.left_pad[0]] * min(n - 1, self.left_pad[1]) + words +
                   [self.right_pad[0]] * min(n - 1, self.right_pad[1]))
            out.extend(self.separator.join(seq[k:k + n]) for k in range(len(seq) - n + 1))
        return _tokens(out)


_INT_PREFIX = re.compile(r"\s*[+-]?\d+")
_FLOAT_PREFIX = re.compile(r"\s*[+-]?(?:(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?|nan|inf(?:inity)?)",
                           re.IGNORECASE)


class ToNumber(TextTensorOperation):
    """Parse strings to numbers of `data_type` (a numeric MindSpore dtype). As C's strtol /
    strtod, leading whitespace is skipped and the longest numeric prefix is read ('1.5' as an
    int is 1); no number, or one out of the dtype's range, is a RuntimeError."""

    def __init__(self, data_type):
        self.data_type = data_type
        self._np = np.dtype(_numeric_type("ToNumber", data_type))

    def _parse(self, s):
        dt = self._np
        m = (_INT_PREFIX if dt.kind in "iu" else _FLOAT_PREFIX).match(s)
        if m is None:
            raise RuntimeError(f"For 'ToNumber', it is invalid to convert {s!r} to a number")
        if dt.kind in "iu":
            v, info = int(m.group()), np.iinfo(dt)
            if not info.min <= v <= info.max:
                raise RuntimeError(f"For 'ToNumber', string input {s!r} is out of bounds for "
                                   f"{dt}: the valid range is [{info.min}, {info.max}]")
            return v
        v = float(m.group())
        info = np.finfo(np.float32 if dt.itemsize <= 4 else np.float64)
        if np.isinf(v) or abs(v) > float(info.max) or 0 < abs(v) < float(info.tiny):
            raise RuntimeError(f"For 'ToNumber', string input {s!r} is out of bounds for {dt}")
        if dt == np.float16 and abs(v) > float(np.finfo(np.float16).max):
            raise RuntimeError(f"For 'ToNumber', string input {s!r} is out of bounds for "
                               f"float16")
        return v

    def _apply(self, x):
        arr = _to_array("ToNumber", x)
        if arr.dtype.kind == "S":
            arr = np.char.decode(arr, "utf-8")
        if arr.dtype.kind != "U":
            raise RuntimeError(f"For 'ToNumber', the input must be strings, but got dtype "
                               f"{arr.dtype}")
        vals = [self._parse(s) for s in arr.reshape(-1).tolist()]
        return np.array(vals, dtype=self._np).reshape(arr.shape)


class SlidingWindow(TextTensorOperation):
    """Windows of `width` consecutive elements of a 1-D array, stacked as rows: shape
    (n - width + 1, width), or (0,) when the array is shorter than `width`."""

    def __init__(self, width, axis=0):
        self.width = check_int_range(width, "width", "SlidingWindow", 1, _INT32_MAX)
        self.axis = check_int_range(axis, "axis", "SlidingWindow", -1, 0)

    def _apply(self, x):
        arr = _to_array("SlidingWindow", x)
        if arr.ndim != 1:
            raise RuntimeError(f"For 'SlidingWindow', the input must be 1-D, but got shape "
                               f"{arr.shape}")
        n = arr.shape[0] - self.width + 1
        if n <= 0:
            return arr[:0].copy()
        return np.stack([arr[k:k + self.width] for k in range(n)])


class TruncateSequencePair(TextTensorOperation):
    """Truncate two 1-D arrays so their lengths sum to at most `max_length`, dropping from the
    end of the longer one (the second on a tie)."""

    def __init__(self, max_length):
        self.max_length = check_int_range(max_length, "max_length", "TruncateSequencePair", 0,
                                          _INT32_MAX)

    def __call__(self, *input_tensor_list):
        if len(input_tensor_list) != 2:
            raise RuntimeError(f"For 'TruncateSequencePair', expected two inputs, but got "
                               f"{len(input_tensor_list)}")
        return super().__call__(*input_tensor_list)

    def _apply(self, a, b):
        for arr in (a, b):
            if arr.ndim != 1:
                raise RuntimeError(f"For 'TruncateSequencePair', the inputs must be 1-D, but "
                                   f"got shape {arr.shape}")
        la, lb = len(a), len(b)
        while la + lb > self.max_length:
            if la > lb:
                la -= 1
            else:
                lb -= 1
        return a[:la].copy(), b[:lb].copy()


class Truncate(TextTensorOperation):
    """Keep the first `max_seq_len` elements of the last axis of a 1-D or 2-D array."""

    def __init__(self, max_seq_len):
        self.max_seq_len = check_int_range(max_seq_len, "max_seq_len", "Truncate", 1,
                                           _INT32_MAX)

    def _apply(self, x):
        if x.ndim not in (1, 2):
            raise RuntimeError(f"For 'Truncate', the input must be 1-D or 2-D, but got shape "
                               f"{x.shape}")
        return x[..., :self.max_seq_len].copy()


class AddToken(TextTensorOperation):
    """Add `token` at the start (or end) of the last axis of a 1-D or 2-D str array."""

    def __init__(self, token, begin=True):
        self.token = check_type(token, str, "token", "AddToken")
        self.begin = check_bool(begin, "begin", "AddToken")

    def _apply(self, x):
        arr = _str_array("AddToken", x)
        if arr.ndim not in (1, 2):
            raise RuntimeError(f"For 'AddToken', the input must be 1-D or 2-D, but got shape "
                               f"{arr.shape}")
        tok = np.full(arr.shape[:-1] + (1,), self.token)
        parts = (tok, arr) if self.begin else (arr, tok)
        return np.concatenate(parts, axis=-1)


class ToVectors(TextTensorOperation):
    """The vectors (float32 rows) of the tokens of a str array from `vectors` (Vectors,
    FastText, GloVe or CharNGram); unknown tokens get `unk_init` (zeros by default). With
    `lower_case_backup` the lower-case form of a token is looked up first, as in MindSpore."""

    def __init__(self, vectors, unk_init=None, lower_case_backup=False):
        owner = "ToVectors"
        self.vectors = check_type(vectors, Vectors, "vectors", owner)
        self.lower_case_backup = check_bool(lower_case_backup, "lower_case_backup", owner)
        dim = vectors.dim
        if unk_init is None:
            unk = np.zeros(dim, np.float32)
        else:
            unk = np.asarray(check_sequence(unk_init, "unk_init", owner), np.float32)
            if unk.shape != (dim,):
                raise ValueError(f"For '{owner}', the 'unk_init' must have {dim} values (the "
                                 f"vector size), but got {unk.shape[0]}")
        self.unk_init, self._unk = unk_init, unk

    def _apply(self, x):
        arr = _str_array("ToVectors", x)
        rows = [self.vectors._lookup(t, self._unk, self.lower_case_backup)
                for t in arr.reshape(-1).tolist()]
        out = np.array(rows, np.float32).reshape(arr.shape + (self.vectors.dim,))
        return out


# ---- optional packages: jieba and sentencepiece ------------------------------------------------

_MIN_WEIGHT = -3.14e100
_JIEBA_SEPARATORS = frozenset(" \t\n\uff0c\u3002")
_MAX_WORD_LENGTH = 512
_B, _E, _M, _S = range(4)


def _read_lines(owner, path):
    try:
        with open(path, encoding="utf-8") as f:
            return f.read().splitlines()
    except (OSError, UnicodeDecodeError) as e:
        raise ValueError(f"For '{owner}', cannot read {path!r}: {e}") from None


def _load_hmm(owner, path):
    """(start, trans, emit) of a cppjieba HMM model file: after '#' comments and blank lines,
    a line of 4 start log-probabilities, 4 lines of transitions, and the emission lines of the
    states B, E, M, S ('char:logprob' pairs separated by commas)."""
    lines = [ln.strip() for ln in _read_lines(owner, path)]
    lines = [ln for ln in lines if ln and not ln.startswith("#")]
    if len(lines) < 9:
        raise ValueError(f"For '{owner}', the HMM model {path!r} needs 9 data lines (start, 4 "
                         f"transition rows, 4 emission rows), but has {len(lines)}")
    try:
        rows = [[float(v) for v in ln.split(" ") if v] for ln in lines[:5]]
        if any(len(r) != 4 for r in rows):
            raise ValueError("a start or transition line does not hold 4 numbers")
        emit = []
        for ln in lines[5:9]:
            table = {}
            for pair in ln.split(","):
                char, _, prob = pair.rpartition(":")
                if len(char) != 1:
                    raise ValueError(f"emission entry {pair!r} is not 'char:logprob'")
                table[char] = float(prob)
            emit.append(table)
    except ValueError as e:
        raise ValueError(f"For '{owner}', the HMM model {path!r} is malformed: {e}") from None
    return rows[0], rows[1:5], emit


def _load_jieba_dict(owner, path):
    """{word: freq} of a cppjieba dictionary: 'word freq tag' lines."""
    freqs = {}
    for n, line in enumerate(_read_lines(owner, path), 1):
        parts = line.split(" ")
        if len(parts) != 3:
            raise ValueError(f"For '{owner}', line {n} of the dictionary {path!r} must be "
                             f"'word freq tag', but got {line!r}")
        try:
            freqs[parts[0]] = float(parts[1])
        except ValueError:
            raise ValueError(f"For '{owner}', line {n} of {path!r}: the frequency "
                             f"{parts[1]!r} is not a number") from None
    if not freqs or sum(freqs.values()) <= 0:
        raise ValueError(f"For '{owner}', the dictionary {path!r} has no word with a positive "
                         f"frequency")
    return freqs


class JiebaTokenizer(TextTensorOperation):
    """Chinese word segmentation as MindSpore's (cppjieba's) JiebaTokenizer: `mp_path` is the
    dictionary ('word freq tag' lines, as jieba.dict.utf8) and `hmm_path` the HMM model
    (hmm_model.utf8). MP takes the most probable split into dictionary words, HMM labels each
    character with the Viterbi path of the model, MIX re-cuts MP's runs of single characters
    with the HMM. ASCII letter runs (with digits) and numbers stay whole in the HMM."""

    def __init__(self, hmm_path, mp_path, mode=JiebaMode.MIX, with_offsets=False):
        owner = "JiebaTokenizer"
        for arg, path in (("hmm_path", hmm_path), ("mp_path", mp_path)):
            check_type(path, str, arg, owner)
            if not os.path.isfile(path):
                raise ValueError(f"For '{owner}', the '{arg}' {path!r} does not exist")
        if not isinstance(mode, JiebaMode):
            raise TypeError(f"For '{owner}', the 'mode' must be a JiebaMode, but got {mode!r}")
        self.hmm_path, self.mp_path, self.mode = hmm_path, mp_path, mode
        self.with_offsets = check_bool(with_offsets, "with_offsets", owner)
        self._start, self._trans, self._emit = _load_hmm(owner, hmm_path)
        freqs = _load_jieba_dict(owner, mp_path)
        self._total = sum(freqs.values())
        self._weights = {w: math.log(f / self._total) if f > 0 else -math.inf
                         for w, f in freqs.items()}
        ordered = sorted(self._weights.values())
        self._min_weight, self._median_weight = ordered[0], ordered[len(ordered) // 2]
        self._prefixes = {w[:k] for w in self._weights for k in range(1, len(w) + 1)}
        self._user_singles = set()

    def add_word(self, word, freq=None):
        """Add `word` to the dictionary with frequency `freq` (default: the median weight)."""
        check_type(word, str, "word", "add_word")
        if not word:
            raise ValueError("For 'add_word', the 'word' must not be empty")
        if freq is not None:
            check_int_range(freq, "freq", "add_word", 0, _INT32_MAX)
        self._weights[word] = math.log(freq / self._total) if freq else self._median_weight
        self._prefixes.update(word[:k] for k in range(1, len(word) + 1))
        if len(word) == 1:
            self._user_singles.add(word)

    def add_dict(self, user_dict):
        """Add words from a {word: freq} dict or a file of 'word [freq]' lines."""
        if isinstance(user_dict, dict):
            for w, f in user_dict.items():
                self.add_word(w, f)
            return
        check_type(user_dict, str, "user_dict", "add_dict")
        for line in _read_lines("add_dict", user_dict):
            parts = line.split()
            if parts:
                freq = int(parts[1]) if len(parts) > 1 and parts[1].isdigit() else None
                self.add_word(parts[0], freq)

    def _mp(self, s):
        """The most probable split of `s` into dictionary words (unknown characters alone)."""
        n = len(s)
        best = [(0.0, 1)] * (n + 1)
        for i in range(n - 1, -1, -1):
            weight, length = _MIN_WEIGHT, 1
            for j in range(i, min(n, i + _MAX_WORD_LENGTH)):
                piece = s[i:j + 1]
                if j > i and piece not in self._prefixes:
                    break
                w = self._weights.get(piece)
                if w is None:
                    if j > i:
                        continue
                    w = self._min_weight
                val = w + (best[j + 1][0] if j + 1 < n else 0.0)
                if val > weight:
                    weight, length = val, j + 1 - i
            best[i] = (weight, length)
        words, i = [], 0
        while i < n:
            words.append(s[i:i + best[i][1]])
            i += best[i][1]
        return words

    def _viterbi(self, s):
        emit = [[table.get(c, _MIN_WEIGHT) for c in s] for table in self._emit]
        weight = [[self._start[y] + emit[y][0] for y in range(4)]]
        path = []
        for x in range(1, len(s)):
            row, back = [], []
            for y in range(4):
                best, prev = _MIN_WEIGHT, _E
                for p in range(4):
                    val = weight[-1][p] + self._trans[p][y] + emit[y][x]
                    if val > best:
                        best, prev = val, p
                row.append(best)
                back.append(prev)
            weight.append(row)
            path.append(back)
        state = _E if weight[-1][_E] >= weight[-1][_S] else _S
        states = [state]
        for back in reversed(path):
            state = back[state]
            states.append(state)
        words, start = [], 0
        for i, st in enumerate(reversed(states)):
            if st in (_E, _S):
                words.append(s[start:i + 1])
                start = i + 1
        return words

    def _hmm(self, s):
        words, left, i = [], 0, 0
        while i < len(s):
            if ord(s[i]) >= 0x80:
                i += 1
                continue
            if left < i:
                words.extend(self._viterbi(s[left:i]))
            j = i + 1
            if s[i].isascii() and s[i].isalpha():
                while j < len(s) and s[j].isascii() and s[j].isalnum():
                    j += 1
            elif "0" <= s[i] <= "9":
                while j < len(s) and ("0" <= s[j] <= "9" or s[j] == "."):
                    j += 1
            words.append(s[i:j])
            left = i = j
        if left < len(s):
            words.extend(self._viterbi(s[left:]))
        return words

    def _mix(self, s):
        words, run = [], ""
        for w in self._mp(s) + [None]:
            if w is not None and len(w) == 1 and w not in self._user_singles:
                run += w
                continue
            if run:
                words.extend(self._hmm(run))
                run = ""
            if w is not None:
                words.append(w)
        return words

    def _cut(self, text):
        """Words of `text`, cut separately between the separators (space, tab, newline, '，',
        '。'), which are words of their own."""
        cut = {JiebaMode.MP: self._mp, JiebaMode.HMM: self._hmm, JiebaMode.MIX: self._mix}[
            self.mode]
        words, start = [], 0
        for i, c in enumerate(text):
            if c in _JIEBA_SEPARATORS:
                if start < i:
                    words.extend(cut(text[start:i]))
                words.append(c)
                start = i + 1
        if start < len(text):
            words.extend(cut(text[start:]))
        return words

    def _apply(self, x):
        text = _scalar_text("JiebaTokenizer", x)
        pieces, pos = [], 0
        for w in self._cut(text):
            pieces.append((w, pos, pos + len(w)))
            pos += len(w)
        if not pieces and self.with_offsets:  # MindSpore: [''] with no offsets
            return _tokens([]), np.zeros(0, np.uint32), np.zeros(0, np.uint32)
        return _tokenize_result(text, pieces, self.with_offsets)


class SentencePieceTokenizer(TextTensorOperation):
    """Tokenize one string with a SentencePiece model (`mode`: a SentencePieceVocab or the path
    of a model file) into pieces (`out_type` STRING) or ids (INT, int32)."""

    def __init__(self, mode, out_type):
        owner = "SentencePieceTokenizer"
        if not isinstance(out_type, SPieceTokenizerOutType):
            raise TypeError(f"For '{owner}', the 'out_type' must be an SPieceTokenizerOutType, "
                            f"but got {out_type!r}")
        spm = _sentencepiece()
        if isinstance(mode, SentencePieceVocab):
            self._sp = spm.SentencePieceProcessor(model_proto=mode._proto())
        elif isinstance(mode, str):
            if not os.path.isfile(mode):
                raise ValueError(f"For '{owner}', the model file {mode!r} does not exist")
            self._sp = spm.SentencePieceProcessor(model_file=mode)
        else:
            raise TypeError(f"For '{owner}', the 'mode' must be a SentencePieceVocab or a model "
                            f"file path, but got {type(mode).__name__}")
        self.mode, self.out_type = mode, out_type

    def _apply(self, x):
        text = _scalar_text("SentencePieceTokenizer", x)
        if self.out_type == SPieceTokenizerOutType.INT:
            return np.array(self._sp.encode(text, out_type=int), np.int32)
        return np.array(self._sp.encode(text, out_type=str), dtype=str)
