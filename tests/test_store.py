"""The SQLite store: incremental ingest, atomic replacement, schema checks, FTS search."""
import shutil
import sqlite3

import pytest

from pipeline import KnowledgeBase
from pipeline.errors import LoopAgentError
from pipeline.ingest import parse_file
from pipeline.store import SCHEMA_VERSION, Store
from tests.conftest import ANNUAL_LEAVE, LABOUR_CONTRACT


def test_incremental_skip_replace_remove(tmp_path, docs_copy):
    kb = KnowledgeBase(tmp_path / "kb.sqlite")
    first = kb.ingest([docs_copy])
    assert (first.added, first.updated, first.skipped, first.failed) == (6, 0, 0, 0)
    again = kb.ingest([docs_copy])
    assert (again.added, again.updated, again.skipped) == (0, 0, 6)

    leave = docs_copy / ANNUAL_LEAVE.name
    leave.write_text(leave.read_text(encoding="utf-8").replace("年休假15天", "年休假16天"), encoding="utf-8")
    changed = kb.ingest([docs_copy])
    assert (changed.added, changed.updated, changed.skipped) == (0, 1, 5)
    texts = [b.text for b in kb.store.clause_blocks(_doc_id(kb, ANNUAL_LEAVE.name), "第三条")]
    assert "已满20年的，年休假16天。" in texts[0]

    leave_id = _doc_id(kb, ANNUAL_LEAVE.name)
    assert kb.remove([ANNUAL_LEAVE.name]) == 1
    assert len(kb.documents()) == 5
    assert kb.store.doc_blocks(leave_id) == []
    hits = kb.store.search('"年休假"', limit=200)
    assert len(hits) == len(kb.store.blocks_by_rid([r for r, _ in hits]))  # no FTS row points at a deleted block


def _doc_id(kb, source):
    return next(d["doc_id"] for d in kb.documents() if d["source"] == source)


def test_interrupted_write_keeps_previous_version(tmp_path):
    store = Store(tmp_path / "kb.sqlite")
    doc = parse_file(ANNUAL_LEAVE).document
    store.put_document(doc)
    before = store.stats()
    changed = parse_file(LABOUR_CONTRACT).document
    changed.source = doc.source  # same source, new content: a replacement
    changed.doc_id = doc.doc_id
    with pytest.raises(RuntimeError):
        store.put_document(changed, _fail_after=5)
    assert store.stats()["blocks"] == before["blocks"]
    assert store.document_hash(doc.source) == doc.content_hash
    hits = store.search('"年休假"')
    assert hits and all(b.doc_id == doc.doc_id for b in store.blocks_by_rid([r for r, _ in hits]).values())


def test_wal_and_schema_version(tmp_path):
    db = tmp_path / "kb.sqlite"
    Store(db)
    c = sqlite3.connect(db)
    assert c.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert c.execute("SELECT value FROM meta WHERE key='schema_version'").fetchone()[0] == str(SCHEMA_VERSION)
    c.execute("UPDATE meta SET value='999' WHERE key='schema_version'")
    c.commit()
    c.close()
    with pytest.raises(LoopAgentError) as e:
        Store(db)
    assert e.value.code == "E101"
    assert "Re-ingest" in str(e.value)


def test_foreign_sqlite_file_is_refused(tmp_path):
    db = tmp_path / "other.sqlite"
    c = sqlite3.connect(db)
    c.execute("CREATE TABLE t (x)")
    c.commit()
    c.close()
    with pytest.raises(LoopAgentError) as e:
        Store(db)
    assert e.value.code == "E102"


def test_fts_indexes_section_paths_and_titles(tmp_path):
    store = Store(tmp_path / "kb.sqlite")
    store.put_document(parse_file(LABOUR_CONTRACT, "劳动合同法.md").document)
    hits = store.search('"第十九条"', limit=10)
    blocks = store.blocks_by_rid([r for r, _ in hits]).values()
    assert {b.clause for b in blocks} == {"第十九条"}
    assert store.doc_freq(["试用期"])["试用期"] >= 5


def test_batch_goes_on_after_bad_files(tmp_path, docs_copy):
    (docs_copy / "empty.md").write_text("", encoding="utf-8")
    (docs_copy / "broken.docx").write_bytes(b"not a zip")
    (docs_copy / "gbk.txt").write_bytes("第一条 本办法适用于全体职工。".encode("gb18030"))
    kb = KnowledgeBase(tmp_path / "kb.sqlite")
    rep = kb.ingest([docs_copy, tmp_path / "missing-dir"])
    assert (rep.added, rep.failed) == (7, 3)
    codes = sorted(line.split(":")[0] for line in rep.lines)
    assert codes == ["E001", "E003", "E013", "W002"]  # broken.docx holds text, not a zip: E013


def test_bulk_keeps_each_document_whole_and_commits_in_batches(tmp_path):
    """Store.bulk (ingest): one document that fails mid-write leaves the batch's others in; a reader sees the
    batch when it commits (after max_blocks blocks), and everything is in the file once bulk returns."""
    db = tmp_path / "kb.sqlite"
    store = Store(db)
    leave, contract = parse_file(ANNUAL_LEAVE).document, parse_file(LABOUR_CONTRACT).document
    reader = sqlite3.connect(db)
    n_leave = len(leave.blocks)
    with store.bulk(max_blocks=n_leave + len(contract.blocks), max_seconds=3600):
        store.put_document(leave)
        assert reader.execute("SELECT count(*) FROM documents").fetchone()[0] == 0  # not committed yet
        assert store.remove(leave.source) and store.put_document(leave) == "added"  # inside the open batch
        with pytest.raises(RuntimeError):
            store.put_document(contract, _fail_after=5)  # this document only is rolled back
        assert store.stats()["blocks"] == n_leave
        assert reader.execute("SELECT count(*) FROM documents").fetchone()[0] == 0
        store.put_document(contract)  # the batch is full: it commits
        assert reader.execute("SELECT count(*) FROM blocks").fetchone()[0] == n_leave + len(contract.blocks)
        store.remove(contract.source)
    assert reader.execute("SELECT source FROM documents").fetchall() == [(leave.source,)]
    assert sqlite3.connect(db).execute("PRAGMA synchronous").fetchone()[0] == 2  # a new connection: FULL
    assert store.conn().execute("PRAGMA synchronous").fetchone()[0] == 2  # this one is FULL again
    assert not store.conn().in_transaction
    hits = store.search('"年休假"')
    assert hits and {b.doc_id for b in store.blocks_by_rid([r for r, _ in hits]).values()} == {leave.doc_id}
    # the batch's search rows are written once before each commit: exactly the blocks', none of the removed ones'
    assert reader.execute("SELECT rowid FROM blocks_fts ORDER BY rowid").fetchall() == \
        reader.execute("SELECT rid FROM blocks ORDER BY rid").fetchall()


def test_a_document_replaced_twice_in_one_batch_keeps_only_its_last_search_rows(tmp_path):
    store = Store(tmp_path / "kb.sqlite")
    leave = parse_file(ANNUAL_LEAVE).document
    changed = parse_file(ANNUAL_LEAVE).document
    changed.blocks = changed.blocks[:3]
    changed.content_hash = "changed"
    with store.bulk(max_blocks=10 ** 6, max_seconds=3600):
        assert store.put_document(leave) == "added"
        assert store.put_document(changed) == "updated"  # the first one's rows were waiting: written, then deleted
    c = store.conn()
    assert c.execute("SELECT count(*) FROM blocks_fts").fetchone()[0] == 3
    assert [r[0] for r in c.execute("SELECT rowid FROM blocks_fts ORDER BY rowid")] == \
        [r[0] for r in c.execute("SELECT rid FROM blocks ORDER BY rid")]
    assert {b.doc_id for b in store.blocks_by_rid([r for r, _ in store.search('"年休假"')]).values()} <= \
        {changed.doc_id}


def test_bulk_commits_the_finished_documents_when_the_batch_fails(tmp_path):
    db = tmp_path / "kb.sqlite"
    store = Store(db)
    leave = parse_file(ANNUAL_LEAVE).document
    with pytest.raises(KeyError):
        with store.bulk():
            store.put_document(leave)
            raise KeyError("a bug in the caller after the first document")
    assert sqlite3.connect(db).execute("SELECT source FROM documents").fetchall() == [(leave.source,)]
