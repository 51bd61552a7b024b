"""Sentence localisation on public reading-comprehension sets (CAIL2019, CMRC 2018; SQuAD-style JSON).

For each question the passage is cut into sentences and ranked two ways:
LoopAgent's query analysis (question type, terms, IDF weights, synonyms) with its
lexical sentence scoring (:func:`pipeline.anchors.coverage`), and BM25 (bm25s,
jieba tokens) over the same sentences. A question counts as localised when the
top sentence contains a gold answer. Questions whose gold answer lies in no single
sentence (it crosses a boundary), yes/no and unanswerable ones are left out and counted.

Where one of LoopAgent's extraction templates for the question's type fires on the
top sentence, the matched span is scored against the gold answers (EM and character F1,
the CMRC convention).
"""
from __future__ import annotations

import json
import random
import re
import time
import unicodedata
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterator, Optional

from ..anchors import coverage
from ..text import split_sentences
from ..tokenize import index_tokens
from .baselines import query_tokens

_CLAUSE = re.compile(r"(?<=[，,])")


@dataclass
class Item:
    """One span question with its passage."""

    qid: str
    question: str
    context: str
    answers: list[str]


def load_squad(path: str | Path) -> Iterator[Item]:
    """Span questions of a SQuAD-style file (yes/no, unanswerable and empty answers skipped)."""
    data = json.loads(Path(path).read_text(encoding="utf-8"))
    for art in data["data"]:
        for para in art["paragraphs"]:
            ctx = para["context"]
            for qa in para["qas"]:
                if str(qa.get("is_impossible", "false")).lower() == "true":
                    continue
                golds = [a["text"] for a in qa.get("answers") or [] if a.get("text")]
                golds = [g for g in golds if g.upper() not in ("YES", "NO")]
                if golds:
                    yield Item(qa["id"], qa["question"], ctx, list(dict.fromkeys(golds)))


def _norm(s: str) -> str:
    return re.sub(r"\s+", "", unicodedata.normalize("NFKC", s))


def units(context: str, max_len: int = 100) -> list[str]:
    """Sentences of a passage (pipeline.text.split_sentences); any longer than ``max_len`` is cut at commas.

    CAIL2019 passages carry almost no 。, so without the comma cut a "sentence" is the whole passage.
    """
    out: list[str] = []
    for s in split_sentences(context):
        if len(s.text) <= max_len:
            out.append(s.text)
            continue
        out += [p for p in _CLAUSE.split(s.text) if p.strip()]
    return [u for u in out if u.strip()]


def contains_gold(unit: str, golds: list[str]) -> bool:
    u = _norm(unit)
    return any(_norm(g) and _norm(g) in u for g in golds)


class PassageStats:
    """Just enough of :class:`pipeline.store.Store` for :class:`QueryAnalyzer`: block counts and
    document frequencies over the benchmark's sentences, and no named documents."""

    generation = 0

    def __init__(self, sentences: list[str]) -> None:
        self.n = len(sentences)
        self.df: Counter = Counter()
        for s in sentences:
            self.df.update(set(index_tokens(s).split()))

    def documents(self, collection: Optional[str] = None) -> list[dict]:
        return []

    def stats(self) -> dict[str, int]:
        return {"documents": 0, "blocks": self.n, "bytes": 0}

    def doc_freq(self, terms) -> dict[str, int]:
        return {t.lower(): self.df.get(t.lower(), 0) for t in terms}


def char_f1(pred: str, gold: str) -> float:
    """Character-overlap F1 (CMRC 2018 style, on NFKC text without spaces)."""
    p, g = list(_norm(pred)), list(_norm(gold))
    common = sum((Counter(p) & Counter(g)).values())
    if not common:
        return 0.0
    prec, rec = common / len(p), common / len(g)
    return 2 * prec * rec / (prec + rec)


@dataclass
class Localisation:
    """Counts for one benchmark file."""

    name: str
    questions: int = 0
    skipped_no_unit: int = 0
    units_per_passage: float = 0.0
    random_top1: float = 0.0
    loopagent_top1: int = 0
    bm25_top1: int = 0
    loopagent_top3: int = 0
    bm25_top3: int = 0
    template_applied: int = 0
    template_em: float = 0.0
    template_f1: float = 0.0
    template_bm25_em: float = 0.0
    template_bm25_f1: float = 0.0
    seconds: float = 0.0
    by_qtype: dict[str, list[int]] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        n = max(1, self.questions)
        t = max(1, self.template_applied)
        return {"benchmark": self.name, "questions": self.questions, "skipped_no_single_sentence": self.skipped_no_unit,
                "sentences_per_passage": round(self.units_per_passage, 1),
                "random_top1": round(self.random_top1 / n, 3),
                "loopagent_top1": round(self.loopagent_top1 / n, 3), "bm25_top1": round(self.bm25_top1 / n, 3),
                "loopagent_top3": round(self.loopagent_top3 / n, 3), "bm25_top3": round(self.bm25_top3 / n, 3),
                "ratio_top1": round(self.loopagent_top1 / self.bm25_top1, 2) if self.bm25_top1 else None,
                "template_applied": self.template_applied,
                "template_em": round(self.template_em / t, 3), "template_f1": round(self.template_f1 / t, 3),
                "template_on_bm25_sentence_em": round(self.template_bm25_em / t, 3),
                "template_on_bm25_sentence_f1": round(self.template_bm25_f1 / t, 3),
                "by_question_type": {k: f"{v[0]}/{v[1]} vs {v[2]}/{v[1]}" for k, v in sorted(self.by_qtype.items())},
                "seconds": round(self.seconds, 1)}


def _bm25_order(unit_tokens: list[list[str]], q_tokens: list[str]) -> list[int]:
    import bm25s

    r = bm25s.BM25()
    r.index([t or ["∅"] for t in unit_tokens], show_progress=False)
    known = [t for t in dict.fromkeys(q_tokens) if t in r.vocab_dict]
    if not known:
        return list(range(len(unit_tokens)))
    scores = r.get_scores(known)
    return sorted(range(len(unit_tokens)), key=lambda i: (-float(scores[i]), i))


def _template_span(templates, qtype: str, sentence: str) -> Optional[str]:
    """The text matched by the highest-priority template of this type on ``sentence``, if any."""
    for t in templates:
        if qtype not in t.types:
            continue
        found = t.apply(sentence)
        if found:
            a, b = found[0][1]
            return sentence[a:b]
    return None


def localise(path: str | Path, name: str, sample: Optional[int] = 500, seed: int = 13) -> Localisation:
    """Top-1/top-3 sentence localisation of LoopAgent's lexical ranking vs BM25 on ``sample`` questions."""
    from ..analyze import QueryAnalyzer
    from ..rules import RuleSet

    t0 = time.perf_counter()
    items = list(load_squad(path))
    if sample and sample < len(items):
        items = random.Random(seed).sample(items, sample)
    passages = {it.context: units(it.context) for it in items}
    stats = PassageStats([u for us in passages.values() for u in us])
    rules = RuleSet()
    analyzer = QueryAnalyzer(rules, stats)  # type: ignore[arg-type]  # duck-typed store
    try:
        from ..extract import compile_templates

        templates = compile_templates(rules.get("template"))
    except Exception:  # extraction rules are optional here: localisation still runs
        templates = []
    tok_cache: dict[str, list[list[str]]] = {}
    res = Localisation(name)
    n_units = 0
    for it in items:
        us = passages[it.context]
        has = [contains_gold(u, it.answers) for u in us]
        if not any(has):
            res.skipped_no_unit += 1
            continue
        res.questions += 1
        n_units += len(us)
        res.random_top1 += sum(has) / len(us)
        q = analyzer.run(it.question)
        ours = sorted(range(len(us)), key=lambda i: (-coverage(q, us[i]), i))
        if it.context not in tok_cache:
            tok_cache[it.context] = [query_tokens(u) for u in us]
        bm = _bm25_order(tok_cache[it.context], query_tokens(it.question))
        res.loopagent_top1 += has[ours[0]]
        res.bm25_top1 += has[bm[0]]
        res.loopagent_top3 += any(has[i] for i in ours[:3])
        res.bm25_top3 += any(has[i] for i in bm[:3])
        per = res.by_qtype.setdefault(q.qtype, [0, 0, 0])
        per[0] += has[ours[0]]
        per[1] += 1
        per[2] += has[bm[0]]
        span = _template_span(templates, q.qtype, us[ours[0]]) if templates else None
        if span is not None:
            res.template_applied += 1
            res.template_em += max(float(_norm(span) == _norm(g)) for g in it.answers)
            res.template_f1 += max(char_f1(span, g) for g in it.answers)
            span_bm = _template_span(templates, q.qtype, us[bm[0]]) or ""
            res.template_bm25_em += max(float(_norm(span_bm) == _norm(g)) for g in it.answers) if span_bm else 0.0
            res.template_bm25_f1 += max(char_f1(span_bm, g) for g in it.answers) if span_bm else 0.0
    res.units_per_passage = n_units / max(1, res.questions)
    res.seconds = time.perf_counter() - t0
    return res


PUBLIC = {"CAIL2019": "cail2019_dev.json", "CMRC2018": "cmrc2018_dev.json"}


def run_public(public_dir: str | Path, sample: Optional[int] = 500, seed: int = 13) -> list[dict[str, Any]]:
    """Localisation results for every benchmark file found in ``public_dir``."""
    out = []
    for name, fname in PUBLIC.items():
        p = Path(public_dir) / fname
        if p.exists():
            out.append(localise(p, name, sample=sample, seed=seed).to_dict())
    return out
