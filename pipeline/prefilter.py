"""Stage 1: narrow the store to the 10-30 blocks worth parsing, with a score breakdown for each.

Needs: a Query. Adds: Candidates. Recall is the union of FTS5/BM25 over the question's
terms and synonyms and of blocks named directly (第X条 of a named document); the
weighted lexicon (rules/lexicon.yaml) and IDF weights then score every recalled block:

    score = Σ weight × (1 + ln tf) × (1 + 0.3 × position) − penalty   (halved by failed triggers)
"""
from __future__ import annotations

import math
import re
from functools import lru_cache
import threading
from dataclasses import dataclass
from typing import Any, Optional

from . import cues
from .errors import LoopAgentError
from .places import jurisdiction, place_suffixes
from .rules import Field, RuleSet, register_schema
from .store import Store
from .text import split_sentences
from .tokenize import generation as tokenize_generation, get_tokenizer, index_tokens
from .types import Block, Candidate, Query

TRIGGERS = ("must", "any", "cooccur", "penalty")
register_schema("lexicon", {
    "tier": Field((str,), True, "a tier name such as core_verb"),
    "weight": Field((int, float), True, "a number; negative for penalty tiers"),
    "trigger": Field((str,), True, f"one of {', '.join(TRIGGERS)}"),
    "words": Field((list,), True, "the words of this tier"),
}, check=lambda r: None if r.get("trigger") in TRIGGERS else f"trigger {r.get('trigger')!r} is not one of {TRIGGERS}")

register_schema("structure_hint", {
    "types": Field((list,), True, "question types this hint serves, e.g. [count]"),
    "block_types": Field((list,), False, "block types that get the boost, e.g. [table]"),
    "cue": Field((str,), False, "a regex on the block text that gets the boost"),
    "boost": Field((int, float), True, "score multiplier, e.g. 1.3"),
}, check=lambda r: None if (r.get("block_types") or r.get("cue")) else "give block_types, cue or both")


_WORD_CHAR = re.compile(r"[\w\u4e00-\u9fff]")


@lru_cache(maxsize=256)
def _run_ends(question: str) -> tuple[int, ...]:
    """For each position, where the run of word characters starting there ends (itself when none starts)."""
    ends = [0] * (len(question) + 1)
    ends[len(question)] = len(question)
    for k in range(len(question) - 1, -1, -1):
        ends[k] = ends[k + 1] if _WORD_CHAR.fullmatch(question[k]) else k
    return tuple(ends[:-1])


@lru_cache(maxsize=256)
def _run_starts(question: str) -> tuple[tuple[int, int], ...]:
    """(position, end of its run) for the positions where a run of word characters starts or goes on."""
    return tuple((i, end) for i, end in enumerate(_run_ends(question)) if end > i)


def _longest_shared(question: str, text: str, at_least: int = 1) -> str:
    """The longest run of word characters the question shares with ``text`` (the first such, when several),
    or "" when it is shorter than ``at_least``."""
    if at_least > 1:  # one regular-expression pass over the text rules out most blocks
        rx = _grams(question, at_least)
        if rx is None or rx.search(text) is None:
            return ""
    best_i, best_len = 0, at_least - 1
    for i, end in _run_starts(question):  # question[i:j] is all word characters exactly when j <= end
        if end - i <= best_len:
            continue
        j = i + best_len + 1
        while j <= end and question[i:j] in text:
            best_i, best_len = i, j - i
            j += 1
    return question[best_i:best_i + best_len] if best_len >= at_least else ""


@lru_cache(maxsize=256)
def _grams(question: str, n: int) -> "Optional[re.Pattern[str]]":
    """A pattern of the question's runs of ``n`` word characters, or None when it has none."""
    subs = list(dict.fromkeys(question[i:i + n] for i, end in _run_starts(question) if end - i >= n))
    return re.compile("|".join(map(re.escape, subs))) if subs else None


register_schema("prefilter_case", {})  # examples only: {question, blocks, entities?} -> expected order


def hint_applies(rule: dict, qtype: str, block_type: str, text: str, rx=None) -> bool:
    """Whether structure hint ``rule`` boosts a block of this type and text for this question type."""
    if qtype not in rule["types"]:
        return False
    if block_type in (rule.get("block_types") or []):
        return True
    cue = rule.get("cue")
    return bool(cue and (rx or re.compile(cue)).search(text))
# cue patterns (rules/pipeline_cues.yaml), compiled once at import
_REPEAL = re.compile(cues.pattern("evidence.repeal"))
_REPEAL_WORD = cues.text("evidence.repeal_search_word")
_ARTICLE_CHAR = cues.text("structure.article_char")
_LEAD_END = re.compile(r"[：:]\s*$")
TABLE_AFTER_LEAD = 2  # blocks after a heading or a paragraph searched for the table of its section
ITEMS_AFTER_LEAD = 29  # blocks after a lead ending with a colon searched for its items
_HEADING_NUMBER = re.compile(cues.pattern("structure.heading_number"))
_ITEM_MARKER = re.compile(cues.pattern("structure.item_marker"))
_STRUCT = re.compile(cues.pattern("structure.unit_named"))


SEARCH_PARTS_CACHE = 8192  # words whose search parts are kept (least recently used dropped)


@lru_cache(maxsize=SEARCH_PARTS_CACHE)
def _search_parts(word: str, generation: int) -> tuple[str, ...]:
    """A question word, lower-cased, and its jieba search parts of 2+ characters (``generation``: the
    tokenizer's, so a dictionary change is a new key)."""
    w = word.lower()
    return (w,) + tuple(p.lower() for p in get_tokenizer().cut_for_search(w) if len(p) > 1 and p.lower() != w)


@lru_cache(maxsize=4096)
def _heading(section: str) -> str:
    """A section heading without its number (3.1 节能模式 → 节能模式)."""
    return _HEADING_NUMBER.sub("", section).strip()


@dataclass(frozen=True)
class _Plan:
    """A question's side of the lexicon score (:meth:`Prefilter._plan`)."""

    terms: list           # (term, weight, must) in the question's order
    synonyms: list        # (term, synonym weight, synonyms)
    cooccur: list
    penalties: list
    core_verb: Any
    section_weight: float
    penalty_factor: float


@dataclass(frozen=True)
class PrefilterSettings:
    """Knobs of stage 1 (validated)."""

    recall: int = 200          # BM25 hits recalled before rescoring
    keep: int = 30             # candidates passed on
    bm25_weight: float = 0.15  # share of the (normalised) BM25 score in the final score
    section_weight: float = 0.4
    # with embeddings on: weighted reciprocal rank fusion of the lexicon order, the BM25 order and the
    # embedding order (Σ weight / (rrf_k + rank)). Chosen by scripts/eval_recall.py --tune on training
    # data only: dev (110 answerable) and 250 self-supervised cloze questions over ../shared/eval/train
    # (scripts/make_verifier_data.py): among the settings with the best recall@10 + recall@3 on both
    # sets, the one that keeps dev answer accuracy (0.855; k=5 with weights 1 / 1 / 0.5 lost 2 answers).
    embed_recall: int = 60     # blocks the embedding search adds to the pool (20 or 30: same dev recall, one answer lost)
    rrf_k: int = 5
    rrf_lexicon: float = 1.0
    rrf_bm25: float = 0.5
    rrf_embed: float = 0.25
    # full e5 re-ranks the lexicon's first rerank_depth candidates (pipeline/rerank.py; 0: off): weighted RRF,
    # 1 / (rerank_k + lexicon rank) + rerank_weight / (rerank_k + e5 rank). Chosen on 300 training questions
    # (docs/embeddings.md; scripts/eval_recall.py reports loopagent against loopagent_lexical): gold block first
    # 97 → 180, in the top 10 202 → 244
    # the document whose title is closest in meaning to the question (full e5, the re-ranker's vectors) is searched
    # on its own too, for up to meaning_doc_recall blocks: a paraphrase's words may rank the blocks of other
    # documents above every block of the one it is about (0: off)
    meaning_doc_recall: int = 30
    # titles a question may embed when the store lacks their vectors (about 15 ms each); with more missing the
    # document by meaning waits for `ingest --vectors` (KnowledgeBase.fill_titles) rather than slow one answer down
    meaning_doc_embed: int = 300
    rerank_depth: int = 60
    rerank_k: int = 5
    rerank_weight: float = 3.0

    def __post_init__(self) -> None:
        if self.rerank_depth < 0:
            raise LoopAgentError("E303", name="rerank_depth", value=self.rerank_depth, why="must not be negative",
                                 allowed="integers >= 0 (0: no re-ranking)")
        for name in ("meaning_doc_recall", "meaning_doc_embed"):
            if getattr(self, name) < 0:
                raise LoopAgentError("E303", name=name, value=getattr(self, name), why="must not be negative",
                                     allowed="integers >= 0 (0: off)")
        for name in ("recall", "keep", "embed_recall", "rrf_k", "rerank_k"):
            if getattr(self, name) <= 0:
                raise LoopAgentError("E303", name=name, value=getattr(self, name), why="must be positive",
                                     allowed="integers > 0")
        for name in ("rrf_lexicon", "rrf_bm25", "rrf_embed", "rerank_weight"):
            if getattr(self, name) < 0:
                raise LoopAgentError("E303", name=name, value=getattr(self, name), why="must not be negative",
                                     allowed="numbers >= 0")


def title_text(doc: dict) -> str:
    """What a document's title vector is made from (its title, else its source name)."""
    return doc.get("title") or doc.get("source") or ""


class Prefilter:
    """Stage 1: recall with FTS5, rescore with the weighted lexicon."""

    def __init__(self, store: Store, rules: RuleSet, settings: Optional[PrefilterSettings] = None,
                 semantic: Any = None) -> None:
        self.store = store
        self.rules = rules
        self.settings = settings or PrefilterSettings()
        self.semantic = semantic  # pipeline.semantic.SemanticRecall or None (the default: off)
        self.reranker: Any = None  # pipeline.rerank.Reranker, set by the orchestrator (None: the lexicon order)
        self._lock = threading.Lock()
        self._version = -1
        self._tiers: dict[str, tuple[str, float, str]] = {}  # word -> (tier, weight, trigger)
        self._penalty_factor = 0.5
        self._titles: Any = None  # (store generation, doc ids, title vectors) for _doc_by_meaning

    def _lexicon(self) -> dict[str, tuple[str, float, str]]:
        if self._version != self.rules.version:
            with self._lock:
                tiers = {}
                for r in self.rules.get("lexicon"):
                    for w in r["words"]:
                        tiers[str(w)] = (r["tier"], float(r["weight"]), r["trigger"])
                self._tiers = tiers
                self._penalty_factor = float(self.rules.settings("lexicon").get("penalty_factor", 0.5))
                self._version = self.rules.version
        return self._tiers

    # --- recall -------------------------------------------------------------
    def _match_expr(self, words: list[str]) -> str:
        toks: list[str] = []
        gen = tokenize_generation()
        for w in words:
            for p in _search_parts(w, gen):
                p = p.replace('"', " ").strip()
                if p and p not in toks:
                    toks.append(p)
        return " OR ".join(f'"{t}"' for t in toks)

    @staticmethod
    def _words(query: Query) -> list[str]:
        """The question's terms and their synonyms: what stage 1 searches for."""
        return list(query.terms) + [s for syns in query.expansions.values() for s in syns]

    def recall(self, query: Query) -> dict[int, float]:
        words = self._words(query)
        if not words:
            return {}
        doc_ids = query.constraints.get("doc_ids")
        hits = self.store.search(self._match_expr(words), limit=self.settings.recall, doc_ids=doc_ids)
        if doc_ids and not hits:  # the named document has none of the words: search everywhere
            hits = self.store.search(self._match_expr(words), limit=self.settings.recall // 2)
        out: dict[int, float] = {}
        for rid, s in hits:
            out[rid] = max(out.get(rid, 0.0), s)
        return out

    # --- scoring ------------------------------------------------------------
    def run(self, query: Query) -> list[Candidate]:
        cands, blocks, bm, sem = self.score(query)
        for i, c in enumerate(cands):
            c.breakdown["lexicon_rank"] = i  # the lexicon's own order (the trained gate reads it)
        if sem:
            cands = self._fuse(cands, blocks, bm, sem)
        if self.reranker is not None:
            cands = self.reranker.run(query, cands)
        return self._with_items(cands)

    def score(self, query: Query) -> tuple[list[Candidate], dict[int, Block], dict[int, float], dict[int, float]]:
        """The recalled pool scored by the lexicon (best first), with the BM25 and embedding scores by rid."""
        lex = self._lexicon()
        bm = self.recall(query)
        sem: dict[int, float] = {}
        if self.semantic is not None:
            named = set(query.constraints.get("doc_ids") or [])
            sem = dict(self.semantic.search(query.text, k=self.settings.embed_recall))
        blocks = self.store.blocks_by_rid(set(bm) | set(sem))
        by_meaning = self._doc_by_meaning(query)
        from_meaning: set[int] = set()
        # only where the lexicon recalled no block of that document (where it did, its order stands)
        if by_meaning and not any(blocks[r].doc_id in by_meaning for r in bm if r in blocks):
            for rid, s in self.store.search(self._match_expr(self._words(query)),
                                            limit=self.settings.meaning_doc_recall, doc_ids=by_meaning):
                if rid not in bm:
                    bm[rid] = s
                    from_meaning.add(rid)
            blocks.update(self.store.blocks_by_rid(from_meaning))
        if sem and query.constraints.get("doc_ids"):
            blocks = {r: b for r, b in blocks.items() if r in bm or b.doc_id in named}
        direct = self._direct(query)
        for b in direct:
            blocks.setdefault(-hash(b.block_id), b)
        if not blocks:
            return [], blocks, bm, sem
        top_bm = max(bm.values()) if bm else 1.0
        # 第三章 / 附录A / 表2 named in the question: blocks inside that unit are boosted
        units = [u for groups in _STRUCT.findall(query.text) for u in groups if u and not u.endswith(_ARTICLE_CHAR)]
        # structure hints of this question type only (hint_applies asks that first), in rule order
        hints = [(r, tuple(r.get("block_types") or ()), re.compile(r["cue"]) if r.get("cue") else None)
                 for r in self.rules.get("structure_hint") if query.qtype in r["types"]]
        docs = {}
        cands: list[Candidate] = []
        places = query.constraints.get("places") or []
        where = jurisdiction(self.store, place_suffixes(self.rules)) if places else None
        plan = self._plan(query, lex)
        by_length = sorted(query.weights, key=len, reverse=True)
        quoted = query.constraints.get("quoted") or []
        named = query.constraints.get("doc_ids")
        bm25_weight = self.settings.bm25_weight
        qtext = query.text
        elsewhere: set[str] = set()
        for rid, b in blocks.items():
            text = b.text
            section = " ".join(b.section)
            score, breakdown = self._score_block(b, plan, section)
            bms = bm.get(rid, 0.0) / top_bm if top_bm > 0 else 0.0
            breakdown["bm25"] = round(bms, 3)
            if rid in from_meaning:
                breakdown["doc_by_meaning"] = True  # recalled in the document whose title the question means
            score += bm25_weight * bms * max(1.0, score)
            if direct and b in direct:
                score += 2.0
                breakdown["direct"] = True
            phrase = _longest_shared(qtext, text, 4)  # shorter shared runs do not count
            if phrase:
                rest = phrase
                for t in by_length:
                    rest = rest.replace(t, "")
                # the question repeats the document's construction (处分分为, 是指), not just its nouns
                if rest:
                    score *= 1 + 0.08 * min(len(phrase) - 3, 8)
                    breakdown["phrase"] = phrase
            constraint = 1.0  # the factors the question's own words impose (also binding on the re-ranking)
            if quoted and not any(q in text or q in section for q in quoted):
                constraint *= 0.6
                breakdown["lacks_quoted"] = True
            if places:  # the question names a place: its documents up, other places' documents out
                rel = where.relation(b.doc_id, places)
                if rel == "other" and not (named and b.doc_id in named):
                    # 我在枣庄…: another city's regulation never answers for 枣庄 (the gate refuses its evidence),
                    # so it takes no candidate's place and is no rival to the asker's own regulation
                    elsewhere.update(where.of_doc.get(b.doc_id, ()))
                    continue
                if rel == "same":
                    constraint *= 1.3
                    breakdown["place"] = rel
            if named and b.doc_id not in named:
                constraint *= 0.3
                breakdown["outside_named_doc"] = True
            if units and any(u in section or text.startswith(u) or
                             u in str(b.meta.get("caption", "")) for u in units):
                constraint *= 1.5
                breakdown["named_unit"] = True
            heading = _heading(b.section[-1]) if b.section else ""
            if len(heading) >= 3 and heading in qtext and not _STRUCT.search(heading):
                constraint *= 1.3  # 切换到节能模式…: the section headed 3.1 节能模式 (not 3.2 智能节能模式)
                breakdown["named_section"] = heading
            score *= constraint
            for rule, block_types, rx in hints:  # hint_applies, its question-type test done above
                if b.type in block_types or (rx is not None and rx.search(text)):
                    score *= float(rule["boost"])
                    breakdown["type_boost"] = rule["id"]
                    break
            d = docs.get(b.doc_id)
            if d is None:
                d = docs[b.doc_id] = self.store.document(b.doc_id) or {"title": "", "source": ""}
            if constraint != 1.0:
                breakdown["constraint"] = round(constraint, 4)
            if rid in sem:
                breakdown["semantic"] = round(sem[rid], 3)
            cands.append(Candidate(block=b, title=d["title"], source=d["source"], score=round(score, 4),
                                   breakdown=breakdown))
        # an article answers as a whole: share some of the score between its paragraphs
        by_clause: dict[tuple[str, Optional[str]], list[Candidate]] = {}
        for c in cands:
            if c.block.clause:
                by_clause.setdefault((c.block.doc_id, c.block.clause), []).append(c)
        for group in by_clause.values():
            if len(group) > 1:
                for c in group:
                    bonus = 0.2 * max(o.score for o in group if o is not c)
                    c.breakdown["article_bonus"] = round(bonus, 3)
                    c.score = round(c.score + bonus, 4)
        cands.sort(key=lambda c: -c.score)
        if elsewhere:
            why = f"地域排除：{'、'.join(sorted(elsewhere))}的文件不作候选（问题问的是{'、'.join(places)}）"
            if why not in query.reasons:
                query.reasons.append(why)
        return cands, blocks, bm, sem

    def _doc_by_meaning(self, query: Query) -> list[str]:
        """The document whose title is closest in meaning to the question ([] without e5 vectors, when the
        question names a document, or when the setting is off)."""
        if not self.settings.meaning_doc_recall or self.reranker is None or query.constraints.get("doc_ids") \
                or not query.terms:
            return []
        cache = self.reranker.cache()
        if cache is None:
            return []
        import numpy as np

        gen = self.store.generation
        if self._titles is None or self._titles[0] != gen:
            docs = self.store.documents()
            vecs = cache.stored_passages([title_text(d) for d in docs], self.settings.meaning_doc_embed) \
                if docs else None
            if vecs is None:  # too many titles without vectors: off until they are stored
                docs, vecs = [], np.zeros((0, 1), dtype=np.float32)
            self._titles = (gen, [d["doc_id"] for d in docs], np.asarray(vecs, dtype=np.float32))
        _, ids, matrix = self._titles
        if not ids:
            return []
        q = np.asarray(cache.vectors([query.text], True)[0], dtype=np.float32)
        return [ids[int(np.argmax(matrix @ q))]]

    def _fuse(self, cands: list[Candidate], blocks: dict[int, Block], bm: dict[int, float],
              sem: dict[int, float]) -> list[Candidate]:
        """Weighted reciprocal rank fusion of the lexicon, BM25 and embedding rankings (settings rrf_*)."""
        from .semantic import rrf

        def ranking(scores: dict[int, float]) -> list[str]:
            return [blocks[r].block_id for r, _ in sorted(scores.items(), key=lambda x: -x[1]) if r in blocks]

        st = self.settings
        fused = rrf([[c.block.block_id for c in cands], ranking(bm), ranking(sem)], k=st.rrf_k,
                    weights=[st.rrf_lexicon, st.rrf_bm25, st.rrf_embed])
        for c in cands:
            c.breakdown["lexicon_score"] = c.score
            c.breakdown["rrf"] = round(fused.get(c.block.block_id, 0.0), 5)
        return sorted(cands, key=lambda c: -fused.get(c.block.block_id, 0.0))

    def _with_items(self, cands: list[Candidate]) -> list[Candidate]:
        """A lead paragraph (…有下列情形之一的：) brings its list items, which rarely repeat the question's words.

        Items follow their lead and do not count against ``keep`` (they are one unit with it).
        """
        top = cands[: self.settings.keep]
        by_lead: dict[str, list[Candidate]] = {}
        moved: set[str] = set()
        kept = {c.block.block_id for c in top}

        def follow(c: Candidate, block: Block, k: int, link: str) -> None:  # ``block`` joins right after its lead
            moved.add(block.block_id)
            by_lead.setdefault(c.block.block_id, []).append(
                Candidate(block=block, title=c.title, source=c.source, score=round(c.score - 0.001 * k, 4),
                          breakdown={link: c.block.block_id, "lead": c.block.text[-120:],
                                     "lexicon_rank": c.breakdown.get("lexicon_rank", 0),
                                     **({"rrf": c.breakdown["rrf"]} if "rrf" in c.breakdown else {})}))

        for c in top[:10]:
            b = c.block
            lead = b.type != "list_item" and bool(_LEAD_END.search(b.text))
            if b.type not in ("paragraph", "heading") and not lead:
                continue
            after = self.store.doc_blocks(b.doc_id, b.order + 1, b.order + 1 + (ITEMS_AFTER_LEAD if lead else TABLE_AFTER_LEAD))
            if b.type in ("paragraph", "heading"):
                # a table belongs to the heading or lead-in of its section (蜂鸣器提醒 … 如下表所示): its rows
                # (响声次数：6；错误类型：…) rarely repeat the question's words, so it comes with them
                for j, t in enumerate(after[:TABLE_AFTER_LEAD]):
                    if t.type == "heading" or t.section != b.section:
                        break
                    if t.type == "table" and t.block_id not in kept and t.block_id not in moved:
                        follow(c, t, j + 1, "table_of")
                        break
            if not lead:
                continue
            for i, item in enumerate(after):
                # an item ingest kept as a clause or paragraph (甲、长288公分，高192公分。) still opens with its marker
                if item.type != "list_item" and not (item.section == b.section and _ITEM_MARKER.match(item.text)):
                    break
                if item.block_id not in moved:
                    follow(c, item, i + 1, "item_of")
        if not by_lead:
            return top
        out: list[Candidate] = []
        for c in top:
            if c.block.block_id in moved:
                continue
            out.append(c)
            out += by_lead.get(c.block.block_id, [])
        return out

    @staticmethod
    def question_lexicon(query: Query, lex: dict) -> tuple[list[tuple[str, float]], list[tuple[str, float]]]:
        """(co-occurrence words the question contains, penalty words it does not), in lexicon order:
        what :meth:`score_block` checks per block, chosen once per question."""
        cooccur = [(t, weight) for t, (_, weight, trig) in lex.items()
                   if trig == "cooccur" and t in query.text] if query.core_verb else []
        penalty = [(t, weight) for t, (_, weight, trig) in lex.items() if trig == "penalty" and t not in query.text]
        return cooccur, penalty

    def score_block(self, query: Query, block: Block, lex: dict,
                    chosen: Optional[tuple[list, list]] = None) -> tuple[float, dict[str, Any]]:
        """Lexicon score of one block and the per-term breakdown (``chosen``: :meth:`question_lexicon`)."""
        return self._score_block(block, self._plan(query, lex, chosen), " ".join(block.section))

    def _plan(self, query: Query, lex: dict, chosen: Optional[tuple[list, list]] = None) -> "_Plan":
        """What :meth:`_score_block` needs of the question, worked out once per question."""
        terms = []
        for t, w in query.weights.items():
            tier = lex.get(t)
            # a tier scales the term's IDF weight: 3.0 → ×1.5, 2.0 → ×1.0 (tiers say how much a word matters
            # for this domain, IDF how rare it is in this store)
            weight = w * tier[1] / 2.0 if tier and tier[1] > 0 else w
            terms.append((t, weight, bool(tier and tier[2] == "must")))
        syn_w = query.constraints.get("synonym_weight", 0.6)
        syns = [(t, query.weights.get(t, 1.0) * syn_w, tuple(ss)) for t, ss in query.expansions.items()]
        cooccur, penalties = chosen or self.question_lexicon(query, lex)
        return _Plan(terms=terms, synonyms=syns, cooccur=cooccur, penalties=penalties, core_verb=query.core_verb,
                     section_weight=self.settings.section_weight, penalty_factor=self._penalty_factor)

    @staticmethod
    def _score_block(block: Block, plan: "_Plan", section: str) -> tuple[float, dict[str, Any]]:
        text = block.text
        n = max(1, len(text))
        terms: dict[str, float] = {}
        score = 0.0
        first = n
        must_missing = []
        log = math.log
        for t, weight, must in plan.terms:
            tf = text.count(t)
            if tf:  # distinct terms count most; repetitions a little
                v = weight * (1 + 0.3 * log(tf))
                score += v
                terms[t] = round(v, 3)
                k = text.find(t)
                if k < first:
                    first = k
            elif t in section:
                v = plan.section_weight * weight
                score += v
                terms[t] = round(v, 3)
            elif must:
                must_missing.append(t)
        for t, w, syns in plan.synonyms:
            if t in text:
                continue
            for s in syns:
                if s in text:
                    score += w
                    terms[f"{t}→{s}"] = round(w, 3)
                    k = text.find(s)
                    if k < first:
                        first = k
                    break
        sentences = None
        for t, weight in plan.cooccur:
            if t in text:
                if sentences is None:
                    sentences = [s.text for s in split_sentences(text)]
                if any(t in s and plan.core_verb in s for s in sentences):
                    score += weight
                    terms[t] = weight
        position = 1.0 - first / n if first < n else 0.0
        score *= 1 + 0.3 * position
        penalty = 0.0
        for t, weight in plan.penalties:
            if t in text:
                penalty += -weight
        if penalty:
            score = score * plan.penalty_factor - penalty
        if must_missing:
            score /= 2
        return score, {"terms": terms, "position": round(position, 3), "penalty": penalty,
                       "must_missing": must_missing}

    def _direct(self, query: Query) -> list[Block]:
        """Blocks named by the question: 第X条 of the named documents, and for 《X》还有效吗 the
        provisions of other documents that cite 《X》 with 废止 (the repeal is elsewhere)."""
        out: list[Block] = []
        if query.article_hint:
            for doc_id in query.constraints.get("doc_ids") or []:
                out += self.store.clause_blocks(doc_id, query.article_hint)
        for name in query.constraints.get("validity_of") or []:
            out += self.repeals(name, exclude=query.constraints.get("doc_ids") or [])
        return out

    def repeals(self, name: str, exclude: list[str] = ()) -> list[Block]:
        """Blocks of other documents that cite 《name》 together with 废止/失效 (best BM25 first)."""
        expr = " ".join(f'"{t}"' for t in index_tokens(name).split()[:8]) + f' "{_REPEAL_WORD}"'
        hits = self.store.search(expr, limit=20)
        blocks = self.store.blocks_by_rid([r for r, _ in hits])
        out = []
        for rid, _ in hits:
            b = blocks.get(rid)
            if b is not None and b.doc_id not in exclude and f"《{name}》" in b.text and _REPEAL.search(b.text):
                out.append(b)
        return out
