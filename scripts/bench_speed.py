#!/usr/bin/env python3
"""Speed and memory against a baseline commit, measured in the same run: ingest MB/s, warm p50/p95, one CLI answer, peak RSS.

usage: scripts/bench_speed.py [--baseline main] [--scales 1] [--cli-runs 5] [--report docs/benchmarks.md]

The baseline commit is exported (``git archive``) into a temporary folder; every measurement
runs in a fresh process whose ``pipeline`` is that tree's or this one's, on the same corpus
(the dev Markdown tree, copied N times per scale) and the same dev questions, alternating
between the two codes so both see the same machine load. Each figure is reported with its
ratio (after / before). The per-question status and value of both codes are compared too.
Writes the section "Speed against the previous code" of the report (other sections kept)
and the raw JSON to --workdir.
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, Optional

ROOT = Path(__file__).resolve().parent.parent
SHARED = ROOT.parent / "shared" / "eval"
HEADING = "## Speed against the previous code (same run)"
# the stages of an answer's timings_ms reported per pass (stage 1 is "prefilter"); the first run of each
# (a retry of the loop or a conflict check is timed as "loop" / "sources")
STAGES = ("analyze", "prefilter", "syntax", "extract", "loop", "sources")
STAGE_NAMES = {"analyze": "analysis", "prefilter": "stage 1 (prefilter)", "syntax": "stage 2 (syntax)",
               "extract": "stage 3 (extract)"}


# --- worker side (runs with one tree's pipeline on sys.path) ----------------------------------

def _vm(field: str) -> Optional[float]:
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith(field + ":"):
                return round(int(line.split()[1]) / 1024, 1)
    except OSError:
        pass
    return None


def _pct(values: list[float], p: float) -> float:
    s = sorted(values)
    k = max(0, min(len(s) - 1, -(-len(s) * p // 100) - 1))
    return round(s[int(k)], 2)


def work_ingest(db: str, corpus: str, jobs: int) -> dict[str, Any]:
    import inspect
    import pipeline
    from pipeline import KnowledgeBase

    kb = KnowledgeBase(db, audit_log=None)
    size = sum(p.stat().st_size for p in Path(corpus).rglob("*") if p.is_file())
    kw = {"jobs": jobs} if "jobs" in inspect.signature(kb.ingest).parameters else {}
    t0 = time.perf_counter()
    rep = kb.ingest([corpus], **kw)
    secs = time.perf_counter() - t0
    return {"pipeline": pipeline.__file__, "jobs": kw.get("jobs", 1), "seconds": round(secs, 2),
            "mb": round(size / 1e6, 2), "mb_per_s": round(size / 1e6 / secs, 3), "blocks": rep.blocks,
            "failed": rep.failed, "peak_rss_mb": _vm("VmHWM")}


def work_ask(db: str, questions: str, passes: int) -> dict[str, Any]:
    import pipeline
    from pipeline import KnowledgeBase

    qs = [json.loads(x) for x in open(questions, encoding="utf-8") if x.strip()]
    t0 = time.perf_counter()
    kb = KnowledgeBase(db, audit_log=None, create=False)
    out: dict[str, Any] = {"pipeline": pipeline.__file__}
    first = time.perf_counter()
    kb.ask(qs[0]["question"])
    out["first_answer_s"] = round(time.perf_counter() - t0, 3)  # open + the first question, in process
    out["first_question_s"] = round(time.perf_counter() - first, 3)
    answers: dict[str, Any] = {}
    for n in range(1, passes + 1):
        walls, totals, syntax = [], [], []
        stages: dict[str, list[float]] = {k: [] for k in STAGES}
        for q in qs:
            t = time.perf_counter()
            a = kb.ask(q["question"], id=q["id"])
            walls.append((time.perf_counter() - t) * 1000)
            totals.append(float(a.timings_ms.get("total", 0.0)))
            syntax.append(float(a.timings_ms.get("syntax", 0.0)))
            for k in STAGES:
                stages[k].append(float(a.timings_ms.get(k, 0.0)))
            if n == 1:
                answers[q["id"]] = [a.status, a.value]
        out[f"pass{n}"] = {"wall_p50": _pct(walls, 50), "wall_p95": _pct(walls, 95),
                           "wall_mean": round(statistics.fmean(walls), 2), "syntax_p50": _pct(syntax, 50),
                           "syntax_p95": _pct(syntax, 95), "total_p50": _pct(totals, 50),
                           "total_p95": _pct(totals, 95),
                           **{f"{k}_p50": _pct(v, 50) for k, v in stages.items()}}
    out["peak_rss_mb"] = _vm("VmHWM")
    out["answers"] = answers
    parser = getattr(getattr(kb.orchestrator, "syntax", None), "parser", None)
    out["parser_loaded"] = bool(parser is not None and getattr(parser, "_nlp", None) is not None)
    out["spacy_imported"] = "spacy" in sys.modules
    return out


# --- orchestration ---------------------------------------------------------------------------

_CLI = """
import json, resource, subprocess, sys, time
t0 = time.perf_counter()
r = subprocess.run(sys.argv[2:], capture_output=True, text=True, cwd=sys.argv[1])
dt = time.perf_counter() - t0
print(json.dumps({"s": dt, "rc": r.returncode, "rss_mb": resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024,
                  "out": r.stdout[-300:], "err": r.stderr[-300:]}))
"""


def _env(tree: Path) -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = str(tree)
    return env


def _worker(tree: Path, *args: str) -> dict[str, Any]:
    r = subprocess.run([sys.executable, str(Path(__file__).resolve()), "--tree", str(tree), *args],
                       capture_output=True, text=True, cwd=str(tree), env=_env(tree))
    if r.returncode != 0:
        raise RuntimeError(f"worker {args} in {tree} failed:\n{r.stderr[-3000:]}")
    return json.loads(r.stdout.strip().splitlines()[-1])


def _cli_once(tree: Path, db: Path, question: str) -> dict[str, Any]:
    cmd = [sys.executable, "-m", "pipeline.cli", "ask", "--db", str(db), "--json", "--audit", "-", question]
    r = subprocess.run([sys.executable, "-c", _CLI, str(tree)] + cmd, capture_output=True, text=True,
                       env=_env(tree))
    return json.loads(r.stdout.strip().splitlines()[-1])


def export_tree(ref: str, dest: Path) -> str:
    """``git archive`` of ``ref`` into ``dest``; returns the commit id."""
    commit = subprocess.run(["git", "rev-parse", ref], capture_output=True, text=True, cwd=ROOT,
                            check=True).stdout.strip()
    if dest.exists():
        shutil.rmtree(dest)
    dest.mkdir(parents=True)
    archive = subprocess.run(["git", "archive", commit], capture_output=True, cwd=ROOT, check=True).stdout
    subprocess.run(["tar", "-x", "-C", str(dest)], input=archive, check=True)
    return commit


def replicate(src: Path, dest: Path, copies: int) -> None:
    """The Markdown files of ``src``, ``copies`` times under new folder names."""
    if dest.exists():
        shutil.rmtree(dest)
    for i in range(copies):
        for f in sorted(src.rglob("*.md")):
            out = dest / f"copy_{i:02d}" / f.relative_to(src)
            out.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(f, out)


def _ratio(after: Optional[float], before: Optional[float]) -> Optional[float]:
    if not after or not before:
        return None
    return round(after / before, 2)


def run(args: argparse.Namespace) -> dict[str, Any]:
    work = Path(args.workdir)
    work.mkdir(parents=True, exist_ok=True)
    trees = {"before": work / "baseline", "after": ROOT}
    commit = export_tree(args.baseline, trees["before"])
    head = subprocess.run(["git", "rev-parse", "HEAD"], capture_output=True, text=True, cwd=ROOT).stdout.strip()
    dirty = bool(subprocess.run(["git", "status", "--porcelain", "--untracked-files=no"], capture_output=True,
                                text=True, cwd=ROOT).stdout.strip())
    questions = Path(args.questions)
    first_q = json.loads(questions.read_text(encoding="utf-8").splitlines()[0])["question"]
    result: dict[str, Any] = {"baseline": commit, "head": head + (" (with uncommitted changes)" if dirty else ""),
                              "load_start": os.getloadavg()[0], "scales": []}
    for scale in [int(s) for s in args.scales.split(",") if s.strip()]:
        log = lambda m: print(f"[x{scale}] {m}", file=sys.stderr, flush=True)  # noqa: E731
        corpus = work / f"corpus_x{scale}"
        replicate(Path(args.docs), corpus, scale)
        res: dict[str, Any] = {"scale": scale}
        dbs = {k: work / f"{k}_x{scale}.sqlite" for k in ("before", "after", "after_j2")}
        for db in dbs.values():
            for p in (db, Path(f"{db}-wal"), Path(f"{db}-shm")):
                p.unlink(missing_ok=True)
        log("ingest")
        res["ingest_before"] = _worker(trees["before"], "--ingest", str(dbs["before"]), "--corpus", str(corpus))
        res["ingest_after"] = _worker(trees["after"], "--ingest", str(dbs["after"]), "--corpus", str(corpus))
        res["ingest_after_j2"] = _worker(trees["after"], "--ingest", str(dbs["after_j2"]), "--corpus", str(corpus),
                                         "--jobs", "2")
        res["store_mb"] = {k: round(sum(p.stat().st_size for p in (db, Path(f"{db}-wal")) if p.exists()) / 1e6, 1)
                           for k, db in dbs.items()}
        log("asks: first process (the new code fills its stored parses), then a fresh one")
        for n in (1, 2):
            for name in ("before", "after"):
                res[f"ask{n}_{name}"] = _worker(trees[name], "--ask", str(dbs[name]), "--questions", str(questions),
                                                "--passes", "2")
        res["store_mb_after_asks"] = round(sum(p.stat().st_size for p in (dbs["after"], Path(f"{dbs['after']}-wal"))
                                               if p.exists()) / 1e6, 1)
        b, a = res["ask1_before"]["answers"], res["ask2_after"]["answers"]
        res["answers_compared"] = len(b)
        res["answers_differ"] = sorted(k for k in b if b[k] != a.get(k))
        log("one CLI answer")
        for name in ("before", "after"):
            _cli_once(trees[name], dbs[name], first_q)  # untimed: builds on-disk caches (jieba) once
        runs: dict[str, list[dict[str, Any]]] = {"before": [], "after": []}
        for _ in range(args.cli_runs):
            for name in ("before", "after"):
                runs[name].append(_cli_once(trees[name], dbs[name], first_q))
        for name, rs in runs.items():
            res[f"cli_{name}"] = {"median_s": round(statistics.median(r["s"] for r in rs), 3),
                                  "runs_s": [round(r["s"], 2) for r in rs],
                                  "peak_rss_mb": round(max(r["rss_mb"] for r in rs), 1),
                                  "ok": all(r["rc"] in (0, 3) for r in rs)}
        for k in ("ask1_before", "ask1_after", "ask2_before", "ask2_after"):
            res[k].pop("answers", None)
        res["load_end"] = os.getloadavg()[0]
        result["scales"].append(res)
        shutil.rmtree(corpus, ignore_errors=True)
        if not args.keep:
            for db in dbs.values():
                for p in (db, Path(f"{db}-wal"), Path(f"{db}-shm")):
                    p.unlink(missing_ok=True)
    return result


def _row(label: str, before: Any, after: Any, unit: str = "") -> list[Any]:
    ratio = _ratio(after, before) if isinstance(after, (int, float)) and isinstance(before, (int, float)) else None
    return [label, f"{before}{unit}", f"{after}{unit}", ratio if ratio is not None else "–"]


def section(result: dict[str, Any], cmdline: str) -> str:
    lines = [HEADING, "",
             f"`{cmdline}` on {time.strftime('%Y-%m-%d %H:%M')}: *before* is the baseline commit "
             f"`{result['baseline'][:10]}`, *after* is `{result['head'][:10]}`{result['head'][40:]}. Each figure comes "
             "from fresh processes of each code, run alternately on the same corpus (the dev Markdown tree) and "
             "the dev questions (no LLM); the ratio is after / before. The 2 cores are shared with other jobs "
             f"(1-min load average {result['load_start']:.1f} at start), so absolute times are upper bounds "
             "and only the same-run ratios compare.", ""]
    for s in result["scales"]:
        ib, ia, ij = s["ingest_before"], s["ingest_after"], s["ingest_after_j2"]
        rows = [
            _row("ingest, MB/s of Markdown (1 job)", ib["mb_per_s"], ia["mb_per_s"]),
            _row("ingest, MB/s with --jobs 2 (after only)", ib["mb_per_s"], ij["mb_per_s"]),
            _row("ingest peak RSS, MB (1 job)", ib["peak_rss_mb"], ia["peak_rss_mb"]),
            _row("store size after ingest, MB", s["store_mb"]["before"], s["store_mb"]["after"]),
        ]
        for n, what in ((1, "first process on the store"), (2, "a fresh process (parses stored)")):
            b, a = s[f"ask{n}_before"], s[f"ask{n}_after"]
            rows += [
                _row(f"{what}: open + first answer, s", b["first_answer_s"], a["first_answer_s"]),
                _row(f"{what}: pass 1 p50, ms", b["pass1"]["wall_p50"], a["pass1"]["wall_p50"]),
                _row(f"{what}: pass 1 p95, ms", b["pass1"]["wall_p95"], a["pass1"]["wall_p95"]),
                _row(f"{what}: warm (pass 2) p50, ms", b["pass2"]["wall_p50"], a["pass2"]["wall_p50"]),
                _row(f"{what}: warm (pass 2) p95, ms", b["pass2"]["wall_p95"], a["pass2"]["wall_p95"]),
                _row(f"{what}: stage 2 (syntax) p50 pass 1, ms", b["pass1"]["syntax_p50"], a["pass1"]["syntax_p50"]),
            ]
            rows += [_row(f"{what}: warm (pass 2) {STAGE_NAMES[k]} p50, ms", b["pass2"].get(f"{k}_p50", "–"),
                          a["pass2"].get(f"{k}_p50", "–")) for k in STAGES if k in STAGE_NAMES]
            rows += [_row(f"{what}: peak RSS answering, MB", b["peak_rss_mb"], a["peak_rss_mb"])]
        cb, ca = s["cli_before"], s["cli_after"]
        rows += [_row("one CLI answer (`loopagent ask --json`), median s", cb["median_s"], ca["median_s"]),
                 _row("one CLI answer, peak RSS MB", cb["peak_rss_mb"], ca["peak_rss_mb"])]
        sys.path.insert(0, str(ROOT))
        from pipeline.evaluate.runner import table
        lines += [f"### {s['scale']}× ({ib['mb']} MB of Markdown, {ib['blocks']} blocks)", "",
                  table(["figure", "before", "after", "ratio"], rows), "",
                  f"Answers: status and value identical on {s['answers_compared'] - len(s['answers_differ'])}"
                  f"/{s['answers_compared']} dev questions"
                  + (f" (differ: {', '.join(s['answers_differ'])})" if s["answers_differ"] else "") + ". "
                  f"Second process of the new code: parser loaded {s['ask2_after']['parser_loaded']}, spaCy imported "
                  f"{s['ask2_after']['spacy_imported']}. CLI runs (s): before {cb['runs_s']}, after {ca['runs_s']}. "
                  f"Load average at end {s['load_end']:.1f}.", ""]
    return "\n".join(lines)


def write_section(report: Path, text: str) -> None:
    """Replace (or add, before the sealed-set record) this script's section of the report."""
    old = report.read_text(encoding="utf-8") if report.exists() else "# LoopAgent benchmarks\n"
    i = old.find(HEADING)
    if i >= 0:
        j = old.find("\n## ", i + len(HEADING))
        new = old[:i] + text + ("\n" + old[j + 1:] if j >= 0 else "")
    else:
        j = old.find("\n## Sealed sets")
        new = (old[:j + 1] + text + "\n" + old[j + 1:]) if j >= 0 else old.rstrip() + "\n\n" + text
    report.write_text(new, encoding="utf-8")


def main(argv: Optional[list[str]] = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--baseline", default="main", help="git ref of the code to compare against (default %(default)s)")
    p.add_argument("--docs", default=str(SHARED / "dev" / "docs"))
    p.add_argument("--questions", default=str(SHARED / "dev" / "questions.jsonl"))
    p.add_argument("--scales", default="1", help="corpus multiples, e.g. 1,5 (default %(default)s)")
    p.add_argument("--cli-runs", type=int, default=5)
    p.add_argument("--workdir", default=os.path.join(tempfile.gettempdir(), "loopagent-bench-speed"))
    p.add_argument("--report", default=str(ROOT / "docs" / "benchmarks.md"))
    p.add_argument("--keep", action="store_true", help="keep the stores in --workdir")
    p.add_argument("--tree", help=argparse.SUPPRESS)
    p.add_argument("--ingest", help=argparse.SUPPRESS)
    p.add_argument("--corpus", help=argparse.SUPPRESS)
    p.add_argument("--jobs", type=int, default=1, help=argparse.SUPPRESS)
    p.add_argument("--ask", help=argparse.SUPPRESS)
    p.add_argument("--passes", type=int, default=2, help=argparse.SUPPRESS)
    args = p.parse_args(argv)
    if args.tree:  # a worker: this tree's pipeline first on the path
        sys.path.insert(0, args.tree)
        out = work_ingest(args.ingest, args.corpus, args.jobs) if args.ingest else \
            work_ask(args.ask, args.questions, args.passes)
        print(json.dumps(out, ensure_ascii=False))
        return 0
    for name in ("docs", "questions"):
        if not Path(getattr(args, name)).exists():
            print(f"--{name} {getattr(args, name)} not found (needs ../shared)", file=sys.stderr)
            return 2
    t0 = time.perf_counter()
    result = run(args)
    result["seconds"] = round(time.perf_counter() - t0, 1)
    Path(args.workdir, "bench_speed.json").write_text(json.dumps(result, ensure_ascii=False, indent=1), "utf-8")
    cmdline = "scripts/bench_speed.py " + " ".join(argv if argv is not None else sys.argv[1:])
    text = section(result, cmdline.strip())
    write_section(Path(args.report), text)
    print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
