#!/usr/bin/env python3
"""What the audit trail costs and how fast a rule edit goes live.

usage: nice -n 10 scripts/bench_audit.py [--docs DIR] [--questions Q.jsonl] [--n 120] [--workdir DIR]

Prints, per answer: record bytes, the time `ask` spends handing the record over (caller
thread, µs: gathering versions and fingerprints, then building and queueing the record), the writer's time to chain and append it (µs), and the warm ask p50 with and
without the log; then the reload time of a synonym edit (rules.reload after the file changes,
and the first ask after the edit). Defaults: ../shared/eval/dev when present, else examples/docs.
"""
import argparse
import json
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from pipeline import KnowledgeBase  # noqa: E402
from pipeline.audit import AuditLog  # noqa: E402
from pipeline.config import shipped_dir  # noqa: E402

RULES_DIR, DICT_DIR = shipped_dir("rules"), shipped_dir("dictionaries")

EXAMPLE_QS = ["劳动合同期限一年以上不满三年的，试用期最长多久？", "职工累计工作已满10年不满20年的，每年年休假几天？",
              "用人单位违反规定不办理住房公积金缴存登记，逾期不办理的，罚款多少？", "公司食堂几点开饭？"]


def main() -> int:
    ap = argparse.ArgumentParser()
    dev = ROOT.parent / "shared" / "eval" / "dev"
    ap.add_argument("--docs", default=str(dev / "docs") if (dev / "docs").exists() else str(ROOT / "examples" / "docs"))
    ap.add_argument("--questions", default=str(dev / "questions.jsonl") if dev.exists() else None)
    ap.add_argument("--n", type=int, default=120)
    ap.add_argument("--workdir", default=None)
    args = ap.parse_args()
    work = Path(args.workdir or tempfile.mkdtemp(prefix="bench_audit_"))
    work.mkdir(parents=True, exist_ok=True)
    db = work / "kb.sqlite"
    if not db.exists():
        KnowledgeBase(db, audit_log=None).ingest([args.docs])
    if args.questions:
        qs = [json.loads(line)["question"] for line in open(args.questions, encoding="utf-8") if line.strip()]
    else:
        qs = EXAMPLE_QS * 30
    qs = qs[: args.n]

    log = work / "bench.audit.jsonl"
    for p in work.glob("bench.audit.jsonl*"):
        p.unlink()
    kb_off = KnowledgeBase(db, audit_log=None)
    kb_on = KnowledgeBase(db, audit_log=log)
    for q in qs[:5]:  # warm caches (parser, rules)
        kb_off.ask(q)
        kb_on.ask(q)
    kb_on.audit.flush()
    for p in work.glob("bench.audit.jsonl*"):
        p.unlink()

    handover: list[float] = []
    orig = kb_on.audit.record

    def timed(answer, context=None):
        t = time.perf_counter()
        orig(answer, context)
        handover.append((time.perf_counter() - t) * 1e6)

    kb_on.audit.record = timed  # type: ignore[method-assign]
    context_us: list[float] = []
    orch = kb_on.orchestrator
    orig_ctx = orch._audit_context

    def timed_ctx(*a):
        t = time.perf_counter()
        out = orig_ctx(*a)
        context_us.append((time.perf_counter() - t) * 1e6)
        return out

    orch._audit_context = timed_ctx  # type: ignore[method-assign]
    off, on = [], []
    for q in qs:
        t = time.perf_counter()
        kb_off.ask(q)
        off.append((time.perf_counter() - t) * 1e3)
        t = time.perf_counter()
        kb_on.ask(q)
        on.append((time.perf_counter() - t) * 1e3)
    kb_on.audit.flush()
    size = sum(p.stat().st_size for p in work.glob("bench.audit.jsonl*") if not p.name.endswith(".lock"))

    # the writer's own cost: chain + append the same records synchronously
    rows = [json.loads(line) for line in log.read_text(encoding="utf-8").splitlines()]
    w = AuditLog(work / "writer.audit.jsonl")
    writer = []
    for r in rows:
        r = {k: v for k, v in r.items() if k not in ("seq", "prev", "hash")}
        t = time.perf_counter()
        w.write_now(r)
        writer.append((time.perf_counter() - t) * 1e6)

    # hot reload: a synonym edit, then rules.reload() and the first ask
    rdir = work / "rules_copy"
    shutil.rmtree(rdir, ignore_errors=True)
    shutil.copytree(RULES_DIR, rdir / "rules")
    shutil.copytree(DICT_DIR, rdir / "dictionaries")
    kb_r = KnowledgeBase(db, rules_dirs=[rdir / "rules", rdir / "dictionaries"], audit_log=None)
    kb_r.ask(qs[0])
    syn = rdir / "dictionaries" / "synonyms.yaml"
    reloads, first_asks, base = [], [], []
    for i in range(5):
        t = time.perf_counter()
        kb_r.ask(qs[0])
        base.append((time.perf_counter() - t) * 1e3)
        syn.write_text(syn.read_text(encoding="utf-8") + f"  - {{id: syn.bench{i}, user: [见习期{i}], doc: [试用期]}}\n",
                       encoding="utf-8")
        t = time.perf_counter()
        kb_r.rules.reload()
        reloads.append((time.perf_counter() - t) * 1e3)
        syn.write_text(syn.read_text(encoding="utf-8") + f"  - {{id: syn.benchb{i}, user: [实习期{i}], doc: [试用期]}}\n",
                       encoding="utf-8")
        t = time.perf_counter()
        kb_r.ask(qs[0])
        first_asks.append((time.perf_counter() - t) * 1e3)

    out = {
        "answers": len(qs), "bytes_per_record": round(size / len(qs)),
        "context_us_p50": round(statistics.median(context_us), 1),
        "handover_us_p50": round(statistics.median(handover), 1),
        "writer_us_p50": round(statistics.median(writer), 1),
        "ask_ms_p50_without_log": round(statistics.median(off), 2),
        "ask_ms_p50_with_log": round(statistics.median(on), 2),
        "rules_reload_ms_p50": round(statistics.median(reloads), 1),
        "first_ask_after_edit_ms_p50": round(statistics.median(first_asks), 1),
        "ask_ms_p50_same_question": round(statistics.median(base), 1),
    }
    print(json.dumps(out, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
