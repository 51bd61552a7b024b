"""Numbers, units and dates in Chinese text: parsing (cn2an), normalisation for grounding checks."""
from __future__ import annotations

import datetime
import re
import unicodedata
from functools import lru_cache
from typing import Any, Optional

import cn2an
import yaml

from .config import shipped_dir


def _load_units() -> dict[str, Any]:
    """dictionaries/units.yaml: numerals, units, their folding, dimensions and the templates' placeholders."""
    with open(shipped_dir("dictionaries") / "units.yaml", encoding="utf-8") as f:
        return yaml.safe_load(f)


VALUES = _load_units()
CN_DIGITS = str(VALUES["numerals"])
_SCALES = {k: 10 ** (4 * (i + 1)) for i, k in enumerate(CN_DIGITS[-2:])}  # 万 → 10^4, 亿 → 10^8
_CAPITALS = str(VALUES.get("capital_numerals", ""))
_CN_NUM = re.compile(rf"[{CN_DIGITS}{_CAPITALS}]+")
# a number: Arabic (with , and .) or Chinese numerals, optionally with 万/亿 scale
NUM = rf"(?:\d+(?:,\d{{3}})*(?:\.\d+)?(?:[{CN_DIGITS[-2:]}])?|[{CN_DIGITS}{_CAPITALS}]+)"
UNITS = tuple(str(u) for u in VALUES["units"])
_UNIT_RX = "|".join(sorted((re.escape(u) for u in UNITS), key=len, reverse=True))
SHARES = {str(k): str(v) for k, v in VALUES["shares"].items()}  # 百分之 → %
# 二十多分钟, 三十余人: 多/余 between a number and its unit says "more than", read as the number itself (a lower bound)
_MORE = "|".join(map(re.escape, (str(w) for w in VALUES.get("more_than", []))))
_MORE_RX = rf"(?:(?:{_MORE})(?=\s*(?:{_UNIT_RX})))?" if _MORE else ""
QUANTITY = re.compile(rf"({'|'.join(map(re.escape, SHARES))})?({NUM})\s*{_MORE_RX}\s*({_UNIT_RX})?")
_HALF = str(VALUES["half"]["word"])
_HALF_UNITS = set(str(u) for u in VALUES["half"]["units"])
# 两个半月: 个, the half, then the unit (the unit after 个半 is what the number counts)
_HALF_INSIDE = re.compile(rf"{re.escape(_HALF)}({'|'.join(sorted((re.escape(u) for u in _HALF_UNITS), key=len, reverse=True))})")
_FIXED = set(str(VALUES["one_word_after"]))  # 一律 一般 … are words, not numbers
_ONE_BEFORE = str(VALUES["one_word_before"])
_UNIT_WORD_AFTER = {str(k): str(v) for k, v in (VALUES.get("unit_word_after") or {}).items()}
_ONE = CN_DIGITS[2]
_FOLD = {str(k): str(v) for k, v in VALUES["fold"].items()}
_GROUNDING_FOLD = {str(k): str(v) for k, v in VALUES["grounding_fold"].items()}
_LETTER = re.compile(r"[A-Za-z]")
_SCALE_RX = re.compile(rf"(\d+(?:\.\d+)?)([{CN_DIGITS[-2:]}])")
_SCALED = re.compile(rf"(\d+(?:\.\d+)?)({'|'.join(CN_DIGITS[-2:])})")


def unit_alternation(name: str) -> str:
    """A placeholder of dictionaries/units.yaml as a regex group, its spellings in file order."""
    return "(?:" + "|".join(re.escape(str(u)) for u in VALUES["placeholders"][name]) + ")"


@lru_cache(maxsize=8192)
def cn_number(text: str) -> Optional[float]:
    """Value of a numeral such as '二千五百', '15', '1.5万', '两' (None if it is not a number)."""
    s = text.replace(",", "").strip()
    if not s:
        return None
    try:
        if re.fullmatch(r"\d+(?:\.\d+)?", s):
            return float(s)
        m = _SCALE_RX.fullmatch(s)
        if m:
            return float(m.group(1)) * _SCALES[m.group(2)]
        if s in (CN_DIGITS[0], CN_DIGITS[1]):  # 零 / 〇
            return 0.0
        return float(cn2an.cn2an(s, "smart"))
    except (ValueError, KeyError, TypeError, AttributeError):
        return None
    except Exception:  # cn2an raises bare ValueError subclasses and sometimes others on odd input
        return None


_SPOKEN = VALUES.get("spoken_money") or {}
_SPOKEN_RX = re.compile(rf"({NUM}){re.escape(str(_SPOKEN['word']))}") if _SPOKEN else None


def spoken_money(text: str) -> str:
    """``text`` with money said as people speak it read as written (dictionaries/units.yaml spoken_money: 罚了两千块
    → 罚了两千元), one character for one, so offsets into ``text`` hold. For a question, never a document."""
    if _SPOKEN_RX is None:
        return text

    def sub(m: re.Match) -> str:
        value = cn_number(m.group(1))
        if value is None or value < float(_SPOKEN["min"]) or in_name(text, m.start(1)):
            return m.group(0)
        return m.group(1) + str(_SPOKEN["as"])
    return _SPOKEN_RX.sub(sub, text)


_DEGREES = VALUES.get("spoken_degrees") or {}
_DEGREES_RX = (re.compile(rf"({NUM}){re.escape(str(_DEGREES['word']))}(?!{'|'.join(map(re.escape, (str(w) for w in _DEGREES.get('not_after') or ())))})")
               if _DEGREES else None)


_DEGREE_CUES = tuple(str(c) for c in _DEGREES.get("cues") or ())


def spoken_degrees(text: str) -> str:
    """``text`` with 度 said for ℃ read as written (dictionaries/units.yaml spoken_degrees: 升到85度时 → 升到85℃时)
    when the text speaks of heat or cold, one character for one so offsets hold. For a question, never a document."""
    if _DEGREES_RX is None or not any(c in text for c in _DEGREE_CUES):
        return text

    def sub(m: re.Match) -> str:
        if cn_number(m.group(1)) is None or in_name(text, m.start(1)):
            return m.group(0)
        return m.group(1) + str(_DEGREES["as"])
    return _DEGREES_RX.sub(sub, text)


@lru_cache(maxsize=256)
def spoken(text: str) -> str:
    """A question's figures said as people speak them (两千块, 85度) read as written; offsets hold."""
    return spoken_degrees(spoken_money(text))


_SIGNED = VALUES.get("signed") or {}
_SIGNED_DIMS = frozenset(str(d) for d in _SIGNED.get("dimensions") or ())
_SIGN = {str(w): -1 for w in _SIGNED.get("minus") or ()} | {str(w): 1 for w in _SIGNED.get("plus") or ()}
_SIGN_WORDS = sorted(_SIGN.items(), key=lambda x: -len(x[0]))  # the longest word first
_SIGNED_UNITS = frozenset(str(u) for u, d in VALUES["dimensions"].items() if str(d[0]) in _SIGNED_DIMS)
_SPAN_BEFORE = rf"[\dA-Za-z%℃°.{CN_DIGITS}]"  # 10-20℃, 20℃-30℃: a mark after these is a span's, not a sign
_NOT_BEFORE_SIGN = re.compile(_SPAN_BEFORE)

# a template's placeholder SIGN (rules/templates.yaml): a sign word, a one-character mark only after no figure,
# letter or unit (as :func:`sign_before` reads it)
SIGN_RX = "(?:" + "|".join(
    (rf"(?<!{_SPAN_BEFORE})" + re.escape(w)) if len(w) == 1 and not w.isalpha() else re.escape(w)
    for w, _ in _SIGN_WORDS) + ")" if _SIGN_WORDS else "(?!)"


def sign_of(word: Optional[str], unit: str) -> int:
    """-1 for a minus word before a figure in ``unit`` when its dimension takes a sign, else 1."""
    return -1 if word and _SIGN.get(word, 1) < 0 and signed_dimension(unit) else 1


def signed_dimension(unit: str) -> bool:
    """Is ``unit`` one whose figures take a sign (dictionaries/units.yaml signed: ℃ yes, 元 no)?"""
    return unit in _SIGNED_UNITS or canonical_unit(unit) in _SIGNED_UNITS


def sign_before(text: str, start: int) -> int:
    """-1 when a minus word stands right before the figure at ``start`` (-40, 零下30, 负5), else 1. A one-character
    mark is a sign only where what precedes it (spaces skipped) is no figure, letter or unit."""
    while start > 0 and text[start - 1] in " \t":  # – 40 °C
        start -= 1
    for word, sign in _SIGN_WORDS:
        i = start - len(word)
        if i < 0 or not text.startswith(word, i):
            continue
        if len(word) == 1 and not word.isalpha():  # a mark (-, +), not a word (负)
            before = text[:i].rstrip()[-1:]
            if before and _NOT_BEFORE_SIGN.match(before):
                return 1
        return sign
    return 1


_DATES = VALUES.get("dates") or {}
_JOIN = "|".join(map(re.escape, (str(w) for w in _DATES.get("joiners") or ()))) or "(?!)"
DATE_DAY = "(?:" + "|".join(map(re.escape, (str(w) for w in _DATES.get("day") or ()))) + ")"
DATE_YEAR, DATE_MONTH = re.escape(str(_DATES.get("year"))), re.escape(str(_DATES.get("month")))
DATE_UNIT = str(_DATES.get("unit"))
DATE_RX = re.compile(rf"(?<!\d)(\d{{4}}){DATE_YEAR}(?:{_JOIN})?(\d{{1,2}}){DATE_MONTH}(?:{_JOIN})?(\d{{1,2}}){DATE_DAY}")


def day_number(y: int, m: int, d: int) -> Optional[int]:
    """The day's ordinal (1 January of year 1 is 1), None for no such day."""
    try:
        return datetime.date(y, m, d).toordinal()
    except ValueError:
        return None


def find_dates(text: str) -> list[dict[str, Any]]:
    """Calendar dates written in full (2027年12月5日, 2027年的12月5号) as quantities of the date dimension:
    [{'number': day number, 'unit': '日期', 'iso', 'text', 'start', 'end'}]."""
    out = []
    for m in DATE_RX.finditer(text):
        n = day_number(int(m.group(1)), int(m.group(2)), int(m.group(3)))
        if n is not None:
            out.append({"number": n, "unit": DATE_UNIT, "iso": datetime.date.fromordinal(n).isoformat(),
                        "text": m.group(), "start": m.start(), "end": m.end()})
    return out


def canonical_unit(unit: str) -> str:
    """Fold unit spellings: 天→日, 个月→月, 个小时→小时, 个工作日→工作日, N·m→N.m."""
    u = unit or ""
    return _FOLD.get(u, u)


def in_name(text: str, start: int) -> bool:
    """Are the digits at ``start`` part of a model or product name (a Latin letter right before: CH32V003, ho600;
    or a Latin letter and a hyphen: TGL-18R, DFN-6, QFN-32)?"""
    if start <= 0 or not text[start:start + 1].isdigit():
        return False
    if _LETTER.match(text, start - 1) is not None:
        return True
    return start > 1 and text[start - 1] in "-－" and _LETTER.match(text, start - 2) is not None


def find_quantities(text: str) -> list[dict[str, Any]]:
    """Numbers with their units in ``text``: [{'number', 'unit', 'text', 'start', 'end'}]."""
    out = []
    for m in QUANTITY.finditer(text):
        num = m.group(2)
        if num == _ONE and m.end(2) < len(text) and text[m.end(2)] in _FIXED:
            continue
        if num == _ONE and m.start(2) > 0 and text[m.start(2) - 1] in _ONE_BEFORE:
            continue  # 同一个, 统一, 唯一: words, not quantities
        if not m.group(3) and not m.group(1) and not re.search(r"\d", num):
            continue  # a bare Chinese numeral without unit is usually a word (十分, 一些…)
        if not m.group(1) and in_name(text, m.start(2)):
            continue  # ho600, CH32V003, WCH-Link2: digits of a name or model, not a quantity
        if _DOTTED.match(text, m.start(2)) or text[m.start(2) - 1:m.start(2)] == ".":
            continue  # v1.2.0, 1.3.0版: a version number's parts (its first two, or a part after a dot), not quantities
        value = cn_number(num)
        if value is None:
            continue
        unit = m.group(3) or ""
        if unit in _UNIT_WORD_AFTER and m.end() < len(text) and text[m.end()] in _UNIT_WORD_AFTER[unit]:
            continue  # 一次性: an adjective (one-off), not a count of times
        if m.group(1):
            value, unit = value, SHARES[m.group(1)]
        elif unit and signed_dimension(unit):
            value *= sign_before(text, m.start(2))  # -40°C, 零下30℃
        end = m.end()
        if unit in _HALF_UNITS and text.startswith(_HALF, end):  # 五年半: five and a half years
            value, end = value + 0.5, end + len(_HALF)
        elif unit == "个" and (h := _HALF_INSIDE.match(text, end)):  # 两个半月: two and a half months
            value, unit, end = value + 0.5, h.group(1), h.end()
        out.append({"number": _clean(value), "unit": canonical_unit(unit), "text": text[m.start():end],
                    "start": m.start(), "end": end})
    return out


_DOTTED = re.compile(r"\d+\.\d+\.\d")  # three dotted parts: a version number (1.2.0), never a quantity
_LONG_RUN = re.compile(rf"[\d{CN_DIGITS},.]{{17,}}")


def mask_long_numerals(text: str) -> str:
    """``text`` with numeral runs of more than 16 characters replaced by '#' (offsets kept).

    No quantity is that long, and a regex that backtracks over such a run costs its length
    squared ("9"*5000 + "年" took 10 s in the range-condition patterns); masked, it costs nothing.
    """
    if len(text) < 17:
        return text
    return _LONG_RUN.sub(lambda m: "#" * len(m.group()), text)


def _clean(v: float) -> float | int:
    return int(v) if float(v).is_integer() else v


def _num_sub(m: re.Match) -> str:
    word = m.group(0)
    if word == _ONE and m.end() < len(m.string) and m.string[m.end()] in _FIXED:
        return word
    v = cn_number(word)
    return str(_clean(v)) if v is not None else word


def norm_for_match(text: str) -> str:
    """Normalise for grounding comparisons: NFKC, no spaces, Chinese numerals → digits, 天→日, 万 scaled."""
    t = unicodedata.normalize("NFKC", text or "")
    t = re.sub(r"\s+", "", t)
    t = _CN_NUM.sub(_num_sub, t)
    for a, b in _GROUNDING_FOLD.items():
        t = t.replace(a, b)
    t = re.sub(r"(\d),(\d{3})", r"\1\2", t)
    t = _SCALED.sub(lambda m: str(_clean(float(m.group(1)) * _SCALES[m.group(2)])), t)
    return t


def numbers_in(text: str) -> list[str]:
    """The digit strings of ``text`` after normalisation (for 'every number is grounded' checks); a decimal's
    trailing zeros are dropped (100,800.00元 grounds 100800元, 1.50 grounds 1.5)."""
    return [n.rstrip("0").rstrip(".") if "." in n else n for n in re.findall(r"\d+(?:\.\d+)?", norm_for_match(text))]


def grounded(answer: str, evidence: str) -> bool:
    """True when every number in ``answer`` also occurs in ``evidence`` (after normalisation)."""
    ev = set(numbers_in(evidence))
    return all(n in ev for n in numbers_in(answer))
