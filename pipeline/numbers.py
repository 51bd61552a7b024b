"""Numbers, units and dates in Chinese text: parsing (cn2an), normalisation for grounding checks."""
from __future__ import annotations

import re
import unicodedata
from functools import lru_cache
from typing import Any, Optional

import cn2an

CN_DIGITS = "零〇一二两三四五六七八九十百千万亿"
_CN_NUM = re.compile(rf"[{CN_DIGITS}]+")
# a number: Arabic (with , and .) or Chinese numerals, optionally with 万/亿 scale
NUM = rf"(?:\d+(?:,\d{{3}})*(?:\.\d+)?(?:[万亿])?|[{CN_DIGITS}]+)"
UNITS = ("个工作日", "工作日", "个月", "个小时", "小时", "周岁", "个星期", "星期", "日历天", "年", "月", "日", "天", "周",
         "分钟", "秒", "万元", "亿元", "元", "倍", "人", "名", "次", "分", "档", "级", "类", "种", "项", "个", "米",
         "厘米", "毫米", "公里", "千米", "平方米", "吨", "千克", "公斤", "岁", "%", "‰", "‱", "V", "A", "W", "Nm", "N.m", "N·m")
_UNIT_RX = "|".join(sorted((re.escape(u) for u in UNITS), key=len, reverse=True))
QUANTITY = re.compile(rf"(百分之|千分之|万分之)?({NUM})\s*({_UNIT_RX})?")
_FIXED = set("律般切些旦致并起同经样定直再方")  # 一律 一般 … are words, not numbers


@lru_cache(maxsize=8192)
def cn_number(text: str) -> Optional[float]:
    """Value of a numeral such as '二千五百', '15', '1.5万', '两' (None if it is not a number)."""
    s = text.replace(",", "").strip()
    if not s:
        return None
    try:
        if re.fullmatch(r"\d+(?:\.\d+)?", s):
            return float(s)
        m = re.fullmatch(r"(\d+(?:\.\d+)?)([万亿])", s)
        if m:
            return float(m.group(1)) * (10_000 if m.group(2) == "万" else 100_000_000)
        if s in ("〇", "零"):
            return 0.0
        return float(cn2an.cn2an(s, "smart"))
    except (ValueError, KeyError, TypeError, AttributeError):
        return None
    except Exception:  # cn2an raises bare ValueError subclasses and sometimes others on odd input
        return None


def canonical_unit(unit: str) -> str:
    """Fold unit spellings: 天→日, 个月→月, 个小时→小时, 个工作日→工作日, N·m→N.m."""
    u = unit or ""
    return {"天": "日", "个月": "月", "个小时": "小时", "个工作日": "工作日", "个交易日": "交易日", "个星期": "周", "星期": "周",
            "N·m": "N.m", "Nm": "N.m", "公斤": "千克", "千米": "公里"}.get(u, u)


def find_quantities(text: str) -> list[dict[str, Any]]:
    """Numbers with their units in ``text``: [{'number', 'unit', 'text', 'start', 'end'}]."""
    out = []
    for m in QUANTITY.finditer(text):
        num = m.group(2)
        if re.fullmatch(r"[一]", num) and m.end(2) < len(text) and text[m.end(2)] in _FIXED:
            continue
        if re.fullmatch(r"[一]", num) and m.start(2) > 0 and text[m.start(2) - 1] in "同统唯单逐":
            continue  # 同一个, 统一, 唯一: words, not quantities
        if not m.group(3) and not m.group(1) and not re.search(r"\d", num):
            continue  # a bare Chinese numeral without unit is usually a word (十分, 一些…)
        value = cn_number(num)
        if value is None:
            continue
        unit = m.group(3) or ""
        if m.group(1):
            value, unit = value, {"百分之": "%", "千分之": "‰", "万分之": "‱"}[m.group(1)]
        out.append({"number": _clean(value), "unit": canonical_unit(unit), "text": m.group(0),
                    "start": m.start(), "end": m.end()})
    return out


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
    if word == "一" and m.end() < len(m.string) and m.string[m.end()] in _FIXED:
        return word
    v = cn_number(word)
    return str(_clean(v)) if v is not None else word


def norm_for_match(text: str) -> str:
    """Normalise for grounding comparisons: NFKC, no spaces, Chinese numerals → digits, 天→日, 万 scaled."""
    t = unicodedata.normalize("NFKC", text or "")
    t = re.sub(r"\s+", "", t)
    t = _CN_NUM.sub(_num_sub, t)
    t = t.replace("天", "日").replace("个工作日", "工作日")
    t = re.sub(r"(\d),(\d{3})", r"\1\2", t)
    t = re.sub(r"(\d+(?:\.\d+)?)(万|亿)", lambda m: str(_clean(float(m.group(1)) * (10_000 if m.group(2) == "万" else 100_000_000))), t)
    return t


def numbers_in(text: str) -> list[str]:
    """The digit strings of ``text`` after normalisation (for 'every number is grounded' checks)."""
    return re.findall(r"\d+(?:\.\d+)?", norm_for_match(text))


def grounded(answer: str, evidence: str) -> bool:
    """True when every number in ``answer`` also occurs in ``evidence`` (after normalisation)."""
    ev = set(numbers_in(evidence))
    return all(n in ev for n in numbers_in(answer))
