"""`loopagent rules test|lint`: run every rule's examples, validate every rule file.

One dispatch table (``CHECKERS``) says how an example of each rule kind is checked; the
test suite runs the same cases (tests/test_rule_examples.py). Both commands read the
configured folders (:class:`~pipeline.config.Settings`: shipped rules plus overlays), and
examples are checked against that merged rule set, so an overlay's rules are what is tested.
"""
from __future__ import annotations

import tempfile
import threading
import weakref
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Optional

from .config import Settings, as_settings, rule_files
from .errors import LoopAgentError, message
from .rules import RuleSet, load_rule_file, strip_lines

Case = tuple[str, dict, dict]  # (kind, rule, example)
EXAMPLE_KEYS = ("input", "expect", "note", "__line__")

_local = threading.local()


def _rule_files(settings: Optional[Settings] = None) -> list[Path]:
    out: list[Path] = []
    for d in as_settings(settings).rule_search_path:
        out += [p for p in rule_files(d) if p not in out]
    return out


def _ensure_kinds() -> None:
    """Import the stage modules so every rule kind's schema is registered."""
    from . import analyze, cues, extract, prefilter, sources  # noqa: F401
    try:
        from .syntax import patterns  # noqa: F401
    except Exception:  # the parser package is optional for linting
        pass


def _rules(settings: Optional[Settings] = None) -> RuleSet:
    """The merged rule set under test (one per settings and thread; reloaded when files change)."""
    settings = as_settings(settings if settings is not None else getattr(_local, "settings", None))
    cache = getattr(_local, "rulesets", None)
    if cache is None:
        cache = _local.rulesets = {}
    rs = cache.get(settings)
    if rs is None:
        _ensure_kinds()
        rs = cache[settings] = RuleSet(settings=settings)
    else:
        rs.reload()
    return rs


def example_cases(settings: Optional[Settings] = None) -> list[Case]:
    """Every example of the effective rules (an overlay rule replaces the shipped rule with its id)."""
    rs = _rules(settings)
    kinds: list[str] = []
    for rf in rs._ordered():
        if rf.kind not in kinds:
            kinds.append(rf.kind)
    cases: list[Case] = []
    for kind in kinds:
        for rule in rs.get(kind):
            for ex in rule.get("examples") or []:
                cases.append((kind, rule, ex))
    return cases


def _qtype_rules():
    import regex
    rs = _rules()
    key = (id(rs), rs.version)
    if getattr(_local, "qtype_key", None) != key:
        _local.qtype = [(r, regex.compile(r["regex"]))
                        for r in sorted(rs.get("question_type"), key=lambda r: -r["priority"])]
        _local.qtype_key = key
    return _local.qtype


def _check_qtype(rule: dict, ex: dict) -> tuple[bool, Any]:
    got = next((r["type"] for r, rx in _qtype_rules() if rx.search(ex["input"])), "open")
    return got == ex["expect"], got


_GRAMMARS: "weakref.WeakKeyDictionary[RuleSet, Any]" = weakref.WeakKeyDictionary()
_ANALYZERS: "weakref.WeakKeyDictionary[RuleSet, Any]" = weakref.WeakKeyDictionary()


def _grammar(rs: RuleSet):
    """One answer-kind grammar per rule set (it recompiles itself when the rules reload)."""
    from .answer_kind import AnswerKindGrammar
    g = _GRAMMARS.get(rs)
    if g is None:
        g = _GRAMMARS[rs] = AnswerKindGrammar(rs)
    return g


def _analyzer(rs: RuleSet):
    """One query analyzer per rule set, over an empty store in a temporary folder kept for the process."""
    from .analyze import QueryAnalyzer
    from .store import Store
    a = _ANALYZERS.get(rs)
    if a is None:
        a = _ANALYZERS[rs] = QueryAnalyzer(rs, Store(Path(tempfile.mkdtemp(prefix="loopagent-plan-")) / "plan.sqlite"))
    return a


def _check_value_kind(rule: dict, ex: dict) -> tuple[bool, Any]:
    """The grammar over every value-kind rule decides; the example's rule must be the one that does
    (``expect: null``: this rule must not)."""
    ak = _grammar(_rules()).infer(ex["input"])
    got = ak.kind if ak is not None and ak.rule_id == rule["id"] else None
    return got == ex.get("expect"), (ak.kind, ak.rule_id, ak.focus) if ak else None


def _check_plan(rule: dict, ex: dict) -> tuple[bool, Any]:
    """The example question's type (with the answer-kind grammar) must be this plan's, and the plan the
    expected strategies."""
    qtype = _analyzer(_rules()).run(ex["input"]).qtype
    got = [str(x) for x in rule["strategies"]] if qtype == rule["qtype"] else f"question type {qtype}"
    return got == list(strip_lines(ex.get("expect")) or []), got


def _check_spec(rule: dict, ex: dict) -> tuple[bool, Any]:
    from .specs import check_spec
    return check_spec(rule, ex, _rules().config)


def _check_template(rule: dict, ex: dict) -> tuple[bool, Any]:
    from .extract import compile_templates
    tpl = compile_templates([rule])[0]
    found = tpl.apply(ex["input"])
    expect = strip_lines(ex.get("expect"))
    if expect is None:
        return not found, [v for v, _ in found]
    for value, _ in found:
        if all(value.get(k) == v for k, v in expect.items()):
            return True, value
    return False, [v for v, _ in found]


def _check_lexicon(rule: dict, ex: dict) -> tuple[bool, Any]:
    got = [w for w in rule["words"] if w in ex["input"]]
    return sorted(got) == sorted(ex["expect"]), got


def _check_dep(rule: dict, ex: dict) -> tuple[bool, Any]:
    from .syntax.parser import default_parser
    from .syntax.patterns import PatternSet, compile_rule
    parser = default_parser(_rules().config.parser_dir)
    pset = PatternSet([compile_rule(rule)])
    got = "match" if any(rid == rule["id"] for rid, _ in pset.match(parser.parse(ex["input"]))) else "no_match"
    return got == ex["expect"], got


def _check_route(rule: dict, ex: dict) -> tuple[bool, Any]:
    got = rule["collection"] if any(str(t) in ex["input"] for t in rule["terms"]) else None
    return got == ex.get("expect"), got


def _check_hint(rule: dict, ex: dict) -> tuple[bool, Any]:
    from .prefilter import hint_applies
    inp = ex["input"]
    got = hint_applies(rule, inp["type"], inp["block_type"], inp["text"])
    return got == ex["expect"], got


def _check_prefilter_case(rule: dict, ex: dict) -> tuple[bool, Any]:
    """Rank the example's blocks with the real analyzer and pre-filter over a throwaway in-memory store."""

    from .analyze import QueryAnalyzer
    from .ingest.structure import DocBuilder
    from .prefilter import Prefilter
    from .store import Store
    from .types import Document

    inp = strip_lines(ex["input"])
    with tempfile.TemporaryDirectory() as tmp:
        store = Store(Path(tmp) / "case.sqlite")
        doc = Document(doc_id="case", title="case", source="case.md", kind="markdown", content_hash="case")
        builder = DocBuilder(doc)
        for text in inp["blocks"]:
            builder.paragraph(text)
        doc.blocks = builder.blocks
        store.put_document(doc)
        rules = _rules()
        query = QueryAnalyzer(rules, store).run(inp["question"])
        pre = Prefilter(store, rules)
        lex = pre._lexicon()
        scores = [pre.score_block(query, b, lex)[0] for b in doc.blocks]
        store.close()
    got = sorted(range(len(scores)), key=lambda i: -scores[i])
    ok = got == list(ex["expect"])
    missing = [e for e in inp.get("entities", []) if e not in query.entities]
    return ok and not missing, {"order": got, "entities": query.entities}


def _check_sources(kind: str) -> Callable[[dict, dict], tuple[bool, Any]]:
    """Examples of the source rules (rules/sources/): pipeline.sources decides, over the merged rule set."""
    def check(rule: dict, ex: dict) -> tuple[bool, Any]:
        from .sources import check_example as source_check
        return source_check(kind, rule, strip_lines(ex.get("input")), strip_lines(ex.get("expect")), _rules())
    return check


CHECKERS: dict[str, Callable[[dict, dict], tuple[bool, Any]]] = {
    "question_type": _check_qtype, "template": _check_template, "value_kind": _check_value_kind,
    "strategy_plan": _check_plan,
    "spec": _check_spec, "lexicon": _check_lexicon,
    "dep_pattern": _check_dep, "collection_route": _check_route,
    "structure_hint": _check_hint, "prefilter_case": _check_prefilter_case,
    **{k: _check_sources(k) for k in ("doc_kind", "version_marker", "version_cue", "conflict_rule", "navigation_cue")},
}


def _check_cue(rule: dict, ex: dict) -> tuple[bool, Any]:
    from .cues import check_example as cue_check
    return cue_check(rule, ex)


CHECKERS["cue"] = _check_cue


def check_example(kind: str, rule: dict, ex: dict) -> tuple[bool, Any]:
    """Run one example; returns (passed, what the rule produced). A kind without a checker fails."""
    checker = CHECKERS.get(kind)
    if checker is None:
        return False, f"no example checker for rule kind {kind!r}"
    return checker(rule, ex)


@dataclass
class TestReport:
    """What `rules test` did: failing examples (E203 lines), how many passed, kinds nobody can check."""

    failures: list[str] = field(default_factory=list)
    passed: int = 0
    unchecked: list[str] = field(default_factory=list)  # W012 lines
    broken: list[str] = field(default_factory=list)     # files that do not load (E201/E202/E208)

    @property
    def ok(self) -> bool:
        return not (self.failures or self.unchecked or self.broken) and self.passed > 0

    def summary(self) -> str:
        return (f"{self.passed} passed, {len(self.failures)} failed"
                + (f", {len(self.unchecked)} rule kinds unchecked" if self.unchecked else "")
                + (f", {len(self.broken)} files broken" if self.broken else ""))


def run_rule_tests(settings: Optional[Settings] = None, verbose: bool = False,
                   kinds: Optional[set[str]] = None) -> TestReport:
    """Run every example of the configured rules; raises E205 when there are none."""
    previous = getattr(_local, "settings", None)
    _local.settings = settings  # the checkers compare against this merged rule set
    try:
        return _run_rule_tests(settings, verbose, kinds)
    finally:
        _local.settings = previous


def _run_rule_tests(settings: Optional[Settings], verbose: bool, kinds: Optional[set[str]]) -> TestReport:
    rep = TestReport()
    cases = example_cases(settings)
    rs = _rules(settings)
    rep.broken = rs.error_lines()
    if not cases:
        raise LoopAgentError("E205", path=", ".join(str(d) for d in rs.dirs), origin="rules test (no examples)")
    no_checker: dict[tuple[str, str], int] = {}
    for kind, rule, ex in cases:
        if kinds and kind not in kinds:
            continue
        if kind not in CHECKERS:
            k = (kind, rule.get("__file__", ""))
            no_checker[k] = no_checker.get(k, 0) + 1
            continue
        ok, got = check_example(kind, rule, ex)
        if not ok:
            rep.failures.append(str(LoopAgentError("E203", file=f"{rule.get('__file__', '')}:{ex.get('__line__', '')}",
                                                   rule_id=rule["id"], example=ex.get("input"),
                                                   expected=strip_lines(ex.get("expect")), got=got)))
        else:
            rep.passed += 1
            if verbose:
                print(f"ok   {rule['id']}: {str(ex.get('input'))[:30]}")
    rep.unchecked = [message("W012", file=f, kind=k, n=n) for (k, f), n in sorted(no_checker.items())]
    return rep


def run_examples(verbose: bool = False, kinds: Optional[set[str]] = None,
                 settings: Optional[Settings] = None) -> tuple[list[str], int]:
    """All failing examples as E203 lines (unchecked kinds count as failures), and how many examples ran."""
    rep = run_rule_tests(settings, verbose, kinds)
    return rep.failures + rep.unchecked + rep.broken, rep.passed + len(rep.failures)


def lint(settings: Optional[Settings] = None, warnings: bool = True) -> list[str]:
    """Problems in rule files (syntax, schema, vocabularies, regexes, examples), one coded line each.

    Errors are E… lines; with ``warnings`` also W007 (no examples) and W011 (a lexicon or synonym
    term that jieba splits and no user dictionary keeps whole). Raises E205 when there is no rule file.
    """
    from .types import VALUE_KINDS
    _ensure_kinds()
    settings = as_settings(settings)
    paths = _rule_files(settings)
    if not paths:
        raise LoopAgentError("E205", path=", ".join(str(d) for d in settings.rule_search_path),
                             origin=settings.origins.get("rules", "shipped"))
    problems: list[str] = []
    terms: list[tuple[str, int, str, str]] = []  # (file, line, rule id, term)
    for path in paths:
        try:
            rf = load_rule_file(path)
        except LoopAgentError as exc:
            problems.append(str(exc))
            continue
        for rule in rf.rules:
            line, rid = rule.get("__line__"), rule["id"]
            for ex in rule.get("examples") or []:
                eline = ex.get("__line__", line) if isinstance(ex, dict) else line
                if not isinstance(ex, dict) or "input" not in ex:
                    problems.append(message("E201", file=str(path), line=eline, rule_id=rid,
                                            problem="an example without 'input'", fix="write {input: ..., expect: ...}"))
                    continue
                unknown = [k for k in ex if k not in EXAMPLE_KEYS]
                if unknown:
                    problems.append(message("E201", file=str(path), line=eline, rule_id=rid,
                                            problem=f"unknown example key(s) {', '.join(map(repr, unknown))}",
                                            fix="an example has input, expect and an optional note"))
                expect = ex.get("expect")
                if rf.kind == "template" and isinstance(expect, dict) and "kind" in expect \
                        and expect["kind"] not in VALUE_KINDS:
                    problems.append(message("E201", file=str(path), line=eline, rule_id=rid,
                                            problem=f"unknown value kind {expect['kind']!r}",
                                            fix=f"use one of {', '.join(VALUE_KINDS)}"))
            if warnings and not rule.get("examples") and rf.kind not in ("synonyms",):
                problems.append(message("W007", file=str(path), line=line, rule_id=rid))
            if rf.kind == "lexicon":
                terms += [(str(path), line, rid, str(w)) for w in rule.get("words", [])]
            elif rf.kind == "synonyms":
                terms += [(str(path), line, rid, str(w)) for w in rule.get("user", []) + rule.get("doc", [])]
    if warnings:
        problems += split_terms(terms, settings)
    return problems


def split_terms(terms: list[tuple[str, int, str, str]], settings: Settings) -> list[str]:
    """W011 for each term the configured jieba splits although no user dictionary lists it."""
    from . import tokenize
    tokenize.configure(settings.user_dict_files(), settings.stopword_files())
    known = set(tokenize.user_words())
    out = []
    for file, line, rid, term in terms:
        if term in known or len(term) < 2:
            continue
        parts = tokenize.splits(term)
        if len(parts) > 1:
            out.append(message("W011", file=file, line=line, rule_id=rid, term=term, parts=" / ".join(parts)))
    return out
