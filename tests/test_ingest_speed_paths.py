"""The shortcuts that make ingest faster give exactly what the long way gives (issue #17)."""
from math import log

import jieba
import pytest

from pipeline import tokenize
from pipeline.store import document_tokens
from pipeline.tokenize import LazyFreq, _SearchCutter
from pipeline.types import Block, Document
from tests.conftest import LABOUR_CONTRACT


@pytest.fixture(scope="module")
def plain():
    tok = jieba.Tokenizer()
    tok.initialize()
    return tok


def _jieba_words(tok, text):
    return [w.lower() for w in tok.cut_for_search(text) if tokenize.is_word(w)]


def test_unknown_runs_go_through_the_hmm_once_and_give_jiebas_words(plain):
    cutter = _SearchCutter(plain)
    first = cutter.tokens("暨南大学的韩梅梅在北京市海淀区")
    assert first == _jieba_words(plain, "暨南大学的韩梅梅在北京市海淀区") == \
        ["暨南", "南大", "大学", "暨南大学", "的", "韩梅梅", "在", "北京", "京市", "北京市", "海淀", "淀区", "海淀区"]
    assert cutter.hmm == {"的韩梅梅在": ["的", "韩梅梅", "在"]}
    # another run holding the same unknown characters: the memo answers, the words are still jieba's
    text = "问：暨南大学的韩梅梅在北京市海淀区吗"
    assert cutter.tokens(text) == _jieba_words(plain, text) and cutter.hmm == {"的韩梅梅在": ["的", "韩梅梅", "在"]}
    assert cutter.tokens("韩梅梅和李雷雷签订合同") == ["韩梅梅", "和", "李雷雷", "签订", "合同", "订合同", "签订合同"]
    assert cutter.hmm == {"的韩梅梅在": ["的", "韩梅梅", "在"], "韩梅梅和": ["韩梅梅", "和"]}


def test_capitals_and_symbols_are_still_lowered_and_dropped(plain):
    cutter = _SearchCutter(plain)
    for text, want in [("ABC公司 v2.0 手册", ["abc", "公司", "v2.0", "手册"]),
                       ("GB/T 19001-2016 标准", ["gb", "t", "19001", "2016", "标准"]),
                       ("#&._%-+ 第-1条", ["#&._%-+", "第", "1", "条"]),
                       ("劳动合同期限", ["劳动", "合同", "劳动合同", "期限"])]:
        assert cutter.tokens(text) == _jieba_words(plain, text) == want, text


def test_each_character_is_looked_up_once_with_jiebas_log_frequency(plain):
    cutter = _SearchCutter(plain)
    assert cutter.tokens("试用期龡") == _jieba_words(plain, "试用期龡") == ["试用", "试用期", "龡"]
    logtotal = log(plain.total)
    assert cutter.chars == {"试": (3723, log(3723) - logtotal), "用": (76586, log(76586) - logtotal),
                            "期": (6681, log(6681) - logtotal), "龡": (None, 0.0)}  # 龡: in no word of the dictionary
    assert cutter.tokens("期用试") == _jieba_words(plain, "期用试") and len(cutter.chars) == 4


def test_a_lazy_dictionary_loads_exactly_the_first_characters_of_a_run(plain):
    lazy = jieba.Tokenizer()
    lazy.FREQ, lazy.total, lazy.initialized = LazyFreq.build(dict(plain.FREQ)), plain.total, True
    cutter = _SearchCutter(lazy)
    waiting = set(lazy.FREQ._index)
    assert cutter.tokens("试用期") == ["试用", "试用期"]
    assert waiting - set(lazy.FREQ._index) == {"试", "用", "期"}
    loaded = len(dict.keys(lazy.FREQ))
    assert cutter.tokens("用期试") == _jieba_words(plain, "用期试")  # nothing new to load
    assert len(dict.keys(lazy.FREQ)) == loaded


def test_document_tokens_segment_each_section_path_once_with_the_same_result(monkeypatch):
    sec = ["第三章 劳动合同的履行和变更", "第二十九条"]
    doc = Document(doc_id="d", title="劳动合同法", source="劳动合同法.md", kind="markdown", content_hash="h")
    doc.blocks = [Block(block_id=f"b{i}", doc_id="d", type="clause", text=t, order=i, section=list(s))
                  for i, (t, s) in enumerate([("用人单位应当履行劳动合同约定的义务。", sec),
                                              ("劳动者应当完成劳动任务。", sec),
                                              ("本法自2008年1月1日起施行。", ["第八章 附则"])])]
    calls = []
    real = tokenize.index_tokens
    monkeypatch.setattr("pipeline.store.index_tokens", lambda t: calls.append(t) or real(t))
    title, blocks = document_tokens(doc)
    assert title == "劳动 合同 劳动合同 法"
    assert [s for _, s in blocks] == ["第三 三章 第三章 劳动 合同 劳动合同 的 履行 和 变更 第二 二十 十九 九条 第二十 二十九 "
                                      "第二十九条"] * 2 + ["第八 八章 第八章 附则"]
    assert [t for t, _ in blocks] == [real(b.text) for b in doc.blocks]
    assert calls.count(" ".join(sec)) == 1 and len(calls) == 6  # title, 3 texts, 2 distinct paths


def test_document_tokens_of_a_real_statute_equal_token_by_token():
    from pipeline.ingest import parse_file

    doc = parse_file(LABOUR_CONTRACT).document
    title, blocks = document_tokens(doc)
    assert title == tokenize.jieba_index_tokens(doc.title)
    assert len(blocks) == len(doc.blocks) > 100
    for b, (text, section) in zip(doc.blocks, blocks):
        assert (text, section) == (tokenize.jieba_index_tokens(b.text), tokenize.jieba_index_tokens(" ".join(b.section)))


# --- the transaction per document: a crash in one write leaves the others and nothing of it --------------------

def test_a_document_whose_write_crashes_mid_batch_is_rolled_back_and_the_batch_goes_on(tmp_path, monkeypatch):
    import sqlite3

    from pipeline import KnowledgeBase
    from pipeline.store import Store
    from tests.conftest import EXAMPLES

    kb = KnowledgeBase(tmp_path / "kb.sqlite", audit_log=None)
    put = Store.put_document
    calls = []

    def third_crashes(self, doc, *a, **k):
        calls.append(doc.source)
        return put(self, doc, *a, _fail_after=5, **k) if len(calls) == 3 else put(self, doc, *a, **k)

    monkeypatch.setattr(Store, "put_document", third_crashes)
    rep = kb.ingest([EXAMPLES])
    assert (rep.added, rep.failed) == (5, 1) and "simulated crash during ingest" in rep.lines[-1]
    assert sorted(d["source"] for d in kb.documents()) == sorted(calls[:2] + calls[3:])
    c = sqlite3.connect(tmp_path / "kb.sqlite")
    n_blocks = c.execute("SELECT count(*) FROM blocks").fetchone()[0]
    assert n_blocks == c.execute("SELECT count(*) FROM blocks_fts").fetchone()[0] == \
        c.execute("SELECT sum(n_blocks) FROM documents").fetchone()[0] == rep.blocks
