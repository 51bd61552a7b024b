#!/usr/bin/env python3
"""Dev-set evaluation, LoopAgent against FTS5, BM25 and vector baselines in one run.

usage: scripts/eval.py --docs DIR --questions FILE [--db FILE] [--out FILE.json] [--systems loopagent,fts,bm25,vector]
"""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from pipeline.evaluate import main  # noqa: E402

if __name__ == "__main__":
    sys.exit(main())
