"""index_tokens' own cut_for_search gives exactly jieba's words (filtered, lower-cased), on any text."""
import random

import jieba
import pytest

from pipeline import tokenize
from pipeline.tokenize import LazyFreq, _SearchCutter
from tests.conftest import EXAMPLES

TEXTS = ["劳动合同期限三个月以上不满一年的，试用期不得超过一个月", "职工累计工作已满10年不满20年的，年休假10天",
         "用人单位违反规定不办理住房公积金缴存登记，逾期不办理的，处1万元以上5万元以下的罚款",
         "ABC公司 v2.0 手册", "", "  \r\n\t", "第三章 劳动合同的履行和变更 第二十九条", "GB/T 19001-2016 标准",
         "甲方（以下简称“甲方”）与乙方签订本协议；③ 违约金为合同金额的20%。", "İstanbul ǅemal ß ΣΑΣ café_x",
         "１２３ＡＢＣ全角字符", "#&._%-+ 第-1条", "暨南大学的韩梅梅在北京市海淀区"]


def _jieba_words(tok, text):
    return [w.lower() for w in tok.cut_for_search(text) if tokenize.is_word(w)]


def _fuzz(n, seed=7):
    rnd = random.Random(seed)
    alphabet = (list("的一是了不人在有这个上来到时大为中说生国年就和要出得以所第条款项章节法律规定劳动合同用人单位缴存")
                + list("abcXYZ019+#&._%-，。；：、（）() \t\n\r\u3000①Ⅱ％＋ßİΣǅ_é")
                + [chr(rnd.randint(0x4E00, 0x9FD5)) for _ in range(300)])
    return ["".join(rnd.choice(alphabet) for _ in range(rnd.randint(0, 60))) for _ in range(n)]


@pytest.fixture(scope="module")
def plain():
    tok = jieba.Tokenizer()
    tok.initialize()
    return tok


def test_shared_index_tokens_equal_jiebas_on_examples_and_random_text():
    texts = TEXTS + _fuzz(3000)
    for f in sorted(EXAMPLES.glob("*.md")):
        texts += f.read_text(encoding="utf-8").split("\n")
    for t in texts:
        assert tokenize.index_tokens(t) == tokenize.jieba_index_tokens(t), t
    assert tokenize.index_tokens(TEXTS[0]) == "劳动 合同 劳动合同 期限 三个 月 以上 不满 一年 的 试用 试用期 不得 超过 不得超过 一个 一个月"


def test_cutter_on_a_lazy_dictionary_with_user_words_equals_jieba(plain):
    lazy = jieba.Tokenizer()
    lazy.FREQ, lazy.total, lazy.initialized = LazyFreq.build(dict(plain.FREQ)), plain.total, True
    ref = jieba.Tokenizer()
    ref.FREQ, ref.total, ref.initialized = dict(plain.FREQ), plain.total, True
    for tok in (lazy, ref):
        tok.add_word("缴存登记", 50000)
        tok.add_word("三个月以上不满一年")  # a long user word, frequency suggested by jieba
    cutter = _SearchCutter(lazy)
    assert len(dict.keys(lazy.FREQ)) < len(plain.FREQ)  # nothing loaded beyond the user words' characters
    for t in TEXTS + _fuzz(2000, seed=11):
        assert cutter.tokens(t) == _jieba_words(ref, t), t
        assert cutter.tokens(t) == _jieba_words(ref, t)  # again, from the cache of runs
    assert "缴存登记" in cutter.tokens(TEXTS[2]) and "三个月以上不满一年" in cutter.tokens(TEXTS[0])
    assert 0 < len(cutter.cache) and all(isinstance(v, list) for v in cutter.cache.values())


def test_cutter_cache_is_bounded(monkeypatch, plain):
    monkeypatch.setattr(tokenize, "SEARCH_CACHE_SIZE", 5)
    cutter = _SearchCutter(plain)
    texts = _fuzz(200, seed=3)
    for t in texts:
        assert cutter.tokens(t) == _jieba_words(plain, t)
    assert len(cutter.cache) <= 5


def test_new_dictionaries_get_a_new_cutter(tmp_path):
    (tmp_path / "words.txt").write_text("试用期不得超过一个月 100000000\n", encoding="utf-8")
    before = tokenize.index_tokens(TEXTS[0])
    old = tokenize.get_tokenizer()
    try:
        tokenize.configure([tmp_path / "words.txt"])
        assert tokenize.get_tokenizer() is not old
        got = tokenize.index_tokens(TEXTS[0])
        assert got == tokenize.jieba_index_tokens(TEXTS[0]) and "试用期不得超过一个月" in got.split() and got != before
    finally:
        tokenize.configure(*tokenize._default_files())
    assert tokenize.index_tokens(TEXTS[0]) == before


def test_a_plain_dictionary_swapped_in_gets_a_new_cutter():
    tokenize.index_tokens(TEXTS[1])
    first = tokenize._cutter
    tokenize.full_dictionary()
    assert tokenize.index_tokens(TEXTS[1]) == tokenize.jieba_index_tokens(TEXTS[1])
    assert tokenize._cutter is not first and tokenize._cutter.freq is tokenize.get_tokenizer().FREQ
    assert not tokenize._cutter.lazy


def test_the_jieba_rs_mirror_gives_jiebas_words_on_examples_and_random_text():
    pytest.importorskip("rjieba")  # a core dependency on Linux x86-64; elsewhere index tokens stay in Python
    tok = tokenize.get_tokenizer()
    mirror = tokenize.rust_mirror(tok)
    assert mirror is not None
    # 相结合 (frequency 3) against 相 + 结合: a near tie that only the same total breaks as jieba does
    assert mirror.cut_for_search("坚持处罚与教育相结合", True) == ["坚持", "处罚", "与", "教育", "结合", "相结合"]
    texts = TEXTS + _fuzz(3000, seed=3)
    for f in sorted(EXAMPLES.glob("*.md")):
        texts += f.read_text(encoding="utf-8").split("\n")
    python, rust = _SearchCutter(tok), _SearchCutter(tok)
    rust.rust = mirror
    for t in texts:
        assert rust.tokens(t) == python.tokens(t), t
    assert rust.tokens("用人单位应当与劳动者订立书面劳动合同") == python.tokens("用人单位应当与劳动者订立书面劳动合同")


def test_a_cutter_switches_to_the_mirror_after_its_budget_of_characters(monkeypatch):
    pytest.importorskip("rjieba")
    monkeypatch.setattr(tokenize, "RUST_AFTER_CHARS", 40)
    tok = tokenize.get_tokenizer()
    cutter = _SearchCutter(tok)
    assert cutter.rust is None
    cutter.tokens("劳动合同期限三个月以上不满一年的")  # 16 characters of runs
    assert cutter.rust is None and cutter.rust_after == 24
    cutter.tokens("职工累计工作已满十年不满二十年的年休假十日，国家法定休假日不计入年休假的假期")
    assert cutter.rust is not None
    assert cutter.tokens("用人单位违反规定不办理住房公积金缴存登记") == \
        tokenize.jieba_index_tokens("用人单位违反规定不办理住房公积金缴存登记").split()


def test_no_mirror_when_the_totals_cannot_agree(monkeypatch):
    pytest.importorskip("rjieba")
    tok = tokenize.get_tokenizer()

    class Smaller:  # a tokenizer whose total is below its words' sum: jieba-rs cannot divide by the same total
        FREQ, dictionary, total = tok.FREQ, tok.dictionary, 1000
    assert tokenize.rust_mirror(Smaller()) is None
