"""The shortcuts that make ingest faster give exactly what the long way gives (issue #17)."""
import jieba
import pytest

from pipeline import tokenize
from pipeline.tokenize import LazyFreq, _SearchCutter


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
