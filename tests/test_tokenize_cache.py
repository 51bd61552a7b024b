"""jieba's dictionary from the start-up cache: the same segmentation as jieba's own, lazily filled."""
import jieba
import pytest

from pipeline import cache, tokenize
from pipeline.tokenize import LazyFreq

TEXTS = ["劳动合同期限三个月以上不满一年的，试用期不得超过一个月", "职工累计工作已满10年不满20年的，年休假10天",
         "用人单位违反规定不办理住房公积金缴存登记，逾期不办理的，处1万元以上5万元以下的罚款", "ABC公司 v2.0 手册"]


@pytest.fixture(scope="module")
def plain():
    tok = jieba.Tokenizer()
    tok.initialize()
    return tok


def test_lazy_dictionary_holds_exactly_jiebas_entries(plain):
    lazy = LazyFreq.build(dict(plain.FREQ))
    assert len(dict.keys(lazy)) == 0  # nothing loaded yet
    assert lazy.get("试用期") == plain.FREQ["试用期"] and "试用" in lazy and lazy["劳动合同"] == plain.FREQ["劳动合同"]
    assert 0 < len(dict.keys(lazy)) < len(plain.FREQ)  # only the looked-up first characters
    assert lazy.get("不存在的词条xyz") is None and "不存在的词条xyz" not in lazy
    restored = LazyFreq.restore(lazy.state())
    assert restored.full() == plain.FREQ


def test_lazy_tokenizer_segments_like_jieba_and_user_words_apply(plain):
    tok = jieba.Tokenizer()
    tok.FREQ, tok.total, tok.initialized = LazyFreq.build(dict(plain.FREQ)), plain.total, True
    for t in TEXTS:
        assert tok.lcut(t) == plain.lcut(t) and tok.lcut_for_search(t) == plain.lcut_for_search(t)
    tok.add_word("缴存登记", 50000)
    assert "缴存登记" in tok.lcut(TEXTS[2])
    assert tok.FREQ["缴存登记"] == 50000 and tok.FREQ["缴存"] == plain.FREQ["缴存"]


def test_cache_round_trip_and_off_switch(tmp_path, monkeypatch):
    monkeypatch.setenv("LOOPAGENT_CACHE_DIR", str(tmp_path))
    cache.save("thing", "k1", ({"a": 1}, b"\x00\x01", "文本"))
    assert cache.load("thing", "k1") == ({"a": 1}, b"\x00\x01", "文本")
    cache.save("thing", "k2", (1,))
    assert cache.load("thing", "k1") is None and [p.name for p in tmp_path.iterdir()] == ["thing-k2.marshal"]
    (tmp_path / "thing-k2.marshal").write_bytes(b"garbage")
    assert cache.load("thing", "k2") is None  # unreadable: rebuilt, never an error
    monkeypatch.setenv("LOOPAGENT_CACHE_DIR", "off")
    assert cache.cache_dir() is None and cache.load("thing", "k2") is None
    cache.save("thing", "k3", (1,))
    assert not (tmp_path / "thing-k3.marshal").exists()


def test_shared_tokenizer_becomes_a_plain_dict_for_bulk_work():
    tok = tokenize.get_tokenizer()
    before = [tokenize.cut(t) for t in TEXTS]
    tokenize.full_dictionary()
    assert type(tok.FREQ) is dict
    tokenize._cut_cached.cache_clear()
    assert [tokenize.cut(t) for t in TEXTS] == before
