#!/usr/bin/env python3
"""One command for every measured claim: accuracy vs baselines, public-set localisation, speed, memory, growth.

usage: nice -n 10 scripts/bench.py [--scales 1,4,16] [--sample 500] [--skip eval,public,perf] [--report docs/benchmarks.md]
Writes docs/benchmarks.md and docs/benchmarks.png; raw JSON under --workdir.
"""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from pipeline.evaluate.bench import main  # noqa: E402

if __name__ == "__main__":
    sys.exit(main())
