"""`mindspore.dataset.text`: tokenizers, vocabularies and text transforms."""
from . import transforms, utils
from .transforms import (AddToken, BasicTokenizer, BertTokenizer, CaseFold, FilterWikipediaXML,
                         JiebaTokenizer, Lookup, Ngram, NormalizeUTF8, PythonTokenizer,
                         RegexReplace, RegexTokenizer, SentencePieceTokenizer, SlidingWindow,
                         ToNumber, ToVectors, Truncate, TruncateSequencePair,
                         UnicodeCharTokenizer, UnicodeScriptTokenizer, WhitespaceTokenizer,
                         WordpieceTokenizer)
from .utils import (CharNGram, FastText, GloVe, JiebaMode, NormalizeForm, SentencePieceModel,
                    SentencePieceVocab, SPieceTokenizerLoadType, SPieceTokenizerOutType, Vectors,
                    Vocab, to_bytes, to_str)

__all__ = ["transforms", "utils", "AddToken", "BasicTokenizer", "BertTokenizer", "CaseFold",
           "CharNGram", "FastText", "FilterWikipediaXML", "GloVe", "JiebaMode", "JiebaTokenizer",
           "Lookup", "Ngram", "NormalizeForm", "NormalizeUTF8", "PythonTokenizer",
           "RegexReplace", "RegexTokenizer", "SPieceTokenizerLoadType", "SPieceTokenizerOutType",
           "SentencePieceModel", "SentencePieceTokenizer", "SentencePieceVocab", "SlidingWindow",
           "ToNumber", "ToVectors", "Truncate", "TruncateSequencePair", "UnicodeCharTokenizer",
           "UnicodeScriptTokenizer", "Vectors", "Vocab", "WhitespaceTokenizer",
           "WordpieceTokenizer", "to_bytes", "to_str"]
