"""spaCy's DependencyMatcher semantics over a stored parse, in plain Python (no spaCy import).

Finds the same (rule, node assignment) set as ``spacy.matcher.DependencyMatcher`` for node
attributes ORTH/TEXT/LOWER/POS/TAG/DEP given as a string or ``{IN, NOT_IN, REGEX}``, and every
REL_OP: tokens of one match share a tree root, each operator resolves as spaCy resolves it
(the root's own head is itself, so ``$++`` of a root means its right children), and a node may
take any token the edges allow. Rules using anything else are not :func:`supported`; the
pattern set then uses spaCy's matcher on a Doc rebuilt from the stored arrays.
"""
from __future__ import annotations

import re
from typing import Any, Callable, Optional

from .parsed import Parsed

_ATTRS = {"ORTH": "words", "TEXT": "words", "LOWER": "lower", "POS": "pos", "TAG": "tags", "DEP": "deps"}
_PREDICATES = ("IN", "NOT_IN", "REGEX")

Test = Callable[[str], bool]


def _value_test(spec: Any) -> Optional[Test]:
    """A string test for one attribute's spec, or None when the spec is outside the supported subset."""
    if isinstance(spec, str):
        return lambda v, s=spec: v == s
    if not isinstance(spec, dict) or not spec or any(k not in _PREDICATES for k in spec):
        return None
    tests: list[Test] = []
    for k, arg in spec.items():
        if k in ("IN", "NOT_IN"):
            if not isinstance(arg, list) or not all(isinstance(x, str) for x in arg):
                return None
            vals = frozenset(arg)
            tests.append((lambda v, vals=vals: v in vals) if k == "IN" else (lambda v, vals=vals: v not in vals))
        else:
            if not isinstance(arg, str):
                return None
            rx = re.compile(arg)
            tests.append(lambda v, rx=rx: rx.search(v) is not None)
    if len(tests) == 1:
        return tests[0]
    return lambda v, ts=tuple(tests): all(t(v) for t in ts)


def compile_node(attrs: dict[str, Any]) -> Optional[list[tuple[str, Test]]]:
    """[(Parsed field, test)] for a node's RIGHT_ATTRS, or None when not supported."""
    if not isinstance(attrs, dict):
        return None
    out = []
    for name, spec in attrs.items():
        col = _ATTRS.get(name)
        test = _value_test(spec)
        if col is None or test is None:
            return None
        out.append((col, test))
    return out


def supported(alternatives: list[list[dict[str, Any]]]) -> bool:
    """True when every node and operator of a rule's alternatives is in the supported subset."""
    for pat in alternatives:
        for rel in pat:
            if compile_node(rel.get("RIGHT_ATTRS", {})) is None:
                return False
            if "REL_OP" in rel and rel["REL_OP"] not in OPS:
                return False
    return True


# --- operators: token index -> candidate token indices (as spaCy resolves them) ---------------

def _head(p: Parsed, i: int) -> int:
    return p.heads[i]


def _ancestors(p: Parsed, i: int) -> list[int]:
    out = []
    seen = {i}
    while p.heads[i] != i:
        i = p.heads[i]
        if i in seen:  # a malformed tree: stop instead of looping
            break
        seen.add(i)
        out.append(i)
    return out


def _subtree(p: Parsed, i: int) -> list[int]:
    out, todo = [], [i]
    while todo:
        k = todo.pop()
        out.append(k)
        todo.extend(p.children[k])
    return sorted(out)


def _root(p: Parsed, i: int) -> int:
    anc = _ancestors(p, i)
    return anc[-1] if anc else i


def _sent(p: Parsed, i: int) -> tuple[int, int]:
    """[start, end) of the token's sentence: its root's subtree edges."""
    sub = _subtree(p, _root(p, i))
    return sub[0], sub[-1] + 1


def _dep(p, i):
    return [] if p.heads[i] == i else [p.heads[i]]


def _gov(p, i):
    return p.children[i]


def _dep_chain(p, i):
    return _ancestors(p, i)


def _gov_chain(p, i):
    return [k for k in _subtree(p, i) if k != i]


def _imm_precede(p, i):
    s, e = _sent(p, i)
    return [i + 1] if i < len(p) - 1 and s <= i + 1 < e else []


def _precede(p, i):
    return list(range(i + 1, _sent(p, i)[1]))


def _imm_follow(p, i):
    s, e = _sent(p, i)
    return [i - 1] if i > 0 and s <= i - 1 < e else []


def _follow(p, i):
    return list(range(_sent(p, i)[0], i))


def _siblings(p, i):
    return p.children[p.heads[i]]


def _imm_right_sib(p, i):
    return [c for c in _siblings(p, i) if c == i + 1]


def _imm_left_sib(p, i):
    return [c for c in _siblings(p, i) if c == i - 1]


def _right_sib(p, i):
    return [c for c in _siblings(p, i) if c > i]


def _left_sib(p, i):
    return [c for c in _siblings(p, i) if c < i]


def _imm_right_child(p, i):
    return [c for c in p.children[i] if c == i + 1]


def _imm_left_child(p, i):
    return [c for c in p.children[i] if c == i - 1]


def _right_child(p, i):
    return [c for c in p.children[i] if c > i]


def _left_child(p, i):
    return [c for c in p.children[i] if c < i]


def _imm_right_parent(p, i):
    return [p.heads[i]] if p.heads[i] == i + 1 else []


def _imm_left_parent(p, i):
    return [p.heads[i]] if p.heads[i] == i - 1 else []


def _right_parent(p, i):
    return [p.heads[i]] if p.heads[i] > i else []


def _left_parent(p, i):
    return [p.heads[i]] if p.heads[i] < i else []


OPS: dict[str, Callable[[Parsed, int], list[int]]] = {
    "<": _dep, ">": _gov, "<<": _dep_chain, ">>": _gov_chain, ".": _imm_precede, ".*": _precede,
    ";": _imm_follow, ";*": _follow, "$+": _imm_right_sib, "$-": _imm_left_sib, "$++": _right_sib,
    "$--": _left_sib, ">+": _imm_right_child, ">-": _imm_left_child, ">++": _right_child, ">--": _left_child,
    "<+": _imm_right_parent, "<-": _imm_left_parent, "<++": _right_parent, "<--": _left_parent,
}


class CompiledAlternative:
    """One DependencyMatcher pattern: node tests in order, and edges (left node, op, right node)."""

    def __init__(self, pattern: list[dict[str, Any]]) -> None:
        self.ids = [rel["RIGHT_ID"] for rel in pattern]
        pos = {name: k for k, name in enumerate(self.ids)}
        self.tests = [compile_node(rel.get("RIGHT_ATTRS", {})) or [] for rel in pattern]
        self.edges = [(pos[rel["LEFT_ID"]], rel["REL_OP"], pos[rel["RIGHT_ID"]]) for rel in pattern[1:]]
        # the node attributes as a hashable key: alternatives of one rule share their candidate tokens
        self.node_key = tuple(repr(sorted(rel.get("RIGHT_ATTRS", {}).items())) for rel in pattern)


class MatchState:
    """What one sentence's matching computes once and every rule reuses: roots, candidate tokens per
    node attributes, operator results per (operator, token) (as spaCy caches them per call)."""

    def __init__(self, p: Parsed) -> None:
        self.p = p
        n = len(p)
        self.roots = [_root(p, i) for i in range(n)]
        self.cols = {"words": p.words, "pos": p.pos, "tags": p.tags, "deps": p.deps}
        self._cands: dict[str, list[int]] = {}
        self._ops: dict[tuple[str, int], frozenset[int]] = {}

    def candidates(self, key: str, tests: list[tuple[str, Test]]) -> list[int]:
        got = self._cands.get(key)
        if got is None:
            if any(c == "lower" for c, _ in tests) and "lower" not in self.cols:
                self.cols["lower"] = [w.lower() for w in self.p.words]
            cols = self.cols
            got = self._cands[key] = [i for i in range(len(self.p)) if all(t(cols[c][i]) for c, t in tests)]
        return got

    def op(self, name: str, i: int) -> frozenset[int]:
        got = self._ops.get((name, i))
        if got is None:
            got = self._ops[(name, i)] = frozenset(OPS[name](self.p, i))
        return got


def match_alternative(p: Parsed, alt: CompiledAlternative, state: Optional[MatchState] = None) -> list[list[int]]:
    """Every token assignment (in node order) of one pattern on ``p``."""
    if len(p) == 0:
        return []
    st = state or MatchState(p)
    cand = [st.candidates(k, t) for k, t in zip(alt.node_key, alt.tests)]
    if any(not c for c in cand):
        return []
    roots = st.roots
    out: list[list[int]] = []
    k = len(alt.ids)
    # each edge adds its right node to a placed left node (rules are trees, edges ordered outwards)
    edge_of = {right: (left, op) for left, op, right in alt.edges}

    def extend(assign: list[int]) -> None:
        j = len(assign)
        if j == k:
            out.append(list(assign))
            return
        left, op = edge_of[j]
        allowed = st.op(op, assign[left])
        root = roots[assign[0]]
        for i in cand[j]:
            if i in allowed and roots[i] == root:
                assign.append(i)
                extend(assign)
                assign.pop()

    for i in cand[0]:
        extend([i])
    return out
