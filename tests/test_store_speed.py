"""Store read paths made for speed give what the plain queries give: cached blocks and documents,
searches limited to documents by row-id ranges."""
import sqlite3

from pipeline.ingest import parse_file
from pipeline.store import Store, _block_row, _BLOCK_COLS
from tests.conftest import ANNUAL_LEAVE, LABOUR_CONTRACT


def _store(tmp_path, **kw):
    store = Store(tmp_path / "kb.sqlite", **kw)
    docs = [parse_file(p).document for p in (ANNUAL_LEAVE, LABOUR_CONTRACT)]
    for d in docs:
        store.put_document(d)
    return store, docs


def _plain_search(store, match, limit, doc_ids):
    marks = ",".join("?" * len(doc_ids))
    sql = (f"SELECT f.rowid, bm25(blocks_fts, 1.0, 0.5, 0.3) AS s FROM blocks_fts f JOIN blocks b ON b.rid = f.rowid "
           f"WHERE blocks_fts MATCH ? AND b.doc_id IN ({marks}) ORDER BY round(s, 9), f.rowid LIMIT ?")
    return [(r[0], -round(r[1], 9)) for r in store.conn().execute(sql, [match, *doc_ids, limit]).fetchall()]


def test_search_in_documents_by_ranges_is_the_join(tmp_path, monkeypatch):
    store, docs = _store(tmp_path)
    match = '"年休假" OR "劳动合同" OR "工作"'
    for ids in ([docs[0].doc_id], [docs[1].doc_id], [d.doc_id for d in docs]):
        for limit in (3, 200):
            assert store.search(match, limit=limit, doc_ids=ids) == _plain_search(store, match, limit, ids)
    assert store.search(match, doc_ids=["no-such-doc"]) == []
    import pipeline.store as st
    monkeypatch.setattr(st, "SEARCH_RANGES_MAX", 0)  # the join path
    ids = [d.doc_id for d in docs]
    assert store.search(match, limit=50, doc_ids=ids) == _plain_search(store, match, 50, ids)


def test_cached_blocks_match_rows_and_follow_writes(tmp_path):
    store, docs = _store(tmp_path, block_cache=5)
    rows = store.conn().execute(f"SELECT {_BLOCK_COLS} FROM blocks ORDER BY rid").fetchall()
    want = {r["rid"]: _block_row(r) for r in rows}
    rids = list(want)[::-1]
    for _ in range(2):  # cold, then (partly) cached
        got = store.blocks_by_rid(rids + rids[:3])
        assert list(got) == sorted(want) and got == want
    assert len(store._blocks) <= 5
    first = docs[0]
    assert store.doc_blocks(first.doc_id, 2, 5) == [b for b in want.values() if b.doc_id == first.doc_id
                                                     and 2 <= b.order < 5]
    assert store.document(first.doc_id)["title"] == first.title
    assert store.remove(first.source)
    assert store.document(first.doc_id) is None
    assert all(b.doc_id != first.doc_id for b in store.blocks_by_rid(rids).values())


def test_cache_sees_another_connections_write(tmp_path):
    store, docs = _store(tmp_path)
    rid = store.conn().execute("SELECT min(rid) FROM blocks").fetchone()[0]
    assert store.blocks_by_rid([rid])[rid].text
    other = sqlite3.connect(tmp_path / "kb.sqlite")
    other.execute("UPDATE blocks SET text='改过' WHERE rid=?", (rid,))
    other.commit()
    assert store.blocks_by_rid([rid])[rid].text == "改过"
    with store.snapshot():  # a read snapshot uses (and fills) the cache of its generation
        assert store.blocks_by_rid([rid])[rid].text == "改过"
