"""Grounding after generation: every number, code and date in an answer must be in its context.

Pure functions, no model needed. Chinese numerals are normalised to values first
(一个月 = 1个月, 百分之五 = 5%, 二〇二三年 = 2023年, 一万五千元 = 15000元), so the
model may switch between numeral systems but never invent a figure.
"""
from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from typing import Optional

from .. import cues

# The cue words and patterns below are rules/pipeline_cues.yaml grounding.*, read once at import.
NOT_STATED = cues.text("grounding.not_stated")
# Ways a model says "not stated" besides the exact reply it was told to give.
_NOT_STATED_RE = re.compile(cues.pattern("grounding.not_stated_reply"))

_CN_DIGITS = cues.chars("grounding.cn_digits")
_CN_UNITS = cues.chars("grounding.cn_magnitudes")
_CN_NUM = f"[{_CN_DIGITS}{_CN_UNITS}]"
# A lone 一/二… is a number only before a measure word or after 第 (not in 统一, 一般, 之一).
_MEASURE = cues.pattern("grounding.measure_words")
_CN_SPAN = re.compile(rf"(第)?(百分之|千分之)?({_CN_NUM}+(?:点[{_CN_DIGITS}]+)?)(?=({_MEASURE})?)")
_AR_NUM = re.compile(cues.pattern("grounding.arabic_number"))
_MAGNITUDE = {str(k): int(v) for k, v in cues.table("grounding.magnitude_values").items()}
_BARE_MAGNITUDES = cues.words("grounding.bare_magnitudes")
_DATE = re.compile(cues.pattern("grounding.date"))
# Codes: standard numbers (GB/T 2260-2007), document numbers (国发〔2023〕5号), IDs mixing letters and digits.
_CODE = re.compile(r"[A-Za-z][A-Za-z/]*\s?[A-Za-z]*\d[A-Za-z0-9_.\-/]*|[A-Za-z]*\d+[A-Za-z][A-Za-z0-9_.\-/]*")
# 国发〔2023〕5号: the issuer's last two characters and the bracketed year and number must match.
_DOC_NO = re.compile(cues.pattern("grounding.doc_number"))
_BRACKETS = str.maketrans({"〔": "[", "〕": "]", "【": "[", "】": "]", "（": "(", "）": ")", "—": "-", "－": "-"})
_RANGE = set(cues.chars("grounding.range_marks"))
_SEQ_DIGITS = cues.chars("grounding.sequence_digits")  # 零…九 in value order; 〇 is zero too
_CN_YEAR = re.compile(cues.pattern("grounding.cn_year"))
_CN_MONTH_DAY = re.compile(cues.pattern("grounding.cn_month_day"))
# Numeral characters separate bigram runs, so 一个月 and 1个月 share the bigram 个月.
_CJK_RUN = re.compile(r"[\u4e00-\u9fff]+")
_NUMERAL_CHARS = re.compile(f"[{_CN_DIGITS}{_CN_UNITS}]")


@dataclass(frozen=True)
class Check:
    """The verdict of :func:`check_grounding`: grounded or not, and why."""

    grounded: bool
    reason: str


def check_grounding(answer: str, context: str, question: str = "", min_overlap: float = 0.5) -> Check:
    """Whether ``answer`` only states what ``context`` says.

    Fails for 未提及 and its paraphrases, an empty or garbled answer, a number,
    code or date not found in the context, or wording mostly not from the context
    or question (character-bigram overlap below ``min_overlap``).

    >>> check_grounding("不得超过一个月", "试用期不得超过1个月。").grounded
    True
    >>> check_grounding("不得超过两个月", "试用期不得超过1个月。").reason
    'number 2 not in context'
    """
    text = answer.strip()
    if not text:
        return Check(False, "empty answer")
    if _NOT_STATED_RE.search(text):
        return Check(False, "not stated in context")
    if "\ufffd" in text:
        return Check(False, "garbled output")
    ctx_numbers = numbers(context, variants=True)
    for n in sorted(numbers(text)):
        if n not in ctx_numbers:
            return Check(False, f"number {_fmt(n)} not in context")
    ctx_dates = dates(context)
    for d in sorted(dates(text)):
        if not any(_partial(d, c) for c in ctx_dates):
            return Check(False, f"date {'-'.join(str(x) for x in d if x)} not in context")
    ctx_flat = _norm_code(context)
    for c in codes(text):
        if _norm_code(c) not in ctx_flat:
            return Check(False, f"code {c} not in context")
    for m in _DOC_NO.finditer(unicodedata.normalize("NFKC", text)):
        if _norm_code(m.group(1)[-2:] + m.group(2)) not in ctx_flat:
            return Check(False, f"code {m.group(0)} not in context")
    ratio = overlap(text, context + question)
    if ratio is not None and ratio < min_overlap:
        return Check(False, f"wording not from context (overlap {ratio:.2f} < {min_overlap})")
    return Check(True, "numbers, codes and dates found in context")


def numbers(text: str, variants: bool = False) -> set[float]:
    """Numeric values in ``text``, Chinese numerals included (一个月 -> 1, 百分之五 -> 5).

    1.5万 is 15000; with ``variants`` (for the context side) it also yields 1.5.
    """
    text = unicodedata.normalize("NFKC", text)
    found: set[float] = set()
    for m in _AR_NUM.finditer(text):
        value = float(m.group(1).replace(",", ""))
        if m.group(2):
            found.add(value * _MAGNITUDE[m.group(2)])
        if variants or not m.group(2):
            found.add(value)
    for m in _CN_SPAN.finditer(text):
        ordinal, percent, span, measure = m.group(1), m.group(2), m.group(3), m.group(4)
        single = len(span) == 1 and span not in _CN_UNITS
        ranged = text[m.end():m.end() + 1] in _RANGE
        if single and not (ordinal or percent or measure or ranged):
            continue  # 统一, 一般, 之一: not a quantity
        if span in _BARE_MAGNITUDES:
            continue  # a bare magnitude word (千万, 百姓) is not a figure
        value = _cn_value(span)
        if value is not None:
            found.add(value)
    return found


def dates(text: str) -> set[tuple[int, ...]]:
    """Dates in ``text`` as (year,), (year, month) or (year, month, day), Chinese numerals normalised."""
    text = _arabic_dates(unicodedata.normalize("NFKC", text))
    out: set[tuple[int, ...]] = set()
    for m in _DATE.finditer(text):
        parts = m.groups()[:3] if m.group(1) else m.groups()[3:]
        out.add(tuple(int(p) for p in parts if p))
    return out


def codes(text: str) -> list[str]:
    """Code-like tokens: standard numbers, document numbers, identifiers mixing letters and digits."""
    text = unicodedata.normalize("NFKC", text)
    return [m.group(0).strip() for m in _CODE.finditer(text) if re.search(r"\d", m.group(0))
            and not re.fullmatch(r"[\d.,]+", m.group(0).strip())]


def overlap(answer: str, source: str) -> Optional[float]:
    """Share of the answer's CJK character bigrams found in ``source``; None if it has none."""
    a = _bigrams(answer)
    if not a:
        return None
    s = _bigrams(source)
    return sum(1 for g in a if g in s) / len(a)


# --- helpers ------------------------------------------------------------------------

def _bigrams(text: str) -> list[str]:
    runs = _CJK_RUN.findall(_NUMERAL_CHARS.sub(" ", text))
    return [r[i:i + 2] for r in runs for i in range(len(r) - 1)]


def _cn_value(span: str) -> Optional[float]:
    try:
        import cn2an
        value = cn2an.cn2an(span, "smart")
    except Exception:  # cn2an rejects odd runs such as 十十; they are not figures
        if all(ch in _SEQ_DIGITS or ch == "〇" for ch in span):  # digit-by-digit: 二〇二三
            return float("".join(str(_SEQ_DIGITS.index(ch) if ch != "〇" else 0) for ch in span))
        return None
    return float(value)


def _arabic_dates(text: str) -> str:
    """二〇二三年五月一日 -> 2023年5月1日, leaving other text alone."""
    def year(m: re.Match) -> str:
        v = _cn_value(m.group(1))
        return f"{int(v)}年" if v is not None else m.group(0)

    def md(m: re.Match) -> str:
        v = _cn_value(m.group(1))
        return f"{int(v)}{m.group(2)}" if v is not None else m.group(0)

    text = _CN_YEAR.sub(year, text)
    return _CN_MONTH_DAY.sub(md, text)


def _partial(d: tuple[int, ...], c: tuple[int, ...]) -> bool:
    """A context date with a day also grounds the same year and month said alone."""
    return len(d) <= len(c) and c[: len(d)] == d


def _norm_code(text: str) -> str:
    return re.sub(r"\s+", "", unicodedata.normalize("NFKC", text).translate(_BRACKETS)).casefold()


def _fmt(n: float) -> str:
    return str(int(n)) if n == int(n) else str(n)
