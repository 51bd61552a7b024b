"""Benchmark helpers: percentiles, corpus replication, report and plot; one tiny scale end to end (slow)."""
from __future__ import annotations

import pytest

from pipeline.evaluate.bench import main, percentile, perf_tables, plot, replicate_markdown, worker

from .conftest import DATA, needs_bm25

FAKE = [{"scale": k, "md_files": 2 * k, "md_mb": 0.01 * k, "blocks": 13 * k, "ingest_s": 0.5 * k, "md_mb_per_s": 0.02,
         "store_mb": 0.1 * k, "store_over_md": 10.0, "throughput_qps": 5.0, "peak_rss_mb": 300.0,
         "cold_start_s": 4.0, "cold_peak_rss_mb": 250.0,
         "latency_ms": {"total": {"p50": 10.0 * k, "p95": 20.0 * k, "mean": 12.0}, "wall": {"p50": 11.0, "p95": 21.0,
                                                                                         "mean": 13.0}}}
        for k in (1, 4)]


def test_percentile_nearest_rank():
    vals = list(range(1, 101))
    assert (percentile(vals, 50), percentile(vals, 95), percentile(vals, 100)) == (50, 95, 100)
    assert percentile([7.0], 95) == 7.0 and percentile([], 50) is None


def test_replicate_markdown_under_new_names(tmp_path):
    n, size = replicate_markdown(DATA / "docs", tmp_path, 3)
    files = sorted(p.relative_to(tmp_path).as_posix() for p in tmp_path.rglob("*.md"))
    assert n == 6 and len(files) == 6 and files[0] == "copy_00/劳动合同法节选.md"
    assert size == 3 * sum(p.stat().st_size for p in (DATA / "docs").glob("*.md"))


def test_perf_tables_and_plot(tmp_path):
    text = perf_tables(FAKE + [{"scale": 16, "error": "boom"}])
    assert "| 4× | 0.04 | 40.0 / 80.0 | 11.0 / 21.0 |" in text
    assert "scale 16× failed" in text
    png = tmp_path / "b.png"
    err = plot(FAKE, png)
    if err is None:
        assert png.read_bytes()[:4] == b"\x89PNG"
    else:
        assert "eval" in err  # matplotlib missing: the message says which extra to install


@pytest.mark.slow
def test_worker_on_the_tiny_corpus(tmp_path):
    r = worker(DATA / "docs", DATA / "questions.jsonl", 2, tmp_path, pdf=False, cold_runs=1, threads=2)
    assert r["md_files"] == 4 and r["documents"] == 4 and r["questions"] == 5
    assert r["latency_ms"]["total"]["p50"] > 0 and r["throughput_qps"] > 0 and r["peak_rss_mb"] > 0
    assert r["cold_start_ok"] and r["cold_start_s"] > 0 and 0 < r["cold_peak_rss_mb"]
    assert r["throughput_qps_2_threads"] > 0
    assert not list(tmp_path.glob("*.sqlite"))  # the scale's store is removed afterwards


@pytest.mark.slow
@needs_bm25
def test_main_writes_the_report(tmp_path):
    report = tmp_path / "docs" / "benchmarks.md"
    rc = main(["--docs", str(DATA / "docs"), "--questions", str(DATA / "questions.jsonl"), "--scales", "1",
               "--skip", "public", "--systems", "fts,bm25", "--cold-runs", "1", "--threads", "1",
               "--workdir", str(tmp_path / "w"), "--report", str(report)])
    text = report.read_text("utf-8")
    assert rc == 0 and "## Accuracy on the dev set" in text and "Growth with corpus size" in text
    assert (tmp_path / "w" / "eval.json").exists() and (tmp_path / "w" / "bench.json").exists()
    again = tmp_path / "again" / "benchmarks.md"
    assert main(["--report-only", "--workdir", str(tmp_path / "w"), "--report", str(again)]) == 0
    assert again.read_text("utf-8").split("\n", 3)[3] == text.split("\n", 3)[3]  # same but the date line


def test_main_names_a_missing_input(tmp_path, capsys):
    assert main(["--docs", str(tmp_path / "nope"), "--questions", str(DATA / "questions.jsonl")]) == 2
    assert "--docs" in capsys.readouterr().err
