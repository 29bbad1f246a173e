"""The text cases run both by make_mindspore_text.py (on real MindSpore) and by
tests/dataset/test_text.py (on minispore): `transform_cases(ms, text, transforms)` and
`dataset_cases(ms, ds, root)` map a case name to a function returning an array or a tuple of
arrays (or raising)."""
import os

import numpy as np

SENTENCES = [
    "Welcome to  Beijing!\tHi\u3000there 你好 ab",
    "Hello, World! 你好 Café naïve",
    "  leading and trailing  ",
    "",
    "don't stop-believing... (ok) 123 4.5",
    "Ünïcödé ÀÉÎ straße ǅ ﬁ ①",
    "a\u200bb\x00c\x07d",
    "unaffable playing runs [UNK] [CLS] x [SEP] [unused3]",
]


def transform_cases(ms, text, transforms):
    """Transforms applied eagerly to fixed inputs."""
    vocab = text.Vocab.from_list(["[UNK]", "[CLS]", "[SEP]", "un", "##aff", "##able", "play",
                                  "##ing", "run", "##s", "hello", ",", "world", "!", "你", "好",
                                  "cafe", "café", "na", "##ive", "##ïve", "x", "[unused3]"])
    cases = {}
    for i, s in enumerate(SENTENCES):
        cases[f"ws_{i}"] = lambda s=s: text.WhitespaceTokenizer(True)(s)
        cases[f"uc_{i}"] = lambda s=s: text.UnicodeCharTokenizer(True)(s)
        cases[f"regex_{i}"] = lambda s=s: text.RegexTokenizer(r"\s+|[,.!]", r"[,.!]", True)(s)
        cases[f"casefold_{i}"] = lambda s=s: text.CaseFold()(s)
        cases[f"script_{i}"] = lambda s=s: text.UnicodeScriptTokenizer(with_offsets=True)(s)
        cases[f"script_ws_{i}"] = lambda s=s: text.UnicodeScriptTokenizer(True, True)(s)
        for form in ("NFC", "NFKC", "NFD", "NFKD"):
            cases[f"norm_{form}_{i}"] = \
                lambda s=s, f=form: text.NormalizeUTF8(getattr(text.NormalizeForm, f))(s)
        cases[f"basic_{i}"] = lambda s=s: text.BasicTokenizer(with_offsets=True)(s)
        cases[f"basic_ws_nfkc_{i}"] = lambda s=s: text.BasicTokenizer(
            keep_whitespace=True, normalization_form=text.NormalizeForm.NFKC,
            preserve_unused_token=False, with_offsets=True)(s)
        if "[" not in s:  # MindSpore 2.10 repeats tokens for lower_case with [UNK]-style tokens
            cases[f"basic_lower_{i}"] = \
                lambda s=s: text.BasicTokenizer(lower_case=True, with_offsets=True)(s)
            cases[f"bert_lower_{i}"] = \
                lambda s=s: text.BertTokenizer(vocab, lower_case=True, with_offsets=True)(s)
        cases[f"bert_{i}"] = lambda s=s: text.BertTokenizer(vocab, with_offsets=True)(s)
        cases[f"bert_nounk_{i}"] = lambda s=s: text.BertTokenizer(
            vocab, unknown_token="", max_bytes_per_token=6)(s)
        cases[f"regrep_{i}"] = lambda s=s: text.RegexReplace(r"(\w)(\w*)", r"$2$1ay")(s)
        cases[f"regrep1_{i}"] = lambda s=s: text.RegexReplace(r"\s+", "_", False)(s)
    words = np.array(["unaffable", "playing", "runs", "xyz", "hello", "café", "naïve", "a" * 8])
    cases["wordpiece"] = lambda: text.WordpieceTokenizer(vocab, with_offsets=True)(words)
    cases["wordpiece_unk_empty"] = lambda: text.WordpieceTokenizer(
        vocab, suffix_indicator="##", max_bytes_per_token=7, unknown_token="")(words)
    tokens = np.array(["hello", "zzz", "world", "[CLS]", "好"])
    cases["lookup"] = lambda: text.Lookup(vocab, "[UNK]")(tokens)
    cases["lookup_i64"] = lambda: text.Lookup(vocab, "[UNK]", ms.int64)(tokens)
    cases["lookup_f32"] = lambda: text.Lookup(vocab, "[UNK]", ms.float32)(tokens[:2])
    cases["lookup_2d"] = lambda: text.Lookup(vocab, "[UNK]")(tokens[:4].reshape(2, 2))
    cases["lookup_missing"] = lambda: text.Lookup(vocab)(tokens)
    seq = np.array(["a", "b", "c", "d"])
    cases["ngram_2"] = lambda: text.Ngram(2)(seq)
    cases["ngram_multi"] = lambda: text.Ngram([1, 3, 4], ("_", 1), ("^", 2), "-")(seq)
    cases["ngram_pad"] = lambda: text.Ngram([2, 5], ("<s>", 4), ("</s>", 4))(seq[:2])
    cases["ngram_none"] = lambda: text.Ngram(5)(seq)
    for dt in ("int8", "int32", "int64", "uint8", "uint32", "float16", "float32", "float64"):
        cases[f"tonum_{dt}"] = lambda dt=dt: text.ToNumber(getattr(ms, dt))(
            np.array(["1", "-2", " 12", "+7", "100", "3.9"]) if "int" in dt else
            np.array(["1.5", "-2e3", " 0.1", "7", "nan"]))
    for s in ["300", "-1", "abc", "", "1e2", "0x10", "99999999999999999999"]:
        cases[f"tonum_u8_{s}"] = lambda s=s: text.ToNumber(ms.uint8)(np.array([s]))
    for s in ["1e40", "inf", "-1e-50", "abc", "70000"]:
        cases[f"tonum_f16f32_{s}"] = lambda s=s: (text.ToNumber(ms.float32)(np.array([s])),
                                                  text.ToNumber(ms.float16)(np.array([s])))
    cases["tonum_2d"] = lambda: text.ToNumber(ms.int32)(np.array([["1", "2"], ["3", "4"]]))
    cases["slide_str"] = lambda: text.SlidingWindow(2)(seq)
    cases["slide_num"] = lambda: text.SlidingWindow(3, -1)(np.arange(6, dtype=np.float32))
    cases["slide_long"] = lambda: text.SlidingWindow(9)(np.arange(3))
    cases["slide_2d"] = lambda: text.SlidingWindow(2)(np.arange(8).reshape(2, 4))
    for a, b, m in [(3, 4, 4), (3, 3, 5), (5, 1, 3), (2, 2, 10), (4, 4, 0)]:
        cases[f"tsp_{a}_{b}_{m}"] = lambda a=a, b=b, m=m: text.TruncateSequencePair(m)(
            np.arange(a), np.arange(10, 10 + b).astype(np.int32))
    cases["tsp_str"] = lambda: text.TruncateSequencePair(3)(seq, seq[:2])
    cases["truncate_1d"] = lambda: text.Truncate(2)(seq)
    cases["truncate_2d"] = lambda: text.Truncate(3)(np.arange(8).reshape(2, 4))
    cases["truncate_long"] = lambda: text.Truncate(9)(seq)
    cases["addtoken"] = lambda: text.AddToken("[CLS]")(seq)
    cases["addtoken_end"] = lambda: text.AddToken("[SEP]", False)(seq.reshape(2, 2))
    cases["addtoken_num"] = lambda: text.AddToken("x")(np.arange(2))
    cases["to_str"] = lambda: text.to_str(np.array([b"ab", "你好".encode()]))
    cases["to_bytes"] = lambda: text.to_bytes(np.array(["ab", "你好"]))
    cases["pytok"] = lambda: text.PythonTokenizer(lambda t: t.split("o"))(np.array("foo bo"))
    cases["wiki"] = lambda: text.FilterWikipediaXML()(np.array(
        "&lt;b&gt;[[Foo|bar]] {{cite}} Hello, World 123! http://x.com <ref>x</ref> "
        "[[category:Space]] [[image:a.png|thumb|caption]] &amp; ok"))
    cases["wiki_redirect"] = lambda: text.FilterWikipediaXML()(np.array("#REDIRECT [[a]]"))
    here = os.path.dirname(os.path.abspath(__file__))
    words2 = np.array(["ok", "The", "the", "THE", "!", "zz"])
    cases["vectors"] = lambda: text.ToVectors(
        text.Vectors.from_file(os.path.join(here, "vectors.txt")))(words2)
    cases["vectors_max_unk"] = lambda: text.ToVectors(
        text.Vectors.from_file(os.path.join(here, "vectors.txt"), max_vectors=2),
        [-1.0, -1.0, -1.0])(words2)
    cases["vectors_lower"] = lambda: text.ToVectors(
        text.Vectors.from_file(os.path.join(here, "vectors.txt")), lower_case_backup=True)(words2)
    cases["glove"] = lambda: text.ToVectors(
        text.GloVe.from_file(os.path.join(here, "glove.6B.3d.txt")))(np.array("the"))
    cases["glove_bad_name"] = lambda: text.GloVe.from_file(os.path.join(here, "vectors.txt"))
    cases["fasttext"] = lambda: text.ToVectors(
        text.FastText.from_file(os.path.join(here, "fasttext.vec")))(np.array(["world", ",", "x"]))
    cases["charngram"] = lambda: text.ToVectors(
        text.CharNGram.from_file(os.path.join(here, "charngram.txt")))(np.array(["ab", "b", "zz"]))

    jieba_sentences = [
        "我来到北京清华大学", "他来到了网易杭研大厦",
        "小明硕士毕业于中国科学院计算所，后在日本京都大学深造", "今天天气不错，我们去公园散步吧。",
        "结婚的和尚未结婚的", "MindSpore是一个全场景AI框架, version 2.10 发布了3.5个新功能",
        "工信处女干事每月经过下属科室都要亲口交代24口交换机等技术性器件的安装工作",
        "我爱Python和C++编程！", ""]

    def jieba(mode, sentence, words=None):
        tok = text.JiebaTokenizer(os.path.join(here, "hmm_model.utf8"),
                                  os.path.join(here, "jieba.dict.utf8"),
                                  getattr(text.JiebaMode, mode), with_offsets=True)
        if words:
            tok.add_dict(words)
        return tok(sentence)
    for mode in ("MP", "MIX", "HMM"):
        for i, sentence in enumerate(jieba_sentences):
            cases[f"jieba_{mode}_{i}"] = lambda m=mode, s=sentence: jieba(m, s)
            cases[f"jieba_words_{mode}_{i}"] = lambda m=mode, s=sentence: jieba(
                m, s, {"网易杭研": 5, "尚": 100000, "毕业于": None})
    model_file = os.path.join(here, "sp_unigram.model")  # trained by MindSpore (make script)
    for out in ("STRING", "INT"):
        cases[f"spm_{out}"] = lambda out=out: text.SentencePieceTokenizer(
            model_file, getattr(text.SPieceTokenizerOutType, out))(
                "the lazy fox tests sentence pieces")
    cases["spm_empty"] = lambda: text.SentencePieceTokenizer(
        model_file, text.SPieceTokenizerOutType.STRING)("")
    num = np.array([3, 1, 4, 1, 5])
    cases["padend_num"] = lambda: transforms.PadEnd([7], -1)(num)
    cases["padend_cut"] = lambda: transforms.PadEnd([2])(num)
    cases["padend_2d"] = lambda: transforms.PadEnd([3, 1])(num[:4].reshape(2, 2))
    cases["padend_str"] = lambda: transforms.PadEnd([4], "<pad>")(seq[:2])
    cases["padend_str_default"] = lambda: transforms.PadEnd([3])(seq[:1])
    cases["padend_mixed"] = lambda: transforms.PadEnd([7], "x")(num)
    cases["concat"] = lambda: transforms.Concatenate(0, np.array([0]), np.array([9, 9]))(num)
    cases["concat_str"] = lambda: transforms.Concatenate(
        -1, np.array(["<s>"]), np.array(["</s>"]))(seq)
    cases["concat_mismatch"] = lambda: transforms.Concatenate(0, np.array([0.5]))(num)
    for op in ("EQ", "NE", "GT", "GE", "LT", "LE"):
        rel = getattr(transforms.Relational, op)
        cases[f"mask_{op}"] = lambda rel=rel: transforms.Mask(rel, 3)(num)
        cases[f"mask_f_{op}"] = lambda rel=rel: transforms.Mask(rel, 2.5, ms.float32)(
            num.astype(np.float64) / 2)
        cases[f"mask_s_{op}"] = lambda rel=rel: transforms.Mask(rel, "b", ms.int32)(seq)
    cases["mask_int_vs_float"] = lambda: transforms.Mask(transforms.Relational.LT, 2.5)(num)
    cases["mask_mixed"] = lambda: transforms.Mask(transforms.Relational.EQ, 2)(seq)
    grid = np.arange(24).reshape(4, 6)
    cases["slice_slice"] = lambda: transforms.Slice(slice(1, 3))(grid)
    cases["slice_int_list"] = lambda: transforms.Slice(1, [0, 2, 5])(grid)
    cases["slice_neg"] = lambda: transforms.Slice(-1, slice(None, None, 2))(grid)
    cases["slice_none"] = lambda: transforms.Slice(None, 2)(grid)
    cases["slice_ellipsis"] = lambda: transforms.Slice(Ellipsis, [1, 3])(grid)
    cases["slice_empty"] = lambda: transforms.Slice()(grid)
    cases["unique"] = lambda: transforms.Unique()(np.array([[5, 1, 5], [3, 1, 7]]))
    cases["unique_f"] = lambda: transforms.Unique()(np.array([[2.5, -1.0], [2.5, 0.0]]))
    cases["unique_1d"] = lambda: transforms.Unique()(num)
    return cases


def vocab_cases(text, ds):
    """Vocab construction: each gives a dict {token: id}, or a list of ids/tokens."""
    def rows():
        for s in ["b a a", "c a b", "d d d d", "a e"]:
            yield (np.array(s.split()),)

    def data():
        return ds.GeneratorDataset(rows, ["text"], shuffle=False)

    here = os.path.dirname(os.path.abspath(__file__))
    vocab_file = os.path.join(here, "vocab.txt")
    vocab = text.Vocab.from_list(["x", "y", "z"], ["<pad>", "<unk>"], False)
    return {
        "from_list": lambda: text.Vocab.from_list(["a", "b", "c"]).vocab(),
        "from_list_special": lambda: text.Vocab.from_list(["a", "b"], ["<pad>", "<unk>"],
                                                          True).vocab(),
        "from_list_special_last": lambda: vocab.vocab(),
        "from_dict": lambda: text.Vocab.from_dict({"a": 3, "b": 7}).vocab(),
        "from_dataset": lambda: text.Vocab.from_dataset(data(), ["text"]).vocab(),
        "from_dataset_topk": lambda: text.Vocab.from_dataset(data(), ["text"],
                                                             top_k=2).vocab(),
        "from_dataset_freq": lambda: text.Vocab.from_dataset(data(), ["text"],
                                                             freq_range=(2, 3)).vocab(),
        "from_dataset_freq_open": lambda: text.Vocab.from_dataset(
            data(), None, freq_range=(None, 2), special_tokens=["<pad>"]).vocab(),
        "from_dataset_special": lambda: text.Vocab.from_dataset(
            data(), None, special_tokens=["<pad>", "a"], special_first=False).vocab(),
        "from_file": lambda: text.Vocab.from_file(vocab_file).vocab(),
        "from_file_delim": lambda: text.Vocab.from_file(vocab_file, ",", 3, ["<s>"],
                                                        True).vocab(),
        "tokens_to_ids": lambda: vocab.tokens_to_ids(["y", "nope", "<unk>"]),
        "tokens_to_ids_one": lambda: [vocab.tokens_to_ids("z")],
        "ids_to_tokens": lambda: vocab.ids_to_tokens([1, 4, 99]),
        "ids_to_tokens_one": lambda: [vocab.ids_to_tokens(0)],
    }


def dataset_cases(ds, root):
    """Datasets on the fixture files under `root`, read in order: name -> dataset."""
    j = lambda *p: os.path.join(root, *p)  # noqa: E731
    kw = {"shuffle": False, "num_parallel_workers": 1}
    cases = {
        "textfile": lambda: ds.TextFileDataset([j("textfile", "a.txt"), j("textfile", "b.txt")],
                                               **kw),
        "textfile_glob": lambda: ds.TextFileDataset(j("textfile", "*.txt"), **kw),
        "textfile_n": lambda: ds.TextFileDataset(j("textfile", "*.txt"), num_samples=3, **kw),
        "textfile_shard0": lambda: ds.TextFileDataset(j("textfile", "*.txt"), num_shards=2,
                                                      shard_id=0, **kw),
        "textfile_shard1": lambda: ds.TextFileDataset(j("textfile", "*.txt"), num_shards=2,
                                                      shard_id=1, **kw),
        "csv_header": lambda: ds.CSVDataset(j("data.csv"), **kw),
        "csv_defaults": lambda: ds.CSVDataset(j("data.csv"), column_defaults=[0, "", 0.0],
                                              column_names=["id", "name", "score"], **kw),
        "csv_delim": lambda: ds.CSVDataset(j("nohead.csv"), "|", ["x", "y"], ["p", "q"], **kw),
        "imdb_train": lambda: ds.IMDBDataset(j("imdb"), "train", **kw),
        "imdb_all": lambda: ds.IMDBDataset(j("imdb"), **kw),
        "clue_afqmc": lambda: ds.CLUEDataset(j("clue_afqmc_train.json"), "AFQMC", "train", **kw),
        "clue_afqmc_test": lambda: ds.CLUEDataset(j("clue_afqmc_test.json"), "AFQMC", "test",
                                                  **kw),
        "clue_tnews": lambda: ds.CLUEDataset(j("clue_tnews_train.json"), "TNEWS", "train", **kw),
        "clue_wsc": lambda: ds.CLUEDataset(j("clue_wsc_train.json"), "WSC", "eval", **kw),
        "clue_csl": lambda: ds.CLUEDataset(j("clue_csl_train.json"), "CSL", "train", **kw),
        "clue_iflytek": lambda: ds.CLUEDataset(j("clue_iflytek_train.json"), "IFLYTEK", "train",
                                               **kw),
        "clue_missing_key": lambda: ds.CLUEDataset(j("clue_afqmc_test.json"), "TNEWS", "test",
                                                   **kw),
        "csv_typed": lambda: ds.CSVDataset(j("typed.csv"), column_defaults=[0, "d", 0.0, "e"],
                                           column_names=["a", "b", "c", "d"], **kw),
        "ptb_train": lambda: ds.PennTreebankDataset(j("ptb"), "train", **kw),
        "ptb_all": lambda: ds.PennTreebankDataset(j("ptb"), "all", **kw),
        "wikitext_valid": lambda: ds.WikiTextDataset(j("wikitext"), "valid", **kw),
        "enwik9": lambda: ds.EnWik9Dataset(j("enwik9"), **kw),
        "multi30k_train": lambda: ds.Multi30kDataset(j("multi30k"), "train", **kw),
        "multi30k_de_en": lambda: ds.Multi30kDataset(j("multi30k"), "test", ["de", "en"], **kw),
        "multi30k_all": lambda: ds.Multi30kDataset(j("multi30k"), **kw),
        "udpos_all": lambda: ds.UDPOSDataset(j("udpos"), **kw),
        "sst2_dev": lambda: ds.SST2Dataset(j("sst2"), "dev", **kw),
        "wikitext_all": lambda: ds.WikiTextDataset(j("wikitext"), **kw),
        "sst2_train": lambda: ds.SST2Dataset(j("sst2"), "train", **kw),
        "sst2_test": lambda: ds.SST2Dataset(j("sst2"), "test", **kw),
        "udpos_train": lambda: ds.UDPOSDataset(j("udpos"), "train", **kw),
        "conll2000_test": lambda: ds.CoNLL2000Dataset(j("conll2000"), "test", **kw),
        "squad_train": lambda: ds.SQuADDataset(j("squad"), "train", **kw),
        "iwslt2016_train": lambda: ds.IWSLT2016Dataset(j("iwslt2016"), "train", **kw),
        "iwslt2016_valid": lambda: ds.IWSLT2016Dataset(j("iwslt2016"), "valid", **kw),
        "iwslt2016_all": lambda: ds.IWSLT2016Dataset(j("iwslt2016"), **kw),
        "iwslt2016_en_de": lambda: ds.IWSLT2016Dataset(j("iwslt2016"), "train", ["en", "de"],
                                                       **kw),
        "iwslt2017_test": lambda: ds.IWSLT2017Dataset(j("iwslt2017"), "test", **kw),
        "iwslt2017_all": lambda: ds.IWSLT2017Dataset(j("iwslt2017"), "all", ("de", "en"), **kw),
    }
    for name, cls in (("agnews", "AGNewsDataset"), ("amazon", "AmazonReviewDataset"),
                      ("dbpedia", "DBpediaDataset"), ("sogou", "SogouNewsDataset"),
                      ("yahoo", "YahooAnswersDataset"), ("yelp", "YelpReviewDataset")):
        for usage in ("train", "test", "all"):
            cases[f"{name}_{usage}"] = \
                lambda name=name, cls=cls, usage=usage: getattr(ds, cls)(j(name), usage, **kw)
    return cases


DATASET_NAMES = ["AGNewsDataset", "AmazonReviewDataset", "CLUEDataset", "CoNLL2000Dataset",
                 "CSVDataset", "DBpediaDataset", "EnWik9Dataset", "IMDBDataset",
                 "IWSLT2016Dataset", "IWSLT2017Dataset",
                 "Multi30kDataset", "PennTreebankDataset", "SQuADDataset", "SST2Dataset",
                 "SogouNewsDataset", "TextFileDataset", "UDPOSDataset", "WikiTextDataset",
                 "YahooAnswersDataset", "YelpReviewDataset"]
