"""Stage 1's longest shared run: the fast form finds what the plain regex-per-substring form finds."""
import re

import pytest

from pipeline.prefilter import _longest_shared


def _reference(question: str, text: str) -> str:
    best = ""
    n = len(question)
    for i in range(n):
        j = i + len(best) + 1
        while j <= n and re.fullmatch(r"[\w\u4e00-\u9fff]+", question[i:j]) and question[i:j] in text:
            best = question[i:j]
            j += 1
    return best


@pytest.mark.parametrize("question,text,expected", [
    ("劳动合同期限三个月以上不满一年的，试用期最长多久？", "劳动合同期限三个月以上不满一年的，试用期不得超过一个月", "劳动合同期限三个月以上不满一年的"),
    ("处分分为哪几种？", "行政机关公务员处分的种类为：警告、记过；处分分为六种", "处分分为"),
    ("第3条 ABC_x 是什么", "见 ABC_x 与第3条", "ABC_x"),
    ("？？", "？？", ""),
    ("", "任何文字", ""),
])
def test_longest_shared_run(question, text, expected):
    assert _longest_shared(question, text) == _reference(question, text) == expected


@pytest.mark.parametrize("question,text", [
    ("劳动合同期限三个月以上不满一年的，试用期最长多久？", "劳动合同期限三个月以上不满一年的，试用期不得超过一个月"),
    ("处分分为哪几种？", "行政机关公务员处分的种类为：警告、记过；处分分为六种"),
    ("处分分为哪几种？", "处分的种类"),
    ("第3条 ABC_x 是什么", "见 ABC_x 与第3条"),
    ("a.b*c+d??", "a.b*c+d"),
    ("", "任何文字"),
])
def test_longest_shared_at_least(question, text):
    """With a minimum length: the same run when it is that long, else nothing (regex metacharacters are literal)."""
    for n in (1, 2, 4, 6):
        ref = _reference(question, text)
        assert _longest_shared(question, text, n) == (ref if len(ref) >= n else "")
