"""A question asking a total (加起来, 一共) is answered by a bound on a total (总容量不得超过…, 累计不超过…), not only by
a sentence that states a total (rules/extract_cues.yaml says.total)."""
from pipeline import KnowledgeBase


def test_a_bound_on_a_total_answers_a_total_question(tmp_path):
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "录像机手册.md").write_text(
        "# 某型网络硬盘录像机用户手册\n\n## 5.2 循环覆盖与录像加锁\n\n"
        "1. 硬盘写满后，系统默认开启循环覆盖，自动删除最早的录像文件；\n"
        "2. 被加锁的录像文件不会被循环覆盖，但加锁录像总容量不得超过硬盘容量的 20%。\n", encoding="utf-8")
    kb = KnowledgeBase(tmp_path / "kb.sqlite", audit_log=None)
    kb.ingest([tmp_path / "docs"])
    a = kb.ask("加锁的录像加起来最多能占硬盘容量的多大比例？")
    assert a.status == "answered"
    assert a.value == {"kind": "number", "number": 20, "unit": "%"}
