"""`loopagent rules test|lint`: run every rule's examples, validate every rule file.

One dispatch table (``CHECKERS``) says how an example of each rule kind is checked; the
test suite runs the same cases (tests/test_rule_examples.py).
"""
from __future__ import annotations

from functools import lru_cache
from pathlib import Path
from typing import Any, Callable, Optional

from .errors import LoopAgentError, message
from .rules import DICT_DIR, RULES_DIR, load_rule_file, strip_lines

Case = tuple[str, dict, dict]  # (kind, rule, example)


def _rule_files() -> list[Path]:
    out = []
    for d in (RULES_DIR, DICT_DIR):
        out += sorted(p for p in d.rglob("*") if p.suffix in (".yaml", ".yml"))
    return out


def _ensure_kinds() -> None:
    """Import the stage modules so every rule kind's schema is registered."""
    from . import analyze, extract, prefilter  # noqa: F401
    try:
        from .syntax import patterns  # noqa: F401
    except Exception:  # the parser package is optional for linting
        pass


def example_cases() -> list[Case]:
    _ensure_kinds()
    cases: list[Case] = []
    for path in _rule_files():
        rf = load_rule_file(path)
        for rule in rf.rules:
            rule["__file__"] = str(path)
            for ex in rule.get("examples") or []:
                cases.append((rf.kind, rule, ex))
    return cases


@lru_cache(maxsize=1)
def _qtype_rules():
    import regex
    from .rules import RuleSet
    rs = RuleSet()
    return [(r, regex.compile(r["regex"])) for r in sorted(rs.get("question_type"), key=lambda r: -r["priority"])]


def _check_qtype(rule: dict, ex: dict) -> tuple[bool, Any]:
    got = next((r["type"] for r, rx in _qtype_rules() if rx.search(ex["input"])), "open")
    return got == ex["expect"], got


def _check_value_kind(rule: dict, ex: dict) -> tuple[bool, Any]:
    """The grammar over every value-kind rule decides; the example's rule must be the one that does
    (``expect: null``: this rule must not)."""
    from .answer_kind import AnswerKindGrammar
    from .rules import RuleSet
    ak = AnswerKindGrammar(RuleSet()).infer(ex["input"])
    got = ak.kind if ak is not None and ak.rule_id == rule["id"] else None
    if ak is not None and ak.how == "share" and rule["value_kind"] != "percent":
        got = ak.kind if rule["value_kind"] == "money" and ex.get("expect") == "percent" else got
    return got == ex.get("expect"), (ak.kind, ak.rule_id, ak.focus) if ak else None


def _check_plan(rule: dict, ex: dict) -> tuple[bool, Any]:
    """The example question's type (with the answer-kind grammar) must be this plan's, and the plan the
    expected strategies."""
    import tempfile
    from .analyze import QueryAnalyzer
    from .rules import RuleSet
    from .store import Store
    with tempfile.TemporaryDirectory() as tmp:
        store = Store(Path(tmp) / "plan.sqlite")
        qtype = QueryAnalyzer(RuleSet(), store).run(ex["input"]).qtype
        store.close()
    got = [str(x) for x in rule["strategies"]] if qtype == rule["qtype"] else f"question type {qtype}"
    return got == list(strip_lines(ex.get("expect")) or []), got


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
    parser = default_parser()
    pset = PatternSet([compile_rule(rule)], parser.nlp.vocab)
    doc = parser.parse(ex["input"]).doc
    got = "match" if any(rid == rule["id"] for rid, _ in pset.match(doc)) else "no_match"
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
    import tempfile

    from .analyze import QueryAnalyzer
    from .ingest.structure import DocBuilder
    from .prefilter import Prefilter
    from .rules import RuleSet
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
        rules = RuleSet()
        query = QueryAnalyzer(rules, store).run(inp["question"])
        pre = Prefilter(store, rules)
        lex = pre._lexicon()
        scores = [pre.score_block(query, b, lex)[0] for b in doc.blocks]
        store.close()
    got = sorted(range(len(scores)), key=lambda i: -scores[i])
    ok = got == list(ex["expect"])
    missing = [e for e in inp.get("entities", []) if e not in query.entities]
    return ok and not missing, {"order": got, "entities": query.entities}


CHECKERS: dict[str, Callable[[dict, dict], tuple[bool, Any]]] = {
    "question_type": _check_qtype, "template": _check_template, "value_kind": _check_value_kind,
    "strategy_plan": _check_plan,
    "spec": lambda rule, ex: __import__("pipeline.specs", fromlist=["check_spec"]).check_spec(rule, ex), "lexicon": _check_lexicon,
    "dep_pattern": _check_dep, "collection_route": _check_route,
    "structure_hint": _check_hint, "prefilter_case": _check_prefilter_case,
}


def check_example(kind: str, rule: dict, ex: dict) -> tuple[bool, Any]:
    """Run one example; returns (passed, what the rule produced)."""
    checker = CHECKERS.get(kind)
    if checker is None:
        return True, "no checker for this kind"
    return checker(rule, ex)


def run_examples(verbose: bool = False, kinds: Optional[set[str]] = None) -> tuple[list[str], int]:
    """All failing examples as E203 lines, and how many examples ran."""
    failures = []
    total = 0
    for kind, rule, ex in example_cases():
        if kinds and kind not in kinds:
            continue
        total += 1
        ok, got = check_example(kind, rule, ex)
        if not ok:
            failures.append(str(LoopAgentError("E203", file=f"{rule.get('__file__', '')}:{ex.get('__line__', '')}",
                                               rule_id=rule["id"], example=ex["input"],
                                               expected=strip_lines(ex.get("expect")), got=got)))
        elif verbose:
            print(f"ok   {rule['id']}: {ex['input'][:30]}")
    return failures, total


def lint() -> list[str]:
    """Problems in rule files (syntax, schema, regexes), one coded line each."""
    _ensure_kinds()
    problems = []
    for path in _rule_files():
        try:
            rf = load_rule_file(path)
        except LoopAgentError as exc:
            problems.append(str(exc))
            continue
        for rule in rf.rules:
            if not rule.get("examples") and rf.kind not in ("synonyms",):
                problems.append(message("W007", file=str(path), line=rule.get("__line__"), rule_id=rule["id"]))
    return problems
