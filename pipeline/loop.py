"""The loop: after a pass without a grounded answer, rewrite the query from what the pass saw and retry.

Rewrites, in order (each only changes what is retrieved; a retry's answer is decided as a first answer is,
by the trained gate, else the coverage bar and its rules, or the trained verifier when it is on; the gate may
hold a retry's answer to a higher bar, ``AskSettings.retry_gate_threshold``, the retry's query being marked
``constraints["retry"]``; record mode never loops):
- ``focus_document``: the best candidate's document only (the question named none), so more of its
  blocks are recalled than the corpus-wide recall limit lets through;
- ``section_title``: that document, with the words of the best candidate's section title added to the
  recall terms (a value stated under a heading that holds the question's topic).

At most ``max_steps`` passes in all (the first included); the loop stops when a rewrite repeats an
earlier query (Jaccard of terms ≥ ``repeat_jaccard`` on the same documents), when a retry recalls the
same candidates as the pass before (Jaccard of block ids ≥ ``repeat_jaccard``), or when ``budget_ms``
is spent. The steps bound the loop; the time budget is only a far safety net (20 s), so that the same question on
the same store gets the same answer whether its embeddings are cached (milliseconds a pass) or not (seconds a pass):
a budget near the cold cost made a user's first ask differ from a replay. A question answered on the first pass
never loops. Every step is recorded.
"""
from __future__ import annotations

import re
import time
from dataclasses import dataclass, replace
from typing import Any, Callable, Optional

from . import cues
from .errors import LoopAgentError
from .tokenize import cut
from .types import Query

_HEADING_NUMBER = re.compile(cues.pattern("loop.heading_number"))  # rules/pipeline_cues.yaml


@dataclass(frozen=True)
class LoopSettings:
    """How far the loop may go."""

    max_steps: int = 3          # passes in all, the first included (1: no loop)
    budget_ms: float = 20000.0  # safety net: no new step starts after the loop has run this long (first pass not counted)
    repeat_jaccard: float = 0.85

    def __post_init__(self) -> None:
        if not isinstance(self.max_steps, int) or self.max_steps < 1:
            raise LoopAgentError("E303", name="max_steps", value=self.max_steps, why="must be an integer >= 1",
                                 allowed="1 (no loop), 2, 3, …")
        if self.budget_ms <= 0:
            raise LoopAgentError("E303", name="budget_ms", value=self.budget_ms, why="must be positive",
                                 allowed="milliseconds > 0")
        if not 0 < self.repeat_jaccard <= 1:
            raise LoopAgentError("E303", name="repeat_jaccard", value=self.repeat_jaccard, why="not in (0, 1]",
                                 allowed="0 < repeat_jaccard <= 1")


def jaccard(a: Any, b: Any) -> float:
    """|a ∩ b| / |a ∪ b| of two collections (1.0 when both are empty)."""
    a, b = set(a), set(b)
    return len(a & b) / len(a | b) if a | b else 1.0


Result = tuple  # (found, query, cands, anchors) as Orchestrator._answer_one returns it


class Loop:
    """Rewrite-and-retry over a pass function; stateless, thread-safe."""

    def __init__(self, settings: Optional[LoopSettings] = None) -> None:
        self.settings = settings or LoopSettings()

    def rewrites(self, query: Query, cands: list) -> list[tuple[str, Query, str]]:
        """(rewrite id, query, what it does) for the retries worth trying after ``cands``."""
        if not cands or query.constraints.get("doc_ids"):
            return []  # nothing recalled, or the question already names its documents
        best = cands[0]
        doc = best.block.doc_id
        out = [("focus_document", _retry(query, [doc], []), f"只在最佳候选文件《{best.title}》中检索")]
        heading = " ".join(_HEADING_NUMBER.sub("", s) for s in best.block.section)
        words = [w for w in cut(heading) if len(w) >= 2 and w not in query.terms]
        if words:
            out.append(("section_title", _retry(query, [doc], words),
                        f"在《{best.title}》中加上章节标题的词（{'、'.join(words[:6])}）检索"))
        return out

    def run(self, query: Query, first: Result, answer_one: Callable[[Query], Result], started: float
            ) -> tuple[Result, list[dict[str, Any]]]:
        """Retry ``first`` (a pass without an answer) with rewritten queries; returns the result and the steps.

        ``started``: ``time.perf_counter()`` when the loop began (the budget counts from there).
        """
        s = self.settings
        steps: list[dict[str, Any]] = [_step(1, "original", query, first, "原问题")]
        if first[0] is not None or s.max_steps <= 1:
            return first, steps
        seen = [(set(query.terms), tuple(query.constraints.get("doc_ids") or ()))]
        last_ids = {c.block.block_id for c in first[2]}
        for rid, q, what in self.rewrites(query, first[2]):
            if len(steps) >= s.max_steps:
                break
            if (time.perf_counter() - started) * 1000 > s.budget_ms:
                steps.append({"step": len(steps) + 1, "rewrite": rid, "stopped": "time budget spent"})
                break
            key = (set(q.terms), tuple(q.constraints.get("doc_ids") or ()))
            if any(jaccard(key[0], t) >= s.repeat_jaccard and key[1] == d for t, d in seen):
                continue  # the same query again
            seen.append(key)
            result = answer_one(q)
            steps.append(_step(len(steps) + 1, rid, q, result, what))
            if result[0] is not None:
                return result, steps
            ids = {c.block.block_id for c in result[2]}
            if jaccard(ids, last_ids) >= s.repeat_jaccard:
                steps[-1]["stopped"] = "candidates repeat"
                break
            last_ids = ids
        return first, steps


def _retry(query: Query, doc_ids: list[str], extra_terms: list[str]) -> Query:
    """A copy of ``query`` restricted to ``doc_ids`` with ``extra_terms`` for recall only (not weighed)."""
    # no article hint: a 第X条 the question names would pin the scope to the focused document's article
    # and let the retry skip the coverage bar the first pass had to meet
    return replace(query, terms=list(query.terms) + extra_terms, reasons=list(query.reasons), article_hint=None,
                   rejected=[], constraints={**query.constraints, "doc_ids": doc_ids, "retry": True})


def reasons(steps: list[dict[str, Any]]) -> list[str]:
    """The reasoning lines of the steps after the first (none when the loop did not run)."""
    out = []
    for s in steps[1:]:
        if "what" in s:
            out.append(f"循环：第{s['step']}步 {s['rewrite']}：{s['what']} → "
                       + (f"命中（{s['method']}）" if s["answered"] else f"{s['candidates']} 个候选块，仍无答案")
                       + (f"；停止：{s['stopped']}" if s.get("stopped") else ""))
        else:
            out.append(f"循环：第{s['step']}步 {s['rewrite']} 未执行（{s['stopped']}）")
    return out


def _step(n: int, rewrite: str, q: Query, result: Result, what: str) -> dict[str, Any]:
    found, _, cands, _ = result
    return {"step": n, "rewrite": rewrite, "what": what, "terms": list(q.terms),
            "doc_ids": list(q.constraints.get("doc_ids") or []), "candidates": len(cands),
            "answered": found is not None, "method": found.method if found is not None else None}
