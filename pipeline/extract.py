"""Stage 3: template answer extraction in context windows, with normalised values and grounding.

Needs: the Query and the anchors of stage 2 (sentences in candidate blocks).
Adds: an Answer (value, answer text in the document's wording, evidence, reasoning) or None.

Templates live in rules/templates.yaml; this module holds the value builders
(``BUILDERS``), the context window, and the type-specific strategies (lists,
yes/no polarity, comparisons) that templates alone cannot express.
"""
from __future__ import annotations

import math
from fractions import Fraction
import re
import threading
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any, Callable, Iterator, Optional, Sequence

import regex

from . import cues as _cues
from .answer_kind import AnswerKindGrammar
from .numbers import (CN_DIGITS, DATE_DAY, DATE_MONTH, DATE_RX, DATE_UNIT, DATE_YEAR, NUM, SHARES, SIGN_RX, VALUES,
                      canonical_unit, cn_number, day_number, find_quantities, grounded, in_name, mask_long_numerals,
                      norm_for_match, sign_before, sign_of, signed_dimension, spoken, unit_alternation)
from .rules import Field, RuleSet, load_rule_file, register_regex, register_schema, strip_lines
from .store import Store
from .text import block_sentences, cited_articles, close_figures, span_back, split_sentences, strip_asides
from .tokenize import cut, is_content_word, pos_tag
from .types import Anchor, Block, Candidate, Query, Sentence

PLACEHOLDERS = {"NUM": NUM, "SIGN": SIGN_RX,  # units.yaml
                **{name: unit_alternation(name) for name in VALUES["placeholders"]}}


def expand(pattern: str) -> str:
    """Replace NUM / DUR_UNIT / MONEY_UNIT / MEASURE_UNIT placeholders by their regexes."""
    for key in sorted(PLACEHOLDERS, key=len, reverse=True):
        pattern = re.sub(rf"(?<![A-Za-z_]){key}(?![A-Za-z_])", lambda m, k=key: PLACEHOLDERS[k], pattern)
    return pattern


def _check_template(rule: dict) -> Optional[str]:
    if rule.get("builder") not in BUILDERS:
        return f"builder {rule.get('builder')!r} is unknown; choose one of {sorted(BUILDERS)}"
    try:
        regex.compile(expand(rule.get("regex", "")))
    except regex.error as exc:
        return f"invalid regex ({exc})"
    try:
        regex.compile(rule.get("asked") or "")
    except regex.error as exc:
        return f"invalid asked regex ({exc})"
    return None


register_schema("value_units", {})  # dictionaries/units.yaml: file-level settings only, read by pipeline/numbers.py
register_schema("template", {
    "types": Field((list,), True, "question types this template answers, e.g. [duration]"),
    "priority": Field((int,), True, "higher is tried first"),
    "builder": Field((str,), True, "how the value is built (see pipeline/extract.py BUILDERS)"),
    "regex": Field((str,), True, "a Python `regex` pattern with named groups"),
    "value_kinds": Field((list,), False, "optional: the template serves only questions whose answer kind "
                                         "(rules/value_kinds.yaml) is one of these, e.g. [code]"),
    "also_kinds": Field((list,), False, "optional: answer kinds it serves whatever the question type, "
                                        "e.g. [time] lets a date answer 最晚什么时候交"),
    "asked": Field((str,), False, "optional regex on the question: when it matches, this template is preferred "
                                   "(+0.1), e.g. 多长时间内 prefers 20个工作日内 over 最长不得超过20个工作日"),
    "only_asked": Field((bool,), False, "optional: the template serves only questions its `asked` matches "
                                        "(8时至18时 answers 什么时段, not 工作时间多长)"),
    "exclusive": Field((bool,), False, "optional: a question its `asked` matches is answered by no other template "
                                       "of its types (多久…一次: 每季度, not the 保存期限四年 of the same provision)"),
    "not_asked": Field((str,), False, "optional regex on the asking clause: a question it matches is one this "
                                      "template cannot answer (2011年1月 names no day: not for 哪一天)"),
}, check=lambda r: _check_template(r))
register_regex("template", regex=PLACEHOLDERS, asked=None, not_asked=None)  # bad patterns reported at their own position


# --- cue words (rules/extract_cues.yaml) ----------------------------------------------------
# The words and short patterns that steer extraction (modals, bounds, what a question asks for, units)
# are data: one rule each, with a regex, a word list or a table. They are compiled once per rule version.
def _check_cue(rule: dict) -> Optional[str]:
    if sum(k in rule for k in ("regex", "words", "map")) != 1:
        return "give exactly one of 'regex', 'words' or 'map'"
    if "words" in rule and not all(isinstance(w, (str, int, float)) and str(w) for w in rule["words"]):
        return "'words' must be a list of non-empty words"
    if "accepts" in rule and "unit" not in rule:
        return "'accepts' needs the 'unit' it belongs to"
    return None


register_schema("extract_cue", {
    "regex": Field((str,), False, "a Python regex over the text the note names"),
    "words": Field((list,), False, "words or phrases, any of which matches (tried in the order written)"),
    "map": Field((dict,), False, "a table: a word -> what it stands for"),
    "unit": Field((str,), False, "the unit (or classifier) this cue gives"),
    "accepts": Field((list,), False, "units an answer to this cue may carry"),
    "group": Field((str,), False, "rules read together, in file order (e.g. asked_duration)"),
}, check=_check_cue)
register_regex("extract_cue", regex=None)


class Cues:
    """The cue rules, compiled: ``rx(id)`` a pattern, ``words(id)`` a word tuple, ``table(id)`` a mapping,
    ``group(name)`` the rules of a group in file order, ``rule(id)`` the rule itself."""

    def __init__(self, rules: list[dict]) -> None:
        self._rules: dict[str, dict] = {}
        self._rx: dict[str, Any] = {}
        self._words: dict[str, tuple[str, ...]] = {}
        self._tables: dict[str, dict] = {}
        self._groups: dict[str, list[dict]] = {}
        for r in rules:
            rid = str(r["id"])
            self._rules[rid] = r
            if "regex" in r:
                self._rx[rid] = re.compile(r["regex"])
            elif "words" in r:
                words = tuple(str(w) for w in r["words"])
                self._words[rid] = words
                self._rx[rid] = re.compile("|".join(re.escape(w) for w in words))
            else:
                self._tables[rid] = {str(k): v for k, v in strip_lines(r["map"]).items()}
        for r in rules:
            if r.get("group"):
                self._groups.setdefault(str(r["group"]), []).append(r)

    def rx(self, rid: str) -> Any:
        return self._rx[rid]

    def words(self, rid: str) -> tuple[str, ...]:
        return self._words[rid]

    def word(self, rid: str) -> str:
        return self._words[rid][0]

    def table(self, rid: str) -> dict:
        return self._tables[rid]

    def rule(self, rid: str) -> dict:
        return self._rules[rid]

    def group(self, name: str) -> list[dict]:
        return self._groups.get(name, [])


def _shipped_cue_rules() -> list[dict]:
    from .config import shipped_dir
    return load_rule_file(shipped_dir("rules") / "extract_cues.yaml").rules


_SHIPPED_CUES = _shipped_cue_rules()
CUES = Cues(_SHIPPED_CUES)


def use_cues(rules: RuleSet) -> Cues:
    """Compile the cue rules of ``rules`` (the shipped ones, an overlay rule replacing the shipped rule of
    its id) and make them the ones extraction reads; called when the rule set's version changes."""
    global CUES
    merged = {str(r["id"]): r for r in _SHIPPED_CUES}
    merged.update((str(r["id"]), r) for r in rules.get("extract_cue"))
    CUES = Cues(list(merged.values()))
    return CUES


def check_cue_example(rule: dict, ex: dict) -> tuple[bool, Any]:
    """A cue's example: {input: text, expect: true/false} (does it occur), or for a table {input: word,
    expect: what the table gives}."""
    c = Cues([rule])
    rid = str(rule["id"])
    expect = strip_lines(ex.get("expect"))
    if "map" in rule:
        got = c.table(rid).get(str(ex["input"]))
        return got == expect, got
    got = bool(c.rx(rid).search(str(ex["input"])))
    return got == bool(expect), got


def _register_cue_checker() -> None:
    from . import rules_cli
    rules_cli.CHECKERS.setdefault("extract_cue", check_cue_example)


_register_cue_checker()


# --- value builders -------------------------------------------------------------
def _num(s: Optional[str]) -> Optional[float]:
    v = cn_number(s) if s else None
    if v is None:
        return None
    return int(v) if float(v).is_integer() else v


def _b_duration(g: dict) -> Optional[dict]:
    n = _num(g.get("num"))
    return None if n is None else {"kind": "duration", "number": n, "unit": canonical_unit(g.get("unit") or "")}


def _b_period(g: dict) -> Optional[dict]:
    """How often (每季度, 每两年, 每隔3个月): the period as a duration, one unit when no number is written."""
    n = _num(g.get("num")) if g.get("num") else 1
    unit = canonical_unit(g.get("unit") or "")
    if n is None or not unit:
        return None
    return {"kind": "duration", "number": n, "unit": unit}


def _b_clock(g: dict) -> Optional[dict]:
    """A time of day to another (8时至18时, 8点半到17点30分) as a range of hours; one that runs into the next day
    (18时至次日8时) as its text."""
    def hours(h: str, m: Optional[str], half: Optional[str]) -> Optional[float]:
        n = _num(h)
        mins = _num(m) if m else (30 if half else 0)
        if n is None or mins is None or not 0 <= n <= 24 or not 0 <= mins < 60:
            return None
        v = n + mins / 60
        return int(v) if float(v).is_integer() else round(v, 2)

    lo = hours(g.get("min", ""), g.get("min_m"), g.get("min_h"))
    hi = hours(g.get("max", ""), g.get("max_m"), g.get("max_h"))
    if lo is None or hi is None:
        return None
    if g.get("next") or lo >= hi:
        return {"kind": "text", "text": g.get("text", "")}
    return {"kind": "range", "min": lo, "max": hi, "unit": CUES.word("unit.hour")}


def _b_clock_at(g: dict) -> Optional[dict]:
    """One time of day (晚上11点, 23:30, 下午5时半) as hours on the 24-hour clock; 下午 / 晚上 before an hour under 12
    move it past noon."""
    h, m = (g.get("hh"), g.get("mm")) if g.get("hh") else (g.get("h"), g.get("m"))
    n = _num(h or "")
    mins = _num(m) if m else (30 if g.get("half") else 0)
    if n is None or mins is None or not 0 <= n <= 24 or not 0 <= mins < 60:
        return None
    if g.get("part") in CUES.words("clock.afternoon") and n < 12:
        n += 12
    v = n + mins / 60
    return {"kind": "number", "number": int(v) if float(v).is_integer() else round(v, 2), "unit": CUES.word("unit.hour"),
            "clock": g.get("text", "")}  # as written: 23:30 grounds 23.5 时


def _b_money(g: dict) -> Optional[dict]:
    n = _num(g.get("num"))
    if n is None:
        return None
    unit = g.get("unit") or ""
    n *= sign_of(g.get("sgn"), unit)  # -40°C
    scale, yuan = CUES.table("unit.money_scale"), CUES.word("unit.yuan")
    if g.get("scale"):  # 5万亩, 3万人: a scale word between the number and its unit
        n = n * CUES.table("unit.number_scale").get(g["scale"], 1)
        n = int(n) if float(n).is_integer() else n
    if unit in scale:
        n = n * scale[unit]
        n = int(n) if float(n).is_integer() else n
        unit = yuan
    kind = "money" if unit == yuan else "number"
    return {"kind": kind, "number": n, "unit": canonical_unit(unit)}


def _b_range(g: dict) -> Optional[dict]:
    lo, hi = _num(g.get("min")), _num(g.get("max"))
    if lo is None or hi is None:
        return None
    unit = g.get("unit") or ""
    unit1 = g.get("unit1") or unit
    lo, hi = lo * sign_of(g.get("sgn_min"), unit1), hi * sign_of(g.get("sgn_max"), unit)  # -40°C至+85°C
    scale = CUES.table("unit.money_scale")
    lo = lo * scale.get(unit1, 1)
    hi = hi * scale.get(unit, 1)
    if unit in scale:
        unit = CUES.word("unit.yuan")
    if lo > hi:
        return None
    fix = lambda v: int(v) if float(v).is_integer() else v  # noqa: E731
    return {"kind": "range", "min": fix(lo), "max": fix(hi), "unit": canonical_unit(unit)}


def _b_range_multiple(g: dict) -> Optional[dict]:
    r = _b_range({**g, "unit": CUES.word("unit.multiple")})
    return r


def _b_percent(g: dict) -> Optional[dict]:
    if g.get("pre"):
        n = _num(g.get("num"))
        unit = CUES.table("unit.percent_prefix")[g["pre"]]
    else:
        n = _num(g.get("num2"))
        unit = g.get("sign") or "%"
    return None if n is None else {"kind": "number", "number": n, "unit": unit}


def _b_fraction(g: dict) -> Optional[dict]:
    """五分之一, 三分之二: a share, as a percent (its exact parts kept: 三分之一 is 33.3333% and [1, 3])."""
    den, part = _num(g.get("den")), _num(g.get("part"))
    if not den or part is None or part > den:
        return None
    pct = round(100.0 * part / den, 4)
    return {"kind": "number", "number": int(pct) if float(pct).is_integer() else pct, "unit": "%",
            "fraction": [part, den]}


def _b_date(g: dict) -> Optional[dict]:
    y = g.get("y") or ""
    if not y.isdigit():
        y = "".join(str(int(cn_number(ch) or 0)) for ch in y)
    m, d = _num(g.get("m")), _num(g.get("d"))
    if not y or m is None or d is None or not (1 <= m <= 12 and 1 <= d <= 31):
        return None
    return {"kind": "date", "iso": f"{int(y):04d}-{int(m):02d}-{int(d):02d}"}


def _b_count(g: dict) -> Optional[dict]:
    n = _num(g.get("num"))
    if n is None or n > 100:
        return None
    out = {"kind": "count", "number": n, "unit": g.get("cls") or ""}
    if g.get("from"):  # 由三档调整为四档: the change is part of the answer
        out["from"] = _num(g["from"])
    return out


def _b_count_enum(g: dict) -> Optional[dict]:
    items = [x.strip() for x in CUES.rx("count.item_split").split(g.get("items") or g.get("items2") or "") if x.strip()]
    if len(items) < 2 or any(len(x) > 30 for x in items):
        return None
    if any(CUES.rx("count.provision_ref").search(x) for x in items):
        return None  # 第(一)项、第(二)项 cite other provisions; they are not the things counted
    return {"kind": "count", "number": len(items), "items": items}


def _b_text(g: dict) -> Optional[dict]:
    t = (g.get("text") or "").strip()
    return {"kind": "text", "text": t} if t else None


def _b_definition(g: dict) -> Optional[dict]:
    body = (g.get("body") or "").strip()
    return {"kind": "text", "text": body, "term": (g.get("term") or "").strip()} if body else None


def _b_who(g: dict) -> Optional[dict]:
    agent = (g.get("agent") or "").strip()
    agent = CUES.rx("who.lead").sub("", agent)
    m = CUES.rx("who.agent_of").match(agent)
    if m:
        agent = m.group(1)  # 单位的主要负责人对本单位的内部治安保卫工作负责 → 单位的主要负责人
    if not agent or CUES.rx("who.bad_agent").search(agent) or len(agent) < 2:
        return None
    return {"kind": "text", "text": agent}


def _b_article_ref(g: dict) -> Optional[dict]:
    text = (g.get("text") or "").strip()
    if not text:
        return None
    out = {"kind": "text", "text": text}
    if g.get("law"):
        out["law"] = g["law"]
    return out


BUILDERS: dict[str, Callable[[dict], Optional[dict]]] = {
    "article_ref": _b_article_ref,
    "duration": _b_duration, "period": _b_period, "clock": _b_clock, "clock_at": _b_clock_at, "money": _b_money, "range": _b_range,
    "range_multiple": _b_range_multiple,
    "percent": _b_percent, "fraction": _b_fraction, "date": _b_date, "count": _b_count, "count_enum": _b_count_enum,
    "text_match": _b_text, "definition": _b_definition, "who": _b_who,
}


@dataclass
class Template:
    id: str
    types: tuple[str, ...]
    priority: int
    builder: str
    rx: Any
    examples: list[dict] = field(default_factory=list)
    asked: Any = None  # compiled question-side regex, or None
    value_kinds: tuple[str, ...] = ()  # answer kinds it serves (empty: any)
    also_kinds: tuple[str, ...] = ()   # answer kinds it serves whatever the question type
    only_asked: bool = False           # serves only questions its ``asked`` matches
    exclusive: bool = False            # a question its ``asked`` matches: no other template of its types serves it
    not_asked: Any = None              # compiled regex: an asking clause it matches is one this template cannot answer

    def asked_in(self, question: str) -> bool:
        """Does the question ask in this template's form (its ``asked`` regex)?"""
        return self.asked is not None and self.asked.search(question) is not None

    def apply(self, text: str) -> list[tuple[dict, tuple[int, int]]]:
        """Every (value, span) this template finds in ``text``."""
        out = []
        closed, where = close_figures(text)  # 享有 3 日: the figure and its unit read as one
        for m in self.rx.finditer(closed):
            groups = {k: v for k, v in m.groupdict().items() if v is not None}
            n = next((k for k in ("num", "min", "den") if groups.get(k)), None)
            if n and in_name(closed, m.start(n)):
                continue  # CH32V003, ho600: the digits of a model or product name are no figure (32V is no voltage)
            value = BUILDERS[self.builder](groups)
            if value is not None:
                out.append((value, span_back(where, m.span())))
        return out


_BASE_MEASURE = PLACEHOLDERS["MEASURE_UNIT"][3:-1]  # the placeholder's alternation, without (?: )
_BASE_MEASURE_UNITS = frozenset(canonical_unit(u) for u in _BASE_MEASURE.replace("\\", "").split("|"))


def compile_templates(rules: list[dict], measure_units: Optional[list[str]] = None) -> list[Template]:
    """Compiled templates, highest priority first; ``measure_units`` (from rules/value_kinds.yaml) extend
    the MEASURE_UNIT placeholder."""
    extra = [u for u in (measure_units or []) if u]
    def exp(p: str) -> str:
        if extra and "MEASURE_UNIT" in p:
            units = "|".join(regex.escape(u) for u in sorted(extra, key=len, reverse=True))
            # an ASCII unit must not run on into a word (5V but not 5Volume), and units longer than one
            # character come first so that mA is not read as m
            p = p.replace("MEASURE_UNIT", rf"(?:(?:{units})(?![A-Za-z])|{_BASE_MEASURE})")
        return expand(p)
    out = [Template(r["id"], tuple(r["types"]), r["priority"], r["builder"], regex.compile(exp(r["regex"])),
                    r.get("examples") or [], regex.compile(r["asked"]) if r.get("asked") else None,
                    tuple(r.get("value_kinds") or ()), tuple(r.get("also_kinds") or ()),
                    bool(r.get("only_asked")), bool(r.get("exclusive")),
                    regex.compile(r["not_asked"]) if r.get("not_asked") else None) for r in rules]
    out.sort(key=lambda t: -t.priority)
    return out


# --- range conditions: "一年以上不满三年的" vs a quantity in the question ------------------
_U = "(?P<u>" + "|".join(map(re.escape, VALUES["range_units"])) + ")"  # dictionaries/units.yaml
_U2 = "(?P<u2>" + "|".join(map(re.escape, VALUES["range_second_units"])) + ")?"
_N = PLACEHOLDERS["NUM"]
_CLOCK_BEFORE = _cues.chars("range.clock_before")  # before the figure of 分, a clock's hour (8时30分)
_RANGES = [
    # 工作6-10年者, 迟到11-20分钟: an inclusive span, common in handbooks' graded tables
    (regex.compile(rf"(?<![\d:：.])(?P<a>\d+)\s*(?:-|－|~|～|〜|至|到)\s*(?:{SIGN_RX})?(?P<b>\d+)\s*{_U}"), "ab="),
    # 5,000元（含）至10,000元, 30万元以上至200万元（含）, 3天以上10天以内: the tiers of an approval or fee table, each
    # bound with its unit (the first pattern wants a bare first figure)
    # (not a date's parts: 1月1日至2026年12月31日)
    (regex.compile(rf"(?<![年月\d.,])(?P<a>{_N}){_U}(?:[（(]含[）)])?(?:以上|及以上)?(?:至|到|-|－|~|～|〜)(?:{SIGN_RX})?(?P<b>{_N}){_U2}"
                   rf"(?![\d月日号])(?:以下|以内)?(?:[（(]含[^）)]{{0,8}}[）)])?"), "ab="),
    (regex.compile(rf"(?:满|已满)?(?P<a>{_N}){_U}以上(?:[，,])?(?:不满|不足|未满)(?P<b>{_N}){_U2}"), "ab"),
    (regex.compile(rf"(?:满|已满)(?P<a>{_N}){_U}(?:[，,])?(?:不满|不足|未满)(?P<b>{_N}){_U2}"), "ab"),
    # 不得少于 is a floor; 不到一年, 没满3个月, 还不够6个月: how people say 不满
    (regex.compile(rf"(?:不满|不足|未满|不到|没满|没到|不够|(?<!不|不得)少于|(?<!不|不得)低于)(?P<b>{_N}){_U}"), "b"),
    (regex.compile(rf"(?<!不得)(?<!不)(?:满|已满)(?P<a>{_N}){_U}"), "a"),
    # 超过、高于、多于 exclude the figure itself (以上、满 include it): a low bound just above it
    (regex.compile(rf"(?<!不得)(?<!不)(?:超过|高于|多于)(?P<a>{_N}){_U}"), "a>"),
    (regex.compile(rf"(?P<a>{_N}){_U}(?:以上|及以上)"), "a"),
    (regex.compile(rf"(?P<b>{_N}){_U}(?:以下|及以下|之内|以内|内)"), "b="),
]
# calendar dates as conditions (dictionaries/units.yaml dates): a period, a first day, a last day
_DATES = VALUES.get("dates") or {}
_DW = {k: "(?:" + "|".join(regex.escape(str(w)) for w in sorted(_DATES.get(k) or (), key=len, reverse=True)) + ")"
       for k in ("after", "before", "span")}
_YMD = DATE_RX.pattern
_MONTH = str(_DATES.get("month"))
_INCL = rf"(?:[（(]{regex.escape(str(_DATES.get('included')))}[）)])?"  # 1月1日（含）以后
_DATE_START = regex.compile(rf"\s*{_INCL}{_DW['after']}")  # …1月1日（含）以后: the date something starts from
_DATE_RANGES = [
    (regex.compile(rf"{_YMD}{_INCL}{_DW['after']}?{_DW['span']}(?:(\d{{4}}){DATE_YEAR})?(\d{{1,2}}){DATE_MONTH}(\d{{1,2}})"
                   rf"{DATE_DAY}{_INCL}"), "ab="),
    (regex.compile(rf"{_YMD}{_INCL}{_DW['after']}"), "a"),
    (regex.compile(rf"{_YMD}{_INCL}{_DW['before']}"), "b="),
]


def _date_conditions(text: str) -> list[tuple[str, float, float, bool, tuple[int, int]]]:
    """Dates that bound a condition (2027年12月1日后开具发票的): (date, first day, last day, True, span)."""
    out: list[tuple[str, float, float, bool, tuple[int, int]]] = []
    if _MONTH not in text:  # no date: range_conditions reads every sentence, most have none
        return out
    taken: list[tuple[int, int]] = []
    for rx, kind in _DATE_RANGES:
        for m in rx.finditer(text):
            if any(a < m.end() and m.start() < b for a, b in taken):
                continue
            g = m.groups()
            first = day_number(int(g[0]), int(g[1]), int(g[2]))
            if first is None:
                continue
            lo, hi = float(first), math.inf
            if kind == "b=":
                lo, hi = -math.inf, float(first)
            elif kind == "ab=":
                last = day_number(int(g[3] or g[0]), int(g[4]), int(g[5]))
                if last is None or last < first:
                    continue
                hi = float(last)
            out.append((_DATE_DIM, lo, hi, True, m.span()))
            taken.append(m.span())
    return out


# a share written with its word before the figure (百分之七十, dictionaries/units.yaml `shares`) reads as 七十% for
# the patterns above: 资产负债率超过百分之七十的 is a condition on a percentage
_SHARE_FIRST = regex.compile("(" + "|".join(map(re.escape, SHARES)) + f")({_N})")


def _share_first(text: str) -> tuple[str, tuple[int, ...]]:
    """``text`` with each share word moved after its figure (百分之七十 → 七十%), and for each character of the
    result (and its end) its offset in ``text``, as :func:`close_figures` gives them."""
    if not _SHARE_FIRST.search(text):
        return text, ()
    out: list[str] = []
    where: list[int] = []
    i = 0
    for m in _SHARE_FIRST.finditer(text):
        out.append(text[i:m.start()])
        where.extend(range(i, m.start()))
        unit = SHARES[m.group(1)]
        out.append(m.group(2) + unit)
        where.append(m.start())  # the figure's first character stands where the share word began…
        where.extend(range(m.start(2) + 1, m.end(2)))
        where.extend([m.end() - 1] * len(unit))  # …and its unit where the figure ends
        i = m.end()
    out.append(text[i:])
    where.extend(range(i, len(text)))
    where.append(len(text))
    return "".join(out), tuple(where)
_TO_BASE = {str(u): (str(d[0]), float(Fraction(str(d[1])))) for u, d in VALUES["dimensions"].items()}
_DATE_DIM = _TO_BASE[DATE_UNIT][0]  # the dimension of a calendar date (dictionaries/units.yaml dimensions)
_CALENDAR_DIMS = ("days", "hours")  # months and years are not whole numbers of days: near figures are not compared
_NOT_CALENDAR = frozenset(str(u) for u in VALUES.get("not_calendar_days") or ())  # dictionaries/units.yaml


def _base(n: float, unit: str) -> Optional[tuple[str, float]]:
    if unit not in _TO_BASE:
        return None
    dim, f = _TO_BASE[unit]
    return dim, n * f


def range_conditions(text: str) -> list[tuple[str, float, float, bool, tuple[int, int]]]:
    """Numeric conditions in ``text``: (dimension, low, high, high_inclusive, span)."""
    out = []
    taken: list[tuple[int, int]] = []
    dated = _date_conditions(text)
    text, where = close_figures(mask_long_numerals(text))  # bounded backtracking (issue 14); 满 2 年 as 满2年
    text, shares = _share_first(text)
    for rx, kind in _RANGES:
        for m in rx.finditer(text):
            if any(a <= m.start() < b for a, b in taken):
                continue
            u = m.group("u")
            if u == "分" and text[max(0, m.start("a" if "a" in kind else "b") - 1)] in _CLOCK_BEFORE:
                continue  # 8时30分至11时30分: minutes of a time of day, not points of a score
            a = _num(m.groupdict().get("a")) if "a" in kind else None
            b = _num(m.groupdict().get("b")) if "b" in kind else None
            u2 = m.groupdict().get("u2") or u
            if a is not None and signed_dimension(u):
                a *= sign_before(text, m.start("a"))
            if b is not None and signed_dimension(u2):
                b *= sign_before(text, m.start("b"))
            lo = _base(a, u) if a is not None else None
            if lo and ">" in kind:
                lo = (lo[0], math.nextafter(lo[1], math.inf))
            hi = _base(b, u2) if b is not None else None
            dim = (lo or hi or (None, 0))[0]
            if dim is None:
                continue
            out.append((dim, lo[1] if lo else -math.inf, hi[1] if hi else math.inf, kind.endswith("="),
                        span_back(where, span_back(shares, m.span()))))
            taken.append(m.span())
    return out + dated


def _same(a: float, b: float) -> bool:
    return a == b or abs(a - b) < 1e-6


def _figures(quantities: list[dict], dims: set[str]) -> list[tuple[str, float]]:
    """The question's figures as (dimension, value in its base unit); a figure said without its unit (预算80万) is
    read in the one dimension of the conditions it is compared with (``dims``: 30万元（含）至200万元 → 元), unless
    that is a date or a length of time."""
    out = []
    for q in quantities:
        b = _base(float(q["number"]), q["unit"])
        # a bare figure is no day, and no length of time (30万的奖金 against 一年内…的: time is said with its unit)
        if b is None and not q["unit"] and len(dims) == 1 and _DATE_DIM not in dims and not dims & set(_CALENDAR_DIMS):
            b = (next(iter(dims)), float(q["number"]))
        if b is not None:
            out.append(b)
    return out


def value_in_question(query: Query, value: Optional[dict]) -> bool:
    """Is the value's figure one the question gives itself (满2年, 25A量程)? The same number in another unit is
    another figure (查一次 does not give 每季度 as 1 季度)."""
    v = (value or {}).get("number")
    if not isinstance(v, (int, float)):
        return False
    v_unit = canonical_unit(str((value or {}).get("unit") or ""))
    return any(isinstance(q.get("number"), (int, float)) and float(q["number"]) == float(v)
               and (not v_unit or not q.get("unit") or canonical_unit(str(q["unit"])) == v_unit)
               for q in query.constraints.get("quantities") or [])


def condition_match(question_quantities: list[dict], text: str, question_ranges: Optional[list] = None,
                    nearest: bool = False) -> float:
    """+1 when the question's condition fits a condition of ``text``, -1 when it contradicts it, else 0.

    A question range (满3年不满5年) must equal a range of the text; a question quantity
    (工作了12年) must fall inside one. Only conditions of the same dimension (time, age, money…) count.
    With ``nearest`` (``text`` ends at a value), only the last condition of each dimension counts: it governs
    the value (10 km 以内 50 元/次，超过 10 km 的每公里加收 3 元: 超过 10 km decides for 3 元).
    """
    if not question_quantities and not question_ranges:
        return 0.0
    conds = range_conditions(text)
    if not conds:
        return 0.0
    if nearest:
        last: dict[str, tuple] = {}
        for c in conds:
            if c[0] not in last or c[4][1] > last[c[0]][4][1]:
                last[c[0]] = c
        conds = list(last.values())
    best = 0.0
    for qdim, qlo, qhi, _, _ in question_ranges or []:
        for cdim, lo, hi, incl, _ in conds:
            if cdim != qdim:
                continue
            if _same(lo, qlo) and _same(hi, qhi):
                return 1.0
            if qhi == float("inf"):
                # 工作满15年了 states where the asker is, not a tier: it must fall inside the provision's one
                inside = lo <= qlo and (qlo <= hi if incl else qlo < hi)
                best = max(best, 1.0) if inside else min(best, -1.0) if best <= 0 else best
                continue
            if hi <= qlo or lo >= qhi:
                best = min(best, -1.0) if best <= 0 else best
    for dim, v in _figures(question_quantities, {c[0] for c in conds}):
        for cdim, lo, hi, incl, _ in conds:
            if cdim != dim:
                continue
            inside = lo <= v and (v <= hi if incl else v < hi)
            best = max(best, 1.0) if inside else min(best, -1.0) if best <= 0 else best
    return best


# --- polarity for yes/no ----------------------------------------------------------
def polarity_of(text: str) -> Optional[bool]:
    """True for a permissive/obligatory provision, False for a prohibition, None if neither."""
    neg = CUES.rx("modal.negative").search(text)
    pos = CUES.rx("modal.positive").search(text)
    if neg and (not pos or neg.start() <= pos.start() + 2):
        return False
    if pos:
        return True
    return None


def negated_statement(text: str) -> bool:
    """A plain negation that decides a provision with no modal: a negator word (``negation.plain``) before a
    verb, in a clause that does not state a condition (…期间不计算为工作年限 → no; 未缴纳的，… is a condition)."""
    negators = set(CUES.words("negation.plain"))
    cond = CUES.rx("clause.condition_end")
    for part in CUES.rx("clause.split").split(text):
        part = part.strip()
        if not part or cond.search(part):
            continue
        words = [w for w in cut(part) if w.strip()]
        for i, w in enumerate(words[:-1]):
            if w not in negators:
                continue
            nxt = words[i + 1]
            if (pos_tag(nxt) or "").startswith("d") and i + 2 < len(words):
                nxt = words[i + 2]  # 不自动纳入, 不再收取: an adverb between
            if (pos_tag(nxt) or "").startswith("v"):
                return True
    return False


@dataclass(frozen=True)
class ExtractSettings:
    """Knobs of stage 3."""

    anchors_tried: int = 20  # the ranked anchors plus the cue anchors appended after them
    window_before: int = 2
    window_after: int = 3
    min_coverage: float = 0.45   # share of the question's term weight the evidence must contain
    # a value question's extraction whose figure is one the asker gave (25A量程的芯片在105℃下能过多少电流 → 25A) reads
    # the asker's condition as the answer: it ranks this much lower, so that another reading (the 105℃ row's
    # 20A) comes first; alone, it still goes to the gate, which weighs it (verify "value_in_question")
    asked_figure_penalty: float = 0.5


@dataclass
class Found:
    """An extraction candidate before it becomes an Answer."""

    value: dict
    answer: str
    method: str
    anchor: Anchor
    evidence: list[tuple[Block, Sentence, str, str]]  # (block, sentence, title, source)
    score: float
    reasons: list[str]
    coverage: float = 0.0
    exact: bool = False  # matched the question's own words exactly (a named document): no coverage gate
    rank: int = 0  # the rank of its anchor among stage 2's anchors
    refused: str = ""  # why the gate refused it: "identifier" (a model number the question names is missing), "named"
    similarity: str = ""  # the gate's meaning check under the coverage bar, in words (empty: not made)


# --- strategies: registered components (spaCy-registry style) -----------------------------
StrategyFn = Callable[["Extractor", Query, Anchor], Optional["Found"]]
STRATEGY_REGISTRY: dict[str, StrategyFn] = {}


def strategy(name: str) -> Callable[[StrategyFn], StrategyFn]:
    """Register an extraction strategy under ``name``; rules/strategies.yaml says which question types
    try which strategies, in which order."""
    def deco(fn: StrategyFn) -> StrategyFn:
        if name in STRATEGY_REGISTRY:
            raise ValueError(f"strategy {name!r} is registered twice")
        STRATEGY_REGISTRY[name] = fn
        return fn
    return deco


register_schema("strategy_plan", {
    "qtype": Field((str,), True, "the question type this plan serves"),
    "strategies": Field((list,), True, "registered strategy names, tried in order (see STRATEGY_REGISTRY)"),
    "fallback": Field((list,), False, "strategies tried only when none of `strategies` extracts anything from any "
                                      "anchor (quoting the provision when no typed template fits)"),
}, check=lambda r: next((f"strategy {x!r} is not registered; choose from {sorted(STRATEGY_REGISTRY)}"
                         for x in (r.get("strategies") or []) + (r.get("fallback") or [])
                         if x not in STRATEGY_REGISTRY), None))


class Extractor:
    """Stage 3: apply templates around anchors; pick the best grounded extraction."""

    def __init__(self, store: Store, rules: RuleSet, settings: Optional[ExtractSettings] = None,
                 kinds: Optional[AnswerKindGrammar] = None) -> None:
        self.store = store
        self.rules = rules
        self.settings = settings or ExtractSettings()
        self._lock = threading.Lock()
        self._version = -1
        self._templates: list[Template] = []
        self._weak: set[str] = set()
        self.kinds = kinds or AnswerKindGrammar(rules)  # the analyzer's, when the orchestrator builds both
        self._kind_only_units: frozenset[str] = frozenset()
        self._plans: dict[str, list[str]] = {}
        self._plans_version = -1
        self._cues_version = -1
        self._cues: Optional[Cues] = None
        self._citing_cache: dict[tuple, list] = {}  # (doc, article, store generation) -> sentences citing it

    def templates(self) -> list[Template]:
        if self._version != self.rules.version:
            with self._lock:
                units = self.kinds.measure_units()
                self._templates = compile_templates(self.rules.get("template"), units)
                self._kind_only_units = frozenset(canonical_unit(u) for u in units) - _BASE_MEASURE_UNITS
                self._weak = {t.id for t in self._templates if t.priority < 50}
                self._version = self.rules.version
        return self._templates

    # --- context ------------------------------------------------------------
    def list_items(self, block: Block) -> tuple[Optional[Block], list[Block]]:
        """For a lead paragraph ending in '：' (or a list item): the lead and its list items."""
        if block.type == "list_item":
            sib = self.store.doc_blocks(block.doc_id, max(0, block.order - 40), block.order + 40)
            lead = None
            for b in reversed([b for b in sib if b.order < block.order]):
                if b.type != "list_item":
                    lead = b
                    break
            start = lead.order + 1 if lead else block.order
            items = []
            for b in sib:
                if b.order < start:
                    continue
                if b.type != "list_item":
                    if b.order > block.order:
                        break
                    continue
                items.append(b)
            return lead, items
        if not re.search(r"[：:]\s*$", block.text) and not CUES.rx("list.lead").search(block.text):
            return None, []
        after = self.store.doc_blocks(block.doc_id, block.order + 1, block.order + 40)
        items = []
        for b in after:
            if b.type != "list_item":
                break
            items.append(b)
        return block, items

    def _following_items(self, anchor: Anchor, limit: int = 12) -> list[tuple[Block, Sentence]]:
        """The items a lead sentence ending in '：' introduces: the sentences after it in its block, else (the lead
        ends its block) the list items that follow the block."""
        block = anchor.candidate.block
        after = [x for x in split_sentences(block.text) if x.start > anchor.sentence.start]
        if after:
            return [(block, x) for x in after[:limit]]
        if block.type != "list_item":
            items = self.list_items(block)[1]
        else:  # 8.1 …除外： then （1）…；（2）…: the items of another marker style, up to the next 8.2
            items = []
            style = _marker_style(block.text)
            for b in self.store.doc_blocks(block.doc_id, block.order + 1, block.order + 1 + limit):
                if b.type != "list_item" or not _marker_style(b.text) or _marker_style(b.text) == style:
                    break
                items.append(b)
        return [(b, x) for b in items[:limit] for x in split_sentences(b.text)[:1]]

    # --- main ---------------------------------------------------------------
    def run(self, query: Query, anchors: list[Anchor]) -> Optional[Found]:
        """The best extraction over the anchors, or None."""
        ranked = self.ranked(query, anchors, 1)
        return ranked[0] if ranked else None

    def ranked(self, query: Query, anchors: list[Anchor], limit: int = 3, fallback: bool = True) -> list[Found]:
        """The best extractions over the anchors, best first: at most ``limit``, one per evidence sentence
        (the gate takes the first that passes it). With ``fallback``, when no strategy of the plan fits any
        anchor, the plan's fallback strategies (quoting the provision) are tried."""
        out = self._extractions(query, anchors, [STRATEGY_REGISTRY[name] for name in self.plan(query.qtype)])
        if not out and fallback:
            out = self._extractions(query, anchors, [STRATEGY_REGISTRY[name] for name in self.fallback(query.qtype)])
            # a table row is a record, not a provision: quoting one (名称：…；位定义：0-7) answers nothing by itself
            out = [f for f in out if f.anchor.candidate.block.type != "table"]
            for f in out:
                f.reasons.append(_FALLBACK)
        out.sort(key=lambda f: -f.score)  # stable: of equal scores, the earlier anchor first
        kept: list[Found] = []
        seen: set = set()
        for f in out:
            key = (f.anchor.candidate.block.block_id, f.anchor.sentence.start)
            if key in seen:
                continue
            seen.add(key)
            kept.append(f)
            if len(kept) >= limit:
                break
        return kept

    def _extractions(self, query: Query, anchors: list[Anchor], strategies: list[StrategyFn]) -> list[Found]:
        """Every extraction the strategies make from the anchors tried, scored with the anchor's score."""
        out: list[Found] = []
        if not strategies:
            return out
        for rank, anchor in enumerate(anchors[: self.settings.anchors_tried]):
            found = [f for f in (fn(self, query, anchor) for fn in strategies) if f is not None
                     and not (query.qtype in _PROVISION_TYPES and f.method.startswith("template:")
                              and f.method.split(":", 1)[1] in self._weak_ids())]  # a bare number: no 怎么办 answer
            computed = [f for f in found if (f.value or {}).get("computed")]
            if computed:  # 每满一年支付一个月 asked with 干了五年: the rate is not the answer, its product is
                found = computed
            if not found and query.qtype in _VALUE_TYPES:
                found = self._window(query, anchor)
            # a heading names a topic (2.15 发送串口数据, 第五章 法律责任); a value or a verdict read from headings
            # alone (2.15 as a decimal, 是 from a title) is not stated by the document
            found = [f for f in found if any(b.type != "heading" for b, _, _, _ in f.evidence)]
            for f in found:
                f.score += anchor.score - 0.05 * rank
                if query.qtype != "yesno" and value_in_question(query, f.value):
                    f.score -= self.settings.asked_figure_penalty
                    f.reasons.append(_ASKED_FIGURE)
                f.rank = rank
                out.append(f)
        return out

    def referenced(self, doc_id: str, m: "re.Match[str]") -> list[Block]:
        """The paragraph or items of the same document that a DEFERS match points at (第七十二条第二款 → its second
        paragraph; 第四十六条第四项、第五项 → those items; 第十条 → its first paragraph and its items)."""
        blocks = self.store.clause_blocks(doc_id, m.group(1))
        paragraphs = [b for b in blocks if b.type != "list_item"]
        items = [cn_number(x) for x in re.findall(r"第([一二三四五六七八九十\d]+)项", m.group(3) or "")]
        if items:
            return [b for b in blocks if b.type == "list_item" and _item_number(b.text) in items]
        if m.group(2):
            k = int(cn_number(m.group(2)[1:-1]) or 0)
            return paragraphs[k - 1:k] if 0 < k <= len(paragraphs) else []
        return paragraphs[:1] + [b for b in blocks if b.type == "list_item"]

    def cited_sentence(self, doc_id: str, label: str, terms: dict[str, float], exclude: str = ""
                       ) -> Optional[tuple[Block, Sentence]]:
        """The sentence of article ``label`` (same document) that holds most of ``terms`` by weight, or None
        when none holds any; block ``exclude`` (the citing one) is skipped."""
        options = [(b, x) for b in self.store.clause_blocks(doc_id, label)[:6] if b.block_id != exclude
                   for x in split_sentences(b.text)]
        scored = [(sum(w for t, w in terms.items() if t in x.text), i, b, x) for i, (b, x) in enumerate(options)]
        best = max(scored, key=lambda o: (o[0], -o[1]), default=None)  # ties: the first in the article
        return (best[2], best[3]) if best and best[0] > 0 else None

    def _window(self, query: Query, anchor: Anchor) -> list[Found]:
        """The anchor states the rule, the next sentence of its paragraph the figure (…应当在规定的期限内重新
        作出；未规定期限的，…期限为60日): values from the next two sentences, the anchor kept as evidence."""
        block = anchor.candidate.block
        sents = split_sentences(block.text)
        idx = next((i for i, x in enumerate(sents) if x.start == anchor.sentence.start), None)
        if idx is None:
            return []
        for step, nxt in enumerate(sents[idx + 1: idx + 3], start=1):
            shifted = Anchor(candidate=anchor.candidate, sentence=nxt, score=0.0, pattern=None, details={})
            f = self._s_templates(query, shifted)
            if f is None:
                continue
            f.anchor = anchor
            f.evidence = [self._ev(anchor)] + f.evidence
            f.answer = anchor.sentence.text + f.answer
            f.score -= 0.1 * step
            f.reasons.append(f"上下文窗口：锚点句后第{step}句给出数值")
            return [f]
        return []

    def plan(self, qtype: str) -> list[str]:
        """The strategies a question type tries, in order (rules/strategies.yaml); refreshes the cue words
        (rules/extract_cues.yaml) of a new rule version too."""
        if self._plans_version != self.rules.version:
            with self._lock:
                self._plans = {r["qtype"]: [str(x) for x in r["strategies"]] for r in self.rules.get("strategy_plan")}
                self._fallbacks = {r["qtype"]: [str(x) for x in r.get("fallback") or []]
                                   for r in self.rules.get("strategy_plan")}
                self._plans_version = self.rules.version
        self.cues()
        return self._plans.get(qtype, [])

    def fallback(self, qtype: str) -> list[str]:
        """The strategies a question type tries when its plan extracts nothing (rules/strategies.yaml)."""
        self.plan(qtype)
        return self._fallbacks.get(qtype, [])

    def cues(self) -> Cues:
        """The cue words of this rule set, compiled once per rule version (and made the module's)."""
        if self._cues_version != self.rules.version or CUES is not self._cues:
            with self._lock:
                self._cues = use_cues(self.rules)
                self._cues_version = self.rules.version
        return self._cues

    def _weak_ids(self) -> set[str]:
        """Templates too generic to answer a provision question on their own (priority < 50)."""
        self.templates()
        return self._weak

    def _ev(self, anchor: Anchor, block: Optional[Block] = None, sent: Optional[Sentence] = None):
        c = anchor.candidate
        return (block or c.block, sent or anchor.sentence, c.title, c.source)

    # quantity-like questions: templates on the anchor sentence
    def _matches(self, query: Query, sent: str) -> list[tuple[float, dict, tuple[int, int], Template, float]]:
        """(score, value, span, template, condition match) for every usable template match in ``sent``."""
        out = []
        # numbers inside conditional clauses (…不满三年的，) describe when, not what
        conds = [c[4] for c in range_conditions(sent) if _conditional(sent, c[4])
                 or CUES.rx("condition.who_follows").search(sent[c[4][1]:])] \
            if not CUES.rx("ask.bound").search(query.constraints.get("asked_clause") or query.text) else []
        kind = query.constraints.get("value_kind")
        kind_units = query.constraints.get("value_units") or []
        ordinal = _ordinal_end(_ordinal())
        multipart = is_multipart(query.text)
        until = CUES.rx("ask.until").search(query.constraints.get("asked_clause") or query.text) is not None
        deadline = CUES.rx("ask.deadline").search(query.constraints.get("asked_clause") or query.text) is not None
        calendar = [m.span() for m in CUES.rx("date.calendar").finditer(sent)]
        # a code question: a lead (…的 I2C 地址，对应关系如下：) names the kind of the codes that follow, not one of them,
        # and a pin, model or command the question names (接ADR脚时用哪个地址) is not the one it asks
        if kind == "code" and CUES.rx("list.lead_end").search(sent):
            return out
        named = query.text.lower() if kind == "code" else ""
        templates = self.templates()
        # a revision table's row in one sentence (修订前：…二十日…；修订后：…三十日…): the old column's figures are no
        # longer in force, unless the question asks about the text before the change
        revised = revision_labels(sent)
        if revised and asks_old_text(query.text):
            revised = []
        asked = {t.id for t in templates if t.asked_in(query.text)}
        asking = query.constraints.get("asked_clause") or query.text
        # the types an `exclusive` template asked in its form keeps for itself (多久…一次: duration → 每季度)
        kept = {x for t in templates if t.exclusive and t.id in asked for x in t.types}
        for t in templates:
            if (query.qtype not in t.types and kind not in t.also_kinds) or (t.value_kinds and kind not in t.value_kinds):
                continue
            if t.only_asked and t.id not in asked:
                continue  # a period answers only a question that asks how often, a clock range 什么时段
            if t.not_asked is not None and t.not_asked.search(asking):
                continue  # 哪一天发文: a year and month (2011年1月) names no day
            if kept.intersection(t.types) and not (t.exclusive and t.id in asked):
                continue  # 多久…一次 is not answered by the 保存期限四年 of the same provision
            for value, span in t.apply(sent):
                bare_ok = not value.get("unit") and not multipart and _focus_just_before(query, sent, span)
                # a template that serves only its own question form (什么时段 → 8时至18时) has had its unit asked
                if not t.only_asked and not _unit_ok(query, value, bare_ok=bare_ok):
                    continue
                if kind == "code" and value.get("unit") and value.get("kind") in ("number", "money", "measure"):
                    continue  # 下单填哪个型号: a figure with a unit of measure (1Mbps) is no code
                if revised and revision_column(revised, span[0]) == "old":
                    continue
                if value.get("kind") in ("duration", "number", "money", "count") and \
                        ordinal.search(sent, max(0, span[0] - 1), span[0]):
                    continue  # 第二年, 第三项: an ordinal names which one, it is no quantity
                if value.get("unit") in self._kind_only_units and value["unit"] not in kind_units:
                    continue  # 12位, 8字节: units the answer-kind grammar adds count only when the question asks them
                if any(a <= span[0] < b or a < span[1] <= b for a, b in conds) and t.builder != "range":
                    continue  # a number inside a condition (…不满三年的) is not the answer
                if not grounded(_clause_at(sent, span), sent):
                    continue
                if named and value.get("text") and value["text"].lower() in named:
                    continue  # the question's own identifier (above)
                if value.get("kind") == "duration" and any(a <= span[0] < b for a, b in calendar):
                    continue  # 2025年3月6日: neither 2025年 nor 6日 is a length of time
                if value.get("kind") == "date" and until and not CUES.rx("says.until").search(_clause_at(sent, span)):
                    continue  # 有效期到哪天: a signature or issue date (某镇人民政府2025年3月6日) is no end
                if value.get("kind") == "date" and deadline and _DATE_START.match(sent, span[1]):
                    continue  # 最迟哪天交: a date something starts from (2029年1月1日以后) is no deadline
                if _direction_conflict(query.text, _clause_at(sent, span)):
                    continue  # 上限 asked, 不得低于 stated (or the other way round)
                if _share_of_focus(query, sent, span, value):
                    continue  # 租金多少 asked, 月租金的5% stated: a share of the asked amount is not the amount
                before = _clause_before(sent, span)
                cm = condition_match(query.constraints.get("quantities") or [], before, query.constraints.get("ranges"),
                                     nearest=True)
                score = t.priority / 100.0 + _proximity(query, sent, span) + 0.8 * cm + _grade_match(query.text, before)
                if t.id in asked:
                    score += 0.1  # the question asks in this template's form (多长时间内 → …日内)
                score += _focus_link(query, sent, span)
                out.append((score, value, span, t, cm))
        out.sort(key=lambda x: -x[0])
        return out

    @strategy("templates")
    def _s_templates(self, query: Query, anchor: Anchor) -> Optional[Found]:
        sent = anchor.sentence.text
        matches = self._matches(query, sent)
        if not matches:
            return self._item_value(query, anchor)
        if CUES.rx("ask.total").search(query.constraints.get("asked_clause") or query.text):
            if not CUES.rx("says.total").search(sent):
                # 一共多少天: one addend is not the total, and we do not add up provisions (a total the question
                # states in its situation, 公司一共资助了我3万元，…, is not asked)
                return None
            # 8400元×12个月=100,800.00元: the figure the sentence states as the total (after =, 合计…) comes first
            before = CUES.rx("total.before_figure")
            matches = sorted(matches, key=lambda m: not before.search(sent[max(0, m[2][0] - 8):m[2][0]]))
        elif len(matches) > 1:
            # 最多能取多少毫升 of 一般为三百毫升，最多不超过六百毫升: the figure stated as the asked bound comes first
            i = _bound_first(query, sent, [m[2] for m in matches])
            matches = [matches[i]] + matches[:i] + matches[i + 1:]
        score, value, span, t, cm = matches[0]
        clause = _clause_at(sent, span)
        evidence = [self._ev(anchor)]
        # the answer quotes the whole provision sentence, so qualifications (但最高不得超过…) stay with the value
        answer = _answer_text(query, value, clause) if value.get("kind") == "count" else sent
        values = [value]
        # a tiered provision (…不满一年的，…；…两年以上不满五年的，…) asked without the
        # condition that picks a tier: give every tier rather than the first one
        before = _clause_before(sent, (span[0], span[0]))  # up to the value: the value is no condition
        tiered = (bool(CUES.rx("condition.tier_break").search(before)) and bool(range_conditions(before))
                  and not query.constraints.get("quantities") and not query.constraints.get("ranges"))
        multipart = is_multipart(query.text)
        same = [(span, value)]  # 电压的范围为[9,36]，电流的范围为[0,3]: several values in one sentence
        if multipart:
            for sc, v, sp, t2, _ in matches[1:]:
                if t2.id == t.id and sc >= 0.5 and all(sp[1] <= a or sp[0] >= b for (a, b), _ in same):
                    same.append((sp, v))
            same.sort(key=lambda x: x[0][0])
        if multipart or tiered:
            block = anchor.candidate.block
            for other in split_sentences(block.text):
                if other.start == anchor.sentence.start or len(values) >= 4:
                    continue
                more = self._matches(query, other.text)
                if more and more[0][0] >= 0.5 and _grade_match(query.text, _clause_before(other.text, more[0][2])) >= 0:
                    evidence.append(self._ev(anchor, block, other))
                    values.append(more[0][1])
            if len(values) == 1:  # the other part may sit in the next or previous article
                for nb in self.store.doc_blocks(block.doc_id, block.order - 2, block.order + 3):
                    if nb.block_id == block.block_id or nb.type == "heading":
                        continue
                    for other in split_sentences(nb.text):
                        shared = [t for t in query.weights
                                  if any(x in other.text and x not in sent for x in [t] + query.expansions.get(t, []))]
                        more = self._matches(query, other.text)
                        if more and more[0][0] >= 0.5 and shared and len(values) < 3 and \
                                _render(more[0][1]) not in [_render(v) for v in values] and \
                                _grade_match(query.text, _clause_before(other.text, more[0][2])) >= 0:
                            evidence.append(self._ev(anchor, nb, other))
                            values.append(more[0][1])
            if len(values) > 1:  # document order, each value with its sentence
                pairs = sorted(zip(evidence, values), key=lambda p: (p[0][0].order, p[0][1].start))
                evidence, values = [p[0] for p in pairs], [p[1] for p in pairs]
                answer = "".join(e[1].text for e in evidence)
        if len(same) > 1:
            i = next(i for i, e in enumerate(evidence) if e[0] is anchor.candidate.block and e[1].start == anchor.sentence.start)
            values = values[:i] + [v for _, v in same] + values[i + 1:]
        reasons = [f"匹配模式：{t.id}", f"识别值：{'；'.join(_render(v) for v in values)}"]
        if cm > 0:
            reasons.append("条件匹配：问题中的数量落在该条件范围内")
        rendered = list(dict.fromkeys(_render(v) for v in values))  # 20工作日 twice is one value
        if len(rendered) > 1 and multipart:
            score += 0.3  # the question asks for several values and this answer has them
        out_value = value if len(rendered) == 1 else {"kind": "list", "items": rendered}
        return Found(value=out_value, answer=answer, method=f"template:{t.id}", anchor=anchor, evidence=evidence,
                     score=score, reasons=reasons)

    def _item_value(self, query: Query, anchor: Anchor) -> Optional[Found]:
        """A lead with no value of its own (…并按照下列规定进行清洗维护：): the value of the item the asked situation falls
        under ((二)中型餐饮服务经营者每1个月至少清洗一次), with the lead and the item as evidence."""
        block = anchor.candidate.block
        if block.type == "list_item" or not (CUES.rx("list.lead_end").search(anchor.sentence.text)
                                             or CUES.rx("list.colon_end").search(anchor.sentence.text)):
            return None
        lead, items = self.list_items(block)
        if lead is None or len(items) < 2:
            return None
        picked = _asked_item(query, lead, items)
        if picked is None:
            return None
        best, fitness = picked
        matches = self._matches(query, best.text)
        if not matches:
            return None
        score, value, span, t, cm = matches[0]
        c = anchor.candidate
        item = Sentence(best.text, 0, len(best.text))
        return Found(value=value, answer=f"{anchor.sentence.text}{best.text}", method=f"template:{t.id}", anchor=anchor,
                     evidence=[self._ev(anchor), (best, item, c.title, c.source)], score=score - 0.1 + 0.2 * fitness,
                     reasons=[f"匹配模式：{t.id}（列表项 {best.meta.get('label', '')}）", f"识别值：{_render(value)}"])

    @strategy("list")
    def _s_list(self, query: Query, anchor: Anchor) -> Optional[Found]:
        block = anchor.candidate.block
        lead, items = self.list_items(block)
        if len(items) < 2:
            return None
        if query.qtype == "exception" and not CUES.rx("exception.lead").search((lead or block).text):
            return None  # a list answers 哪些…除外/不适用 only when its lead states the exception
        if block.type == "list_item" and lead is not None and query.qtype in ("condition", "procedure"):
            found = self._matching_items(query, anchor, lead, items)
            if found is not None:
                return found
        texts = [_item_text(b.text) for b in items]
        lead_block = lead or block
        lead_sent = split_sentences(lead_block.text)[-1] if lead_block.text else anchor.sentence
        ev = [(lead_block, lead_sent, anchor.candidate.title, anchor.candidate.source)]
        ev += [(b, Sentence(b.text, 0, len(b.text)), anchor.candidate.title, anchor.candidate.source) for b in items]
        answer = "；".join(texts)
        score = 0.8 + (0.5 if query.qtype in ("list", "condition", "exception") else 0.0)
        return Found(value={"kind": "list", "items": texts}, answer=answer, method="strategy:list.items",
                     anchor=anchor, evidence=ev, score=score,
                     reasons=[f"匹配模式：list.items（{len(items)} 项）"])

    def _matching_items(self, query: Query, anchor: Anchor, lead: Block, items: list[Block]) -> Optional[Found]:
        """A long list whose lead does not say what is asked (（一）年龄条件：1.申请小型汽车…；4.申请大型
        客车…): the answer is the items that name the asked subject, not the whole list."""
        total = sum(query.weights.values()) or 1.0
        cls = query.constraints.get("named_class")  # zentra水泵: the product's documents speak of its 水泵
        named = cls if cls and lead.doc_id in (query.constraints.get("doc_ids") or []) else ""

        general = named + lead.text  # what every item shares: the lead (and the named product)
        # an item under a sub-lead (（二）轮船：) is read with it
        heads: list[Optional[Block]] = []
        head = None
        for b in items:
            heads.append(head)
            if re.search(r"[：:]\s*$", b.text):
                head = b

        def distinct(i: int) -> float:
            """The question's weight this item (with its sub-lead) adds to what the lead already says."""
            text = (heads[i].text if heads[i] else "") + items[i].text
            return _added_weight(query, text, general) / total + phrase_bonus(query, text)

        shares = [distinct(i) for i in range(len(items))]
        top = max(shares)
        best = [i for i, sh in enumerate(shares) if sh >= top - 1e-6 and not re.search(r"[：:]\s*$", items[i].text)]
        if top < 0.2 or not best or len(best) > 3 or len(best) * 2 > len(items):
            return None  # no item stands out: the whole list answers
        if any(_restates_question(query.text, items[i].text) for i in best):
            return None  # the item is the question's own premise (…暂停的供货合同，遇到哪些情形会解除), not its answer
        if query.qtype == "procedure" and len(best) == 1:
            # a step is followed by the next ones ((六)…书面通知本人；(七)…归入档案): keep up to two more
            best += [i for i in range(best[0] + 1, min(best[0] + 3, len(items)))
                     if not re.search(r"[：:]\s*$", items[i].text)]
        c = anchor.candidate
        texts = [_item_text(items[i].text) for i in best]
        lead_sent = split_sentences(lead.text)[-1] if lead.text else anchor.sentence
        ev = [(lead, lead_sent, c.title, c.source)]
        for i in best:
            h = heads[i]
            if h is not None and all(e[0] is not h for e in ev):
                ev.append((h, Sentence(h.text, 0, len(h.text)), c.title, c.source))
            ev.append((items[i], Sentence(items[i].text, 0, len(items[i].text)), c.title, c.source))
        value = {"kind": "text", "text": texts[0]} if len(texts) == 1 else {"kind": "list", "items": texts}
        score = 0.8 + (0.5 if query.qtype == "condition" else 0.0)  # as list.items scores the whole list
        return Found(value=value, answer="；".join(texts), method="strategy:list.matching", anchor=anchor,
                     evidence=ev, score=score,
                     reasons=[f"匹配模式：list.matching（{len(best)}/{len(items)} 项点到所问对象）"])

    @strategy("count_items")
    def _s_count_items(self, query: Query, anchor: Anchor) -> Optional[Found]:
        f = self._s_list(query, anchor)
        if f is None or not CUES.rx("list.classifying").search(f.evidence[0][1].text):
            return None  # items count only when the lead says it classifies (分为/包括下列…)
        n = len(f.value["items"])
        cls = _asked_classifier(query.text)
        f.value = {"kind": "count", "number": n, "items": f.value["items"]}
        f.answer = f"{n}{cls}：" + f.answer
        f.method = "strategy:count.items"
        f.score = 0.7
        return f

    @strategy("yesno")
    def _s_yesno(self, query: Query, anchor: Anchor) -> Optional[Found]:
        found = self._yesno_reading(query, anchor)
        if found is None or not found.method.endswith((".modal", ".near", ".item")):
            return found
        if CUES.rx("yesno.asked_prohibition").search(query.text):
            # 是不是不准钓鱼: asked whether the act is forbidden, so a provision that forbids it says yes
            return _set_reading(found, not found.value["value"], "问题问的是是否禁止：条文禁止即为「是」，允许即为「否」")
        if (m := CUES.rx("yesno.asked_negation").search(query.text)) is not None:
            return _asked_negation(query, found, m)
        return found

    def _yesno_reading(self, query: Query, anchor: Anchor) -> Optional[Found]:
        sent = anchor.sentence.text
        if anchor.candidate.block.type != "list_item":
            if CUES.rx("list.lead_end").search(sent):
                return self._yesno_items(query, anchor)
            if CUES.rx("list.colon_end").search(sent) and (found := self._yesno_items(query, anchor)) is not None:
                return found  # 公司标识不得用于：（一）广告… — a lead without 下列, read as one when items follow
        elif (lead := self.list_items(anchor.candidate.block)[0]) is not None and \
                CUES.rx("list.colon_end").search(lead.text) and len(_held_terms(query, lead.text)) >= 2 \
                and (found := self._yesno_items(query, anchor)) is not None:
            # an item of a list (（一）公司董事长…): its lead (…无须出具授权书：) decides, when the lead speaks of the
            # asked matter (two of the question's words), not of another (职工的亲属…，应当回避：)
            return found
        slot = _slot_verdict(query, sent)
        if slot is not None:  # 是不是以英文版为准 / …以中文版为准: the provision fills the asked frame otherwise
            yes, asked, said = slot
            return Found(value={"kind": "boolean", "value": yes}, answer=f"{_yesno_word(yes)}。依据：{sent}",
                         method="strategy:yesno.slot", anchor=anchor, evidence=[self._ev(anchor)], score=1.2,
                         reasons=[f"同一表述的填充：问题为「{asked}」，条文为「{said}」"])
        sanction = self._yesno_sanction(query, anchor)
        if sanction is not None:
            return sanction
        only = CUES.rx("yesno.asked_only").search(query.text)
        if only is not None:  # 是不是只能用X？ / 仅X支持: the provision restricts the act to the same X
            x = only.group("x").lower()
            for m in CUES.rx("yesno.says_only").finditer(sent):
                y = m.group("y").lower()
                if len(x) >= 2 and (y.startswith(x) or (len(y) >= 2 and x.startswith(y))):
                    return Found(value={"kind": "boolean", "value": True}, answer=f"是。依据：{sent}",
                                 method="strategy:yesno.only", anchor=anchor, evidence=[self._ev(anchor)], score=1.1,
                                 reasons=[f"问题问是否只限于「{only.group('x')}」，条文限定为「{m.group(0)}」"])
        years = set(query.constraints.get("years") or ())  # a year the question names (the version asked): no length of time
        figures = [q for q in _unquoted(query.text, query.constraints.get("quantities") or [])
                   if not (isinstance(q["number"], int) and str(q["number"]) in years)]
        limit = _limit_check(figures, sent, query.weights)
        cond = condition_match(query.constraints.get("quantities") or [], sent, query.constraints.get("ranges"))
        if limit is not None and (cond >= 0 or not limit[0]):
            # 可以约定两次试用期吗 vs 只能约定一次试用期: the number decides; a figure past the limit that also falls
            # outside the provision's range (两个月 / 应在30日内整改完毕) is a no either way
            ok, why = limit
            return Found(value={"kind": "boolean", "value": ok}, answer=f"{_yesno_word(ok)}。依据：{sent}",
                         method="strategy:yesno.limit", anchor=anchor, evidence=[self._ev(anchor)],
                         score=1.3 + 0.5 * cond, reasons=[f"数量比较：{why}"])
        if _figure_unaddressed(query, sent):
            return None  # …保修三年，是吗: a provision without a length of time does not check the asked figure
        same = _stated_figure(query, sent) if cond >= 0 else None
        if same is not None:  # …质保期是否为6个月 / …质保期为12个月: the provision's own figure decides
            ok, why = same
            return Found(value={"kind": "boolean", "value": ok}, answer=f"{_yesno_word(ok)}。依据：{sent}",
                         method="strategy:yesno.figure", anchor=anchor, evidence=[self._ev(anchor)], score=1.2,
                         reasons=[f"数值核对：{why}"])
        if CUES.rx("list.colon_end").search(sent):
            return None  # a lead (…按以下时限整改：, 下列情况不属于保修范围：) says nothing by itself: its items decide
        asked = _asked_predicate(query.text)
        # 能否安排夜班劳动: the provision must speak of 安排夜班劳动, not of 安排哺乳时间; 还能再申请一次复核吗:
        # of 复核, not of 申请调解
        act = _asked_head(query, asked) if asked else ""
        clause = _asked_clause(query, sent, act)
        pol = polarity_of(clause)
        cm = condition_match(query.constraints.get("quantities") or [], sent, query.constraints.get("ranges"))
        if pol is None and CUES.rx("negation.lifted").search(clause):
            pol = True  # …申请仲裁不受…时效期间的限制: a restriction lifted permits
        elif pol is None and negated_statement(clause):
            pol = False  # …期间不计算为工作年限: a plain negation decides as a prohibition does
        if pol is None and cm == 0:
            return None
        stated = pol is not None  # a modal or a negation says yes or no, not only a met condition
        if pol is None:  # …30日内在境内出版的，视为同时出版: a consequence with no modal holds when its condition does
            pol = True
        said = _negated_synonym(query, clause) if pol is False else None
        if said is not None:
            pol = True  # 是免费的吗 / 备案不收取任何费用: the provision's negation is the asked word itself
        agreed = _negation_agrees(query, clause, pol, sent) if pol is not None else ""
        if agreed:
            # 没有发票，还能领补贴吗 / …无需提供发票: the provision denies what the question denies itself (yes);
            # …无需缩短，对吗 / …应缩短为一半: it requires what the question denies (no)
            pol = not pol
        yes = pol
        reasons = [f"模态：{'肯定' if pol else '否定'}"]
        if said is not None:
            reasons.append(f"条文的「{said[1]}」即所问的「{said[0]}」")
        if agreed:
            reasons.append(f"问题本身否定「{agreed}」，条文的{'否定与之一致' if pol else '肯定与之相反'}")
        left_out = _excepted(query, sent, clause)
        if left_out and stated:
            yes = not yes  # 除节假日外，不得营业 asked of a holiday: the provision leaves that case out
            reasons.append(f"问题所说的情形是条文的例外（除{left_out}外）")
        if cm < 0:
            yes = not yes
            reasons.append("条件不满足：问题中的数量不在该条件范围内")
        elif cm > 0:
            reasons.append("条件满足：问题中的数量落在该条件范围内")
        head = _yesno_word(yes)
        shared = longest_common(query.text, sent)
        if len(shared) < 3:
            # the provision must name what is asked about, not just share loose words: a run of three characters,
            # or three of the question's words (小区的空地…临时停车 / 小区空地…临时停放车辆)
            named = _held_terms(query, sent)
            if len(named) < 3:
                return None
            shared = "、".join(named[:3])
        near = ""  # the asked act in other words: a weak reading, left to the trained gate (never to the bar alone)
        if act and not _holds(query, act, sent):
            # 奖金资格还能保留吗 / …取消当季奖金资格: the provision does not state the asked act itself
            near = f"所问的「{act}」未见于条文"
        act_reason = f"所问的「{act}」见于条文" if act else ""
        if not near and asked and len(longest_common(asked, sent)) < min(4, len(asked)):
            # other words (合在一起办公 / 合署办公): the act in the modal clause and another asked word in the sentence
            others = [t for t, w in query.weights.items() if w > 0.3 and len(t) >= 2 and t in asked and t != act
                      and t not in act and _holds(query, t, sent)]
            verb = CUES.rx("yesno.verb_before_act").search(asked[:asked.rfind(act)]) if act else None
            if not others and verb and verb.group(1) in clause:
                others = [verb.group(1)]  # 可以养大型犬吗 / 禁止饲养…大型犬: the asked verb inside the clause's own
            if not (act and _holds(query, act, clause) and others):
                near = f"所问的「{asked}」与条文的说法只部分相同"
            else:
                act_reason = f"所问的「{act}」见于条文的模态分句，另有「{others[0]}」"
        if near and (not stated or cm != 0):
            # 取消当月全勤奖 for 还能保留吗, 满五千元的…上缴 for 能归个人所有吗: the asker's figure decides whether the
            # provision applies, and its consequence is another act (maybe the opposite of the asked one)
            return None
        if near:
            reasons += [f"共同表述：「{shared}」", near]
            return Found(value={"kind": "boolean", "value": yes}, answer=f"{head}。依据：{sent}",
                         method="strategy:yesno.near", anchor=anchor, evidence=[self._ev(anchor)],
                         score=0.3 + 0.25 * abs(cm), reasons=reasons)
        score = 0.6 + 0.5 * abs(cm) + 0.03 * min(len(shared), 12)
        reasons.append(f"共同表述：「{shared}」")
        if act_reason:
            reasons.append(act_reason)
        return Found(value={"kind": "boolean", "value": yes}, answer=f"{head}。依据：{sent}", method="strategy:yesno.modal",
                     anchor=anchor, evidence=[self._ev(anchor)], score=score, reasons=reasons)

    def _yesno_sanction(self, query: Query, anchor: Anchor) -> Optional[Found]:
        """会被罚款吗 / 会被判刑吗: yes when the provision that describes the asker's act imposes that kind of sanction
        (…的，处五十元以上二百元以下罚款); a waived or lightened sanction (不予处罚, 免除处罚) is left undecided."""
        m = CUES.rx("yesno.asked_sanction").search(query.text)
        if m is None:
            return None
        sent = anchor.sentence.text
        says = CUES.table("yesno.sanction_says").get(m.group("s"))
        if not says or CUES.rx("yesno.sanction_waived").search(sent):
            return None
        if CUES.rx("yesno.mitigation").search(query.text) and not CUES.rx("yesno.mitigation").search(sent):
            return None  # 第一次…马上改正了，会被罚款吗: a provision silent on such a case does not decide it
        hit = re.search("|".join(map(re.escape, says)), sent)
        if hit is None:
            return None
        shared = longest_common(query.text, sent[:hit.start()])
        named = _held_terms(query, sent[:hit.start()])
        if len(shared) < 3 and len(named) < 2:
            return None  # the act the sanction follows must be the asker's (its words before the sanction)
        return Found(value={"kind": "boolean", "value": True}, answer=f"是。依据：{sent}",
                     method="strategy:yesno.sanction", anchor=anchor, evidence=[self._ev(anchor)], score=1.0,
                     reasons=[f"所问的处罚「{m.group('s')}」见于条文：「{hit.group(0)}」",
                              f"条文所说的行为：「{shared if len(shared) >= 3 else '、'.join(named[:3])}」"])

    def _yesno_items(self, query: Query, anchor: Anchor) -> Optional[Found]:
        """…有下列情形之一的，视同工伤： — the answer is the item the asked situation falls under, if any."""
        lead, items = self.list_items(anchor.candidate.block)
        if len(items) < 2 or lead is None:
            return None
        picked = _asked_item(query, lead, items)
        if picked is None:
            return None  # no item clearly describes the asked situation: do not guess
        best, fitness = picked
        pol = polarity_of(lead.text)
        if pol is None:
            return None
        asked = _asked_predicate(query.text)
        head = _asked_head(query, asked) if asked else ""
        if head and not _holds(query, head, lead.text + best.text) and len(_held_terms(query, lead.text)) < 2:
            return None  # 申请仲裁免费吗 / 不予受理的情形: the list must speak of the asked act (or of two asked words)
        lead_sent = split_sentences(lead.text)[-1]
        c = anchor.candidate
        return Found(value={"kind": "boolean", "value": pol},
                     answer=f"{_yesno_word(pol)}。依据：{lead_sent.text}{best.text}", method="strategy:yesno.item",
                     anchor=anchor, evidence=[(lead, lead_sent, c.title, c.source),
                                              (best, Sentence(best.text, 0, len(best.text)), c.title, c.source)],
                     score=1.0 + fitness, reasons=[f"匹配模式：yesno.item（{best.meta.get('label', '')}）"])

    @strategy("threshold")
    def _s_threshold(self, query: Query, anchor: Anchor) -> Optional[Found]:
        """到什么程度: the provision's condition that holds a quantity (…余额低于首次缴纳额百分之二十的，应当补足), quoted
        with the consequence it leads to."""
        if not CUES.rx("ask.threshold").search(query.constraints.get("asked_clause") or query.text):
            return None
        sent = anchor.sentence.text
        ends = CUES.words("condition.clause_end")
        parts = re.split(r"([，,])", sent)
        cond = ""
        then = CUES.rx("condition.then")
        for i in range(0, len(parts), 2):
            clause = parts[i]
            cond += clause + (parts[i + 1] if i + 1 < len(parts) else "")
            if clause.endswith(ends) or (i + 2 < len(parts) and then.search(parts[i + 2])):
                break
        else:
            return None  # no clause of the sentence is a condition
        if not find_quantities(cond) and not range_conditions(cond):
            return None  # a condition without a figure says which case, not how far
        rest = sent[len(cond):]
        if not rest.strip("。；;"):
            return None  # nothing follows from the condition
        value = {"kind": "text", "text": cond.rstrip("，,")}
        # a bound the quantity must pass (…10%以上，且…超过五百万元的) says how far more than a window it falls in
        # (未来十二个月内…的): one step ahead per bound, two at most
        bounds = [r for r in range_conditions(cond) if not cond[:r[4][1]].endswith(CUES.words("condition.window_end"))]
        return Found(value=value, answer=sent, method="strategy:threshold", anchor=anchor,
                     evidence=[self._ev(anchor)], score=2.0 + 0.25 * min(len(bounds), 2),  # before any list or quote
                     reasons=[f"条件中的数量界限：「{value['text']}」"])

    @strategy("sentence")
    def _s_sentence(self, query: Query, anchor: Anchor) -> Optional[Found]:
        """Quote the anchor sentence (who/procedure/definition/exception answers are provisions)."""
        sent = anchor.sentence.text
        if _restates_question(query.text, sent):
            return None
        cue = CUES.rx("ask.exclusion").search(query.text)
        phrase = cue.group(0) + (query.text[cue.end():cue.end() + 2] if cue and cue.group(0) in
                                 CUES.words("ask.exclusion_takes_next") else "") if cue else ""
        if query.qtype == "exception" and cue and \
                not re.search(re.escape(phrase) + CUES.rx("ask.exclusion_tail").pattern, sent):
            # 哪些…不适用本条例 is answered by a sentence that says …，不适用本条例 (not 必须遵守本条例, nor
            # 对不予公开的内容说明理由, where the cue only qualifies a noun)
            return None
        if query.qtype == "definition" and not _defines(query, sent):
            return None  # a definition is quoted from a sentence that says what the term means, or opens with it
        if query.qtype == "code" and not _names_asked_code(query.text, sent):
            return None  # 显示E3是什么故障: a sentence that never names E3 says nothing about it
        block = anchor.candidate.block
        sents = split_sentences(block.text)
        idx = next((i for i, s in enumerate(sents) if s.start == anchor.sentence.start), 0)
        extra = ""
        evidence = [self._ev(anchor)]
        if query.qtype == "procedure":
            # a procedure goes on after its first step (…提出申请；…报乡（镇）人民政府审核批准): the rest of
            # the paragraph, up to four sentences, is part of the answer and of the evidence
            for nxt in sents[idx + 1: idx + 4]:
                extra += nxt.text
                evidence.append(self._ev(anchor, block, nxt))
        elif query.qtype in ("condition", "exception") and idx + 1 < len(sents):
            extra = sents[idx + 1].text
        answer = sent + extra
        return Found(value={"kind": "text", "text": answer}, answer=answer, method=f"strategy:{query.qtype}.sentence",
                     anchor=anchor, evidence=evidence, score=0.3, reasons=["匹配模式：引用条款原文"])

    @strategy("penalty")
    def _s_penalty(self, query: Query, anchor: Anchor) -> Optional[Found]:
        """违反…怎么罚: the anchor states the duty (电动自行车驾驶人应当佩戴安全头盔, its 第十七条), the penalty sits in
        another article that cites it (违反本条例第十七条…规定的，…处…罚款): that article's figure, with both
        sentences as evidence."""
        blk = anchor.candidate.block
        if not blk.clause or not CUES.rx("ask.penalty").search(query.text):
            return None
        for b, sent in self._citing(blk.doc_id, blk.clause):
            shifted = Anchor(candidate=Candidate(block=b, title=anchor.candidate.title, source=anchor.candidate.source,
                                                 score=anchor.candidate.score, breakdown={}),
                             sentence=sent, score=anchor.score, pattern=None, details={})
            f = self._s_templates(query, shifted)
            if f is None:
                continue
            f.evidence.append(self._ev(anchor))
            f.score -= 0.1
            f.reasons.append(f"罚则：{blk.clause}规定的义务，罚则见引用它的{b.clause or '条款'}")
            return f
        return None

    def _citing(self, doc_id: str, label: str) -> list[tuple[Block, Sentence]]:
        """The sentences of the document that cite article ``label`` as violated (违反本条例第十七条规定的…)."""
        key = (doc_id, label, self.store.generation)
        hit = self._citing_cache.get(key)
        if hit is not None:
            return hit
        out = []
        for b in self.store.doc_blocks(doc_id):
            if label not in b.text or b.clause == label:
                continue
            for sent in split_sentences(b.text):
                i = sent.text.find(label)
                if i < 0 or not CUES.rx("penalty.violation").search(sent.text[:i]):
                    continue
                # the part of the sentence that is about this article: from its 违反… to the next 违反
                start = sent.text.rfind(CUES.word("penalty.violation_word"), 0, i)
                nxt = sent.text.find(CUES.word("penalty.violation_word"), i)
                end = nxt if nxt > i else len(sent.text)
                part = sent.text[max(0, start):end]
                out.append((b, Sentence(part, sent.start + max(0, start), sent.start + end)))
        if len(self._citing_cache) > 256:
            self._citing_cache.clear()
        self._citing_cache[key] = out[:4]
        return out[:4]

    @strategy("enumeration")
    def _s_enumeration(self, query: Query, anchor: Anchor) -> Optional[Found]:
        """An enumeration inside the sentence (应当具备语音、大字、盲文等无障碍功能; 包括：名称、营业场所、负责人): its
        items, when they are three or more (two with 和/及/或 joining the last), as a list value with the sentence."""
        sent = anchor.sentence.text
        if COMPARE_ASK.search(query.text):
            return None  # a comparison of versions quotes each version's provision whole
        best = None
        for m in CUES.rx("enumeration.run").finditer(sent):
            items = [x for x in re.split(CUES.rx("enumeration.separator").pattern, m.group(0)) if x]
            if len(items) == 2 and (j := CUES.rx("enumeration.last_joined").search(items[-1])):
                # 为财务部门、法务部门及审计部门: two items by 、 and a third joined to the last by 及/和/或
                items = [items[0], items[1][:j.start()], items[1][j.end():]]
            # the asked enumeration is the one whose items the question does not already name (银行、医院 of 银行的
            # 自助取款机、医院的… are the setting; 语音、大字、盲文 the answer)
            new_items = sum(1 for x in items if x.strip() and x.strip()[-2:] not in query.text)
            # …and whose last item runs on into what the question asks about (…历史文化保护等方面的事项 / 哪些方面的事项)
            after = items[-1][-6:] + sent[m.end():m.end() + 6]
            linked = any(after[i:i + 2] in query.text for i in range(len(after) - 1))
            score = new_items + (3 if linked else 0)
            if len(items) >= 3 and (best is None or score > best[2]):
                best = (m, items, score)
        if best is None:
            return None
        m, items, _ = best
        lead = CUES.rx("enumeration.lead").search(items[0])
        if lead:  # 应当具备语音 → 语音: the words before the enumeration's verb are not its first item
            items[0] = items[0][lead.end():]
        tail = CUES.rx("enumeration.tail").search(items[-1])
        if tail:  # 盲文等无障碍功能 → 盲文
            items[-1] = items[-1][:tail.start()]
        items = [x.strip() for x in items if 1 <= len(x.strip()) <= 20]
        if len(items) < 3:
            return None
        clause = _clause_at(sent, m.span())
        return Found(value={"kind": "list", "items": items}, answer=sent if len(sent) <= 120 else clause,
                     method="strategy:list.enumeration", anchor=anchor, evidence=[self._ev(anchor)], score=0.5,
                     reasons=[f"匹配模式：list.enumeration（句内列举 {len(items)} 项）"])

    @strategy("table")
    def _s_table(self, query: Query, anchor: Anchor) -> Optional[Found]:
        """Row header × column header → cell: the rows whose key cell the question names (额定扭矩), the
        column the question names (or the value column), with the heading that says which table it is."""
        block = anchor.candidate.block
        header, rows = block.table_header or [], block.table_rows or []
        if block.type != "table" or not rows:
            return None
        plain = strip_asides(query.text)
        # C类人员 names the row printed C 类 (and C 类 the row C类); 排水泵的过滤器 the row 排水泵过滤器
        bare = _KEY_NOISE.sub("", plain)
        picked = []
        named_cols = _named_columns(header, plain)
        # 150英寸那款HS-150E有多重: a cell under a model the question names (HS-150E, a column per model) is one of that
        # model's values, which names the column, not a row
        by_figure: list[str] = []  # the cells that named the column (20升/日): their row joins the evidence
        if not named_cols:  # 20升那一款: the model whose column alone holds the asker's figure (20升/日)
            named_cols, by_figure = _figure_column(header, rows, query.constraints.get("quantities") or [])
        model_cols = {j for j in named_cols if _is_identifier(header[j])}
        for row in rows:
            keys = [c for j, (c, k) in enumerate((c, _KEY_NOISE.sub("", c)) for c in row)
                    if len(k) >= 2 and _key_in(k, bare) and not re.fullmatch(r"[\d.\s%]+", c) and j not in model_cols]
            if keys:
                picked.append((row, max(keys, key=len), len(set(keys))))
        # 输出2.8V、DFN-6封装的型号: the rows that hold more of the question's key cells than the others do
        most = max((n for _, _, n in picked), default=0)
        picked = [(row, key) for row, key, n in picked if n == most]
        focus = query.constraints.get("focus") or ""
        if len(picked) > 1 and len(focus) >= 2:
            # 25A量程的芯片在105℃环境温度下能过多少电流: 25A stands in the column of what is asked (最大连续电流: 电流),
            # so it is another row's value, not a key; 105℃ under 环境温度 is the row's key
            keyed = [(row, key) for row, key in picked if focus not in _column_header(header, row.index(key))]
            if keyed:
                picked = keyed
        if not picked and named_cols and all(j > 0 for j in named_cols):
            # RL-DH20A的水箱能装多少水: the column is named whole (a model), the row by part of its label (水箱 of
            # 水箱容积): the one row whose label shares the longest run (2+ characters) with the question
            rest = bare
            for j in named_cols:  # the model's own name (RL-DH30P) says nothing of the row
                rest = rest.replace(_KEY_NOISE.sub("", header[j]), " ")
            title = anchor.candidate.title or ""  # 除湿 of 那一款除湿机 names the product, not the row 额定除湿量
            # …and, between labels that share runs as long, the one holding more of the question in runs of two
            # characters or more (额定输入功率 holds 额定 and 功率 of 额定功率; 额定电压/频率 only 额定)
            shared = []
            for i, row in enumerate(rows):
                if not row:
                    continue
                label = _KEY_NOISE.sub("", row[0])
                run = longest_common(label, rest)
                shared.append(((0 if run in title else len(run), _runs_held(label, rest, title)), i))
            best = max((n for n, _ in shared), default=(0, 0))
            top = [i for n, i in shared if n == best]
            if best[0] >= 2 and len(top) == 1:
                picked = [(rows[top[0]], rows[top[0]][0])]
        by_words = False
        if not picked and not named_cols and query.qtype in _VALUE_TYPES and query.constraints.get("value_units"):
            # 灯光和电气这一块多少钱 over the row 灯光及电气工程: no key cell is written out whole, but one row's label holds
            # question words no other row's label holds (the asker's own way of naming the row); the kind of value
            # asked must be known, and the cell must be of that kind (below): a price table does not answer 分辨率多少
            picked = _row_by_words(query, rows, anchor.candidate.title or "", " ".join(block.section))
            by_words = bool(picked)
        by_number = False
        if not picked:  # 蜂鸣器响了6声 / 返回值为8时: a numeric key cell, the question's number under its header
            picked = _numeric_key_rows(plain, header, rows)
            by_number = bool(picked)
        by_range = False
        if not picked:  # 连着请5天假: the one row whose range (3天以上10天以内) holds the question's figure
            picked = _range_key_rows(query.constraints.get("quantities") or [], rows)
            by_number = by_range = bool(picked)
        if not picked or len(picked) > 4:
            return None
        if not (named_cols or by_number or query.qtype in _VALUE_TYPES):
            return None  # the row's figures answer a value question; another question must name the column
        lines = {s.text: s for s in block_sentences(block)}
        pieces, values, evidence, value_units = [], [], [], []
        columns: list[str] = []  # one row, several named columns: each column's cell (金额：750元；评奖比例：10%)
        other: list[str] = []  # the headers of the other cells a numeric key's row answers with
        for row, key in picked:
            # a named column that holds the row's key (在105℃环境温度下: 环境温度) names the row, not the value
            named_here = [j for j in named_cols if j >= len(row) or row[j] != key]
            if by_number and not named_here:  # the row's other cells (merged columns repeat one value)
                cols = [j for j, c in enumerate(row) if c and c != key]
                other = other or list(dict.fromkeys(_column_header(header, j) for j in cols))
            else:
                cols = named_here or _nearest_columns(header, plain, [j for j, c in enumerate(row) if re.search(r"\d", c)
                                                                      and c != key], row, query.qtype,
                                                      query.constraints.get("value_units") or ())
                if query.constraints.get("value_kind") == "code" and \
                        all(j < len(row) and not _asked_identifier(row[j], plain, shape=False) for j in named_cols):
                    # 下单时该写哪个料号: the row's one part-number cell the question does not name itself (封装是TQFP
                    # names the TQFP-48 cell, a key, not the asked code)
                    ids = [j for j, c in enumerate(row) if c and c != key and _asked_identifier(c, plain)]
                    if len(ids) == 1:
                        cols = ids
            cells = list(dict.fromkeys(row[j] for j in cols if j < len(row) and row[j] and row[j] != key))
            if not cells:
                continue
            cell = cells[-1] if not by_number else "、".join(cells)
            needles = [cell]
            multi = [f"{_column_header(header, j)}：{row[j]}" for j in named_cols if j < len(row) and row[j]
                     and row[j] != key] if len(named_cols) > 1 and len(picked) == 1 else []
            shown = named_cols
            if len(multi) < 2 and not named_cols and not by_number and len(picked) == 1 and len(cells) > 1 and \
                    len(units := {_cell_unit(c) for c in cells}) == 1 and None not in units:
                # 除湿机的水箱容积是多少 over one column per model (2.5升 | 4.0升 | 5.5升) and no model named: each
                # column's cell, not one column's as if it were the answer
                shown = [j for j in cols if j < len(row) and row[j] and row[j] != key]
                multi = [f"{_column_header(header, j)}：{row[j]}" for j in shown]
            if len(multi) > 1:  # 额定电压和额定电流分别是多少: each named column's cell
                columns, needles = multi, [row[j] for j in shown if j < len(row)]
                pieces.append(f"{key}：{'；'.join(multi)}")
            else:
                pieces.append(f"{_column_header(header, row.index(key))}{key}：{cell}" if by_number else f"{key}：{cell}")
            values.append(cell)
            value_units.append(_header_unit(_column_header(header, row.index(cell))) if cell in row else "")
            line = next((t for t in lines if key in t and all(x in t for x in needles)), None)
            if line:
                evidence.append(self._ev(anchor, block, lines[line]))
        if not values:
            return None
        if by_words and not all(_in_units(v, query.constraints.get("value_units") or (), u)
                                for v, u in zip(values, value_units)):
            return None
        for cell in by_figure:  # the row that says which model the asker means (额定除湿量…：20升/日)
            line = next((x for x in lines if cell in x), None)
            if line and all(e[1].text != line for e in evidence):
                evidence.insert(0, self._ev(anchor, block, lines[line]))
        # the heading that names the table's subject (3. KT-200 系列) goes into the evidence too
        for h in self.store.doc_blocks(block.doc_id, max(0, block.order - 40), block.order):
            if h.type == "heading" and h.text in block.section and any(t in h.text for t in query.weights):
                evidence.insert(0, self._ev(anchor, h, Sentence(h.text, 0, len(h.text))))
        value = {"kind": "list", "items": columns} if columns else \
            _cell_value(values[0], value_units[0]) if len(values) == 1 else {"kind": "list", "items": pieces}
        found = Found(value=value, answer="；".join(pieces), method="strategy:table.cell", anchor=anchor,
                     evidence=evidence or [self._ev(anchor)], score=TABLE_NAMED if named_cols else 1.2,  # row × named column: the most specific link
                     reasons=[f"匹配模式：table.cell（行：{'、'.join(k for _, k in picked)}；列：{'、'.join(header[j] for j in named_cols) or '、'.join(other) or '数值列'}）"])
        if by_range:  # the asker's figure chose the row: the reasoning says so
            found.reasons.append(f"按问题中的数量（{'、'.join(q['text'] for q in query.constraints.get('quantities') or [])}）所在区间选行")
        return found

    @strategy("code")
    def _s_code(self, query: Query, anchor: Anchor) -> Optional[Found]:
        """What a code means: the code from the question, then a separator and its meaning (E――风扇堵转)."""
        codes = _CODES.findall(query.text) + list(query.constraints.get("codes") or [])  # …and 错误码30603
        if query.constraints.get("value_kind") == "code" and not CUES.rx("ask.code_meaning").search(query.text):
            # 要SOP-8封装的那一款，型号怎么写: the codes it names are attributes of the asked one, not what it asks about
            return self._code_of_meaning(query, anchor)
        row = self._code_row(anchor, codes[-1]) if codes else None
        if row is not None:  # a table of codes (代码 | 故障名称 | 可能原因): the code's row, its next cell says what it means
            return row
        for code in codes[-1:]:  # the last code is the asked value (告警码为E: E); earlier ones name the field
            # E――风扇堵转, E07：过流, or an SDK's enum line (…Failed = 30603, // 权限验证失败)
            rx = re.compile(rf"(?<![A-Za-z0-9]){re.escape(code)}(?![0-9A-Za-z])\s*(?:――|——|—|－|-|：|:|=|表示|代表|,?\s*//)"
                            rf"\s*(?P<text>[^；;。\n，,/]{{2,40}})")
            for b, sent in self._code_list(anchor, numeric=code in (query.constraints.get("codes") or [])):
                m = rx.search(sent.text)
                if m:
                    return Found(value={"kind": "text", "text": m.group("text").strip(), "code": code},
                                 answer=m.group(0).strip(), method="strategy:code.meaning", anchor=anchor,
                                 evidence=[self._ev(anchor, b, sent)], score=0.9,
                                 reasons=[f"匹配模式：code.meaning（{code}）"])
        if query.constraints.get("value_kind") == "code" or (query.qtype == "code" and not codes):
            # 返回码为几 / 给出哪个值: the code is asked, by what it means
            return self._code_of_meaning(query, anchor)
        return None

    def _code_row(self, anchor: Anchor, code: str) -> Optional[Found]:
        """The row of a table of codes whose cell is ``code`` (| E3 | 制水超时 | …|), when the anchor is that row: the
        meaning is the row's next non-empty cell, read with its column's header."""
        block = anchor.candidate.block
        if block.type != "table" or not block.table_rows:
            return None
        header = block.table_header or []
        for row in block.table_rows:
            cells = [c.strip() for c in row]
            if code not in cells:
                continue
            i = cells.index(code)
            after = [(j, c) for j, c in enumerate(cells) if j > i and c and c != code]
            if not after or not all(c in anchor.sentence.text for c in cells if c):
                continue  # the anchor is another row of the table
            j, meaning = after[0]
            head = header[j] if j < len(header) else ""
            return Found(value={"kind": "text", "text": meaning, "code": code},
                         answer=f"{code}：{meaning}" if not head else f"{code}（{head}）：{meaning}",
                         method="strategy:code.meaning", anchor=anchor, evidence=[self._ev(anchor)], score=0.9,
                         reasons=[f"匹配模式：code.meaning（{code}，表格行）"])
        return None

    def _code_list(self, anchor: Anchor, numeric: bool = True) -> Iterator[tuple[Block, Sentence]]:
        """Where a code's entry is read: the anchor's sentence, then (for a numeric code, which names one entry of a
        list: 错误码如下： …Failed = 30603, //…) the blocks that follow it in the document, read only when asked for."""
        blk = anchor.candidate.block
        yield blk, anchor.sentence
        if numeric:
            for b in self.store.doc_blocks(blk.doc_id, blk.order + 1, blk.order + 1 + CODE_LIST_WINDOW):
                if b.type != "heading":
                    yield b, Sentence(b.text, 0, len(b.text))

    def _code_of_meaning(self, query: Query, anchor: Anchor) -> Optional[Found]:
        """The code whose meaning the question describes (密码错误锁定对应的返回码 / …Locked = 4012,
        //密码错误次数过多已锁定): among a list's entries, the one whose meaning shares most pairs of characters with
        the question."""
        # the anchor's own sentence, then (a list's lead-in: 错误码如下：) the entries that follow it in the document
        texts = self._code_list(anchor)
        # the question's own description, as pairs of Chinese characters (密码错误锁定 / 密码错误次数过多已锁定: 密码,
        # 错误, 锁定), without the asked noun (错误码), which every entry's list is about
        asked = query.text.replace(str(query.constraints.get("focus") or ""), " ")
        pairs = {asked[i:i + 2] for i in range(len(asked) - 1) if _CJK_PAIR.fullmatch(asked[i:i + 2])}
        best: Optional[tuple[float, "re.Match[str]", Block, Sentence]] = None
        for b, sent in texts:
            for m in CUES.rx("code.enum_entry").finditer(sent.text):
                meaning = m.group("meaning")
                w = sum(p in meaning for p in pairs)
                if w > 0 and (best is None or w > best[0]):
                    best = (w, m, b, sent)
        if best is None:
            return None
        w, m, b, sent = best
        value, name, meaning = m.group("value"), m.group("name") or "", m.group("meaning").strip()
        return Found(value={"kind": "text", "text": value, "code": value, "name": name}, answer=m.group(0).strip(),
                     method="strategy:code.of_meaning", anchor=anchor, evidence=[self._ev(anchor, b, sent)],
                     score=0.5 + 0.1 * min(w, 4.0),
                     reasons=[f"匹配模式：code.of_meaning（{meaning} → {value}）"])

    @strategy("count_values")
    def _s_count_values(self, query: Query, anchor: Anchor) -> Optional[Found]:
        """评级分为几档 — 评级为10分、7分、4分: a run of three or more values in one unit,
        joined by 、/和/或, counts the grades; the clause must name what the question counts."""
        if not CUES.rx("ask.grades").search(query.text):
            return None
        sent = anchor.sentence.text
        qs = find_quantities(sent)
        runs: list[list[dict]] = []
        for x in qs:
            if runs and runs[-1][-1]["unit"] == x["unit"] and x["unit"] and \
                    sent[runs[-1][-1]["end"]:x["start"]] in CUES.words("count.run_joiners"):
                runs[-1].append(x)
            else:
                runs.append([x])
        run = max(runs, key=len, default=[])
        if len(run) < 3:
            return None
        span = (run[0]["start"], run[-1]["end"])
        clause = _clause_at(sent, span)
        top = max(query.weights.values(), default=0.0)
        if not any(t in clause for t, w in query.weights.items() if w >= 0.5 * top):
            return None  # the run must be the values of the asked thing (分值为…)
        items = [x["text"] for x in run]
        cls = _asked_classifier(query.text)
        return Found(value={"kind": "count", "number": len(run), "items": items},
                     answer=f"{len(run)}{cls}：{'、'.join(items)}（{clause}）", method="strategy:count.values",
                     anchor=anchor, evidence=[self._ev(anchor)], score=0.9,
                     reasons=[f"匹配模式：count.values（{len(run)} 个{run[0]['unit']}值）"])

    @strategy("reference")
    def _s_reference(self, query: Query, anchor: Anchor) -> Optional[Found]:
        """…审查认定是否存在本法第四十六条第四项、第五项规定的行为: what the question asks is the items (or paragraph) the
        anchor points at; they are the answer, the pointing sentence and they the evidence."""
        found = Found(value={}, answer=anchor.sentence.text, method="strategy:reference.items", anchor=anchor,
                      evidence=[self._ev(anchor)], score=1.0, reasons=[])
        return found if self.resolve_reference(found, "锚点句") else None

    def resolve_reference(self, found: Found, who: str = "答案句") -> bool:
        """When ``found.answer`` points at another article's paragraph or items for what was asked (DEFERS), make
        them the value and the answer, add them to the evidence after the pointing sentence, and say so; False
        (``found`` untouched) when it does not or they are not in the store."""
        m = DEFERS.search(found.answer)
        picked = self.referenced(found.anchor.candidate.block.doc_id, m) if m else []
        if not picked:
            return False
        c = found.anchor.candidate
        texts = [b.text for b in picked]
        found.value = {"kind": "list", "items": texts} if len(texts) > 1 else {"kind": "text", "text": texts[0]}
        found.answer = "；".join(t.rstrip("；;。") for t in texts) + f"。依据：{found.anchor.sentence.text}"
        found.evidence += [(b, Sentence(b.text, 0, len(b.text)), c.title, c.source) for b in picked]
        found.reasons.append(f"引用条款：{who}指向{m.group(0)[:m.group(0).find('规定')]}，取其内容（{len(texts)} 段）")
        return True

    @strategy("per_unit")
    def _s_per_unit(self, query: Query, anchor: Anchor) -> Optional[Found]:
        """每满一年支付一个月工资 asked by someone who worked 五年: the rate applied to the asker's figure (5 ÷ 1 × 1 =
        5个月), computed here and never by a model, only when the figure is a whole multiple of the rate's unit and
        the rate gives the unit asked for; the reasoning shows the computation."""
        asked = _asked_unit(query)
        if not asked:
            return None
        m = CUES.rx("rate.per_unit").search(anchor.sentence.text)
        if m is None or canonical_unit(m.group("unit")) != asked:
            return None
        per = _num(m.group("per")) if m.group("per") else 1
        num = 0.5 if m.group("num") == "半" else _num(m.group("num"))
        per_unit = canonical_unit(m.group("per_unit"))
        figures = list(query.constraints.get("quantities") or [])
        for r in query.constraints.get("ranges") or []:  # 工作满3年: a lower bound the asker states of themselves
            if len(r) > 4 and r[2] == math.inf and r[4]:
                figures += find_quantities(spoken(query.text)[r[4][0]:r[4][1]])
        figure = next((q for q in figures if canonical_unit(q.get("unit") or "") == per_unit and q.get("number")), None)
        if not per or num is None or figure is None:
            return None
        times = Fraction(str(figure["number"])) / Fraction(str(per))
        if times.denominator != 1 or times < 1:
            return None  # 五年半 against 每满一年: how a part unit counts is a rule of its own
        total = float(times * Fraction(str(num)))
        total_n = int(total) if total.is_integer() else total
        unit = m.group("unit")
        rate = m.group(0)
        expr = f"{figure['number']} ÷ {per} × {num} = {total_n}"
        kind = "money" if unit == "元" else "duration"
        value = {"kind": kind, "number": total_n, "unit": canonical_unit(unit),
                 "computed": {"rate": rate, "figure": figure["text"], "expression": expr}}
        return Found(value=value, answer=f"{total_n}{unit}（{figure['text']}，{rate}：{expr}）。依据：{anchor.sentence.text}",
                     method="strategy:rate.per_unit", anchor=anchor, evidence=[self._ev(anchor)], score=2.0,
                     reasons=[f"计算：问题给出「{figure['text']}」，条文「{rate}」，{expr}{unit}（由代码计算）"])

    @strategy("count_of")
    def _s_count_of(self, query: Query, anchor: Anchor) -> Optional[Found]:
        """多少台设备 / 多少名员工: a number directly followed by the noun the question counts."""
        m = CUES.rx("ask.noun_counted").search(query.text)
        c = CUES.rx("ask.count_classifier").search(query.text)
        if c and not c.group("noun"):  # 基本原则，一共是几项: the counted noun is a question term after N项
            terms = sorted((t for t in query.weights if len(t) >= 2 and is_content_word(t)), key=lambda t: -query.weights[t])
            hit = next((h for t in terms if (h := re.search(
                rf"(?<!{_ordinal()})(?P<num>{PLACEHOLDERS['NUM']}){re.escape(c.group('cls'))}(?P<scale>){re.escape(t)}",
                anchor.sentence.text))), None)
            noun = c.group("cls")
        else:
            if not m and not c:
                return None
            noun = m.group("noun") if m else c.group("noun")
            scales = "|".join(map(re.escape, CUES.table("unit.number_scale")))
            hits = list(re.finditer(rf"(?<!{_ordinal()})(?P<num>{PLACEHOLDERS['NUM']})(?P<scale>{scales})?"
                                    rf"(?:{CUES.rx('count.between_number_and_noun').pattern})?{re.escape(noun)}",
                                    anchor.sentence.text))
            if not CUES.rx("ask.bound").search(query.constraints.get("asked_clause") or query.text):
                hits = [h for h in hits if not _conditional(anchor.sentence.text, h.span())]
            hit = _bounded_hit(query, anchor.sentence.text, hits)
        if not hit:
            return None
        n = _num(hit.group("num"))
        if n is None:
            return None
        n = n * CUES.table("unit.number_scale").get(hit.group("scale") or "", 1)
        n = int(n) if float(n).is_integer() else n
        return Found(value={"kind": "number", "number": n, "unit": noun},
                     answer=_clause_at(anchor.sentence.text, hit.span()), method="strategy:number.count_of",
                     anchor=anchor, evidence=[self._ev(anchor)], score=0.85,
                     reasons=[f"匹配模式：number.count_of（{noun}）"])

    @strategy("definition")
    def _s_definition(self, query: Query, anchor: Anchor) -> Optional[Found]:
        wanted = [e for e in (query.entities or query.terms) if len(e) >= 2]
        # the asked term: a quoted one (“绿化用地”，具体指…), else the words before 是指 after 所称 (所称的非会员用户)
        asked = CUES.rx("ask.defined_term").search(query.text)
        named = (query.constraints.get("quoted") or [""])[0] or \
            (CUES.rx("ask.defined_term_frame").split(asked.group("term"))[-1] if asked else "")
        for t in self.templates():
            if "definition" not in t.types:
                continue
            for value, span in t.apply(anchor.sentence.text):
                term = CUES.rx("definition.term_marks").sub("", value.get("term", ""))
                term = CUES.rx("definition.term_prefix").sub("", term)
                if len(named) >= 2 and len(term) >= 2 and not (term.endswith(named) or named.endswith(term)):
                    continue  # 非会员用户 asked: 会员，是指… (or 一级至三级 for 准三级) defines another term
                if not any(term == e or term.endswith(e) for e in wanted):
                    continue  # 职业病危害，是指… does not define 职业病
                return Found(value={"kind": "text", "text": value["text"]},
                             answer=anchor.sentence.text[span[0]:span[1]], method=f"template:{t.id}", anchor=anchor,
                             evidence=[self._ev(anchor)], score=0.9, reasons=[f"匹配模式：{t.id}", f"术语：{term}"])
        return None

    @strategy("who")
    def _s_who(self, query: Query, anchor: Anchor) -> Optional[Found]:
        kind, focus = query.constraints.get("value_kind"), query.constraints.get("focus")
        recipient = CUES.rx("ask.recipient").search(query.text) is not None  # 向谁汇报: not who reports
        agents, recipients = CUES.words("who.agent_templates"), CUES.words("who.recipient_templates")
        m = CUES.rx("ask.who_verb").search(query.constraints.get("asked_clause") or query.text)
        act = m.group("verb") if m else None
        sent = anchor.sentence.text
        figures = query.constraints.get("quantities") or query.constraints.get("ranges")
        held: list[tuple[float, Found]] = []  # (tier fit, reading) when the question gives a figure
        for t in self.templates():
            if "who" not in t.types or (t.value_kinds and kind not in t.value_kinds):
                continue
            if recipient and t.id in agents:
                continue  # 向谁汇报 takes the one reported to, not the doer
            if t.id in recipients and not (recipient and (t.asked is None or t.asked.search(query.text))):
                continue  # …and only then: 交给谁来行使 asks who exercises, not to whom one reports
            if t.only_asked and not t.asked_in(query.text):
                continue  # 到X办理 answers 到哪里办理, not 由谁批准 (as in every strategy that reads templates)
            for value, span in t.apply(sent):
                if act and act in sent and not sent[span[0]:span[1]].endswith(value["text"]) and \
                        act not in sent[span[0]:span[1] + 4]:
                    continue  # 由谁来发布: 由国务院决定，国务院总理发布… names the doer of another act
                if t.value_kinds and focus and not value["text"].endswith(focus) and \
                        (focus not in self.kinds.any_agent_nouns() or span[0] > 0):
                    # 哪家法院: a named organisation of the asked kind (…地方法院), not any name; 哪个机关: any
                    # body, when it is the subject that opens the provision (人民法院在审理…时，应当…)
                    continue
                clause = _clause_at(sent, span)
                found = Found(value=value, answer=clause if len(clause) < 80 else value["text"],
                              method=f"template:{t.id}", anchor=anchor, evidence=[self._ev(anchor)], score=0.7,
                              reasons=[f"匹配模式：{t.id}", f"责任主体：{value['text']}"])
                if not figures:
                    return found
                cm = _tier_fit(query, sent, span)
                if cm >= 0:
                    held.append((cm, found))
        if held:
            cm, found = max(held, key=lambda h: h[0])  # the first of the best: a met condition before no condition
            if cm > 0:
                found.reasons.append("条件匹配：问题中的数量落在该条件范围内")
            return found
        return None

    @strategy("who_acts")
    def _s_who_acts(self, query: Query, anchor: Anchor) -> Optional[Found]:
        """由谁提名、由谁任免 / 经谁批准: the doer of each act the question asks 谁 of, read in the sentence as the words
        right before that act (由薪酬委员会提名，董事会任免 → 薪酬委员会, 董事会), after the last word that hands an
        act on (由, 经, 提请 …). Every asked act must be found, each with a doer of its own."""
        if CUES.rx("ask.recipient").search(query.text) or CUES.rx("who.place_asked").search(query.text):
            return None  # 向谁提出申请 / 到哪里办理: the one the act goes to, not its doer
        acts = list(query.constraints.get("who_acts") or [])
        if not acts:
            m = CUES.rx("ask.who_verb").search(query.constraints.get("asked_clause") or query.text)
            acts = [m.group("verb")] if m else []
        sent = anchor.sentence.text
        if not acts or any(a not in sent for a in acts) or len(acts) < (query.constraints.get("asks") or 1):
            return None  # 要多少业主同意？又由谁审计？: one doer answers one of the asks
        agents: list[str] = []
        spans: list[tuple[int, int]] = []
        for act in dict.fromkeys(acts):
            # the act as the question goes on to say it (负责组织、协调 → 负责组织): 负责 alone may be another clause's
            at = query.text.find(act)
            while at >= 0 and at + len(act) < len(query.text) and _CJK.match(query.text, at + len(act)) and \
                    query.text[at:at + len(act) + 1] in sent:
                act = query.text[at:at + len(act) + 1]  # word characters only: 提名， is no longer an act
            rx = r"(?:^|(?<=[，,；;：:]))(?P<agent>[\u4e00-\u9fff、]{2,24}?)" + re.escape(act) + "(?!" + CUES.rx("who.act_as_noun").pattern + ")"
            # of the act's doers in tiers (2万元以下的，由A审批，…10万元以上的，由C审批), the first whose tier fits the asker
            fits = [(fit, x) for x in re.finditer(rx, sent) if (fit := _tier_fit(query, sent, x.span("agent"))) >= 0]
            if not fits:
                return None
            m = max(fits, key=lambda f: f[0])[1]
            agent = CUES.rx("who.hands_on").split(m.group("agent"))[-1]
            agent = CUES.rx("who.modal_lead").sub("", agent)
            value = _b_who({"agent": agent})
            if value is None or not 2 <= len(value["text"]) <= 16 or value["text"] in agents:
                return None
            agents.append(value["text"])
            spans.append((m.start("agent"), m.end()))
        clause = sent[min(a for a, _ in spans):max(b for _, b in spans)]
        value = {"kind": "text", "text": agents[0]} if len(agents) == 1 else {"kind": "list", "items": agents}
        return Found(value=value, answer=clause, method="strategy:who.acts", anchor=anchor,
                     evidence=[self._ev(anchor)], score=0.8,
                     reasons=[f"所问的行为「{'、'.join(dict.fromkeys(acts))}」各有其主体：{'、'.join(agents)}"])

    @strategy("cloze")
    def _s_cloze(self, query: Query, anchor: Anchor) -> Optional[Found]:
        """The question restates the provision with an interrogative where the answer stands (可以委托谁组织
        调查 ↔ 可以委托事故发生单位组织调查): the words between the question's context left and right of the
        interrogative, found in that order in the sentence, answer it. Both sides must match (at least
        ``cloze.min_context`` characters together) and the gap must be one short phrase."""
        m = CUES.rx("cloze.open_interrogative" if query.qtype == "open" else "cloze.interrogative").search(query.text)
        if not m:
            return None
        left = query.text[:m.start()]
        right = CUES.rx("cloze.right_end").sub("", query.text[m.end():])
        sent = anchor.sentence.text
        need = int(CUES.table("cloze.limits")["min_context"])
        longest = int(CUES.table("cloze.limits")["max_gap"])
        for k in range(min(8, len(left)), 1, -1):
            i = sent.find(left[-k:])
            if i < 0:
                continue
            start = i + k
            for j in range(min(8, len(right)), 1, -1):
                e = sent.find(right[:j], start)
                if e < 0:
                    continue
                gap = sent[start:e]
                if k + j < need or not 2 <= len(gap) <= longest or CUES.rx("cloze.gap_break").search(gap):
                    return None
                value = _b_who({"agent": gap}) if query.qtype == "who" else {"kind": "text", "text": gap}
                if value is None:
                    return None
                clause = _clause_at(sent, (start, e))
                return Found(value=value, answer=clause if len(clause) < 80 else gap, method="strategy:cloze",
                             anchor=anchor, evidence=[self._ev(anchor)], score=0.6 + 0.02 * (k + j),
                             reasons=[f"匹配模式：cloze（问句「{left[-k:]}…{right[:j]}」与条文同序，所问即其间的「{gap}」）"])
            return None  # the left context is there but nothing of the right follows it
        return None

    @strategy("exception")
    def _s_exception(self, query: Query, anchor: Anchor) -> Optional[Found]:
        sent = anchor.sentence.text
        m = CUES.rx("exception.but").search(sent)
        if m:
            found = Found(value={"kind": "text", "text": m.group(0)}, answer=sent, method="strategy:exception.but",
                          anchor=anchor, evidence=[self._ev(anchor)], score=0.6, reasons=["匹配模式：exception.but"])
            # 除本合同第五条和第八条规定的情形外: the exceptions are what those articles say
            block = anchor.candidate.block
            cited = [(label, *hit) for label in cited_articles(m.group(0))
                     if (hit := self.cited_sentence(block.doc_id, label, query.weights, block.block_id))]
            if cited:
                found.evidence += [self._ev(anchor, b, x) for _, b, x in cited]
                items = [f"{label}：{x.text.rstrip('。；;')}" for label, _, x in cited]
                found.value = {"kind": "list", "items": items}
                found.answer = sent + "（" + "；".join(items) + "）"
                found.reasons.append(f"引用条款：{'、'.join(label for label, _, _ in cited)}")
            elif CUES.rx("list.colon_end").search(sent):
                # 但因下列原因造成的除外：: the exceptions are the items that follow, and without them there is no answer
                items = self._following_items(anchor)
                if not items:
                    return None
                found.evidence += [self._ev(anchor, b, x) for b, x in items]
                found.value = {"kind": "list", "items": [_item_text(x.text) for _, x in items]}
                found.answer = sent + "".join(x.text for _, x in items)
                found.reasons.append(f"例外为其后所列 {len(items)} 项")
            return found
        # the rule, then its exception in the next sentence (…不再追究违约责任；涉及…的，上述期限延长至三年)
        sents = split_sentences(anchor.candidate.block.text)
        idx = next((i for i, x in enumerate(sents) if x.start == anchor.sentence.start), None)
        if idx is not None and idx + 1 < len(sents) and CUES.rx("exception.next").search(sents[idx + 1].text) and \
                CUES.rx("ask.exception").search(query.text):
            nxt = sents[idx + 1]
            return Found(value={"kind": "text", "text": nxt.text}, answer=sent + nxt.text,
                         method="strategy:exception.following", anchor=anchor,
                         evidence=[self._ev(anchor), self._ev(anchor, anchor.candidate.block, nxt)], score=0.7,
                         reasons=["匹配模式：exception.following（规则后一句的例外）"])
        return None


_PROVISION_TYPES = ("condition", "procedure", "exception", "list")
_VALUE_TYPES = ("duration", "money", "number", "date")






_FIRST_FIGURE = re.compile(rf"\d|[{CN_DIGITS}]")


def _bound_first(query: Query, sent: str, spans: list[tuple[int, int]]) -> int:
    """Of figures found at ``spans`` of ``sent``, the index of the first, or, when the question asks a bound (最多能领几袋)
    and several are there (一般为两袋，最多不超过五袋), of the first the provision states as that bound: the 8
    characters before its first digit say so (不得超过4个 and 4个 both read 但数量不得超过)."""
    if len(spans) < 2:
        return 0
    for ask, before in (("ask.max", "limit.max_before"), ("ask.min", "limit.min_before")):
        if CUES.rx(ask).search(query.text):
            rx = CUES.rx(before)
            for i, (a, b) in enumerate(spans):
                first = _FIRST_FIGURE.search(sent, a, b)
                at = first.start() if first else a
                if rx.search(sent[max(0, at - 8):at]):
                    return i
    return 0


def _bounded_hit(query: Query, sent: str, hits: list["re.Match[str]"]) -> Optional["re.Match[str]"]:
    """The first of ``hits``, or the first the provision states as the bound the question asks (:func:`_bound_first`)."""
    return hits[_bound_first(query, sent, [h.span() for h in hits])] if hits else None


def _defines(query: Query, sent: str) -> bool:
    """Does ``sent`` define what the question asks about: a definition cue (…是指…, 本办法所称…), or a line
    that opens with one of the question's terms (P1 全部或大范围核心业务…的故障)?"""
    says = CUES.rx("definition.says").search(sent)
    if says:
        asked = CUES.rx("ask.defined_term").search(query.text)
        if not asked:
            return True
        term = CUES.rx("ask.defined_term_frame").split(asked.group("term"))[-1]
        # 本规定所称的废弃物，是指… does not define 厨余物; （二）厨余物，即易腐物… does
        last = max(m.start() for m in CUES.rx("definition.says").finditer(sent))
        return len(term) < 2 or term in sent[:max(last, says.start())] or last == 0
    opening = re.sub(r"^[^\w\u4e00-\u9fff]+", "", CUES.rx("definition.term_marks").sub("", sent))
    label = CUES.rx("definition.label_rest")
    return any(len(t) >= 2 and opening.startswith(t) and (not opening[len(t):] or label.match(opening[len(t):]))
               for t in (query.entities or []) + list(query.terms))


def _named_columns(header: list[str], question: str) -> list[int]:
    """The columns whose header the question names. A header named only as part of a longer phrase that another
    header holds (新一线城市 holds 一线城市, but 新一 belongs to 新一线及二线城市) names that other column instead."""
    named = [j for j, h in enumerate(header) if len(h) >= 2 and h in question]
    out: list[int] = []
    for j in named:
        h = header[j]
        spots = [i for i in range(len(question)) if question.startswith(h, i)]
        longer = [k for k, h2 in enumerate(header) if k != j and h2 and h not in h2 and all(
            (i > 0 and question[i - 1:i + 1] in h2) or question[i + len(h) - 1:i + len(h) + 1] in h2 for i in spots)]
        out += longer if len(longer) == 1 else [j]
    return list(dict.fromkeys(out))


def _nearest_columns(header: list[str], question: str, cols: list[int], row: Optional[list[str]] = None,
                     qtype: str = "", kind_units: Sequence[str] = ()) -> list[int]:
    """Of the value columns ``cols``, the one whose header shares the longest run (2+ characters) with the question
    (购房补贴 → 购房补贴总额, not 发放方式), when one does more than the others; else the one column whose header or
    cell in ``row`` states the period the question asks an amount for (按月 → 包月价格, 270元/月); else, for a
    duration or money question, or one whose answer kind names its units (几台 → 台), those of ``row``'s cells that
    hold a figure of that kind (每3个月1次, not 见7.2节; 9台, not 10年); else all of them."""
    if len(cols) < 2:
        return cols
    shared = {j: len(longest_common(_column_header(header, j), question)) for j in cols}
    best = max(shared.values())
    top = [j for j in cols if shared[j] == best]
    if best >= 2 and len(top) == 1:
        return top
    asked = set(periods_of(question))
    if asked:  # 按月付的话一个月多少钱: the column priced per month (包月价格 | 270元/月), not per year or hour
        per = [j for j in cols if asked & set(periods_of(_column_header(header, j) + " " +
                                                          (row[j] if row is not None and j < len(row) else "")))]
        if len(per) == 1:
            return per
    units = kind_units or \
        (tuple(_TIME_UNITS) if qtype == "duration" else (CUES.word("unit.yuan"),) if qtype == "money" else ())
    if row is not None and units:
        kind = [j for j in cols if j < len(row) and _in_units(row[j], units)]
        if kind:
            return kind
    return cols


def _in_units(cell: str, units: Sequence[str], header_unit: str = "") -> bool:
    """Does ``cell`` state a figure in one of ``units`` (9台 in 台, 300mL in 毫升), its own unit or, for a bare number,
    the one its column's header gives (``header_unit``: 金额（元） over 48,000)?"""
    wanted = {canonical_unit(u) for u in units}
    if any(canonical_unit(q["unit"]) in wanted for q in find_quantities(cell)):
        return True
    if header_unit and canonical_unit(_cell_value(cell, header_unit).get("unit") or "") in wanted:
        return True
    return any(re.search(rf"\d\s*{re.escape(u)}", cell) for u in units)  # classifiers find_quantities leaves out


_NEGATED_FACT = re.compile(_cues.pattern("polarity.negated_fact"))  # rules/pipeline_cues.yaml: 未组织验收, 没有签到
_PERIOD = re.compile(_cues.pattern("period.of"))  # rules/pipeline_cues.yaml: 每年 / 包月 / 元/月 …


def periods_of(text: str) -> list[str]:
    """The period groups (year, quarter, month, week, day) that ``text`` states amounts for, in order."""
    return list(dict.fromkeys(k for m in _PERIOD.finditer(text) for k, v in m.groupdict().items() if v))


def _column_header(header: list[str], j: int) -> str:
    """The header of column ``j``: its own, or under a merged header cell the nearest non-empty one."""
    named = [(abs(i - j), i, h) for i, h in enumerate(header) if h]
    return min(named)[2] if named else ""


def _range_key_rows(quantities: list[dict], rows: list[list[str]]) -> list[tuple[list[str], str]]:
    """The row of a tier table (3天以内 / 3天以上10天以内 / 10天以上; 第1—3次 / 第4—6次) whose range cell holds one of
    the question's figures (请5天假 → 3天以上10天以内): [(row, that cell)] when exactly one row does, else []."""
    if not quantities:
        return []
    # 预算80万: a figure said without its unit is read in the one dimension the table's tiers are in (元)
    bare = any(not q["unit"] for q in quantities)
    figures = _figures(quantities, {c[0] for row in rows for cell in row for c in range_conditions(cell)} if bare else set())

    def holds(cell: str) -> bool:  # every bound the cell states of the figure's dimension (以上 and 以内 both)
        conds = range_conditions(cell) if figures else []
        for dim, v in figures:
            bounds = [(lo, hi, incl) for d, lo, hi, incl, _ in conds if d == dim]
            if bounds and all(lo <= v and (v <= hi if incl else v < hi) for lo, hi, incl in bounds):
                return True
        return False

    picked = []
    for row in rows:
        cell = next((c for c in row if c and holds(c)), None)
        if cell is not None:
            picked.append((row, cell))
    return picked if len(picked) == 1 else []


def _numeric_key_rows(question: str, header: list[str], rows: list[list[str]]) -> list[tuple[list[str], str]]:
    """Rows keyed by a number the question states (响声次数 6 ← 蜂鸣器连响6声; 返回值 8 ← 返回值为8时): a cell
    equal to one of the question's numbers, whose column header shares a word character with the four
    characters either side of that number in the question. Several columns of a row may hold the key."""
    asked = [(q["number"], question[max(0, q["start"] - 4):q["end"] + 4]) for q in find_quantities(question)]
    picked = []
    for row in rows:
        for j, cell in enumerate(row):
            if not re.fullmatch(r"\d+(?:\.\d+)?", cell or ""):
                continue
            head = _column_header(header, j)
            if any(float(cell) == float(n) and head and any(ch in near for ch in head if not ch.isdigit())
                   for n, near in asked):
                picked.append((row, cell))
                break
    return picked


def _is_identifier(cell: str) -> bool:
    """Is ``cell`` a whole model or part number (rules/extract_cues.yaml table.identifier_cell: HS-150E, GD32F303)?"""
    return CUES.rx("table.identifier_cell").fullmatch(cell.strip()) is not None


def _asked_identifier(cell: str, question: str, shape: bool = True) -> bool:
    """``cell`` is a model or part number (:func:`_is_identifier`; with ``shape=False`` any cell) none of whose
    letter runs the question names (封装是TQFP names the cell TQFP-48 7mm×7mm)."""
    if shape and not _is_identifier(cell):
        return False
    asked = {w.lower() for w in re.findall(r"[A-Za-z]{2,}", question)}
    return not any(part.lower() in asked for part in re.findall(r"[A-Za-z]{2,}", cell))


def _header_unit(header: str) -> str:
    """The unit a column's header gives its cells (金额（元） → 元, 电流(mA) → mA), or "" when the bracket holds no unit."""
    m = CUES.rx("table.header_unit").search(header or "")
    if not m:
        return ""
    got = find_quantities("1" + m.group(1))
    return m.group(1) if len(got) == 1 and got[0].get("unit") and got[0].get("end", 0) == 1 + len(m.group(1)) else ""


def _cell_value(cell: str, header_unit: str = "") -> dict:
    """A table cell as a value: a number with its unit when it is one (15N.m, 3.7A, 20V〜55V, 48,000), else text; a
    bare number takes the unit its column's header gives (``header_unit``)."""
    m = CUES.rx("table.cell_value").fullmatch(cell)
    if not m:
        return {"kind": "text", "text": cell}
    unit = canonical_unit((m.group(3) or "").strip().rstrip("。；"))
    if not unit and header_unit:
        unit = canonical_unit(header_unit)  # 金额（元） over 48,000
    fix = lambda v: int(float(v.replace(",", ""))) if float(v.replace(",", "")).is_integer() \
        else float(v.replace(",", ""))  # noqa: E731
    if m.group(2):
        return {"kind": "range", "min": fix(m.group(1)), "max": fix(m.group(2)), "unit": unit}
    kind = "duration" if unit in _TIME_UNITS else "money" if unit == CUES.word("unit.yuan") else "number"
    return {"kind": kind, "number": fix(m.group(1)), "unit": unit}


_TIME_UNITS = {canonical_unit(u) for u, (dim, _) in _TO_BASE.items() if dim in ("days", "hours")}
_CJK_PAIR = re.compile(r"[\u4e00-\u9fff]{2}")
_CJK = re.compile(r"[\u4e00-\u9fff]")
# a row the question names by its key and a column it names by its header: the most specific reading of a table, ahead
# of a template's figure read from the same row's rendering (which may run into the rows either side)
TABLE_NAMED = 1.8
CODE_LIST_WINDOW = 40  # blocks after a list's lead-in searched for the entry whose meaning is asked


def _figure_column(header: list[str], rows: list[list[str]], quantities: list[dict]) -> tuple[list[int], list[str]]:
    """In a table with one column per model (a header of letters and digits each), the one column whose cells alone
    hold a figure the question gives with its unit (20升那一款 → the RL-DH20A column, 20升/日): ([j], those cells),
    else ([], [])."""
    models = [j for j, h in enumerate(header) if j > 0 and _is_identifier(h)]
    asked = {(float(q["number"]), canonical_unit(q["unit"])) for q in quantities if q.get("unit")}
    if len(models) < 2 or not asked:
        return [], []
    hits: dict[int, list[str]] = {}
    for row in rows:
        cols = [j for j in models if j < len(row) and any((float(c["number"]), canonical_unit(c["unit"])) in asked
                                                            for c in find_quantities(row[j])[:1])]
        if len(cols) == 1:
            hits.setdefault(cols[0], []).append(row[cols[0]])
    return (list(hits), next(iter(hits.values()))) if len(hits) == 1 else ([], [])


def _cell_unit(cell: str) -> Optional[str]:
    """The unit of a cell's first figure (升 of 2.5升, "" of a bare 3.3), or None when it states no figure."""
    qs = find_quantities(cell)
    return canonical_unit(qs[0]["unit"]) if qs else None


def _row_by_words(query: Query, rows: list[list[str]], title: str, section: str) -> list[tuple[list[str], str]]:
    """The one row whose label (its first cell, not a figure) holds question words (2+ characters) that no other row's
    label holds, and not the table's title or section (they name the table, not a row): [(row, label)], else []."""
    labels = [_KEY_NOISE.sub("", row[0]) if row and not re.fullmatch(r"[\d.\s%]+", row[0]) else "" for row in rows]
    words = [w for w in query.weights if len(w) >= 2 and w not in title and w not in section]
    held = [{w for w in words if w in label} for label in labels]
    own = [h - set().union(*(o for j, o in enumerate(held) if j != i)) for i, h in enumerate(held)]
    best = [i for i, h in enumerate(own) if h]
    return [(rows[best[0]], rows[best[0]][0])] if len(best) == 1 else []


def _key_in(key: str, question: str) -> bool:
    """Does the question name the key cell, a figure as a whole figure (25°C is not named by 125°C)?"""
    if key not in question:
        return False
    if not (key[0].isdigit() or key[-1].isdigit()):
        return True
    edges = ("(?<![\\d.])" if key[0].isdigit() else "") + re.escape(key) + ("(?!\\d)" if key[-1].isdigit() else "")
    return re.search(edges, question) is not None


_KEY_NOISE = re.compile(r"\s+|的")  # what a question adds to a table's key cell: spaces, 的 (排水泵的过滤器)
# a code the question names: 0x1A, E07, CH9141, and with a hyphen E-06 / F-01 (not E of E-06)
_CODES = re.compile(r"(?<![A-Za-z0-9])(0x[0-9A-Fa-f]+|[A-Z]{1,4}(?:-?[0-9]{1,4})?)(?![A-Za-z0-9]|-[0-9])")


def _names_asked_code(question: str, sent: str) -> bool:
    """Does ``sent`` name the code the question asks about (a code with a digit: E3, F05, 0x1A)? True when the
    question names no such code."""
    asked = [c for c in _CODES.findall(question) if any(ch.isdigit() for ch in c)]
    return not asked or any(re.search(rf"(?<![A-Za-z0-9]){re.escape(c)}(?![A-Za-z0-9])", sent) for c in asked)


def is_multipart(question: str) -> bool:
    """True when the question asks for several values at once (分别…, two question marks…)."""
    return bool(CUES.rx("ask.multipart").search(question))


def _limit_check(question_quantities: list[dict], sent: str,
                 weights: Optional[dict[str, float]] = None) -> Optional[tuple[bool, str]]:
    """Compare a quantity in the question with a limit in the provision (只能一次, 不得超过二年, 不少于3年).

    Where the provision states several limits in the question's unit (…至少每10年一次，敏感区域至少每5年一次), a later
    one is compared when the words since the previous figure that the first limit's do not hold are the question's
    (``weights``): the special case the question names. Returns (within the limit, explanation) or None when the
    provision states no limit in that unit.
    """
    figures = find_quantities(sent)
    for q in question_quantities:
        limits = []
        prev = 0
        # a provision that speaks of the question's own unit (合同期限一年以上不满三年的，试用期不得超过二个月) ties the
        # asker's figure (两年) to that: only a limit in the same unit is compared with it
        same_unit = any(m["unit"] == q["unit"] for m in figures)
        for m in figures:
            pair = _comparable(q, m) if m["unit"] and not (same_unit and m["unit"] != q["unit"]) else None
            if pair is None:
                continue
            start, prev = prev, m["end"]
            if _clause_at(sent, (m["start"], m["end"])).endswith(CUES.words("condition.clause_end")):
                continue  # 三个月以上不满一年的: a condition of the provision, not its limit
            if CUES.rx("limit.about_whom").match(sent[m["end"]:m["end"] + 8]):
                continue  # 对怀孕7个月以上的女职工: whom the provision is about, not a limit on the asked act
            before = sent[max(0, m["start"] - 10):m["start"]].rstrip()  # 不低于 20 万元: the space is no word
            after = sent[m["end"]:m["end"] + 3].lstrip()[:2]
            mx = CUES.rx("limit.max_before").search(before) or CUES.rx("limit.max_after").search(after)
            mn = CUES.rx("limit.min_before").search(before) or CUES.rx("limit.min_after").search(after)
            if bool(mx) != bool(mn):
                limits.append(({t for t in (weights or {}) if t in sent[start:m["end"]]}, m, bool(mx), pair))
        if limits:
            # the first limit is the general rule, a later one a special case (…，敏感区域，至少每5年): the special case
            # is compared when its own words, absent from the general rule's, are the question's
            first = limits[0][0]
            special = [(sum(weights[t] for t in x[0] - first), i) for i, x in enumerate(limits) if i > 0
                       and any(weights[t] >= 0.3 for t in x[0] - first)]
            i = max(special, key=lambda p: p[0])[1] if special else 0
            _, m, upper, (asked, limit) = limits[i]
            nxt = limits[i + 1] if i + 1 < len(limits) else None
            if nxt is not None and nxt[2] != upper and nxt[1]["start"] - m["end"] <= 4:
                # 500元以上2000元以下: a range, and the asked figure must lie within both its bounds
                bounds = {upper: (m, limit), nxt[2]: (nxt[1], nxt[3][1])}
                (lo, low), (hi, high) = bounds[False], bounds[True]
                if asked < low:
                    return False, f"问题中的{q['text']}未达到条款下限{lo['text']}"
                if asked > high:
                    return False, f"问题中的{q['text']}超过条款上限{hi['text']}"
                return True, f"问题中的{q['text']}在条款范围{lo['text']}至{hi['text']}之内"
            if upper:
                ok = asked <= limit
                return ok, f"问题中的{q['text']}{'未超过' if ok else '超过'}条款上限{m['text']}"
            ok = asked >= limit
            return ok, f"问题中的{q['text']}{'达到' if ok else '未达到'}条款下限{m['text']}"
    return None


def _unquoted(question: str, quantities: list[dict]) -> list[dict]:
    """The question's figures outside quotation marks and unlike any inside them: 收到申请后“五日内”审查，这五天算不算
    周末 quotes the provision's own figure (and 这五天 points back at it), which is no value of the asker's to
    compare with the provision's limit."""
    spans = [(m.start(), m.end()) for m in CUES.rx("question.quoted").finditer(question)]
    if not spans:
        return quantities
    said = spoken(question)  # read as the question's quantities were
    same = {(q["number"], canonical_unit(q["unit"])) for a, b in spans for q in find_quantities(said[a:b])}
    return [q for q in quantities if not any(a <= q["start"] < b for a, b in spans)
            and (q["number"], canonical_unit(q["unit"])) not in same]


def _comparable(q: dict, m: dict) -> Optional[tuple[float, float]]:
    """The numbers of two quantities in one measure: as written where the units are the same; in their dimension's
    base (dictionaries/units.yaml dimensions) where both are calendar or clock time in different units (两个月 /
    30日: 60 / 30 days), unless the two lie within a tenth of each other (一个月 / 30日: months are not all 30 days)
    or one counts days that are not calendar days (工作日: dictionaries/units.yaml not_calendar_days); in their base
    too where the units are exact multiples of one another (20万元 / 20 万元 / 200000元, 1.2米 / 1000毫米); else None."""
    if q["unit"] == m["unit"]:
        return q["number"], m["number"]
    if q["unit"] in _NOT_CALENDAR or m["unit"] in _NOT_CALENDAR:
        return None
    a, b = _base(q["number"], q["unit"]), _base(m["number"], m["unit"])
    if a is None or b is None or a[0] != b[0]:
        return None
    if a[0] not in _CALENDAR_DIMS:
        return a[1], b[1]
    if abs(a[1] - b[1]) <= 0.1 * max(abs(a[1]), abs(b[1])):
        return None
    return a[1], b[1]


def _tail_predicate(question: str) -> str:
    """What a …吗 question asks about: its last clause without the particle, pronouns and modals
    (我对同一事故还能再申请一次复核吗 → 同一事故再申请一次复核)."""
    clauses = [c for c in re.split(r"[，,；;。？?！!]", strip_asides(question)) if c.strip()]
    if not clauses or not CUES.rx("tail.particle").search(clauses[-1]):
        return ""
    tail = CUES.rx("tail.particle_end").sub("", clauses[-1].strip())
    if CUES.rx("tail.situation").search(tail):
        return ""  # 这样做合法吗 judges the situation told before
    tail = CUES.rx("tail.opening").sub("", tail)
    tail = CUES.rx("tail.document").sub("", tail)  # names the document, not the act
    tail = CUES.rx("tail.filler").sub("", tail)
    if CUES.rx("tail.judgement").fullmatch(tail):
        return ""  # 合法吗 judges the situation told before; it names nothing the provision must say
    return tail if len(tail) >= 2 else ""


def _asked_predicate(question: str) -> str:
    """What a yes/no question asks about: the predicate after 能否/是否… (quotes dropped), else the tail
    of a …吗 question (:func:`_tail_predicate`)."""
    pred = CUES.rx("ask.predicate").search(question)
    return re.sub(r"[“”\"「」]", "", pred.group(1)) if pred else _tail_predicate(question)


def _asked_head(query: Query, asked: str) -> str:
    """The word that closes the asked predicate (能不能转让给朋友的公司用 → 公司; 学籍还保留吗 → 保留): the
    question's last content word of two characters or more, a word inside a longer one not counted."""
    terms = [t for t, w in query.weights.items() if w > 0.3 and len(t) >= 2 and t in asked]
    terms = [t for t in terms if not any(t != u and t in u for u in terms)]
    return max(terms, key=lambda t: (asked.rfind(t) + len(t), len(t)), default="")


def revision_labels(text: str, end: Optional[int] = None) -> list[tuple[int, str]]:
    """The column labels of a revision table (rules/extract_cues.yaml revision.old_cell / revision.new_cell) in
    ``text`` up to ``end``, as (position, "old" | "new") in order; [] unless ``text`` holds a label of each (a
    修订对照表 row), so a lone 原文： is no column."""
    old, new = CUES.rx("revision.old_cell"), CUES.rx("revision.new_cell")
    if not new.search(text) or not old.search(text):
        return []
    stop = len(text) if end is None else end
    return sorted([(m.start(), "old") for m in old.finditer(text, 0, stop)] +
                  [(m.start(), "new") for m in new.finditer(text, 0, stop)])


def revision_column(labels: list[tuple[int, str]], at: int) -> str:
    """The column ("old", "new", "" before any label) that position ``at`` stands in, by the last label before it."""
    return next((kind for pos, kind in reversed(labels) if pos <= at), "")


def asks_old_text(question: str) -> bool:
    """The question asks about the text before a change (修改前, 原来, 新旧…): revision.asks_old."""
    return bool(CUES.rx("revision.asks_old").search(question))


def _tier_fit(query: Query, sent: str, span: tuple[int, int]) -> float:
    """How the condition governing the reading at ``span`` (the clause before it) fits the asker's figures: +1 met, -1
    contradicted, 0 none or no figure asked. The tiers of one sentence (费用在2万元以下的，由A审批，…10万元以上的，由C审批)
    are told apart by it, as :meth:`Extractor._matches` scores values."""
    return condition_match(query.constraints.get("quantities") or [], _clause_before(sent, span),
                           query.constraints.get("ranges"), nearest=True)


def _asked_item(query: Query, lead: Block, items: list[Block]) -> Optional[tuple[Block, float]]:
    """The item of a list that the asked situation falls under (中型餐饮服务经营者… of …按照下列规定进行清洗维护：, asked
    of 中型餐饮服务经营者), with how well it fits, or None when no item clearly describes it. Items are ranked by the
    question's words the lead does not hold (公司标识不得用于：（一）广告… asked 能把标识印在广告上吗: the lead's words
    single out no item, and a catch-all 其他不宜使用标识的场合 repeats them), the question's figures in an item's
    range counting too."""
    quantities = query.constraints.get("quantities") or []
    total = sum(query.weights.values()) or 1.0
    rest = sum(w for t, w in query.weights.items() if not _holds(query, t, lead.text))

    def met(b: Block) -> float:
        return condition_match(quantities, b.text, query.constraints.get("ranges"))

    def fit(b: Block) -> float:
        return _added_weight(query, b.text, "") / total + 0.5 * met(b)

    def own(b: Block) -> tuple[float, float]:  # the item's own words first, all its words to break ties
        return (_added_weight(query, b.text, lead.text) / rest + 0.5 * met(b), fit(b)) if rest else (fit(b), fit(b))

    best = max(items, key=own)
    mine, whole = own(best)
    if mine <= 0.0 or max(mine, whole) < 0.3 or met(best) < 0:
        return None
    return best, fit(best)


def _runs_held(label: str, text: str, skip: str = "") -> int:
    """How many characters of ``label`` lie in runs of two or more that ``text`` also holds (longest first, left to
    right), runs inside ``skip`` (the document's title) not counted."""
    held, i = 0, 0
    while i < len(label) - 1:
        n = next((n for n in range(len(label) - i, 1, -1) if label[i:i + n] in text), 0)
        if n and label[i:i + n] not in skip:
            held += n
        i += max(n, 1)
    return held


def _holds(query: Query, term: str, text: str) -> bool:
    """``term`` or one of its synonyms is in ``text``."""
    return term in text or any(x in text for x in query.expansions.get(term, ()))


def _added_weight(query: Query, text: str, general: str) -> float:
    """The weight of the question's words (synonyms counted) that ``text`` holds and ``general`` (what every item of
    a list shares: its lead) does not."""
    return sum(w for t, w in query.weights.items() if _holds(query, t, text) and not _holds(query, t, general))


def _held_terms(query: Query, text: str) -> list[str]:
    """The question's specific words (weight above 0.3, two characters or more) that ``text`` holds, synonyms counted."""
    return [t for t, w in query.weights.items() if w > 0.3 and len(t) >= 2 and _holds(query, t, text)]


def _asking_figures(query: Query) -> tuple[int, list[dict]]:
    """Where the clause that asks begins in a yes/no question (the last clause; before a tag such as 对吗, the one
    before it), and the figures with a unit in it (一 of 一次 as an article left out); (0, []) for an empty one."""
    clauses = [(m.start(), m.end()) for m in re.finditer(r"[^，,；;。？?]+[，,；;。？?]*", query.text)]
    if not clauses:
        return 0, []
    start = clauses[-1][0]
    if len(clauses) > 1 and CUES.rx("yesno.tag").match(query.text[clauses[-1][0]:clauses[-1][1]].strip()):
        start = clauses[-2][0]  # a tag (对吗): the clause before it is what is asked
    article = set(CUES.words("figure.article_one"))
    return start, [q for q in query.constraints.get("quantities") or [] if q["start"] >= start and q["unit"]
                   and not (q["number"] == 1 and q["unit"] in article)]


def _stated_figure(query: Query, sent: str) -> Optional[tuple[bool, str]]:
    """A yes/no question that states one figure as the value asked about (…质保期是否为6个月, rules/extract_cues.yaml
    yesno.states_figure) against a provision that states the same subject with figures in that unit, none of
    them a condition: (the provision gives that figure, explanation). Yes where the provision's only figure in
    the unit is the asked one; no where none of its figures in the unit is; None otherwise (several figures,
    one of them the asked one: which belongs to the subject is not read here), or where the provision does not
    share the words before the figure (a run of three characters)."""
    start, figures = _asking_figures(query)
    asked = [q for q in figures if CUES.rx("yesno.states_figure").search(query.text[max(0, q["start"] - 4):q["start"]])]
    if len(asked) != 1:
        return None
    q = asked[0]
    if len(longest_common(query.text[start:q["start"]], sent)) < 3:
        return None  # the provision must name the asked subject (质保期), not only hold a figure in its unit
    figures = [m for m in find_quantities(sent) if m["unit"] == q["unit"]
               and not _clause_at(sent, (m["start"], m["end"])).endswith(CUES.words("condition.clause_end"))]
    if not figures:
        return None
    equal = [m for m in figures if m["number"] == q["number"]]
    if equal and len(figures) == 1:
        return True, f"问题中的{q['text']}与条文所定的{figures[0]['text']}相同"
    if not equal:
        return False, f"问题中的{q['text']}与条文所定的{'、'.join(m['text'] for m in figures)}不同"
    return None


def _figure_unaddressed(query: Query, sent: str) -> bool:
    """A yes/no question whose asking clause states a figure (…会保修三年，是吗) asks about that figure: True
    when ``sent`` holds no figure in its unit."""
    units = {q["unit"] for q in _asking_figures(query)[1]}
    return bool(units) and not any(q["unit"] in units for q in find_quantities(sent))


def _asked_clause(query: Query, sent: str, act: str = "") -> str:
    """The part of a provision that the question is about: …可以分阶段收取，但是收费不得以上市结果作为条件
    has two modals; the clause stating the asked ``act``, then the one sharing most of the question's words,
    decides the polarity."""
    parts = [p for p in CUES.rx("clause.split").split(sent) if p.strip()]
    if len(parts) <= 1:
        return sent
    neg, pos = CUES.rx("modal.negative"), CUES.rx("modal.positive")
    colon = re.search(r"[：:]", sent)
    lead, items = (sent[:colon.start()], sent[colon.end():]) if colon else (sent, "")
    if items.strip():
        # 下列工作不属于本合同服务范围，甲方需要时另行签订合同：水土保持监测、… asked of an item: the clause that
        # leads the items (下列…) decides, not another clause of the lead
        heads = [p for p in CUES.rx("clause.split").split(lead) if CUES.rx("list.inline_lead").search(p)
                 and (neg.search(p) or pos.search(p))]
        if heads and any(w > 0.3 and _holds(query, t, items) and not _holds(query, t, lead)
                         for t, w in query.weights.items()):
            return heads[0]
    # a condition (…需要加班的，) says when, not what is allowed: its 需要 is no deciding modal
    modal = [p for p in parts if (neg.search(p) or pos.search(p))
             and not p.rstrip("，,；;").endswith(CUES.words("condition.clause_end"))]

    def overlap(p: str) -> float:
        return sum(w for t, w in query.weights.items() if t in p or any(x in p for x in query.expansions.get(t, [])))

    def stated() -> str:
        """Where no modal clause speaks of what is asked: the sentence, unless its negations all deny acts the question
        does not name (员工参加体检，按正常出勤计算，不扣减工资 for 算出勤吗: 不扣减 is about 工资); then the statement that
        states the asked act, else shares most of the question's words (not a condition, …的，, which only says when)."""
        negated = [p for p in parts if negated_statement(p)]
        if not negated or any(overlap(p) > 0 for p in negated):
            return sent
        plain = [p for p in parts if p not in negated
                 and not p.rstrip("，,；;").endswith(CUES.words("condition.clause_end"))]
        said = max(plain, key=lambda p: (bool(act) and _holds(query, act, p), overlap(p)), default="")
        return said if said and overlap(said) > 0 else sent

    if not modal:
        return stated()
    # the asker's situation, told outside the asked clause (我只靠点烟器取电，…还能工作吗): a modal clause after the
    # general rule that alone names it is the special case that governs the asker (…，仅使用点烟器供电时该功能无效)
    asked_part = query.constraints.get("asked_clause") or ""
    told = [t for t, w in query.weights.items() if w > 0 and len(t) >= 2 and asked_part and t not in asked_part]
    alone = [t for t in told if sum(t in p for p in modal) == 1]  # named by one modal clause only
    special = [i > 0 and any(t in p for t in alone) for i, p in enumerate(modal)]
    # the special case decides first (员工可以申请调休，但试用期员工不得申请 for 我在试用期，能调休吗), then the clause
    # that states the asked act (…不得领取加班费 for 能拿加班费吗), then word overlap
    best = modal[max(range(len(modal)), key=lambda i: (special[i], bool(act) and _holds(query, act, modal[i]),
                                                         overlap(modal[i]), len(longest_common(query.text, modal[i]))))]
    return best if overlap(best) > 0 else stated()


def _excepted(query: Query, sent: str, clause: str) -> str:
    """The case a provision leaves out of its modal (除寒暑假外，不得…) when the question speaks of it, else "": the
    exception does not stand after the deciding clause, and a word of the question is in it and not in the rest of
    the sentence (so not the asked act itself)."""
    at = sent.find(clause)
    for m in CUES.rx("yesno.exception").finditer(sent):
        if at >= 0 and m.start() > at + len(clause):
            continue  # an exception after the deciding clause qualifies something else
        what = m.group("what")
        rest = sent[m.end():]
        if any(len(t) >= 2 and w > 0.3 and t in what and t not in rest for t, w in query.weights.items()):
            return what
    return ""


def _restates_question(question: str, text: str) -> bool:
    """True when ``text`` mostly repeats the question: 70% of its character pairs occur in the question."""
    core = re.sub(r"[^\u4e00-\u9fffA-Za-z0-9]", "", CUES.rx("list.item_number").sub("", text))
    pairs = [core[i:i + 2] for i in range(len(core) - 1)]
    return len(core) >= 6 and sum(p in question for p in pairs) >= 0.7 * len(pairs)


def longest_common(a: str, b: str) -> str:
    """The longest common substring of ``a`` and ``b`` made of CJK/alphanumeric characters."""
    best = ""
    n = len(a)
    for i in range(n):
        for j in range(i + len(best) + 1, n + 1):
            piece = a[i:j]
            if not re.fullmatch(r"[\w\u4e00-\u9fff]+", piece) or piece not in b:
                break
            best = piece
    return best


def _direction_conflict(question: str, around: str) -> bool:
    """The question asks for an upper bound and the provision states a lower one, or vice versa."""
    ask_max, ask_min = bool(CUES.rx("ask.max").search(question)), bool(CUES.rx("ask.min").search(question))
    if ask_max and CUES.rx("ask.late_advance").search(question):
        ask_max, ask_min = False, True  # 最晚要提前多久: the least advance notice
    if ask_max == ask_min:
        return False
    says_max, says_min = bool(CUES.rx("says.max").search(around)), bool(CUES.rx("says.min").search(around))
    if says_max == says_min:
        return False
    return ask_max != says_max


def _share_of_focus(query: Query, sent: str, span: tuple[int, int], value: dict) -> bool:
    """Is ``value`` a share of the very amount the question asks (租金多少 against 按月租金的5%计费)? An amount asked
    (not a share: the answer kind is no percent) is not answered by a fraction taken of it."""
    focus = query.constraints.get("focus")
    if not focus or query.constraints.get("value_kind") in (None, "percent") or \
            not (value.get("fraction") or value.get("unit") in CUES.words("unit.share")):
        return False
    m = CUES.rx("value.share_of").search(sent, 0, span[0])
    if m is None:
        return False
    head = sent[:m.start()]
    names = [focus] + list(query.expansions.get(focus, []))
    if not any(head.endswith(w) for w in names):
        return False
    # …unless the share's own clause names another word of the question: then it prices what the asker asks about
    # (超出部分的租金多少 against 超出部分按月租金的4%计费)
    clause = _clause_at(sent, span)
    return not any(t in clause for t in query.terms if not any(w in t or t in w for w in names))


def _focus_just_before(query: Query, sent: str, span: tuple[int, int]) -> bool:
    """Is the asked value noun written right before the value (默认波特率为57600 for 波特率是多少)?"""
    focus = query.constraints.get("focus")
    if not focus:
        return False
    head = sent[max(0, span[0] - len(focus) - 4):span[1]]  # a template's span may start at its cue (默认波特率为…)
    return any(w in head for w in [focus] + list(query.expansions.get(focus, [])))


def _unit_ok(query: Query, value: dict, bare_ok: bool = False) -> bool:
    """A value whose unit contradicts what the question asks for (几个月 vs 日, 预扣率 vs 元) is not an answer.
    ``bare_ok``: a number without a unit right after the asked value noun (波特率为57600) may answer."""
    unit = value.get("unit")
    is_ref = value.get("kind") == "text" and str(value.get("text", "")).endswith(CUES.words("unit.article_ref"))
    if is_ref != bool(CUES.rx("ask.article").search(query.text)):
        return False  # 第几条 wants an article reference, and only it does
    # what is asked is said in the asking clause: 医院费用申报截止后，…最迟多久要拨付 asks a time, and the 费用
    # of the situation before it does not make it a question about money
    asked = query.constraints.get("asked_clause") or query.text
    asks_rate = CUES.rx("ask.rate").search(asked)
    kind_units = query.constraints.get("value_units")
    if value.get("fraction") and (not kind_units or "%" in kind_units
                                  or query.constraints.get("value_kind") == "headcount"):
        return True  # 三分之二以上的业主: a share answers how many, and what proportion
    if kind_units:  # the answer-kind grammar says which units an answer may carry (费率 → %, 电压 → V)
        if value.get("kind") in ("number", "range", "money", "duration") and canonical_unit(unit or "") not in kind_units \
                and not (bare_ok and not unit and value.get("kind") == "number"):
            return False
    elif asks_rate and value.get("kind") in ("money", "number", "range", "duration") \
            and unit not in CUES.words("unit.rate"):
        return False
    elif CUES.rx("ask.yuan").search(asked) and unit != CUES.word("unit.yuan") and value.get("kind") != "count":
        return False  # 每月多少元 wants an amount, not 百分之八十
    elif CUES.rx("ask.money").search(asked) and not asks_rate \
            and value.get("kind") in ("number", "duration") and unit not in CUES.words("unit.money_question"):
        return False
    if CUES.rx("ask.multiple").search(asked) and not is_multipart(query.text) \
            and value.get("kind") in ("number", "range", "duration", "money") and unit not in CUES.words("unit.multiple_question"):
        return False  # 几倍的工资 wants a multiple (二倍), not the 1日 or 1次 next to it
    if value.get("kind") != "duration" or not unit:
        return True
    for r in CUES.group("asked_duration"):  # the first rule whose regex the asking clause matches decides
        if CUES.rx(r["id"]).search(asked):
            return unit in [str(u) for u in r.get("accepts") or [r["unit"]]]
    return True


DEFERS = re.compile(_cues.pattern("answer.defers_to_article"))  # 限于本法第七十二条第二款规定的事项
_ITEM_NUMBER = re.compile(r"^[（(]([一二三四五六七八九十]+|\d+)[)）]")


def _item_number(text: str) -> Optional[float]:
    """The number of a list item written （四） or (4)."""
    m = _ITEM_NUMBER.match(text)
    return cn_number(m.group(1)) if m else None


def _asked_unit(query: Query) -> str:
    """The unit the question asks its value in (几个月 → 月, 多少元 → 元), or ""."""
    focus = canonical_unit(query.constraints.get("focus") or "")
    if focus:
        return focus
    asked = query.constraints.get("asked_clause") or query.text
    for r in CUES.group("asked_duration"):
        if CUES.rx(r["id"]).search(asked):
            return canonical_unit(str(r["unit"]))
    return CUES.word("unit.yuan") if CUES.rx("ask.yuan").search(asked) else ""


_FALLBACK = _cues.text("extract.fallback")  # the reason a fallback extraction gives
_ASKED_FIGURE = _cues.text("extract.asked_figure")  # the reason a demoted extraction gives
COMPARE_ASK = re.compile(_cues.pattern("compare.asking_clause"))  # the clause asking how versions differ


def _slot_filler(m: "re.Match[str]") -> tuple[int, str]:
    """Which frame of yesno.slot_frame matched (its group's index) and its filler, without 的."""
    for i, name in enumerate(("x", "y", "z")):
        if m.group(name):
            return i, m.group(name).replace("的", "")
    return -1, ""


def _slot_verdict(query: Query, sent: str) -> Optional[tuple[bool, str, str]]:
    """(yes, asked filler, stated filler) when the question and the provision fill the same one-slot frame."""
    rx = CUES.rx("yesno.slot_frame")
    qm = rx.search(query.text)
    if not qm:
        return None
    frame, asked = _slot_filler(qm)
    asked = CUES.rx("tail.filler").sub("", asked) or asked
    best = None
    for m in rx.finditer(sent):
        f, said = _slot_filler(m)
        if f != frame or not said:
            continue
        # 维修费用由出租人承担，水电费由承租人承担: the frame in the clause that speaks of what is asked about
        clause = _clause_at(sent, (m.start(), m.end()))
        score = sum(w for t, w in query.weights.items() if t not in asked and _holds(query, t, clause))
        if best is None or score > best[0]:
            best = (score, said)
    if best is None:
        return None
    said = best[1]
    same = asked in said or said in asked or any(x in said for x in query.expansions.get(asked, []))
    return same, asked, said


def _negated_synonym(query: Query, clause: str) -> Optional[tuple[str, str]]:
    """(the asker's word, the provision's words) where the provision says the asker's affirmative word in negated
    words of its own (免费 / 不收取, 免检 / 无需检验, dictionaries/synonyms.yaml): that negation states what is asked,
    it does not deny it. None when the asker's word is there itself or no such synonym is in ``clause``."""
    negators = tuple(CUES.words("negation.plain"))
    for term, weight in query.weights.items():
        if weight <= 0.3 or term in clause or CUES.rx("modal.negative").search(term) or term.startswith(negators):
            continue
        for x in query.expansions.get(term, ()):
            if x in clause and (CUES.rx("modal.negative").search(x) or x.startswith(negators)):
                return term, x
    return None


def _negation_agrees(query: Query, clause: str, pol: bool = False, sent: str = "") -> str:
    """The matter the question negates and the provision's deciding ``clause`` speaks of with polarity ``pol``
    (发票 for 没有酒店发票，还能拿到补贴吗 and …领取住宿补贴，无需提供发票; 缩短 for …无需缩短，对吗 and …应缩短为一半), or "":
    the provision's negation then agrees with the question, its requirement contradicts it. Not for questions
    that ask about a prohibition or an omission themselves (是不是不准…, 可以不…吗): their own readings turn the
    polarity."""
    if CUES.rx("yesno.asked_prohibition").search(query.text) or CUES.rx("yesno.asked_negation").search(query.text):
        return ""
    rx = CUES.rx("yesno.negated_matter")
    q = query.text
    # 算不算, 给不给: a verb, 不 and the same verb ask (A-not-A), they negate nothing
    asked = [m.group("matter") for m in rx.finditer(q) if not (0 < m.start() and
                                                              q[m.start() - 1] == q[m.start() + 1:m.start() + 2])]
    if not asked:
        return ""
    if pol:
        said = [clause[m.end():m.end() + 16] for m in CUES.rx("modal.positive").finditer(clause)]
    else:
        said = [clause[m.end():m.end() + 16] for m in CUES.rx("modal.negative").finditer(clause)] or \
            [m.group("matter") for m in rx.finditer(clause)]
    terms = [t for t, w in query.weights.items() if w > 0 and len(t) >= 2]
    # the provision's own condition negating the same matter (甲方逾期未组织验收…的，视为验收合格 for 一直不组织验收，能算
    # 验收通过吗): the asker's situation is that condition, and the consequence answers as it says
    # (…申请将当年未使用额度顺延 for 没花完的额度能不能顺延: the provision negates the same matter, a question word, itself)
    conditions = [m.group("x") for m in _NEGATED_FACT.finditer(sent)] if pol and sent else []

    def shared(a: str, c: str) -> bool:
        run = longest_common(a, c)
        return len(run) >= 3 or (len(run) >= 2 and any(t in run and _whole_words(t, a) for t in terms))
    for a in asked:
        if any(shared(a, c) for c in conditions):
            continue
        for s in said:
            common = longest_common(a, s)
            # a question word in the run, a whole word on both sides (发票), not a part two words share (代理 of
            # 代理所 / 代理费)
            if len(common) >= 2 and any(t in common and _whole_words(t, a) and _whole_words(t, s) for t in terms):
                return common
    return ""


def _whole_words(run: str, text: str) -> bool:
    """Is ``run`` one or more whole words of ``text`` as the tokenizer cuts it (发票 in 提供发票; not 代理 in 代理费)?"""
    i = text.find(run)
    if i < 0:
        return False
    bounds = _word_bounds(text)
    while i >= 0:
        if i in bounds and i + len(run) in bounds:
            return True
        i = text.find(run, i + 1)
    return False


@lru_cache(maxsize=1024)
def _word_bounds(text: str) -> frozenset[int]:
    """The offsets where the tokenizer's words of ``text`` begin and end (cut once per text, not per word asked)."""
    bounds, at = {0}, 0
    for tok in cut(text):
        at += len(tok)
        bounds.add(at)
    return frozenset(bounds)


def _asked_negation(query: Query, found: Found, m: Any) -> Optional[Found]:
    """A yes/no question that asks whether the act may be left undone (可以不…吗), read in the clause of the provision
    that names the act (the heaviest question word just after the negation), then in the whole sentence: a clause that
    says the act goes on (不停止执行) or requires it (应当, 必须, 仍负有…) answers no; one that forbids it yes; one that
    only permits it answers neither (None). ``m`` is the question's match of yesno.asked_negation."""
    sent = found.evidence[0][1].text if found.evidence else found.anchor.sentence.text
    after = query.text[m.end():m.end() + 8]  # the act left undone: the heaviest word just after 不
    act = max((t for t in query.weights if t in after), key=lambda t: query.weights[t], default="")
    clause = next((c for c in re.split(r"[，,；;。]", sent) if act and _holds(query, act, c)), sent)
    for text in dict.fromkeys((clause, sent)):  # the act's own clause decides first, then the whole sentence
        if CUES.rx("yesno.continues").search(text) or CUES.rx("modal.obligation").search(text):
            yes, why = False, "问题问的是能否不做：条文要求去做（或不停止），即为「否」"
            break
        if polarity_of(text) is False:
            yes, why = True, "问题问的是能否不做：条文不要求或禁止去做，即为「是」"
            break
    else:
        return None
    return _set_reading(found, yes, why)


def _set_reading(found: Found, yes: bool, why: str) -> Found:
    """``found`` (a yes/no reading) made to say ``yes``, its answer's first word with it, and why."""
    found.answer = _yesno_word(yes) + found.answer[len(_yesno_word(found.value["value"])):]
    found.value = {**found.value, "value": yes}
    found.reasons.append(why)
    return found


def _yesno_word(yes: bool) -> str:
    """The word a yes/no answer starts with (rules/extract_cues.yaml answer.yesno)."""
    return str(CUES.table("answer.yesno")["yes" if yes else "no"])


def _marker_style(text: str) -> str:
    """The shape of a list item's marker (rules/extract_cues.yaml list.item_marker: （1） → （9）, 8.1 → 9.9, 一、 →
    一、), "" when it has none: digits become 9 and a run of Chinese numerals its first numeral."""
    m = CUES.rx("list.item_marker").match(text)
    if not m or not m.group(1):
        return ""
    return regex.sub(f"[{CN_DIGITS}]+", CN_DIGITS[2], re.sub(r"\d+", "9", m.group(1)))  # CN_DIGITS[2]: 一


def _item_text(text: str) -> str:
    """A list item as a value: without its bullet (- / • / *) and closing punctuation."""
    return re.sub(r"[；;。]$", "", re.sub(r"^\s*[-•*·]\s*", "", text))


@lru_cache(maxsize=8)
def _ordinal_end(mark: str) -> "re.Pattern[str]":
    """The ordinal mark as the end of a text (第 right before a number: 第二年)."""
    return re.compile(f"(?:{mark})$")


def _ordinal() -> str:
    """The mark that makes a number an ordinal (第三项), as a pattern for a look-behind (count.ordinal_before)."""
    return CUES.rx("count.ordinal_before").pattern


def _asked_classifier(question: str, own: Optional[str] = None) -> str:
    """The classifier a count question asks with (几类 → 类); else the counted value's own (不超过10条 → 条); else 个."""
    m = CUES.rx("ask.classifier").search(question)
    if not m:
        return own or CUES.rule("ask.classifier")["unit"]  # 几个 is the classifier when neither names one
    return m.group(1)


# a clause's bounds: Chinese and ASCII commas, semicolons (and, before it, colons), except a comma or colon between
# two digits, which groups a figure's thousands (5,000元) or writes a time (9:00)
_CLAUSE_START = re.compile(r"[，；;：]|(?<!\d)[,:]|[,:](?!\d)")
_CLAUSE_STOP = re.compile(r"[，；;。]|(?<!\d),|,(?!\d)")


def _conditional(sent: str, span: tuple[int, int]) -> bool:
    """Is the clause of ``sent`` holding ``span`` a condition (…不满三年的，; …距离超过300米时，): its figure says when the
    provision applies, not what it states."""
    clause = _clause_at(sent, span)
    return clause.endswith(CUES.words("condition.clause_end")) or bool(CUES.rx("condition.when_end").search(clause))


def _clause_at(sent: str, span: tuple[int, int]) -> str:
    """The comma-delimited clause of ``sent`` that contains ``span`` (extended to the match)."""
    start = max((m.end() for m in _CLAUSE_START.finditer(sent) if m.end() <= span[0]), default=0)
    stop = _CLAUSE_STOP.search(sent, span[1])
    return sent[start:stop.start() if stop else len(sent)].strip()


def _clause_before(sent: str, span: tuple[int, int]) -> str:
    """The conditional clause(s) preceding ``span`` in the same sentence (…的，)."""
    start = max(sent.rfind(p, 0, span[0]) for p in "；;。") + 1
    return sent[start:span[1]]


def _grade_match(question: str, before: str) -> float:
    """+0.5 when the value's condition (…的，) names the grade the question names (发生较大事故的), −0.5
    when it names another grade (情节特别严重的 for a question that states none or a different one)."""
    grade = CUES.rx("condition.grade")  # graded tiers: 一般/较大/重大/特别重大事故, 情节轻微/较重/严重
    grades = [g for c in CUES.rx("condition.clause").findall(before) for g in grade.findall(c)]
    if not grades:
        return 0.0
    asked = set(grade.findall(question))
    if asked & set(grades):
        return 0.5
    return -0.5


def joined_terms(query: Query) -> list[str]:
    """Neighbouring question terms as the question writes them together (大型 + 客车 → 大型客车)."""
    got = query.constraints.get("_joined")
    if got is None:
        cats = query.constraints.get("asked_category") or []  # 哪个部门审批: 部门审批 is the asker's frame
        terms = sorted((t for t in query.weights if t not in cats), key=lambda t: query.text.find(t))
        got = [a + b for a, b in zip(terms, terms[1:]) if a + b in query.text]
        query.constraints["_joined"] = got
    return got


def phrase_bonus(query: Query, text: str) -> float:
    """0.1 per joined pair of question terms the sentence also has together (at most 0.2): 大型客车
    is not 中型客车、大型货车, though both sentences hold 大型 and 客车."""
    return min(0.2, 0.1 * sum(1 for p in joined_terms(query) if p in text))


def _proximity(query: Query, sent: str, span: tuple[int, int]) -> float:
    """Up to 0.6 for question terms near the match: its own clause and the condition clause before it
    (设备停机的，应当在四小时内到场: 设备停机 decides which of two deadlines is meant)."""
    near_text = _clause_before(sent, span) + _clause_at(sent, span)
    total = sum(query.weights.values()) or 1.0
    # a term said in the document's words (马达 / 电机) counts at its synonym weight (dictionaries/synonyms.yaml), as
    # in the coverage of stage 2 (pipeline.anchors.coverage)
    syn = query.constraints.get("synonym_weight", 0.6)
    own = query.constraints.get("synonym_term_weight") or {}
    near = sum(w if t in near_text else own.get(t, syn) * w for t, w in query.weights.items() if _holds(query, t, near_text))
    return 0.6 * near / total


def _focus_link(query: Query, sent: str, span: tuple[int, int]) -> float:
    """Focus–value linking by clause proximity: the value noun the question's interrogative attaches to
    (电压 in 电压应设为多少) in the value's own clause or the one before it links that value (+0.3); in the
    same sentence, the nearer the better (up to +0.15)."""
    focus = query.constraints.get("focus")
    if not focus or focus in (query.constraints.get("value_units") or []):
        return 0.0
    words = [focus] + list(query.expansions.get(focus, []))
    near = _clause_before(sent, span) + _clause_at(sent, span)
    if any(w in near for w in words):
        return 0.3
    dist = [abs(m.start() - span[0]) for w in words for m in re.finditer(re.escape(w), sent)]
    return 0.15 * max(0.0, 1 - min(dist) / 40) if dist else 0.0


def _answer_text(query: Query, value: dict, clause: str) -> str:
    if value.get("kind") == "count":
        cls = _asked_classifier(query.text, value.get("unit"))
        items = value.get("items")
        return f"{value['number']}{cls}" + (f"：{'、'.join(items)}" if items else f"（{clause}）")
    return clause


def _render(value: dict) -> str:
    k = value.get("kind")
    if k == "range":
        return f"{value['min']}–{value['max']}{value.get('unit', '')}"
    if k in ("duration", "money", "number", "count"):
        return f"{value.get('number')}{unit_text(value)}"
    if k == "date":
        return value.get("iso", "")
    if k == "boolean":
        return _yesno_word(bool(value.get("value")))
    if k == "list":
        return "；".join(value.get("items", []))
    return value.get("text", "")


def unit_text(value: dict) -> str:
    """A value's unit as written after its number: a duration of months reads 2个月 (2月 is February)."""
    unit = value.get("unit") or ""
    return "个月" if value.get("kind") == "duration" and unit == "月" else unit


def render_value(value: dict) -> str:
    """A short human rendering of a value object (for reasoning lines)."""
    return _render(value)


__all__ = ["Extractor", "ExtractSettings", "Found", "compile_templates", "condition_match", "range_conditions",
           "polarity_of", "expand", "BUILDERS", "STRATEGY_REGISTRY", "strategy", "norm_for_match", "find_quantities", "Candidate"]
