"""Long text stays linear (issue 14): long runs are cut into bounded sentence windows, the stage-2 POS
window is a bisect, numeral runs cannot make the range patterns backtrack."""
import random

from pipeline import KnowledgeBase
from pipeline.extract import range_conditions
from pipeline.numbers import mask_long_numerals
from pipeline.syntax.stage import _pos_window
from pipeline.text import MAX_SENTENCE_CHARS, split_sentences

UNIT = "职工连续工作满十二个月以上的享受带薪年休假，单位应当安排职工休年休假，"


def test_long_run_is_cut_into_bounded_windows():
    text = UNIT * 400  # 14,000 characters without a sentence end
    sents = split_sentences(text)
    assert max(len(s.text) for s in sents) <= MAX_SENTENCE_CHARS
    assert all(text[s.start:s.end] == s.text for s in sents)
    assert "".join(s.text for s in sents) == text
    assert all(s.text.endswith("，") for s in sents[:-1])  # cut after a comma, not inside a word


def test_run_without_any_break_is_cut_hard():
    sents = split_sentences("年" * 1200)
    assert [len(s.text) for s in sents] == [500, 500, 200]


def test_short_sentences_unchanged():
    assert [s.text for s in split_sentences("第一条 甲。乙；丙")] == ["第一条 甲。", "乙；", "丙"]


def test_numeral_runs_are_masked_with_offsets_kept():
    assert mask_long_numerals("9" * 20 + "年满3年") == "#" * 20 + "年满3年"
    assert mask_long_numerals("1234567890123456年") == "1234567890123456年"  # 16 digits stay
    assert range_conditions("9" * 5000 + "年") == []
    assert range_conditions("9" * 5000 + "，满10年不满20年的")[0][:3] == ("days", 3650.0, 7300.0)


def _pos_window_reference(text, hits, qtype, radius=16):
    """The former quadratic definition, kept to show the bisect version returns the same value."""
    from pipeline.syntax.stage import _QUANTITY_TYPES, _posseg
    lo = max(0, min(h[0] for h in hits) - radius) if hits else 0
    hi = min(len(text), max(h[1] for h in hits) + radius) if hits else len(text)
    want = ("m", "t", "mq") if qtype in _QUANTITY_TYPES else ("v", "vn")
    pos = found = 0
    for w, flag in _posseg(text[lo:hi]):
        start = lo + pos
        pos += len(w)
        if flag in want and any(abs(start - h[0]) <= radius or abs(start - h[1]) <= radius for h in hits):
            found += 1
    return min(1.0, found / 2)


def test_pos_window_matches_the_reference():
    rng = random.Random(14)
    text = UNIT * 6
    for _ in range(40):
        hits = sorted((i, i + 2, "t") for i in rng.sample(range(len(text) - 2), rng.randint(1, 6)))
        for qtype in ("duration", "who"):
            assert _pos_window(text, hits, qtype) == _pos_window_reference(text, hits, qtype)


def test_question_reaching_a_long_paragraph_is_answered(tmp_path):
    doc = tmp_path / "long.md"
    doc.write_text("第一条 " + UNIT * 3000 + "\n\n第二条 职工累计工作已满1年不满10年的，年休假5天。\n", encoding="utf-8")
    kb = KnowledgeBase(tmp_path / "kb.sqlite", audit_log=None)
    assert kb.ingest([doc]).failed == 0
    ans = kb.ask("职工累计工作已满1年不满10年的，年休假几天？")
    assert ans.value == {"kind": "duration", "number": 5, "unit": "日"}
