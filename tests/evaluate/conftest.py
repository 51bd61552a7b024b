"""Fixtures for the evaluation tests: the tiny statute corpus in tests/data/evaluate and ../shared paths."""
from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT / "tests" / "data" / "evaluate"
SHARED_EVAL = ROOT.parent / "shared" / "eval"
needs_bm25 = pytest.mark.skipif(importlib.util.find_spec("bm25s") is None,
                                reason="bm25s not installed (optional extra 'eval')")
needs_shared = pytest.mark.skipif(not (SHARED_EVAL / "score.py").exists(), reason="../shared/eval is absent")


def write_jsonl(path: Path, rows: list[dict]) -> Path:
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")
    return path


@pytest.fixture(scope="session")
def tiny_kb(tmp_path_factory):
    """A store with the two statute excerpts, built once per session."""
    from pipeline.kb import KnowledgeBase

    db = tmp_path_factory.mktemp("evaluate") / "tiny.sqlite"
    kb = KnowledgeBase(db, audit_log=None)
    rep = kb.ingest([DATA / "docs"])
    assert rep.failed == 0, rep.lines
    yield kb
    kb.close()
