"""Dev-set evaluation: ingest, answer every question with LoopAgent and the baselines, score, compare.

>>> res = run_eval("docs/", "questions.jsonl", db="/tmp/dev.sqlite")   # doctest: +SKIP
>>> print(format_tables(res))                                           # doctest: +SKIP
"""
from __future__ import annotations

import json
import math
import sys
import time
from pathlib import Path
from typing import Any, Callable, Iterable, Optional

from . import score as scorer
from .baselines import BASELINES, VectorBaseline, corpus_units

SYSTEMS = ("loopagent", "fts", "bm25", "vector")


def load_jsonl(path: str | Path) -> list[dict]:
    """Objects of a JSON Lines file (blank lines skipped)."""
    with open(path, encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


def hit_at_1(question: dict, answer: dict) -> bool:
    """Does the first evidence item contain the gold evidence (same matching rule as the scorer)?"""
    ev = (answer.get("evidence") or [])[:1]
    if not ev:
        return False
    return scorer.evidence_ok(question, {"evidence": ev})


def _top_anchor(stages: Optional[dict]) -> Optional[dict]:
    """The best stage-2 anchor sentence of a traced answer, as an evidence-like dict (None if absent)."""
    try:
        a = stages["syntax"]["anchors"][0]  # type: ignore[index]
        return {"text": a["text"], "block_id": a.get("block_id")}
    except (KeyError, IndexError, TypeError):
        return None


def summarize(questions: list[dict], answers: list[dict], seconds: float,
              anchors: Optional[dict[Any, Optional[dict]]] = None) -> dict[str, Any]:
    """Scorer summary plus evidence hit@1, top-sentence hit@1 (answerable questions) and time per question.

    ``anchors`` maps question id to the system's top sentence whether or not it answered, so
    localisation can be compared apart from the decision to abstain.
    """
    rows = scorer.score(questions, answers)
    s = scorer.summary(rows)
    by_id = {a.get("id"): a for a in answers}
    answerable = [q for q in questions if q.get("answerable", True)]
    hits = [hit_at_1(q, by_id.get(q["id"], {})) for q in answerable]
    s["evidence_hit_at_1"] = round(sum(hits) / max(1, len(hits)), 3)
    if anchors is not None:
        top = [bool(anchors.get(q["id"])) and hit_at_1(q, {"evidence": [anchors[q["id"]]]}) for q in answerable]
        s["top_sentence_hit_at_1"] = round(sum(top) / max(1, len(top)), 3)
    s["seconds"] = round(seconds, 2)
    s["ms_per_question"] = round(1000 * seconds / max(1, len(questions)), 1)
    return {"summary": s, "rows": rows}


def ratio(a: Optional[float], b: Optional[float]) -> Optional[float]:
    """a / b rounded, None when undefined, inf when b is 0 and a > 0."""
    if a is None or b is None:
        return None
    if b == 0:
        return math.inf if a > 0 else None
    return round(a / b, 2)


def margins(systems: dict[str, dict]) -> dict[str, dict[str, Any]]:
    """LoopAgent's margin over each baseline: accuracy ratio, hit@1 ratio, wrong-answer ratio (baseline / ours)."""
    if "loopagent" not in systems:
        return {}
    ours = systems["loopagent"]["summary"]
    out = {}
    for name, res in systems.items():
        if name == "loopagent" or "summary" not in res:
            continue
        s = res["summary"]
        out[name] = {"accuracy_ratio": ratio(ours["accuracy"], s["accuracy"]),
                     "accuracy_diff": round(ours["accuracy"] - s["accuracy"], 3),
                     "hit_at_1_ratio": ratio(ours["evidence_hit_at_1"], s["evidence_hit_at_1"]),
                     "top_sentence_ratio": ratio(ours.get("top_sentence_hit_at_1"), s.get("top_sentence_hit_at_1")),
                     "wrong_rate_ratio_baseline_over_ours": ratio(s["wrong_answer_rate"], ours["wrong_answer_rate"])}
    return out


def run_eval(docs: str | Path, questions_path: str | Path, db: str | Path,
             systems: Iterable[str] = SYSTEMS, limit: Optional[int] = None,
             log: Callable[[str], None] = lambda m: print(m, file=sys.stderr)) -> dict[str, Any]:
    """Ingest ``docs`` into ``db`` (unchanged files are skipped), answer and score every system."""
    from ..kb import KnowledgeBase

    systems = list(systems)
    unknown = [s for s in systems if s not in SYSTEMS]
    if unknown:
        raise ValueError(f"unknown system(s) {unknown}; choose from {', '.join(SYSTEMS)}")
    questions = load_jsonl(questions_path)[:limit] if limit else load_jsonl(questions_path)
    kb = KnowledgeBase(db, audit_log=None)
    rep = kb.ingest([docs])
    log("ingest: " + rep.summary())
    st = kb.store.stats()
    result: dict[str, Any] = {"docs": str(docs), "questions_file": str(questions_path), "db": str(db),
                              "n_questions": len(questions), "store": st, "ingest": rep.summary(), "systems": {}}
    answers: dict[str, list[dict]] = {}
    units = None
    for name in systems:
        if name == "loopagent":
            t0 = time.perf_counter()
            out = [kb.ask(q["question"], id=q["id"], trace=True).to_dict() for q in questions]
            secs = time.perf_counter() - t0
            anchors = {a["id"]: _top_anchor(a.pop("stages", None)) for a in out}
            answers[name] = out
            res = summarize(questions, out, secs, anchors)
        else:
            if name == "vector":
                why = VectorBaseline.available()
                if why:
                    log(f"vector baseline skipped: {why}")
                    result["systems"][name] = {"skipped": why}
                    continue
            if units is None:
                units = corpus_units(kb.store)
                result["sentences"] = len(units)
            base = BASELINES[name](progress=log) if name == "vector" else BASELINES[name]()
            t0 = time.perf_counter()
            base.prepare(kb.store, units)
            prep = time.perf_counter() - t0
            t0 = time.perf_counter()
            out = [base.ask(q["question"], q["id"]) for q in questions]
            answers[name] = out
            res = summarize(questions, out, time.perf_counter() - t0,
                            {a["id"]: (a.get("evidence") or [None])[0] for a in out})
            res["summary"]["prepare_seconds"] = round(prep, 2)
        result["systems"][name] = res
        s = res["summary"]
        log(f"{name}: accuracy {s['accuracy']}, wrong {s['wrong_answer_rate']}, hit@1 {s['evidence_hit_at_1']}")
    result["margins"] = margins(result["systems"])
    result["questions"] = _question_rows(questions, answers)
    kb.close()
    return result


def _question_rows(questions: list[dict], answers: dict[str, list[dict]]) -> list[dict]:
    """One row per question: gold fields and, per system, status, answer, correct, evidence, hit@1."""
    by_sys = {name: {a.get("id"): a for a in out} for name, out in answers.items()}
    rows = []
    for q in questions:
        row = {"id": q["id"], "type": q.get("type"), "question": q["question"], "answerable": q.get("answerable", True),
               "must_include": q.get("must_include")}
        for name, by_id in by_sys.items():
            a = by_id.get(q["id"], {})
            r = scorer.score([q], [a])[0]
            ev = (a.get("evidence") or [{}])[0]
            row[name] = {"status": a.get("status"), "answer": (a.get("answer") or "")[:120],
                         "correct": r["correct"] and r["evidence_ok"], "wrong": r["wrong"],
                         "hit_at_1": hit_at_1(q, a) if q.get("answerable", True) else None,
                         "source": ev.get("source"), "ms": (a.get("timings_ms") or {}).get("total")}
        rows.append(row)
    return rows


def _fmt(v: Any) -> str:
    if v is None:
        return "–"
    if isinstance(v, float):
        return "∞" if math.isinf(v) else f"{v:.3f}".rstrip("0").rstrip(".") if v < 10 else f"{v:.1f}"
    return str(v)


def table(headers: list[str], rows: list[list[Any]]) -> str:
    """A Markdown table (also readable in a terminal)."""
    out = ["| " + " | ".join(headers) + " |", "|" + "|".join("---" for _ in headers) + "|"]
    out += ["| " + " | ".join(_fmt(c) for c in r) + " |" for r in rows]
    return "\n".join(out)


OVERALL = (("accuracy", "accuracy (answer + evidence)"), ("answer_only_accuracy", "answer-only accuracy"),
           ("wrong_answer_rate", "wrong-answer rate"), ("not_found_on_unanswerable", "not_found on unanswerable"),
           ("paraphrase_accuracy", "paraphrase accuracy"), ("evidence_hit_at_1", "evidence hit@1"),
           ("top_sentence_hit_at_1", "top sentence hit@1 (answered or not)"),
           ("ms_per_question", "ms / question"))


def format_tables(result: dict[str, Any]) -> str:
    """Overall, per-type and margin tables as Markdown."""
    names = [n for n, r in result["systems"].items() if "summary" in r]
    parts = [f"{result['n_questions']} questions; store: {result['store']['documents']} documents, "
             f"{result['store']['blocks']} blocks" + (f", {result['sentences']} sentences" if "sentences" in result else "")]
    parts.append(table(["metric"] + names,
                       [[label] + [result["systems"][n]["summary"].get(key) for n in names] for key, label in OVERALL]))
    types = sorted({t for n in names for t in result["systems"][n]["summary"]["per_type"]}, key=str)
    parts.append(table(["type"] + names,
                       [[t] + [result["systems"][n]["summary"]["per_type"].get(t, "–") for n in names] for t in types]))
    if result.get("margins"):
        parts.append(table(["LoopAgent vs", "accuracy ratio", "accuracy diff", "evidence hit@1 ratio",
                            "top sentence hit@1 ratio", "wrong-rate ratio (baseline / LoopAgent)"],
                           [[n, m["accuracy_ratio"], m["accuracy_diff"], m["hit_at_1_ratio"],
                             m.get("top_sentence_ratio"), m["wrong_rate_ratio_baseline_over_ours"]]
                            for n, m in result["margins"].items()]))
    skipped = {n: r["skipped"] for n, r in result["systems"].items() if "skipped" in r}
    for n, why in skipped.items():
        parts.append(f"{n}: skipped ({why})")
    return "\n\n".join(parts)


def _json_default(o: Any) -> Any:
    return str(o)


def write_json(result: dict[str, Any], path: str | Path) -> None:
    """Write the result (inf as the string "inf")."""
    def clean(x):
        if isinstance(x, float) and math.isinf(x):
            return "inf"
        if isinstance(x, dict):
            return {k: clean(v) for k, v in x.items()}
        if isinstance(x, list):
            return [clean(v) for v in x]
        return x
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    Path(path).write_text(json.dumps(clean(result), ensure_ascii=False, indent=1, default=_json_default),
                          encoding="utf-8")
