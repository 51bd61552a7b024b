"""Optional semantic recall: off by default, fused by reciprocal rank fusion, embeddings cached."""
import numpy as np
import pytest

from pipeline import KnowledgeBase
from pipeline.errors import LoopAgentError
from pipeline.semantic import SemanticRecall, rrf


class CharBigrams:
    """A deterministic stand-in for a sentence-transformers model: hashed character bigrams."""

    def __init__(self):
        self.calls = 0

    def encode(self, texts, batch_size=64):
        self.calls += len(texts)
        out = np.zeros((len(texts), 256), dtype="float32")
        for i, t in enumerate(texts):
            for a, b in zip(t, t[1:]):
                out[i, (ord(a) * 31 + ord(b)) % 256] += 1.0  # stable across processes (no str hash)
        return out


def test_rrf_sums_reciprocal_ranks():
    fused = rrf([["a", "b"], ["b", "c"]], k=60)
    assert fused == {"a": 1 / 61, "b": 1 / 62 + 1 / 61, "c": 1 / 62}


def test_semantic_recall_is_cached_and_fused(tmp_path, docs_copy):
    enc = CharBigrams()
    kb = KnowledgeBase(tmp_path / "kb.sqlite", semantic_model=enc)
    kb.ingest([docs_copy])
    a = kb.ask("女职工生育享受多少天产假？", trace=True)
    assert a.status == "answered" and a.value["number"] == 98
    cands = a.trace["prefilter"]["candidates"]
    assert all("rrf" in c["breakdown"] for c in cands)  # list items carry their lead's fused rank
    assert any("semantic" in c["breakdown"] for c in cands)
    first = enc.calls
    assert first >= len(kb.store.conn().execute("SELECT rid FROM blocks").fetchall())
    again = KnowledgeBase(tmp_path / "kb.sqlite", semantic_model=enc)
    again.ask("女职工生育享受多少天产假？")
    assert enc.calls == first + 1  # only the new question was embedded: the blocks came from the cache


def test_off_by_default_and_missing_model_dir(tmp_path, example_kb):
    assert example_kb.semantic is None  # neither sentence-transformers recall nor pipeline.embed by default
    rec = SemanticRecall(example_kb.store, tmp_path / "no-model")
    with pytest.raises(LoopAgentError) as e:
        rec.search("产假")
    assert e.value.code == "E405"


def test_a_path_string_is_a_model_directory_not_an_encoder(tmp_path, example_kb):
    rec = SemanticRecall(example_kb.store, str(tmp_path / "missing"))
    with pytest.raises(LoopAgentError) as e:
        rec.encoder()
    assert e.value.code == "E405"
