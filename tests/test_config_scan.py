"""config.rule_files reads folders with os.scandir and lists what Path.rglob lists."""
import os

from pipeline.config import RULE_SUFFIXES, rule_files, shipped_dir


def _rglob(folder):
    return sorted(p for p in folder.rglob("*") if p.suffix in RULE_SUFFIXES and p.is_file())


def test_rule_files_is_rglob(tmp_path):
    for rel in ("x.yaml", "a/y.yml", "a/b/z.yaml", ".yaml", "a/.h.yaml", "n.txt", "c/q.yaml", "e.YAML"):
        p = tmp_path / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text("")
    (tmp_path / "d.yaml").mkdir()  # a folder with a rule suffix is not a file
    os.symlink(tmp_path / "c", tmp_path / "lnk")  # a linked folder is not entered
    os.symlink(tmp_path / "x.yaml", tmp_path / "ln.yaml")  # a linked file counts
    os.symlink(tmp_path / "missing", tmp_path / "broken.yaml")
    assert rule_files(tmp_path) == _rglob(tmp_path)
    assert rule_files(shipped_dir("rules")) == _rglob(shipped_dir("rules"))
    assert rule_files(tmp_path / "none") == []
