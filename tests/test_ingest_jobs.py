"""ingest(jobs=N): files parsed and tokenised in worker processes give the same store as one job."""
import sqlite3

import pytest

from pipeline import KnowledgeBase
from pipeline.cli import main
from pipeline.errors import LoopAgentError
from tests.conftest import EXAMPLES
from tests.test_fold import TRAD


def _dump(db):
    c = sqlite3.connect(db)
    return {"docs": c.execute("SELECT doc_id, source, title, content_hash, n_blocks, meta FROM documents "
                              "ORDER BY source").fetchall(),
            "blocks": c.execute("SELECT rid, block_id, doc_id, ord, text, section, meta FROM blocks ORDER BY rid").fetchall(),
            "fts": c.execute("SELECT rowid, text, section, title FROM blocks_fts ORDER BY rowid").fetchall()}


def _corpus(tmp_path):
    src = tmp_path / "src"
    (src / "a").mkdir(parents=True)
    (src / "b").mkdir()
    for f in sorted(EXAMPLES.iterdir()):
        (src / "a" / f.name).write_bytes(f.read_bytes())
    (src / "b" / "保密協定.md").write_text(TRAD, encoding="utf-8")  # folded in the worker
    # the same name in another folder: its source is qualified (W017) exactly as with one job
    (src / "b" / "劳动合同法(2012-12-28).md").write_text("# 劳动合同法\n\n第一条 另一份文件。\n", encoding="utf-8")
    (src / "b" / "broken.pdf").write_bytes(b"%PDF-1.4 not really")  # a failure mid-batch
    return src


def test_two_jobs_build_the_same_store_as_one(tmp_path):
    src = _corpus(tmp_path)
    reps = {}
    for jobs in (1, 2):
        kb = KnowledgeBase(tmp_path / f"j{jobs}.sqlite", audit_log=None)
        reps[jobs] = kb.ingest([src / "a", src / "b"], jobs=jobs)
        kb.close()
    one, two = _dump(tmp_path / "j1.sqlite"), _dump(tmp_path / "j2.sqlite")
    assert len(one["docs"]) == 8 and len(one["blocks"]) > 600
    assert one == two
    r1, r2 = reps[1], reps[2]
    assert (r1.added, r1.failed, r1.blocks, r1.bytes) == (r2.added, r2.failed, r2.blocks, r2.bytes) == \
        (8, 1, r1.blocks, r1.bytes)
    assert sorted(r1.lines) == sorted(r2.lines) and any("W017" in x for x in r1.lines)
    assert "MB/s" in r2.summary()
    folded = [d for d in one["docs"] if d[1] == "保密協定.md"][0]
    kb = KnowledgeBase(tmp_path / "j2.sqlite", audit_log=None)
    blocks = [b for b in kb.store.doc_blocks(folded[0]) if "合作终止后" in b.text]
    assert blocks and blocks[0].meta["raw"].startswith("第二條")


def test_second_run_with_jobs_skips_unchanged_files(tmp_path):
    src = _corpus(tmp_path)
    kb = KnowledgeBase(tmp_path / "kb.sqlite", audit_log=None)
    kb.ingest([src], jobs=2)
    rep = kb.ingest([src], jobs=2)
    assert (rep.added, rep.updated, rep.skipped, rep.failed) == (0, 0, 8, 1)


def test_jobs_must_be_a_positive_integer(tmp_path):
    kb = KnowledgeBase(tmp_path / "kb.sqlite", audit_log=None)
    for bad in (0, -1, 1.5, True):
        with pytest.raises(LoopAgentError) as e:
            kb.ingest([EXAMPLES], jobs=bad)
        assert e.value.code == "E303"


def test_cli_jobs_flag_and_no_bar_in_a_pipe(tmp_path, capsys):
    assert main(["ingest", str(EXAMPLES), "--db", str(tmp_path / "kb.sqlite"), "--jobs", "2"]) == 0
    out = capsys.readouterr()
    assert "docs added 6, updated 0, skipped 0, failed 0" in out.out and "MB/s" in out.out
    assert "ingest:" not in out.err and "it/s" not in out.err and "B/s" not in out.err
    with pytest.raises(SystemExit):
        main(["ingest", str(EXAMPLES), "--db", str(tmp_path / "kb.sqlite"), "--jobs", "0"])


def _same_store():
    from tests.conftest import load_script
    return load_script("same_store")


def test_in_process_one_job_and_two_jobs_write_the_same_store(tmp_path):
    """Parsed in this process (no worker), in one worker a file ahead, or in two: every table the same."""
    from pipeline.ingest import IngestLimits

    src = _corpus(tmp_path)
    runs = {"inline": dict(limits=IngestLimits(isolate=False)), "j1": {}, "j2": {}}
    reps = {}
    for name, kw in runs.items():
        kb = KnowledgeBase(tmp_path / f"{name}.sqlite", audit_log=None, **kw)
        reps[name] = kb.ingest([src / "a", src / "b"], jobs=2 if name == "j2" else 1)
        kb.close()
    same = _same_store()
    assert same.stores_differ(tmp_path / "inline.sqlite", tmp_path / "j1.sqlite") == []
    assert same.stores_differ(tmp_path / "inline.sqlite", tmp_path / "j2.sqlite") == []
    assert [(r.added, r.failed, r.blocks) for r in reps.values()] == [(8, 1, reps["inline"].blocks)] * 3
    assert same.main([str(tmp_path / "inline.sqlite"), str(tmp_path / "j2.sqlite")]) == 0


def test_same_store_reports_a_changed_token(tmp_path):
    src = _corpus(tmp_path)
    for name in ("a", "b"):
        kb = KnowledgeBase(tmp_path / f"{name}.sqlite", audit_log=None)
        kb.ingest([src / "a"])
        kb.close()
    c = sqlite3.connect(tmp_path / "b.sqlite")
    c.execute("UPDATE blocks_fts SET text = text || ' 多余' WHERE rowid = 1")
    c.commit()
    c.close()
    diff = _same_store().stores_differ(tmp_path / "a.sqlite", tmp_path / "b.sqlite")
    assert diff[0].startswith("blocks_fts: ") and any(d.startswith("  only in B: (1, ") for d in diff)
    assert any(d.startswith("blocks_vocab: ") for d in diff)
