"""scripts/unused_docs.py: the documents the repository's question sets name (the exclusion list for a sealed set on
unseen documents)."""
import json

from tests.conftest import load_script


def test_every_set_s_documents_count_as_used(tmp_path):
    sets = {"sealed/s1": [{"id": "a", "doc": "docs/地方性法规/上海/甲条例.md"},
                          {"id": "b", "doc": ["other/合同/租赁合同.docx", "other/制度/考勤制度.md"]}],
            "fresh/f1": [{"id": "c", "doc": ""}, {"id": "d", "doc": "docs/刑法/刑法.md"}]}
    for name, qs in sets.items():
        d = tmp_path / "tests" / "data" / name
        d.mkdir(parents=True)
        (d / "questions.jsonl").write_text("".join(json.dumps(q, ensure_ascii=False) + "\n" for q in qs),
                                           encoding="utf-8")
    mod = load_script("unused_docs")
    assert mod.used_documents(tmp_path) == {"docs/地方性法规/上海/甲条例.md", "other/合同/租赁合同.docx",
                                            "other/制度/考勤制度.md", "docs/刑法/刑法.md"}
    assert mod.group("docs/地方性法规/上海/甲条例.md") == "docs/地方性法规"
