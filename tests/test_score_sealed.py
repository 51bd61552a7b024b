"""scripts/score_sealed.py: the store a sealed set is scored against, for a set that brings its own documents."""
from pathlib import Path

from tests.conftest import load_script
from pipeline import KnowledgeBase

RULE = "# 示例办法\n\n第一条 申请人应当在每年三月三十一日前提交材料。\n"
MANUAL = "# 示例模块手册\n\n## 1 电气特性\n\n工作电压为3.3V，待机电流不超过5mA。\n"


def _titles(db: Path) -> list[str]:
    return sorted(d["title"] for d in KnowledgeBase(db, audit_log=None).documents())


def test_a_set_with_its_own_documents_is_scored_beside_its_scope(tmp_path, monkeypatch):
    mod = load_script("score_sealed")
    train = tmp_path / "train" / "other"
    train.mkdir(parents=True)
    (train / "示例办法.md").write_text(RULE, encoding="utf-8")
    own = tmp_path / "repo" / "tests" / "data" / "sealed" / "x1" / "docs"
    own.mkdir(parents=True)
    (own / "示例模块手册.md").write_text(MANUAL, encoding="utf-8")
    (tmp_path / "repo" / "tests" / "data" / "sealed" / "x0").mkdir()
    monkeypatch.setattr(mod, "ROOT", tmp_path / "repo")
    monkeypatch.setattr(mod, "TRAIN", tmp_path / "train")
    monkeypatch.setattr(mod, "WHOLE", ["other"])
    dbdir = tmp_path / "db"
    dbdir.mkdir()

    assert mod.own_docs("x0") is None
    base = mod.store_for("x0", dbdir)  # the scope alone, in the scope's store
    assert base == dbdir / "other.sqlite"
    assert _titles(base) == ["示例办法"]

    assert mod.own_docs("x1") == own
    db = mod.store_for("x1", dbdir)  # a copy of the scope's store, with the set's documents added
    assert db == dbdir / "other+x1.sqlite"
    assert _titles(db) == ["示例办法", "示例模块手册"]
    assert _titles(base) == ["示例办法"]  # the scope's store is left as it was
    assert mod.store_for("x1", dbdir) == db and _titles(db) == ["示例办法", "示例模块手册"]  # again: nothing added
