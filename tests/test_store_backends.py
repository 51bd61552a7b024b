"""The store interface on both backends (SQLite file, PostgreSQL URL): the same behaviour and the same
recall; concurrent ingest, crash consistency, schema checks and migration."""
import multiprocessing
import os
import signal
import threading
import sqlite3
import time

import pytest

from pipeline import KnowledgeBase
from pipeline.cli import main
from pipeline.errors import LoopAgentError
from pipeline.ingest import parse_file
from pipeline.store import SCHEMA_VERSION, open_store
from tests.conftest import ANNUAL_LEAVE, EXAMPLES, LABOUR_CONTRACT

QUESTIONS = ["劳动合同期限一年以上不满三年的，试用期最长多久？", "职工累计工作已满10年不满20年的，每年年休假几天？",
             "用人单位违反规定不办理住房公积金缴存登记，逾期不办理的，罚款多少？", "公司食堂几点开饭？",
             "女职工生育享受多少天产假？"]
MATCHES = ['"年休假" OR "职工" OR "工作"', '"试用期"', '"劳动合同" OR "解除" OR "经济补偿"', '"住房公积金" OR "罚款"',
           '"不存在的词"']


@pytest.fixture(params=["sqlite", "postgres"])
def db(request, tmp_path):
    """A --db value of each backend, for an empty store."""
    if request.param == "sqlite":
        return str(tmp_path / "kb.sqlite")
    return request.getfixturevalue("pg_url")


def _kb(db):
    return KnowledgeBase(db, audit_log=None)


def test_skip_replace_keep_versions_remove(db, docs_copy):
    kb = _kb(db)
    first = kb.ingest([docs_copy])
    assert (first.added, first.updated, first.skipped, first.failed) == (6, 0, 0, 0)
    assert (kb.ingest([docs_copy]).skipped, kb.store.stats()["documents"]) == (6, 6)
    leave = docs_copy / ANNUAL_LEAVE.name
    old_hash = kb.store.document_hash(leave.name)
    old_block = next(b.block_id for d in kb.documents() if d["source"] == leave.name
                     for b in kb.store.doc_blocks(d["doc_id"]) if "年休假15天" in b.text)
    leave.write_text(leave.read_text(encoding="utf-8").replace("年休假15天", "年休假16天"), encoding="utf-8")
    assert kb.ingest([docs_copy]).updated == 1
    doc_id = next(d["doc_id"] for d in kb.documents() if d["source"] == leave.name)
    assert "已满20年的，年休假16天。" in kb.store.clause_blocks(doc_id, "第三条")[0].text
    assert kb.store.block(old_block) is None
    blk, ver = kb.store.block_version(old_block)
    assert "年休假15天" in blk.text and ver["content_hash"] == old_hash and ver["superseded_at"] > 0
    assert [v["superseded_by"] for v in kb.store.versions(leave.name)] == [kb.store.document_hash(leave.name), None]
    assert kb.remove([leave.name]) == 1
    assert kb.store.versions(leave.name) == [] and kb.store.block_version(old_block) is None
    assert kb.store.doc_blocks(doc_id) == [] and len(kb.documents()) == 5
    hits = kb.store.search('"年休假"', limit=200)
    assert len(hits) == len(kb.store.blocks_by_rid([r for r, _ in hits]))  # no index entry points at a deleted block


def test_interrupted_write_keeps_previous_version(db):
    store = open_store(db)
    doc = parse_file(ANNUAL_LEAVE).document
    store.put_document(doc)
    before = store.stats()["blocks"]
    assert store.doc_freq(["年休假", "劳动合同"]) == {"年休假": 20, "劳动合同": 0}
    changed = parse_file(LABOUR_CONTRACT).document
    changed.source, changed.doc_id = doc.source, doc.doc_id
    with pytest.raises(RuntimeError):
        store.put_document(changed, _fail_after=5)
    assert store.stats()["blocks"] == before and store.document_hash(doc.source) == doc.content_hash
    assert store.versions() == [v for v in store.versions() if v["superseded_at"] is None]
    assert store.doc_freq(["年休假", "劳动合同"]) == {"年休假": 20, "劳动合同": 0}
    hits = store.search('"年休假"')
    assert hits and all(b.doc_id == doc.doc_id for b in store.blocks_by_rid([r for r, _ in hits]).values())


def test_schema_version_and_foreign_store(db):
    open_store(db)
    if db.startswith("postgresql://"):
        import psycopg
        with psycopg.connect(db, autocommit=True) as c:
            c.execute("UPDATE meta SET value='99' WHERE key='schema_version'")
    else:
        c = sqlite3.connect(db)
        c.execute("UPDATE meta SET value='99' WHERE key='schema_version'")
        c.commit()
    with pytest.raises(LoopAgentError) as e:
        open_store(db)
    assert e.value.code == "E101" and e.value.fields["found"] == 99 and e.value.fields["expected"] == SCHEMA_VERSION


def test_missing_store_is_e105_and_foreign_tables_e102(db, tmp_path):
    if db.startswith("postgresql://"):
        with pytest.raises(LoopAgentError) as e:
            open_store(db, create=False)
        assert e.value.code == "E105"
        import psycopg
        with psycopg.connect(db, autocommit=True) as c:
            c.execute("CREATE TABLE other (x int)")
    else:
        with pytest.raises(LoopAgentError) as e:
            open_store(db, create=False)
        assert e.value.code == "E105"
        sqlite3.connect(db).execute("CREATE TABLE other (x int)")
    with pytest.raises(LoopAgentError) as e:
        open_store(db)
    assert e.value.code == "E102"


def test_postgres_recall_equals_fts5_bm25(pg_url, example_kb):
    pg = _kb(pg_url)
    pg.ingest([EXAMPLES])
    sq = example_kb.store
    for m in MATCHES:
        for doc_ids in (None, [d["doc_id"] for d in sq.documents()][:2]):
            a, b = sq.search(m, limit=30, doc_ids=doc_ids), pg.store.search(m, limit=30, doc_ids=doc_ids)
            ids_a = [sq.blocks_by_rid([r])[r].block_id for r, _ in a]
            ids_b = [pg.store.blocks_by_rid([r])[r].block_id for r, _ in b]
            assert ids_a == ids_b, m
            assert [round(s, 6) for _, s in a] == [round(s, 6) for _, s in b]
    terms = ["年休假", "职工", "劳动合同", "试用期", "罚款", "不存在的词", "2012"]
    assert pg.store.doc_freq(terms) == sq.doc_freq(terms)
    assert pg.store.stats()["blocks"] == sq.stats()["blocks"]
    assert pg.store.fingerprint() == sq.fingerprint()
    for q in QUESTIONS:
        x, y = example_kb.ask(q).to_dict(), pg.ask(q).to_dict()
        assert (x["status"], x["value"], x["evidence"]) == (y["status"], y["value"], y["evidence"]), q


def _ingest_proc(db, paths, out):
    try:
        rep = KnowledgeBase(db, audit_log=None).ingest(paths, force=True)
        out.put((rep.added + rep.updated, rep.failed, rep.lines))
    except Exception as exc:  # reported to the parent, which fails the test
        out.put(("error", repr(exc), []))


def test_two_ingest_processes_on_overlapping_folders(db, tmp_path):
    a, b = tmp_path / "a", tmp_path / "b"
    a.mkdir()
    b.mkdir()
    files = sorted(EXAMPLES.iterdir())
    for f in files[:4]:
        (a / f.name).write_bytes(f.read_bytes())
    for f in files[2:]:
        (b / f.name).write_bytes(f.read_bytes())
    open_store(db)  # the schema exists before the race on the documents
    ctx = multiprocessing.get_context("spawn")
    q = ctx.Queue()
    procs = [ctx.Process(target=_ingest_proc, args=(db, [str(p)], q)) for p in (a, b)]
    for p in procs:
        p.start()
    results = [q.get(timeout=300) for _ in procs]
    for p in procs:
        p.join()
    assert [r[:2] for r in results] == [(4, 0)] * 2, results
    store = open_store(db)
    docs = store.documents()
    # every file is stored; a file whose name the other process's copy already holds is qualified with its
    # folder (W017: two different files never share a source), so which names are qualified depends on timing
    names = {f.name for f in files}
    sources = [d["source"] for d in docs]
    assert {s.rsplit("/", 1)[-1] for s in sources} == names
    assert all(s in names or (s.split("/", 1)[0] in ("a", "b") and s.split("/", 1)[1] in names) for s in sources)
    assert len(sources) == len(set(sources)) and len(files) <= len(sources) <= len(files) + 2
    assert store.stats()["blocks"] == sum(d["n_blocks"] for d in docs)
    kb = _kb(db)
    assert kb.ask(QUESTIONS[0]).value == {"kind": "duration", "number": 2, "unit": "月"}
    if db.startswith("postgresql://"):  # the BM25 statistics equal a recount from the blocks
        import psycopg
        with psycopg.connect(db) as c:
            n, ntok = c.execute("SELECT count(*), sum(ntok) FROM blocks").fetchone()
            assert c.execute("SELECT nblocks, ntok FROM corpus").fetchone() == (n, ntok)
            bad = c.execute("SELECT count(*) FROM vocab v FULL JOIN (SELECT u.lexeme AS term, count(*) AS n "
                            "FROM blocks b, unnest(b.tsv) u GROUP BY u.lexeme) r USING (term) "
                            "WHERE v.ndocs IS DISTINCT FROM r.n").fetchone()[0]
            assert bad == 0


def _stuck_ingest(db, ready):
    """Replace the annual-leave statute by other content, and hang half-way through the transaction."""
    import pipeline.pgstore as pgstore
    import pipeline.store as sqlstore
    store = open_store(db)
    changed = parse_file(LABOUR_CONTRACT).document
    doc = parse_file(ANNUAL_LEAVE).document
    changed.source, changed.doc_id = doc.source, doc.doc_id
    calls = {"n": 0}

    def hang(text):
        calls["n"] += 1
        if calls["n"] == 20:
            open(ready, "w").close()
            time.sleep(600)
        return real(text)

    if db.startswith("postgresql://"):
        real = pgstore.split_sentences
        pgstore.split_sentences = hang
    else:
        real = sqlstore.index_tokens
        sqlstore.index_tokens = hang
        orig_put = store.put_document

        def put(doc, **kw):  # SQLite tokenises before BEGIN: hang inside the transaction instead
            orig_del = store._delete_doc

            def slow_delete(c, source):
                r = orig_del(c, source)
                open(ready, "w").close()
                time.sleep(600)
                return r
            store._delete_doc = slow_delete
            return orig_put(doc, **kw)
        sqlstore.index_tokens = real
        store.put_document = put
    store.put_document(changed)


def test_a_backend_killed_mid_ingest_leaves_the_previous_version(db, tmp_path):
    store = open_store(db)
    doc = parse_file(ANNUAL_LEAVE).document
    store.put_document(doc)
    before = (store.stats()["blocks"], store.document_hash(doc.source), store.doc_freq(["年休假", "劳动合同"]))
    ready = tmp_path / "ready"
    p = multiprocessing.get_context("spawn").Process(target=_stuck_ingest, args=(db, str(ready)), daemon=True)
    p.start()
    try:
        deadline = time.time() + 120
        while not ready.exists() and time.time() < deadline:
            time.sleep(0.05)
        assert ready.exists()
        if db.startswith("postgresql://"):
            import psycopg
            with psycopg.connect(db, autocommit=True) as c:  # the server-side backend of that transaction dies
                killed = c.execute(
                    "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE pid <> pg_backend_pid() "
                    "AND backend_type = 'client backend' AND xact_start IS NOT NULL "
                    "AND state IN ('active', 'idle in transaction')").fetchall()
            assert killed and all(k[0] for k in killed)
    finally:
        os.kill(p.pid, signal.SIGKILL)
        p.join()
    store = open_store(db)
    after = (store.stats()["blocks"], store.document_hash(doc.source), store.doc_freq(["年休假", "劳动合同"]))
    assert after == before
    assert store.versions() == [v for v in store.versions() if v["superseded_at"] is None]


def test_migrate_copies_documents_versions_and_feedback(tmp_path, pg_url, docs_copy, capsys):
    src = tmp_path / "kb.sqlite"
    kb = _kb(str(src))
    kb.ingest([docs_copy])
    leave = docs_copy / ANNUAL_LEAVE.name
    leave.write_text(leave.read_text(encoding="utf-8").replace("年休假15天", "年休假16天"), encoding="utf-8")
    kb.ingest([docs_copy])
    kb.store.add_feedback("abc", "wrong", "16天", None)
    assert main(["migrate", "--from", str(src), "--to", pg_url]) == 0
    assert "migrated 6 documents (631 blocks), skipped 0 unchanged, 1 superseded versions, 1 feedback rows" \
        in capsys.readouterr().out
    pg = _kb(pg_url)
    assert pg.store.fingerprint() == kb.store.fingerprint()
    assert [(f["trace_id"], f["verdict"]) for f in pg.store.feedback()] == [("abc", "wrong")]
    assert [v["content_hash"] for v in pg.store.versions(leave.name)] == \
        [v["content_hash"] for v in kb.store.versions(leave.name)]
    assert [(r, round(s, 9)) for r, s in pg.store.search('"年休假"')] == \
        [(r, round(s, 9)) for r, s in kb.store.search('"年休假"')]  # row ids kept
    for q in QUESTIONS:
        assert kb.ask(q).to_dict()["value"] == pg.ask(q).to_dict()["value"]
    assert main(["migrate", "--from", str(src), "--to", pg_url]) == 0
    assert "migrated 0 documents (0 blocks), skipped 6 unchanged" in capsys.readouterr().out


def test_unreachable_postgres_is_e110(capsys):
    assert main(["docs", "--db", "postgresql://nobody@127.0.0.1:1/none"]) == 2
    assert capsys.readouterr().err.startswith("E110: Cannot connect to the PostgreSQL store postgresql://nobody@127.0.0.1:1/none")


def test_answers_go_on_while_a_document_is_replaced(db, docs_copy):
    kb = _kb(db)
    kb.ingest([docs_copy])
    statuses, errors, stop = [], [], threading.Event()

    def answer():
        reader = _kb(db)
        while not stop.is_set():
            try:
                statuses.append(reader.ask(QUESTIONS[0]).status)
            except Exception as exc:  # noqa: BLE001 (every failure is counted)
                errors.append(exc)

    t = threading.Thread(target=answer)
    t.start()
    for _ in range(3):
        assert kb.ingest([docs_copy / LABOUR_CONTRACT.name], force=True).updated == 1
    stop.set()
    t.join()
    assert errors == [] and statuses and set(statuses) == {"answered"}


def test_reindex_snapshot_meta_and_source_paths(db, docs_copy):
    kb = _kb(db)
    kb.ingest([docs_copy])
    store = kb.store
    before = (store.search('"年休假" OR "职工"', limit=30), store.doc_freq(["年休假", "职工"]))
    assert store.reindex() == store.stats()["blocks"] == 631
    after = (store.search('"年休假" OR "职工"', limit=30), store.doc_freq(["年休假", "职工"]))
    assert after == before  # the same tokenizer gives the same index
    store.set_meta("k", "1")
    store.set_meta("k", "2")
    assert store.get_meta("k") == "2" and store.get_meta("nothing") is None
    by_path, by_source = store.source_paths()
    assert by_source[ANNUAL_LEAVE.name] == str(docs_copy / ANNUAL_LEAVE.name)
    assert by_path[str(docs_copy / ANNUAL_LEAVE.name)] == ANNUAL_LEAVE.name
    with store.snapshot():  # a removal committed by another thread is not seen inside one snapshot
        first = len(store.documents())
        t = threading.Thread(target=lambda: kb.remove([ANNUAL_LEAVE.name]))
        t.start()
        t.join()
        inside = len(store.documents())
    assert (first, inside, len(store.documents())) == (6, 6, 5)


def test_stored_parses_on_both_backends(db):
    from pipeline.syntax.parser import Parser
    store = open_store(db)
    assert store.get_parses([b"x" * 16]) == {} and store.parse_count() == 0
    texts = ["试用期不得超过六个月。", "国务院劳动行政部门负责全国劳动合同制度实施的监督管理。"]
    made = Parser().parse_many(texts, store)
    assert store.parse_count() == 2 and store.get_meta("parse_version") == Parser().version
    reader = Parser()
    with store.snapshot():
        got = reader.parse_many(texts, store)
    assert got == made and reader.stored_hits == 2 and reader.misses == 0 and reader._nlp is None
    assert store.put_parses("another-model", [(b"k" * 16, b"\x01")]) == 1  # a new model version empties the table
    assert store.parse_count() == 1 and store.get_parses([b"k" * 16]) == {b"k" * 16: b"\x01"}


def test_postgres_v2_store_is_upgraded_to_v3(pg_url):
    import psycopg
    open_store(pg_url)
    with psycopg.connect(pg_url, autocommit=True) as c:
        c.execute("DROP TABLE parses")
        c.execute("UPDATE meta SET value='2' WHERE key='schema_version'")
    store = open_store(pg_url)
    assert store.get_meta("schema_version") == str(SCHEMA_VERSION) == "3" and store.parse_count() == 0


def test_migrate_copies_stored_parses(tmp_path, pg_url, docs_copy, capsys):
    src = tmp_path / "kb.sqlite"
    kb = _kb(str(src))
    kb.ingest([docs_copy])
    kb.ask(QUESTIONS[0])
    kb.store.flush_parses()
    n = kb.store.parse_count()
    assert n > 0
    assert main(["migrate", "--from", str(src), "--to", pg_url]) == 0
    assert f"{n} parses" in capsys.readouterr().out
    pg = _kb(pg_url)
    assert pg.store.parse_count() == n
    pg.orchestrator.syntax.parser = type(kb.orchestrator.syntax.parser)()
    assert pg.ask(QUESTIONS[0]).to_dict()["value"] == kb.ask(QUESTIONS[0]).to_dict()["value"]
    assert pg.orchestrator.syntax.parser.misses == 0 and pg.orchestrator.syntax.parser.stored_hits > 0
