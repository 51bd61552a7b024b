"""Answer-kind grammar: from a question's interrogative and the value noun it attaches to, the kind of
value asked for and its focus (rules/value_kinds.yaml).

电压应设为多少伏 → measure (unit 伏), focus 电压; 按什么费率缴纳 → percent, focus 费率; 弄坏了怎么赔 → money.
The grammar is data: interrogatives, nouns and units are YAML lists; this module only links them.

Needs: the rules (kind ``value_kind``). Adds: an :class:`AnswerKind` or None.
"""
from __future__ import annotations

import re
import threading
from dataclasses import dataclass
from typing import Optional

import regex

from . import cues
from .numbers import canonical_unit
from .rules import Field, RuleSet, register_schema

VALUE_KINDS = ("percent", "multiple", "money", "duration", "time", "quantity", "measure", "age", "headcount", "code", "date", "agent")
_QTYPES = ("count", "number", "money", "duration", "date", "who", "code", "list")

register_schema("value_kind", {
    "value_kind": Field((str,), True, "one of " + "/".join(VALUE_KINDS)),
    "qtype": Field((str,), True, "the question type whose strategies answer it: " + "/".join(_QTYPES)),
    "nouns": Field((list,), True, "value nouns, e.g. [费率, 利率]"),
    "units": Field((list,), False, "units an answer of this kind may carry, e.g. [V, 伏]"),
    "asks": Field((list,), False, "interrogatives that name this kind by themselves (什么时候 → time)"),
    "link": Field((str,), False, "after: the noun links only when it follows the interrogative (哪个部门)"),
    "compound": Field((bool,), False, "true: a modifier may stand between the interrogative and the noun when the two "
                      "make one compound that ends the asking clause (哪个告警代码？; settings compound_between/_end)"),
}, check=lambda r: None if r.get("value_kind") in VALUE_KINDS and r.get("qtype") in _QTYPES
    else f"value_kind must be one of {VALUE_KINDS} and qtype one of {_QTYPES}")

def _family(kind: str) -> str:
    """Kinds one question may name by its noun and its interrogative at once: a point in time (date, time)."""
    return "when" if kind in ("date", "time") else kind


# clause punctuation: a noun and an interrogative in different clauses are not linked
_BREAK = re.compile(r"[，,。；;：:？?！!、]")
_LATIN_WORD = re.compile(r"[A-Za-z][A-Za-z0-9_\-]*")


@dataclass(frozen=True)
class AnswerKind:
    kind: str                 # value kind (percent, money, measure …)
    qtype: str                # question type that answers it
    focus: str                # the value noun (or unit) the interrogative attaches to
    units: tuple[str, ...]    # canonical units an answer may carry (empty: any)
    rule_id: str
    how: str                  # "unit" (多少伏), "after" (什么费率), "before" (电压是多少), "share" (总价的多少),
    #                           "ask" (什么时候: the interrogative itself)

    def reason(self) -> str:
        where = {"unit": "疑问词后的单位", "after": "疑问词所修饰的名词", "before": "疑问词所问的名词",
                 "share": "所问为某数额的份额", "ask": "疑问词本身"}[self.how]
        return f"答案类型：{self.kind}（规则 {self.rule_id}，{where}「{self.focus}」）"


class AnswerKindGrammar:
    """Links a question's interrogative to a value noun or unit; compiled from the rules, reloaded with them."""

    def __init__(self, rules: RuleSet) -> None:
        self.rules = rules
        self._lock = threading.Lock()
        self._version = -1
        self._nouns: dict[str, dict] = {}
        self._units: dict[str, dict] = {}
        self._noun_rx = None
        self._unit_rx = None
        self._inter_rx = None
        self._share_rx = None
        self._before_rx = None
        self._between_rx = None
        self._compound_rx = None
        self._compound_end_rx = None
        self._compound_asks: frozenset[str] = frozenset()
        self._asks: list[tuple[str, dict]] = []
        self._share_rule: Optional[dict] = None
        self._share_of: frozenset[str] = frozenset()
        self.after_gap = 3
        self.before_gap = 8
        self.refines: frozenset[str] = frozenset()
        self.refines_for: dict[str, frozenset[str]] = {}
        self.any_agent: frozenset[str] = frozenset()
        self.after_link_words: tuple[str, ...] = ()
        self.after_link_manner: frozenset[str] = frozenset()

    def _refresh(self) -> None:
        if self._version == self.rules.version:
            return
        with self._lock:
            rules = self.rules.get("value_kind")
            settings = self.rules.settings("value_kind")
            nouns: dict[str, dict] = {}
            units: dict[str, dict] = {}
            for r in rules:
                for n in r["nouns"]:
                    nouns.setdefault(str(n), r)
                for u in r.get("units") or []:
                    units.setdefault(str(u), r)
            self._nouns, self._units = nouns, units
            self._share_rule = next((r for r in rules if r["value_kind"] == "percent"), None)
            self._asks = sorted(((str(a), r) for r in rules for a in r.get("asks") or []), key=lambda x: -len(x[0]))
            alt = lambda ws: "|".join(regex.escape(w) for w in sorted(ws, key=len, reverse=True))  # noqa: E731
            self._noun_rx = regex.compile(alt(nouns)) if nouns else None
            inter = [str(w) for w in settings.get("interrogatives") or []]
            self._inter_rx = regex.compile(alt(inter)) if inter else None
            # a unit right after 多少/几 (多少伏, 几毫米, 多少kbps); ASCII units must not run on into a word
            # (哪几个部门 asks which, not how many: 几 after 哪 names no unit; 几个阶段 counts kinds of a thing, which the
            # count templates answer with their own classifier: the unit is not followed by such a noun, `unit_not_before`)
            kinds_of = [str(w) for w in settings.get("unit_not_before") or []]
            not_before = f"(?!{alt(kinds_of)})" if kinds_of else ""
            self._unit_rx = regex.compile(rf"(?:多少|(?<!哪)几)(?:个)?({alt(units)})(?![A-Za-z]){not_before}") \
                if units else None
            share = settings.get("share_cue")
            self._share_rx = regex.compile(str(share)) if share else None
            self._share_of = frozenset(str(k) for k in settings.get("share_of") or ["money"])
            link = settings.get("before_link")
            self._before_rx = regex.compile(re.sub(r"\s+", "", str(link))) if link else None
            self.after_gap = int(settings.get("after_gap", 3))
            between = settings.get("after_between")
            self._between_rx = regex.compile(str(between)) if between else None
            compound, end = settings.get("compound_between"), settings.get("compound_end")
            self._compound_rx = regex.compile(str(compound)) if compound else None
            self._compound_end_rx = regex.compile(str(end)) if end else None
            self._compound_asks = frozenset(str(x) for x in settings.get("compound_asks") or [])
            self.before_gap = int(settings.get("before_gap", 8))
            self.refines = frozenset(str(x) for x in settings.get("refines") or [])
            self.refines_for = {str(k): frozenset(str(x) for x in v or [])
                                for k, v in (settings.get("refines_for") or {}).items()}
            self.any_agent = frozenset(str(x) for x in settings.get("any_agent") or [])
            self.after_link_words = tuple(str(x) for x in settings.get("after_link_words") or [])
            self.after_link_manner = frozenset(str(x) for x in settings.get("after_link_manner") or [])
            self._version = self.rules.version

    def units_of(self, kind_rule: dict) -> tuple[str, ...]:
        return tuple(dict.fromkeys(canonical_unit(str(u)) for u in kind_rule.get("units") or []))

    def any_agent_nouns(self) -> frozenset[str]:
        """Agent nouns that name any body (rules/value_kinds.yaml `any_agent`)."""
        self._refresh()
        return self.any_agent

    def measure_units(self) -> list[str]:
        """Every unit of the measure, age and headcount kinds (they extend the templates' MEASURE_UNIT)."""
        self._refresh()
        return [u for u, r in self._units.items() if r["value_kind"] in ("measure", "age", "headcount")]

    def _make(self, r: dict, focus: str, how: str) -> AnswerKind:
        return AnswerKind(r["value_kind"], r["qtype"], focus, self.units_of(r), r["id"], how)

    def refines_type(self, rule_id: Optional[str], kind: str) -> bool:
        """May the answer kind ``kind`` decide the question type over the question-type rule ``rule_id``?"""
        rule = rule_id or "qtype.open"
        return rule in self.refines or kind in self.refines_for.get(rule, ())

    def infer(self, question: str, asked: Optional[str] = None) -> Optional[AnswerKind]:
        """The value kind the question asks for, or None when no interrogative attaches to a value noun."""
        self._refresh()
        if self._inter_rx is None:
            return None
        text = asked or question
        if self._unit_rx is not None:
            m = self._unit_rx.search(text)
            # 哪年几月 / 几月几日: an interrogative phrase that holds the unit's match names the kind, not the unit
            longer = next(((a, r) for a, r in self._asks if len(a) > len(m.group(0))
                           and a in text[max(0, m.end() - len(a)):m.start() + len(a)]), None) if m else None
            if longer:
                return self._make(longer[1], longer[0], "ask")
            if m:
                r = self._units[m.group(1)]
                k = self._make(r, m.group(1), "unit")
                if r["value_kind"] == "money":  # 多少元 / 多少倍: that unit, not every unit an amount may carry
                    k = AnswerKind(k.kind, k.qtype, k.focus, (canonical_unit(m.group(1)),), k.rule_id, k.how)
                return k
        inters = [(m.start(), m.end()) for m in self._inter_rx.finditer(text)]
        found = self._link(text, inters) if inters and self._noun_rx is not None else None
        # 什么时候 / 何时 / 多久: an interrogative phrase that names the kind by itself decides over a noun of another
        # kind it might attach to (保证金什么时候退 asks a time, not an amount; 罚款多久内缴清 a duration); a noun of the
        # same kind stays the focus (试用期多久, 截止日期是哪天)
        hit = next(((a, r) for a, r in self._asks if a in text), None)
        if hit and (found is None or _family(found.kind) != _family(hit[1]["value_kind"])):
            return self._make(hit[1], hit[0], "ask")
        return found

    def _compound(self, between: str, after: str) -> bool:
        """Whether ``between`` (interrogative … noun) is a modifier making one compound with the noun that ends the
        asking clause (rules/value_kinds.yaml ``compound_between``, ``compound_end``): 哪个告警代码？, 哪组GPIO引脚？"""
        return self._compound_rx is not None and self._compound_end_rx is not None \
            and bool(self._compound_rx.match(between)) and bool(self._compound_end_rx.match(after))

    def _link(self, text: str, inters: list[tuple[int, int]]) -> Optional[AnswerKind]:
        """The value noun nearest to an interrogative it attaches to."""
        best: Optional[tuple[int, int, AnswerKind]] = None  # (gap, preference, kind)
        # 押金按面积怎么算: a noun after 按 / 根据 is the basis of the asked value, not its kind; the basis phrase stands
        # between another noun and the interrogative like a bound does (押金 … 怎么算)
        nouns = list(self._noun_rx.finditer(text, overlapped=False))
        basis = [(m.start() - len(mk.group(0)), m.end()) for m in nouns
                 if (mk := _BASIS.search(text, 0, m.start())) is not None and mk.end() == m.start()]
        for m in nouns:
            noun = m.group(0)
            r = self._nouns[noun]
            if any(s < m.start() and m.end() == e for s, e in basis):
                continue
            for a, b in inters:
                if m.start() >= b:  # 什么费率: the noun follows the interrogative
                    gap, how = len(_LATIN_WORD.sub("x", text[b:m.start()])), "after"  # 哪个Flash地址: a word counts one
                    limit = self.after_gap
                    if self._between_rx is not None and not self._between_rx.match(text[b:m.start()]):
                        if not ((r.get("compound") or text[a:b] in self._compound_asks)
                                and self._compound(text[b:m.start()], text[m.end():])):
                            continue  # 什么程度公司: the interrogative attaches to 程度, not to 公司
                        gap, limit = 0, 0  # 哪个告警代码: the modifier and the noun are one compound
                elif m.end() <= a and (r.get("link") != "after" or (text[m.end():a] in self.after_link_words
                                                                     and text[a:b] not in self.after_link_manner)):  # 电压应设为多少
                    gap, how = a - m.end(), "before"
                    limit = self.before_gap
                    link = text[m.end():a]
                    if basis:  # 押金按面积怎么算: the basis phrase is left out of what links the noun
                        link = "".join(c for i, c in enumerate(link, m.end()) if not any(s <= i < e for s, e in basis))
                    if self._before_rx is not None and not self._before_rx.match(link):
                        continue
                else:
                    continue
                between = text[min(b, m.end()):max(a, m.start())]
                if gap > limit or _BREAK.search(between):
                    continue
                if how == "before" and self._share_rule is not None and r["value_kind"] in self._share_of \
                        and self._share_rx is not None and self._share_rx.match(text, m.end()):
                    if best is None or best[0] >= 0:  # the share reading wins over the amount it is a share of
                        best = (-1, 0, self._make(self._share_rule, noun, "share"))
                    continue
                key = (gap, 0 if how == "after" else 1)
                if best is None or key < best[:2]:
                    best = (key[0], key[1], self._make(r, noun, how))
        return best[2] if best else None


# right before a noun: the basis it is counted by (rules/pipeline_cues.yaml value_kind.basis_before)
_BASIS = regex.compile("(?:" + "|".join(regex.escape(w) for w in sorted(cues.words("value_kind.basis_before"), key=len,
                                                                          reverse=True)) + ")$")


__all__ = ["AnswerKind", "AnswerKindGrammar", "VALUE_KINDS"]
