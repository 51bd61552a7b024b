"""Store read paths made for speed give what the plain queries give: cached blocks and documents,
searches limited to documents by row-id ranges."""
import sqlite3

import pytest

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


@pytest.mark.parametrize("fast_after", [0, 10 ** 9])  # BM25 from postings, FTS5's bm25()
def test_search_in_documents_by_ranges_is_the_join(tmp_path, monkeypatch, fast_after):
    import pipeline.store as st
    monkeypatch.setattr(st, "FAST_SEARCH_AFTER", fast_after)
    store, docs = _store(tmp_path)
    match = '"年休假" OR "劳动合同" OR "工作"'
    for ids in ([docs[0].doc_id], [docs[1].doc_id], [d.doc_id for d in docs]):
        for limit in (3, 200):
            assert store.search(match, limit=limit, doc_ids=ids) == _plain_search(store, match, limit, ids)
    assert store.search(match, doc_ids=["no-such-doc"]) == []
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


def _sql_search(store, match, limit, weights=(1.0, 0.5, 0.3)):
    sql = (f"SELECT rowid, bm25(blocks_fts, {weights[0]}, {weights[1]}, {weights[2]}) AS s FROM blocks_fts "
           "WHERE blocks_fts MATCH ? ORDER BY round(s, 9), rowid LIMIT ?")
    return [(r[0], -round(r[1], 9)) for r in store.conn().execute(sql, [match, limit]).fetchall()]


def test_bm25_from_postings_is_fts5_bm25(tmp_path, monkeypatch):
    import pipeline.store as st
    monkeypatch.setattr(st, "FAST_SEARCH_AFTER", 0)
    store, docs = _store(tmp_path)
    words = [r[0] for r in store.conn().execute(
        "SELECT term FROM blocks_vocab WHERE term GLOB '[一-龥]*' ORDER BY doc DESC LIMIT 40").fetchall()]
    assert len(words) >= 20
    queries = [" OR ".join(f'"{w}"' for w in words[i:i + k]) for i, k in ((0, 1), (0, 12), (5, 20), (20, 20))]
    queries.append('"年休假" OR "没有这个词"')
    for match in queries:
        for limit in (1, 5, 200):
            for weights in ((1.0, 0.5, 0.3), (1.0, 1.0, 1.0)):
                got = store._fast_search(match, limit, weights)
                assert got is not None and got == _sql_search(store, match, limit, weights), (match, limit)
                assert store.search(match, limit=limit, weights=weights) == got
    # phrases of several tokens, upper case, a token twice: still bm25()'s sums
    for match in ('"年休假 天数" OR "职工"', '"ABC" OR "abc" OR "年休假"', '"年休假" OR "年休假，"', '"第 三 条"'):
        for limit in (3, 200):
            got = store._fast_search(match, limit, (1.0, 0.5, 0.3))
            assert got is not None and got == _sql_search(store, match, limit), match
    # other forms go to FTS5: AND, bare words, an empty phrase
    for match in ('"年休假" "劳动"', "年休假", '"年休假" OR ""', '"年休假" AND "劳动"'):
        assert store._fast_search(match, 10, (1.0, 0.5, 0.3)) is None
    # a write: a new generation, new statistics
    assert store.remove(docs[0].source)
    match = queries[1]
    assert store.search(match, limit=200) == _sql_search(store, match, 200)


def test_bm25_from_postings_in_another_thread(tmp_path, monkeypatch):
    import threading
    import pipeline.store as st
    monkeypatch.setattr(st, "FAST_SEARCH_AFTER", 0)
    store, _ = _store(tmp_path)
    match = '"年休假" OR "劳动合同" OR "工作"'
    want = _sql_search(store, match, 50)
    assert store.search(match, limit=50) == want
    got = []
    t = threading.Thread(target=lambda: got.append((store._fast_search(match, 50, (1.0, 0.5, 0.3)),
                                                    store.search(match, limit=50))))
    t.start()
    t.join()
    assert got == [(want, want)]


def test_lru_bounds():
    from pipeline.store import _LRU, _MISSING
    lru = _LRU(10)
    for k in range(5):
        lru.put(1, k, str(k), cost=3)
    assert len(lru) == 3 and lru.get(1, 4) == "4" and lru.get(1, 0) is _MISSING
    lru.put(1, "big", "x", cost=11)  # larger than the whole cache: not kept
    assert lru.get(1, "big") is _MISSING
    assert lru.get(0, 4) is _MISSING and lru.get(1, 4) == "4"  # an older generation neither reads nor clears
    lru.put(0, "old", "x")
    assert lru.get(1, "old") is _MISSING
    assert lru.get(2, 4) is _MISSING and len(lru) == 0  # a newer generation empties it
    off = _LRU(0)
    off.put(1, "a", 1)
    assert off.get(1, "a") is _MISSING and off.get_many(1, ["a"]) == [_MISSING]
