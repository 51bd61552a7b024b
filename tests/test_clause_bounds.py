"""An answer's clause is bounded by commas and semicolons, but not by the comma that groups a figure's thousands
(5,000 元) or the colon of a time (9:00) (extract._clause_at)."""
from pipeline.extract import _clause_at


def _at(sent: str, word: str) -> str:
    i = sent.index(word)
    return _clause_at(sent, (i, i + len(word)))


def test_a_grouped_figure_stays_in_its_clause():
    s = "采购申请须填写申请单，金额 20,000 元以下的由部门经理审批，20,000 元及以上的由总经理审批。"
    assert _at(s, "部门经理") == "金额 20,000 元以下的由部门经理审批"
    assert _at(s, "总经理审批") == "20,000 元及以上的由总经理审批"
    assert _at("每日9:00前提交，逾期不予受理", "提交") == "每日9:00前提交"
    # an ASCII comma or colon between words still bounds a clause
    assert _at("甲方：张三,乙方：李四", "李四") == "李四"
    assert _at("甲方：张三,乙方：李四", "张三") == "张三"


def test_a_who_answer_keeps_its_figure(kb_of):
    kb = kb_of({"采购.md": "# 某公司采购管理办法\n\n## 第八条 审批\n\n"
                         "采购申请须填写申请单，金额 20,000 元以下的由部门经理审批，20,000 元及以上的由总经理审批。\n"})
    a = kb.ask("金额两万元以下的采购由谁审批？")
    assert a.status == "answered"
    assert a.answer.startswith("金额 20,000 元以下的由部门经理审批")
