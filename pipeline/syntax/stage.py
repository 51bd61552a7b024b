"""Stage 2: choose the 1-3 sentences of the candidate blocks that answer the question.

Needs: a :class:`Query` (type, weighted terms, synonyms, core verb) and stage-1
:class:`Candidate` blocks. Adds: :class:`Anchor` sentences, best first, each with its
score components in ``details`` and the matched dependency pattern (or None).

Scoring: lexical overlap (weighted terms, synonyms lower) + the densest keyword
window + the candidate's stage-1 score as a prior rank every sentence; only the
best ``max_parse`` are parsed (cached), and dependency patterns of the question
type add soft evidence. Sentences too long to parse get a jieba-POS window
heuristic instead, marked ``details["fallback"]``.
"""
from __future__ import annotations

import logging
import threading
import time
from bisect import bisect_left
from collections import OrderedDict
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any, Optional

from ..errors import LoopAgentError, message
from ..types import Anchor, Candidate, Query, Sentence
from .parser import BUILTIN, Parser
from .patterns import PatternSet, compile_rule, load_patterns

log = logging.getLogger("loopagent.syntax")

# Question types whose answer is a quantity: the POS fallback looks for numerals near the terms.
_QUANTITY_TYPES = {"count", "number", "money", "duration", "date"}


@dataclass(frozen=True)
class SyntaxSettings:
    """Settings of stage 2; validated on construction."""

    model: str = BUILTIN              # "builtin" (shipped UD parser), a path, or e.g. "zh_core_web_sm"
    segmenter: str = "pkuseg"         # pkuseg (trained on UD words) | jieba (stage-1 tokenizer)
    patterns_file: str = ""           # one dep-pattern file; "" = the dep_pattern rules of the RuleSet
    max_parse: int = 8                # sentences parsed per call (best by lexical score)
    max_chars: int = 200              # longer sentences use the POS-window fallback
    synonym_weight: float = 0.6       # a synonym counts this much of its term's weight
    window_chars: int = 24            # keyword co-occurrence window
    w_lexical: float = 0.5
    w_window: float = 0.25
    w_prior: float = 0.25
    w_pattern: float = 0.5            # times the lexical score: patterns confirm, never create, relevance
    w_fallback: float = 0.15
    context_weight: float = 0.4       # a term found only elsewhere in the block/section/title
    w_condition: float = 0.15         # the question's quantity fits (+1) or contradicts (-1) the sentence's condition

    def __post_init__(self) -> None:
        for name in ("max_parse", "max_chars", "window_chars"):
            if getattr(self, name) < 1:
                raise LoopAgentError("E303", name=f"syntax.{name}", value=getattr(self, name),
                                     why="must be at least 1", allowed="a positive integer")
        for name in ("synonym_weight", "w_lexical", "w_window", "w_prior", "w_pattern", "w_fallback", "context_weight",
                     "w_condition"):
            v = getattr(self, name)
            if not 0 <= v <= 1:
                raise LoopAgentError("E303", name=f"syntax.{name}", value=v, why="out of range", allowed="0 to 1")
        if self.segmenter not in ("pkuseg", "jieba"):
            raise LoopAgentError("E303", name="syntax.segmenter", value=self.segmenter, why="unknown segmenter",
                                 allowed="pkuseg, jieba")


@dataclass
class _Scored:
    cand: Candidate
    sent: Sentence
    lexical: float
    window: float
    prior: float
    hits: list[tuple[int, int, str]]  # (start, end, term) in sentence coordinates
    condition: float = 0.0
    pre: float = 0.0


class SyntaxStage:
    """Stage 2 (see module docstring). Thread-safe; the parser and patterns load on first use."""

    def __init__(self, settings: Optional[SyntaxSettings] = None, parser: Optional[Parser] = None,
                 rules: Any = None, store: Any = None) -> None:
        self.settings = settings or SyntaxSettings()
        self.store = store  # parses are read from / persisted in its parses table (None: memory only)
        self.rules = rules  # a pipeline.rules.RuleSet (its dep_pattern rules, overlays and hot reload); built lazily
        parser_dir = rules.config.parser_dir if rules is not None else None
        self.parser = parser or Parser(self.settings.model, self.settings.segmenter, parser_dir=parser_dir)
        self._lock = threading.Lock()
        self._patterns: Optional[PatternSet] = None
        self._patterns_mtime: Optional[int] = None
        self.last_error: Optional[str] = None
        # (id of the PatternSet, qtype, sentence) -> matches; parses are cached by the parser
        self._matches: OrderedDict[tuple[int, str, str], list[tuple[str, dict[str, int]]]] = OrderedDict()
        self.match_cache_size = 20000

    # --- patterns (hot reload: a broken file keeps the previous patterns) ---------
    @property
    def patterns(self) -> PatternSet:
        if not self.settings.patterns_file:
            return self._rule_patterns()
        path = Path(self.settings.patterns_file)
        try:
            mtime = path.stat().st_mtime_ns
        except OSError as exc:
            if self._patterns is not None:
                return self._patterns
            raise LoopAgentError("E202", file=str(path), detail=str(exc)) from exc
        if self._patterns is None or mtime != self._patterns_mtime:
            with self._lock:
                if self._patterns is None or mtime != self._patterns_mtime:
                    try:
                        pats, settings = load_patterns(path)
                        if not pats:
                            log.warning(message("W005", path=str(path)))
                        self._patterns = PatternSet(pats, max_tokens=int(settings.get("max_tokens", 80)))
                        self.last_error = None
                    except LoopAgentError as exc:
                        if self._patterns is None:
                            raise
                        self.last_error = str(exc)
                        log.warning("%s (previous patterns stay active)", exc)
                    self._patterns_mtime = mtime
        return self._patterns  # type: ignore[return-value]

    def _rule_patterns(self) -> PatternSet:
        """The dep_pattern rules of the RuleSet, recompiled when its version changes (it keeps last good files)."""
        if self.rules is None:
            from ..rules import RuleSet
            self.rules = RuleSet()
        version = self.rules.version
        if self._patterns is None or version != self._patterns_mtime:
            with self._lock:
                if self._patterns is None or version != self._patterns_mtime:
                    rules = self.rules.get("dep_pattern")
                    if not rules:
                        log.warning(message("W005", path=", ".join(str(d) for d in self.rules.dirs)))
                    pats = [compile_rule(r, r.get("__file__", "")) for r in rules]
                    max_tokens = int(self.rules.settings("dep_pattern").get("max_tokens", 80))
                    self._patterns = PatternSet(pats, max_tokens=max_tokens)
                    self._patterns_mtime = version
        return self._patterns  # type: ignore[return-value]

    def warm_up(self) -> float:
        """Load the parser and patterns now; returns seconds spent."""
        t0 = time.perf_counter()
        _ = self.patterns
        self.parser.parse("用人单位应当依法缴纳社会保险费。")
        return time.perf_counter() - t0

    def fill(self, blocks: list[Any], batch: int = 128, progress: bool = False) -> int:
        """Parse and store now every sentence of ``blocks`` that stage 2 may match (at most ``max_chars``
        characters), so no question has to parse; returns the number parsed (stored ones are skipped)."""
        sentences_of, _, _ = _shared_helpers()
        texts = list(dict.fromkeys(s.text for b in blocks for s in sentences_of(b)
                                   if s.text and len(s.text) <= self.settings.max_chars))
        bar = None
        if progress and texts:
            try:
                from tqdm import tqdm
                bar = tqdm(total=len(texts), unit="sent", desc="parse", leave=False, dynamic_ncols=True)
            except ImportError:
                bar = None
        before = self.parser.misses
        for i in range(0, len(texts), batch):
            self.parser.parse_many(texts[i:i + batch], self.store)
            if bar is not None:
                bar.update(len(texts[i:i + batch]))
        if bar is not None:
            bar.close()
        if self.store is not None and hasattr(self.store, "flush_parses"):
            self.store.flush_parses()
        return self.parser.misses - before

    # --- the stage ------------------------------------------------------------------
    def run(self, query: Query, candidates: list[Candidate], max_anchors: int = 3) -> list[Anchor]:
        """Return up to ``max_anchors`` anchors, best first (empty when no sentence shares a term)."""
        s = self.settings
        terms = _term_table(query, s.synonym_weight)
        total = sum(w for w, _ in terms.values()) or 1.0
        top_prior = max((c.score for c in candidates), default=0.0) or 1.0
        sentences_of, condition_match, table_topic = _shared_helpers()
        quantities = query.constraints.get("quantities") or []
        ranges = query.constraints.get("ranges")
        scored: list[_Scored] = []
        for cand in candidates:
            prior = max(cand.score, 0.0) / top_prior
            context = " ".join(cand.block.section) + " " + cand.title + " " + cand.block.text
            # what most rows of a table hold is its topic: as context, not as a reason to choose a row
            topic = table_topic(query, cand.block)
            own = terms if not topic else {k: (w, [(f, fw * s.context_weight) for f, fw in forms] if k in topic
                                                else forms) for k, (w, forms) in terms.items()}
            for sent in sentences_of(cand.block):
                lex, win, hits = _lexical(sent.text, own, total, s.window_chars)
                if lex <= 0:
                    continue
                lex = min(1.0, lex + s.context_weight * _context_only(sent.text, context, own, total))
                sc = _Scored(cand, sent, lex, win, prior, hits)
                if condition_match is not None and (quantities or ranges):
                    sc.condition = float(condition_match(quantities, sent.text, ranges))
                sc.pre = s.w_lexical * lex + s.w_window * win + s.w_prior * prior + s.w_condition * sc.condition
                scored.append(sc)
        scored.sort(key=lambda x: -x.pre)
        anchors = []
        patterns = self.patterns if scored else None
        if patterns is not None and patterns.by_qtype.get(query.qtype):
            # one batched parse of the sentences that will be matched (cached or stored ones are free)
            self.parser.parse_many([sc.sent.text for sc in scored[:s.max_parse] if len(sc.sent.text) <= s.max_chars],
                                   self.store)
        for rank, sc in enumerate(scored):
            details: dict[str, Any] = {"lexical": round(sc.lexical, 3), "window": round(sc.window, 3),
                                       "prior": round(sc.prior, 3), "condition": sc.condition, "pattern": 0.0}
            best_id: Optional[str] = None
            score = sc.pre
            if rank < s.max_parse:
                if len(sc.sent.text) <= s.max_chars:
                    best_id, pscore = self._pattern_score(sc, query.qtype, patterns)
                    details["pattern"] = round(pscore, 3)
                    # scaled by lexical overlap: a pattern confirms a relevant sentence, it does
                    # not make an unrelated one relevant
                    score += s.w_pattern * pscore * sc.lexical
                else:
                    fb = _pos_window(sc.sent.text, sc.hits, query.qtype)
                    details["fallback"] = "pos_window"
                    details["fallback_score"] = round(fb, 3)
                    score += s.w_fallback * fb * sc.lexical
            details["total"] = round(score, 4)
            anchors.append(Anchor(candidate=sc.cand, sentence=sc.sent, score=round(score, 4),
                                  pattern=best_id, details=details))
        anchors.sort(key=lambda a: -a.score)
        return anchors[:max_anchors]

    def _pattern_score(self, sc: _Scored, qtype: str, patterns: Optional[PatternSet]) -> tuple[Optional[str], float]:
        if patterns is None:
            return None, 0.0
        wanted = set(patterns.by_qtype.get(qtype, [])) | set(patterns.by_qtype.get("any", []))
        if not wanted:
            return None, 0.0
        parsed = self.parser.parse(sc.sent.text, self.store)
        key = (id(patterns), qtype, sc.sent.text)
        with self._lock:
            matches = self._matches.get(key)
        if matches is None:
            matches = patterns.match(parsed, qtype)
            with self._lock:
                self._matches[key] = matches
                if len(self._matches) > self.match_cache_size:
                    self._matches.popitem(last=False)
        best: tuple[Optional[str], float] = (None, 0.0)
        for rid, nodes in matches:
            if rid not in wanted:
                continue
            p = patterns.patterns[rid]
            w = p.weight
            if p.query_node and p.query_node in nodes:
                ts, te = parsed.span_of(nodes[p.query_node])
                if not any(hs < te and ts < he for hs, he, _ in sc.hits):
                    w *= 0.25  # the structure fits, but around a word the question does not ask about
            if w > best[1]:
                best = (rid, w)
        return best


def anchors_trace(anchors: list[Anchor]) -> dict[str, Any]:
    """The ``stages.syntax`` trace object: anchors best first with block, text, pattern and score."""
    return {"anchors": [{"block_id": a.candidate.block.block_id, "text": a.sentence.text,
                         "start": a.sentence.start, "end": a.sentence.end, "pattern": a.pattern,
                         "score": a.score, **({"fallback": a.details["fallback"]} if "fallback" in a.details else {})}
                        for a in anchors]}


# --- pure helpers ------------------------------------------------------------------

@lru_cache(maxsize=1)
def _shared_helpers():
    """The project's sentence units (table rows count as sentences), stage 3's numeric-condition check and a
    table's topic words (:func:`pipeline.anchors.table_topic`)."""
    from ..anchors import table_topic
    from ..text import block_sentences
    try:
        from ..extract import condition_match
    except ImportError:
        condition_match = None
    return block_sentences, condition_match, table_topic


def _term_table(query: Query, syn_weight: float) -> dict[str, tuple[float, list[tuple[str, float]]]]:
    """term -> (weight, [(surface form, weight of that form)]).

    The weighted terms of query analysis (``weights``) when it gave any, else ``terms``
    and the core verb at weight 1.
    """
    table: dict[str, tuple[float, list[tuple[str, float]]]] = {}
    words = list(query.weights) or list(query.terms)
    if not query.weights and query.core_verb and query.core_verb not in words:
        words.append(query.core_verb)
    for t in words:
        if not t or not t.strip():
            continue
        w = float(query.weights.get(t, 1.0))
        if w <= 0:
            continue
        # single-character synonyms (假, 罚) match almost anywhere: left out
        forms = [(t, w)] + [(syn, w * syn_weight) for syn in query.expansions.get(t, [])
                            if syn and syn != t and len(syn) > 1]
        table[t] = (w, forms)
    return table


def _lexical(text: str, terms: dict, total: float, window: int) -> tuple[float, float, list[tuple[int, int, str]]]:
    """(weighted coverage, densest-window coverage, hits) of the query terms in ``text``."""
    got: dict[str, float] = {}
    hits: list[tuple[int, int, str, float]] = []
    for key, (_, forms) in terms.items():
        for form, fw in forms:
            i = text.find(form)
            while i >= 0:
                hits.append((i, i + len(form), key, fw))
                got[key] = max(got.get(key, 0.0), fw)
                i = text.find(form, i + 1)
    if not got:
        return 0.0, 0.0, []
    lex = sum(got.values()) / total
    hits.sort()
    best = 0.0
    for i, (s0, _, _, _) in enumerate(hits):
        inside: dict[str, float] = {}
        for s1, e1, k, fw in hits[i:]:
            if e1 - s0 > window:
                break
            inside[k] = max(inside.get(k, 0.0), fw)
        best = max(best, sum(inside.values()))
    return lex, best / total, [(s0, e0, k) for s0, e0, k, _ in hits]


def _context_only(text: str, context: str, terms: dict, total: float) -> float:
    """Weighted share of the terms absent from ``text`` but present in its block, section or title."""
    got = 0.0
    for _, (w, forms) in terms.items():
        if not any(f in text for f, _ in forms) and any(f in context for f, _ in forms):
            got += w
    return got / total


@lru_cache(maxsize=4096)
def _posseg(text: str) -> tuple[tuple[str, str], ...]:
    import jieba.posseg as pseg

    return tuple((p.word, p.flag) for p in pseg.cut(text))


def _pos_window(text: str, hits: list[tuple[int, int, str]], qtype: str, radius: int = 16) -> float:
    """Fallback for sentences too long to parse: jieba POS near the query terms.

    Quantity questions want a numeral (m) or time word (t) within ``radius`` characters of
    a term; other types want a verb (v) there. Returns 0-1.
    """
    lo = max(0, min(h[0] for h in hits) - radius) if hits else 0
    hi = min(len(text), max(h[1] for h in hits) + radius) if hits else len(text)
    want = ("m", "t", "mq") if qtype in _QUANTITY_TYPES else ("v", "vn")
    # hit edges sorted once: "is a hit edge within radius of this word" is a bisect, not a scan
    edges = sorted({e for h in hits for e in h[:2]})
    pos = 0
    found = 0
    for w, flag in _posseg(text[lo:hi]):
        start = lo + pos
        pos += len(w)
        if flag in want:
            i = bisect_left(edges, start - radius)
            if i < len(edges) and edges[i] <= start + radius:
                found += 1
                if found >= 2:
                    break
    return min(1.0, found / 2)
