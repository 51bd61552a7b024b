"""Benchmark PDF ingest: pages/s (median of runs), peak RSS, and what was found, per file.

    python scripts/bench_pdf.py ../shared/eval/dev/docs/pdf/*.pdf
    python scripts/bench_pdf.py --long 1000          # also a generated 1,000-page PDF (needs reportlab)

Each file is parsed in a fresh subprocess so that peak RSS belongs to that file alone.
"""
from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

CHILD = r"""
import json, resource, sys, time
from pathlib import Path
from pipeline.ingest import parse_file
path, runs = Path(sys.argv[1]), int(sys.argv[2])
times = []
for _ in range(runs):
    t = time.perf_counter()
    r = parse_file(path)
    times.append(time.perf_counter() - t)
d = r.document
print(json.dumps({
    "times": times, "pages": d.meta["pages"], "blocks": len(d.blocks), "tables": d.meta["tables"],
    "headings": d.meta["headings"], "maturity": d.meta["maturity"]["score"],
    "headers_footers": len(d.meta["headers_footers"]), "flagged": len(d.meta["flagged_pages"]),
    "peak_rss_mib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
}))
"""


def bench(path: Path, runs: int) -> dict:
    out = subprocess.run([sys.executable, "-c", CHILD, str(path), str(runs)], check=True, capture_output=True,
                         text=True, cwd=ROOT)
    res = json.loads(out.stdout.strip().splitlines()[-1])
    med = statistics.median(res["times"])
    res["seconds"] = round(med, 3)
    res["pages_per_s"] = round(res["pages"] / med, 1)
    res["peak_rss_mib"] = round(res["peak_rss_mib"], 1)
    del res["times"]
    return res


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("pdfs", nargs="*", type=Path)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--long", type=int, help="also benchmark a generated PDF with this many pages")
    args = ap.parse_args()
    files = list(args.pdfs)
    with tempfile.TemporaryDirectory() as tmp:
        if args.long:
            long = Path(tmp) / f"long_{args.long}.pdf"
            subprocess.run([sys.executable, str(ROOT / "scripts" / "make_test_pdfs.py"), "--long", str(args.long),
                            str(long)], check=True)
            files.append(long)
        cols = ["pages", "seconds", "pages_per_s", "peak_rss_mib", "blocks", "tables", "headings",
                "headers_footers", "flagged", "maturity"]
        print("file".ljust(40), *[c.rjust(10) for c in cols])
        for f in files:
            res = bench(f, 1 if f.name.startswith("long_") else args.runs)
            print(f.name[:40].ljust(40), *[str(res[c]).rjust(10) for c in cols], flush=True)


if __name__ == "__main__":
    main()
