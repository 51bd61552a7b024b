"""Shared fixtures: the bundled example statutes and a store built from them once per session."""
from __future__ import annotations

import shutil
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "examples" / "docs"
SHARED = ROOT.parent / "shared"
LABOUR_CONTRACT = EXAMPLES / "劳动合同法(2012-12-28).md"
ANNUAL_LEAVE = EXAMPLES / "职工带薪年休假条例(2007-12-14).md"
LEAVE_DOCX = EXAMPLES / "企业职工带薪年休假实施办法.docx"


def load_script(name: str):
    """scripts/NAME.py loaded as a module (scripts/ put on sys.path for the scripts' imports of each other)."""
    import importlib.util
    import sys

    if str(ROOT / "scripts") not in sys.path:
        sys.path.insert(0, str(ROOT / "scripts"))
    spec = importlib.util.spec_from_file_location(name, ROOT / "scripts" / f"{name}.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


@pytest.fixture(scope="session")
def example_kb(tmp_path_factory):
    """A KnowledgeBase over examples/docs (ingested once; read-only for tests)."""
    from pipeline import KnowledgeBase

    db = tmp_path_factory.mktemp("kb") / "examples.sqlite"
    kb = KnowledgeBase(db, audit_log=None)
    report = kb.ingest([EXAMPLES])
    assert report.failed == 0, report.lines
    return kb


@pytest.fixture()
def kb_of(tmp_path):
    """Build a KnowledgeBase from ``{relative path: text}`` written under a fresh docs folder; every file must
    become a document of the store."""
    from pipeline import KnowledgeBase

    def build(files: dict[str, str], settings=None):
        d = tmp_path / "docs"
        for rel, text in files.items():
            (d / rel).parent.mkdir(parents=True, exist_ok=True)
            (d / rel).write_text(text, encoding="utf-8")
        kb = KnowledgeBase(tmp_path / "kb.sqlite", settings=settings)
        kb.ingest([d])
        assert len(kb.store.documents()) == len(files)
        return kb
    return build


@pytest.fixture()
def docs_copy(tmp_path):
    """A writable copy of examples/docs for tests that change files."""
    dst = tmp_path / "docs"
    shutil.copytree(EXAMPLES, dst)
    for p in dst.iterdir():
        p.chmod(0o644)
    return dst


def shared_available() -> bool:
    return (SHARED / "eval" / "dev" / "questions.jsonl").exists()


@pytest.fixture(scope="session")
def pg_cluster():
    """A throwaway PostgreSQL cluster for the session (skipped only when no binaries exist)."""
    import os

    from tests.pg import Cluster, find_bin
    in_ci = os.environ.get("CI") == "true"  # .ci/run installs both: there a missing one is a failure
    if find_bin() is None:
        why = ("no PostgreSQL binaries (initdb, pg_ctl) under /usr/lib/postgresql/*/bin or on PATH; "
               "`apt-get install postgresql` (.ci/run does)")
        pytest.fail(why) if in_ci else pytest.skip(why)
    try:
        import psycopg_pool  # noqa: F401
    except ImportError:
        why = "psycopg 3 with its pool is not installed (pip install -e '.[postgres]')"
        pytest.fail(why) if in_ci else pytest.skip(why)
    cluster = Cluster().start()
    yield cluster
    cluster.stop()


@pytest.fixture()
def pg_url(pg_cluster):
    """A URL to an empty schema of the session cluster (one per test)."""
    return pg_cluster.fresh_schema_url()
