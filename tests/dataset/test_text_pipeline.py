"""dataset.text inside pipelines and where no MindSpore fixture reaches: the transforms tutorial,
tokenizers in `map`, Vocab checks, SentencePiece training, JiebaTokenizer, text datasets'
shuffle modes, sharding, sampling and file errors."""
import os

import numpy as np
import pytest

import minispore as ms
from minispore import dataset as ds
from minispore.dataset import text

ROOT = os.path.join(os.path.dirname(__file__), "data", "text")


def _rows(data):
    return [[a.tolist() for a in row]
            for row in data.create_tuple_iterator(num_epochs=1, output_numpy=True)]


def test_transforms_tutorial_prints_what_mindspore_prints():
    data = ds.GeneratorDataset(["Welcome to Beijing"], "text")
    data = data.map(text.PythonTokenizer(lambda content: content.split()))
    assert _rows(data) == [[["Welcome", "to", "Beijing"]]]
    vocab = text.Vocab.from_dataset(data)
    assert vocab.vocab() == {"Beijing": 0, "Welcome": 1, "to": 2}
    ids = next(data.map(text.Lookup(vocab)).create_tuple_iterator())[0]
    assert ids.dtype == ms.int32 and ids.asnumpy().tolist() == [1, 2, 0]


def test_tokenizer_with_offsets_in_map_makes_three_columns():
    data = ds.GeneratorDataset(["a b", "你 c"], "text", shuffle=False)
    data = data.map(text.WhitespaceTokenizer(True), input_columns="text",
                    output_columns=["token", "start", "end"])
    assert data.get_col_names() == ["token", "start", "end"]
    assert _rows(data) == [[["a", "b"], [0, 2], [1, 3]], [["你", "c"], [0, 4], [3, 5]]]


def test_bert_pipeline_with_padding_and_lookup():
    vocab = text.Vocab.from_list(["[PAD]", "[UNK]", "[CLS]", "[SEP]", "hello", "world", "##s"])
    data = ds.GeneratorDataset(["Hello worlds", "hello there"], "text", shuffle=False)
    data = data.map([text.BertTokenizer(vocab, lower_case=True), text.AddToken("[CLS]"),
                     text.AddToken("[SEP]", begin=False), text.Lookup(vocab, "[UNK]"),
                     ds.transforms.PadEnd([6], 0)])
    assert _rows(data) == [[[2, 4, 5, 6, 3, 0]], [[2, 4, 1, 3, 0, 0]]]


def test_str_bytes_inputs_and_errors():
    assert text.WhitespaceTokenizer()(b"x y").tolist() == ["x", "y"]
    assert text.CaseFold()(np.array([b"AB"])).tolist() == ["ab"]
    with pytest.raises(RuntimeError, match="one string"):
        text.WhitespaceTokenizer()(np.array(["a", "b"]))
    with pytest.raises(RuntimeError, match="must be strings"):
        text.Ngram(2)(np.array([1, 2]))
    with pytest.raises(TypeError, match="with_offsets"):
        text.UnicodeCharTokenizer(with_offsets=1)
    with pytest.raises(ValueError, match="not a valid regex"):
        text.RegexTokenizer("(")
    with pytest.raises(TypeError, match="data_type"):
        text.ToNumber(ms.bool_)
    with pytest.raises(TypeError, match="data_type"):
        text.Lookup(text.Vocab.from_list(["a"]), data_type=ms.string)
    with pytest.raises(ValueError, match="unknown_token"):
        text.Lookup(text.Vocab.from_list(["a"]), "<unk>")
    with pytest.raises(TypeError, match="normalize_form"):
        text.NormalizeUTF8("NFC")
    with pytest.raises(ValueError, match="width"):
        text.SlidingWindow(0)
    with pytest.raises(RuntimeError, match="two inputs"):
        text.TruncateSequencePair(3)(np.array([1]), np.array([2]), np.array([3]))


def test_regex_icu_syntax():
    pytest.importorskip("regex")
    assert text.RegexTokenizer(r"\p{P}")("a.b!c").tolist() == ["a", "b", "c"]
    assert text.RegexReplace(r"(\w+)@(\w+)", r"${2}_$1 \$")("ab@cd").tolist() == "cd_ab $"


def test_vocab_checks():
    with pytest.raises(ValueError, match="duplicate"):
        text.Vocab.from_list(["a", "a"])
    with pytest.raises(ValueError, match="share"):
        text.Vocab.from_list(["a", "b"], ["a"])
    with pytest.raises(ValueError, match="word_dict"):
        text.Vocab.from_dict({"a": -1})
    with pytest.raises(RuntimeError, match="not been built"):
        text.Vocab().vocab()
    with pytest.raises(ValueError, match="does not exist"):
        text.Vocab.from_file(os.path.join(ROOT, "no_such_vocab.txt"))
    with pytest.raises(ValueError, match="freq_range"):
        text.Vocab.from_dataset(ds.GeneratorDataset(["a"], "t"), freq_range=(3, 1))
    vocab = text.Vocab.from_list(["a", "b"])
    assert vocab.tokens_to_ids(np.array(["b", "a"])) == [1, 0]
    assert vocab.ids_to_tokens(np.array([1])) == ["b"]
    with pytest.raises(ValueError, match="non-negative"):
        vocab.ids_to_tokens([-1])


def test_to_str_to_bytes_round_trip():
    words = np.array(["déjà", "vu", ""])
    assert text.to_str(text.to_bytes(words)).tolist() == words.tolist()
    with pytest.raises(TypeError, match="bytes"):
        text.to_str(words)
    with pytest.raises(TypeError, match="str"):
        text.to_bytes(text.to_bytes(words))


def test_sentencepiece_train_save_load_and_tokenize(tmp_path):
    pytest.importorskip("sentencepiece")
    corpus = os.path.join(ROOT, "sp_corpus.txt")
    params = {"normalization_rule_name": "identity"}
    for model in (text.SentencePieceModel.UNIGRAM, text.SentencePieceModel.CHAR,
                  text.SentencePieceModel.BPE):
        vocab = text.SentencePieceVocab.from_file([corpus], 40, 1.0, model, params)
        pieces = text.SentencePieceTokenizer(vocab, text.SPieceTokenizerOutType.STRING)(
            "the lazy fox")
        assert "".join(pieces.tolist()).replace("\u2581", " ").strip() == "the lazy fox"
        ids = text.SentencePieceTokenizer(vocab, text.SPieceTokenizerOutType.INT)("the lazy fox")
        assert ids.dtype == np.int32 and len(ids) == len(pieces) and ids.max() < 40
    text.SentencePieceVocab.save_model(vocab, str(tmp_path), "m.model")
    again = text.SentencePieceTokenizer(str(tmp_path / "m.model"),
                                        text.SPieceTokenizerOutType.STRING)("the lazy fox")
    assert again.tolist() == pieces.tolist()
    lines = ds.TextFileDataset(corpus, shuffle=False)
    from_ds = text.SentencePieceVocab.from_dataset(lines, ["text"], 40, 1.0,
                                                   text.SentencePieceModel.BPE, params)
    tok = text.SentencePieceTokenizer(from_ds, text.SPieceTokenizerOutType.STRING)
    assert tok("the lazy fox").tolist() == pieces.tolist()
    with pytest.raises(RuntimeError, match="character_coverage"):
        text.SentencePieceVocab.from_file([corpus], 40, 0.5, model, params)
    with pytest.raises(RuntimeError):
        text.SentencePieceVocab.from_file([corpus], 5000, 1.0, text.SentencePieceModel.WORD, {})


def test_jieba_tokenizer(tmp_path):
    hmm, mp = os.path.join(ROOT, "hmm_model.utf8"), os.path.join(ROOT, "jieba.dict.utf8")
    tok = text.JiebaTokenizer(hmm, mp, text.JiebaMode.MP)
    assert tok("我来到北京清华大学").tolist() == ["我", "来到", "北京", "清华大学"]
    tok.add_word("来到北京", 100000)
    assert tok("我来到北京清华大学").tolist() == ["我", "来到北京", "清华大学"]
    words, start, end = text.JiebaTokenizer(hmm, mp, with_offsets=True)("北京，大学")
    assert words.tolist() == ["北京", "，", "大学"] and start.tolist() == [0, 6, 9] and \
        end.tolist() == [6, 9, 15]
    data = ds.GeneratorDataset(["今天天气不错", "我爱Python"], "text", shuffle=False)
    assert _rows(data.map(text.JiebaTokenizer(hmm, mp))) == [[["今天", "天气", "不错"]],
                                                            [["我", "爱", "Python"]]]
    user = tmp_path / "user.txt"
    user.write_text("天气不错 9\n", encoding="utf-8")
    tok = text.JiebaTokenizer(hmm, mp, text.JiebaMode.MP)
    tok.add_dict(str(user))
    assert tok("今天天气不错").tolist() == ["今天", "天气不错"]
    with pytest.raises(ValueError, match="hmm_path"):
        text.JiebaTokenizer(str(tmp_path / "none"), mp)
    with pytest.raises(ValueError, match="9 data lines"):
        text.JiebaTokenizer(str(user), mp)
    with pytest.raises(ValueError, match="word freq tag"):
        text.JiebaTokenizer(hmm, str(user))
    with pytest.raises(TypeError, match="mode"):
        text.JiebaTokenizer(hmm, mp, "MP")


def test_text_dataset_shuffle_modes_are_seeded_and_cover_every_row():
    files = [os.path.join(ROOT, "textfile", "a.txt"), os.path.join(ROOT, "textfile", "b.txt")]
    plain = _rows(ds.TextFileDataset(files, shuffle=False))
    ds.config.set_seed(7)
    for mode in (True, ds.Shuffle.GLOBAL, ds.Shuffle.FILES, ds.Shuffle.INFILE):
        it = ds.TextFileDataset(files, shuffle=mode).create_tuple_iterator(num_epochs=8,
                                                                          output_numpy=True)
        epochs = [[[a.tolist() for a in row] for row in it] for _ in range(8)]
        for rows in epochs:
            assert sorted(map(str, rows)) == sorted(map(str, plain))
        assert any(rows != plain for rows in epochs), mode
        if mode is ds.Shuffle.FILES:  # each file's lines stay together, in order
            for rows in epochs:
                assert rows in (plain, plain[3:] + plain[:3])
        if mode is ds.Shuffle.INFILE:  # the files keep their order
            for rows in epochs:
                assert sorted(map(str, rows[:3])) == sorted(map(str, plain[:3]))
    ds.config.set_seed(7)
    first = _rows(ds.TextFileDataset(files))
    ds.config.set_seed(7)
    assert _rows(ds.TextFileDataset(files)) == first


def test_text_dataset_shards_partition_rows_and_samples_limit():
    pattern = os.path.join(ROOT, "textfile", "*.txt")
    shards = [_rows(ds.TextFileDataset(pattern, shuffle=False, num_shards=2, shard_id=k))
              for k in range(2)]
    assert len(shards[0]) == len(shards[1]) == 3
    assert ds.TextFileDataset(pattern, num_samples=2).get_dataset_size() == 2
    with pytest.raises(ValueError, match="shard_id"):
        ds.TextFileDataset(pattern, num_shards=2, shard_id=2)
    with pytest.raises(TypeError, match="shuffle"):
        ds.TextFileDataset(pattern, shuffle="global")


def test_text_dataset_file_errors(tmp_path):
    with pytest.raises(ValueError, match="does not exist"):
        ds.TextFileDataset(str(tmp_path / "missing.txt"))
    with pytest.raises(ValueError, match="no file matches"):
        ds.TextFileDataset(str(tmp_path / "*.txt"))
    with pytest.raises(ValueError, match="usage"):
        ds.AGNewsDataset(os.path.join(ROOT, "agnews"), "valid")
    with pytest.raises(ValueError, match="does not exist"):
        ds.AGNewsDataset(str(tmp_path))
    bad = tmp_path / "bad.txt"
    bad.write_bytes(b"\xff\xfe ok\n")
    with pytest.raises(ValueError, match="not UTF-8"):
        _rows(ds.TextFileDataset(str(bad)))
    ragged = tmp_path / "ragged.csv"
    ragged.write_text("a,b\n1,2\n3\n")
    with pytest.raises(ValueError, match="line 3"):
        _rows(ds.CSVDataset(str(ragged), shuffle=False))
    typed = tmp_path / "typed.csv"
    typed.write_text("x,\n")
    with pytest.raises(ValueError, match="not an int"):
        _rows(ds.CSVDataset(str(typed), column_defaults=[1, 2], column_names=["a", "b"]))
    clue = tmp_path / "clue.json"
    clue.write_text('{"sentence1": "a"}\n')
    with pytest.raises(ValueError, match="no key 'label'"):
        _rows(ds.CLUEDataset(str(clue)))
    clue.write_text("not json\n")
    with pytest.raises(ValueError, match="not JSON"):
        _rows(ds.CLUEDataset(str(clue)))


def test_csv_empty_numeric_field_takes_its_default(tmp_path):
    path = tmp_path / "d.csv"
    path.write_text("1,,x\n,2.5,\n")
    data = ds.CSVDataset(str(path), column_defaults=[7, 0.5, "s"], column_names=["a", "b", "c"],
                         shuffle=False)
    rows = list(data.create_tuple_iterator(num_epochs=1, output_numpy=True))
    assert [r[0].dtype for r in rows] == [np.int32, np.int32]
    assert [r[1].dtype for r in rows] == [np.float32, np.float32]
    assert [[a.tolist() for a in r] for r in rows] == [[1, 0.5, "x"], [7, 2.5, ""]]


def test_text_dataset_in_a_training_style_pipeline():
    vocab = text.Vocab.from_dataset(
        ds.AGNewsDataset(os.path.join(ROOT, "agnews"), shuffle=False).map(
            text.WhitespaceTokenizer(), "title"), ["title"], special_tokens=["<pad>", "<unk>"])
    data = ds.AGNewsDataset(os.path.join(ROOT, "agnews"), "train", shuffle=False)
    data = data.map([text.WhitespaceTokenizer(), text.Lookup(vocab, "<unk>"),
                     ds.transforms.PadEnd([4], 0)], "title")
    data = data.map(text.ToNumber(ms.int32), "index").project(["title", "index"]).batch(2)
    titles, labels = next(data.create_tuple_iterator(num_epochs=1, output_numpy=True))
    assert titles.shape == (2, 4) and titles.dtype == np.int32
    assert labels.tolist() == [3, 4]


def test_where_minispore_fixes_mindspore():
    # MindSpore 2.10 cleans only the first string and deletes 'R'
    out = text.FilterWikipediaXML()(np.array(["Rome 1", "Cd [[a|b]]"]))
    assert out.tolist() == ["rome one", "cd a b"]
    # MindSpore 2.10 repeats the tokens here
    vocab = text.Vocab.from_list(["[UNK]", "[CLS]", "hello"])
    assert text.BasicTokenizer(lower_case=True)("[CLS] Hello [UNK]").tolist() == \
        ["[CLS]", "hello", "[UNK]"]
    tokens, start, end = text.BertTokenizer(vocab, lower_case=True, with_offsets=True)("Hi hello")
    assert tokens.tolist() == ["[UNK]", "hello"] and start.tolist() == [0, 3] and \
        end.tolist() == [2, 8]
    # MindSpore 2.10 pads ragged token lists with copies
    with pytest.raises(RuntimeError, match="one string"):
        text.PythonTokenizer(str.split)(np.array(["a b", "c"]))


def test_csv_header_of_every_file_is_skipped(tmp_path):
    for name, row in (("f1.csv", "1,2"), ("f2.csv", "3,4")):
        (tmp_path / name).write_text(f"a,b\n{row}\n")
    data = ds.CSVDataset([str(tmp_path / "f1.csv"), str(tmp_path / "f2.csv")], shuffle=False)
    assert data.get_col_names() == ["a", "b"]
    assert _rows(data) == [["1", "2"], ["3", "4"]]  # as MindSpore 2.10 reads them
