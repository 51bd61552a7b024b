"""Dependency patterns (rules/dep_patterns.yaml): one validating loader, compiled for spaCy's DependencyMatcher.

A rule names its nodes (token attributes, as in spaCy's Matcher) and the edges
between them. An edge is ``"A OP B"`` with any DependencyMatcher operator
(``>``, ``<``, ``>>``, ``$+``, ``.``, ...) or ``~N`` (N = 1 or 2): A and B are within
tree distance N in either direction, compiled into alternative patterns. With a
parser at 0.5-0.7 UAS, ``~2`` keeps a pattern from hinging on one attachment::

    - id: duration.limit
      qtype: [duration]
      nodes:
        LIMIT: {ORTH: {IN: [超过, 以内, 内]}}
        UNIT: {ORTH: {IN: [年, 月, 日, 天]}}
      edges: ["LIMIT ~2 UNIT"]
      examples:
        - {input: "租赁期限，不得超过二十年。", expect: match}
"""
from __future__ import annotations

import itertools
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Optional

from ..errors import LoopAgentError
from ..config import shipped_dir
from ..rules import Field, load_rule_file, register_schema, strip_lines
from . import depmatch
from .parsed import Parsed, to_doc

DEFAULT_FILE = shipped_dir("rules") / "dep_patterns.yaml"  # the shipped file; stages read the RuleSet
QTYPES = ("count", "number", "money", "duration", "date", "yesno", "list", "condition", "exception",
          "definition", "who", "procedure", "compare", "open", "any")
DEP_OPS = (">", "<", ">>", "<<", ".", ".*", ";", ";*", "$+", "$-", "$++", "$--",
           ">+", ">-", ">++", ">--", "<+", "<-", "<++", "<--")
# Operators that search the whole sentence: on long sentences they are what makes
# DependencyMatcher blow up, so such rules are skipped beyond ``max_tokens``.
UNBOUNDED_OPS = (">>", "<<", ".*", ";*", "$++", "$--", ">++", ">--", "<++", "<--")
EXPECT = ("match", "no_match")
MAX_ALTERNATIVES = 64
ENGINES = ("auto", "python", "spacy")  # auto: plain Python when every rule is in its subset, else spaCy
_EDGE = re.compile(r"^\s*([A-Za-z_][\w]*)\s+(\S+)\s+([A-Za-z_][\w]*)\s*$")


def _check(rule: dict) -> Optional[str]:
    """Structural checks beyond key types (the loader reports them as file:line rule-id)."""
    for q in rule.get("qtype", []):
        if q not in QTYPES:
            return f"unknown qtype {q!r} (allowed: {', '.join(QTYPES)})"
    nodes = {k: v for k, v in rule.get("nodes", {}).items() if k != "__line__"}
    if not nodes:
        return "no nodes"
    for name, attrs in nodes.items():
        if not isinstance(attrs, dict):
            return f"node {name} must map token attributes, e.g. {{ORTH: {{IN: [负责]}}}}"
    seen = {next(iter(nodes))}
    for e in rule.get("edges", []):
        m = _EDGE.match(str(e))
        if not m:
            return f"edge {e!r} is not 'A OP B'"
        a, op, b = m.groups()
        if a not in nodes or b not in nodes:
            return f"edge {e!r} names an undefined node (nodes: {', '.join(nodes)})"
        if op not in DEP_OPS and not re.fullmatch(r"~[12]", op):
            return f"edge {e!r}: unknown operator {op!r} (allowed: {' '.join(DEP_OPS)} ~1 ~2)"
        if a not in seen:
            return f"edge {e!r}: {a} is not connected yet; order edges from the first node outwards"
        if b in seen:
            return f"edge {e!r}: {b} already placed; each edge must add a new node (a tree)"
        seen.add(b)
    missing = set(nodes) - seen
    if missing:
        return f"nodes {', '.join(sorted(missing))} are not connected by any edge"
    qn = rule.get("query_node")
    if qn is not None and qn not in nodes:
        return f"query_node {qn!r} is not a node"
    for ex in rule.get("examples", []):
        if not isinstance(ex, dict) or "input" not in ex or ex.get("expect") not in EXPECT:
            return "each example needs 'input' and 'expect: match' or 'expect: no_match'"
    return None


register_schema("dep_pattern", {
    "qtype": Field((list,), True, "question types this pattern is evidence for, e.g. [duration]"),
    "nodes": Field((dict,), True, "token attributes per node name, e.g. {V: {ORTH: {IN: [负责]}}}"),
    "edges": Field((list,), False, "['A > B', 'B ~2 C']: DependencyMatcher operators or ~1/~2"),
    "weight": Field((int, float), False, "strength of the evidence, 0-1 (default 1.0)"),
    "query_node": Field((str,), False, "node whose token must overlap a question term for full weight"),
}, check=_check)


@dataclass
class DepPattern:
    """One compiled rule: DependencyMatcher alternatives and what the stage needs to score it."""

    id: str
    qtypes: tuple[str, ...]
    node_names: list[str]
    alternatives: list[list[dict[str, Any]]]
    distance: list[tuple[str, str, int]] = field(default_factory=list)  # (A, B, N) from ~N edges
    weight: float = 1.0
    query_node: Optional[str] = None
    unbounded: bool = False
    examples: list[dict[str, Any]] = field(default_factory=list)
    file: str = ""
    line: int = 0


def _alternatives(op: str) -> list[str]:
    """DependencyMatcher operators for one edge. ``~2`` searches ancestors, descendants and
    siblings and the match is then filtered by tree distance: anonymous middle nodes
    ({} attributes) would be matched against every token and made matching ~40x slower."""
    if op == "~1":
        return [">", "<"]
    if op == "~2":
        return [">>", "<<", "$++", "$--"]
    return [op]


def tree_distance(parsed: Any, i: int, j: int) -> int:
    """Number of dependency arcs between tokens ``i`` and ``j`` of a Parsed (or a spaCy Doc)."""
    heads = parsed.heads if isinstance(parsed, Parsed) else [t.head.i for t in parsed]
    n = len(heads)
    up_i = [i]
    while heads[up_i[-1]] != up_i[-1] and len(up_i) < n:
        up_i.append(heads[up_i[-1]])
    depth = {t: d for d, t in enumerate(up_i)}
    k, d = j, 0
    while k not in depth and d <= n:
        nxt = heads[k]
        if nxt == k:
            return n  # different roots (should not happen within one sentence)
        k, d = nxt, d + 1
    return d + depth.get(k, n)


def compile_rule(rule: dict, file: str = "") -> DepPattern:
    """Turn one validated rule dict into a :class:`DepPattern`."""
    line = rule.get("__line__", 0)
    clean = strip_lines(rule)
    nodes: dict[str, dict] = clean["nodes"]
    edges = [_EDGE.match(e).groups() for e in clean.get("edges", [])]
    order = [next(iter(nodes))] + [b for _, _, b in edges]
    unbounded = any(op in UNBOUNDED_OPS or op == "~2" for _, op, _ in edges)
    alts = []
    for ops in itertools.product(*[_alternatives(op) for _, op, _ in edges]) if edges else [()]:
        pat = [{"RIGHT_ID": order[0], "RIGHT_ATTRS": nodes[order[0]]}]
        for (a, _, b), op in zip(edges, ops):
            pat.append({"LEFT_ID": a, "REL_OP": op, "RIGHT_ID": b, "RIGHT_ATTRS": nodes[b]})
        alts.append(pat)
    if len(alts) > MAX_ALTERNATIVES:
        raise LoopAgentError("E201", file=file, line=line, rule_id=clean["id"],
                             problem=f"{len(alts)} alternatives after expanding ~N edges (max {MAX_ALTERNATIVES})",
                             fix="use fewer ~2 edges or exact operators such as '>'")
    return DepPattern(id=clean["id"], qtypes=tuple(clean["qtype"]), node_names=order, alternatives=alts,
                      distance=[(a, b, int(op[1])) for a, op, b in edges if op.startswith("~")],
                      weight=float(clean.get("weight", 1.0)), query_node=clean.get("query_node"),
                      unbounded=unbounded, examples=clean.get("examples", []), file=file, line=line)


class PatternSet:
    """Dependency patterns validated and grouped per question type.

    ``match(parsed, qtype)`` runs only that type's rules (plus ``any``): matching cost grows
    with the number of rules, so a question never pays for the others. Rules within the
    plain-Python matcher's subset (pipeline/syntax/depmatch.py: the shipped ones) are matched
    without spaCy; a set with any other rule uses spaCy's DependencyMatcher (built lazily, on
    ``vocab`` or a blank one) for all its rules.
    """

    def __init__(self, patterns: list[DepPattern], vocab: Any = None, max_tokens: int = 80,
                 engine: str = "auto") -> None:
        if engine not in ENGINES:
            raise LoopAgentError("E303", name="engine", value=engine, why="unknown matcher engine",
                                 allowed=", ".join(ENGINES))
        self.patterns = {p.id: p for p in patterns}
        self.max_tokens = max_tokens
        self.by_qtype: dict[str, list[str]] = {}
        for p in patterns:
            for q in p.qtypes:
                self.by_qtype.setdefault(q, []).append(p.id)
        groups: dict[Optional[str], list[DepPattern]] = {None: patterns}
        for q in QTYPES:
            groups[q] = [p for p in patterns if q in p.qtypes or "any" in p.qtypes]
        self._groups = groups
        self.pure = engine == "python" or (engine == "auto" and all(depmatch.supported(p.alternatives)
                                                                      for p in patterns))
        if self.pure and not all(depmatch.supported(p.alternatives) for p in patterns):
            raise LoopAgentError("E303", name="engine", value=engine, why="a rule uses attributes or operators "
                                 "the plain-Python matcher does not support", allowed="auto, spacy")
        self._vocab = vocab
        # (qtype or None for all) -> (matcher with every rule, matcher without unbounded rules)
        self._matchers: dict[Optional[str], tuple[Any, Any]] = {}
        if self.pure:
            self._compiled = {p.id: [depmatch.CompiledAlternative(a) for a in p.alternatives] for p in patterns}
        else:
            self._build_spacy()

    def _build_spacy(self) -> None:
        from .parser import lean_spacy
        with lean_spacy():
            from spacy.matcher import DependencyMatcher
            from spacy.vocab import Vocab
        if self._vocab is None:
            self._vocab = Vocab()
        for q, group in self._groups.items():
            full, bounded = DependencyMatcher(self._vocab, validate=True), DependencyMatcher(self._vocab,
                                                                                              validate=True)
            for p in group:
                try:
                    full.add(p.id, p.alternatives)
                    if not p.unbounded:
                        bounded.add(p.id, p.alternatives)
                except ValueError as exc:  # spaCy's validation message names the bad attribute
                    raise LoopAgentError("E201", file=p.file, line=p.line, rule_id=p.id,
                                         problem=f"spaCy rejects the pattern: {str(exc).splitlines()[0]}",
                                         fix="node attributes follow spaCy's Matcher syntax (ORTH, LEMMA, POS, "
                                             "DEP, with IN/NOT_IN/REGEX)") from exc
            self._matchers[q] = (full, bounded)

    def match(self, parsed: Any, qtype: Optional[str] = None) -> list[tuple[str, dict[str, int]]]:
        """(rule id, {node name: token index}) per match; rules of ``qtype`` only when given.

        ``parsed`` is a :class:`~pipeline.syntax.parsed.Parsed` (or a spaCy Doc). Rules with
        unbounded operators (including ``~2``) are skipped on sentences longer than
        ``max_tokens``; nothing is matched beyond 4x that (DependencyMatcher can blow up).
        """
        if not isinstance(parsed, Parsed):
            parsed = Parsed.from_doc(parsed.text, parsed)
        ntok = len(parsed)
        if ntok > 4 * self.max_tokens:
            return []
        group = self._groups.get(qtype, self._groups[None])
        bounded_only = ntok > self.max_tokens
        raw: list[tuple[str, list[int]]] = []
        if self.pure:
            state = depmatch.MatchState(parsed) if ntok else None
            for p in group:
                if bounded_only and p.unbounded:
                    continue
                for alt in self._compiled[p.id]:
                    raw += [(p.id, ids) for ids in depmatch.match_alternative(parsed, alt, state)]
        else:
            full, bounded = self._matchers.get(qtype, self._matchers[None])
            matcher = bounded if bounded_only else full
            if len(matcher) == 0:
                return []
            doc = to_doc(parsed, self._vocab)
            raw = [(doc.vocab.strings[key], ids) for key, ids in matcher(doc)]
        out, seen = [], set()
        for rid, token_ids in raw:
            p = self.patterns[rid]
            nodes = dict(zip(p.node_names, token_ids))
            if any(tree_distance(parsed, nodes[a], nodes[b]) > n for a, b, n in p.distance):
                continue
            sig = (p.id, tuple(sorted(nodes.items())))
            if sig not in seen:
                seen.add(sig)
                out.append((p.id, nodes))
        return out


def load_patterns(path: Path = DEFAULT_FILE) -> tuple[list[DepPattern], dict[str, Any]]:
    """Load and validate a dependency-pattern file (E201/E202 with file:line rule-id)."""
    rf = load_rule_file(Path(path))
    if rf.kind != "dep_pattern":
        raise LoopAgentError("E201", file=str(path), line=1, rule_id="-", problem=f"kind is {rf.kind!r}",
                             fix="a dependency-pattern file starts with 'kind: dep_pattern'")
    return [compile_rule(r, str(path)) for r in rf.rules], rf.settings
