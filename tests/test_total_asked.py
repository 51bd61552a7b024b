"""A total is asked only in the asking clause: 一共 in the question's situation (公司一共资助了我3万元，…要服务几年) states a
figure, and does not bar the templates from a sentence that states no total (pipeline/extract.py, cue ask.total)."""
from pipeline import KnowledgeBase


def test_a_total_in_the_situation_is_not_asked(tmp_path):
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "培训.md").write_text(
        "# 某公司员工培训与服务期管理办法\n\n第八条 公司出资的培训费用在2万元以上5万元以下的，员工服务期为2年。\n\n"
        "第九条 员工每次参加外部培训不超过5天。\n", encoding="utf-8")
    kb = KnowledgeBase(tmp_path / "kb.sqlite", audit_log=None)
    kb.ingest([tmp_path / "docs"])
    a = kb.ask("公司出资的培训费用一共3万元，员工服务期为多少年？")
    assert a.status == "answered" and a.value == {"kind": "duration", "number": 2, "unit": "年"}
    # asked in the asking clause, a total is still not answered by one occurrence's limit
    b = kb.ask("员工外部培训加起来一共能参加多少天？", trace=True)
    assert not (b.status == "answered" and b.method.startswith("template:"))
