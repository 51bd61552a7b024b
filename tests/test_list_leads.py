"""A sentence that leads a list (…但因下列原因造成的除外：, 下列情况不属于免费保修范围：) says nothing by itself: an exception
question is answered with the items that follow it (numbered in another style than the lead: 8.1 …： then （1）…), and
no yes/no reading or quoted answer is made of the lead alone."""
from pipeline.extract import _marker_style
from pipeline.orchestrator import AskSettings

CONTRACT = ("# 某某货物运输合同\n\n## 第八条 货损货差赔偿\n\n"
            "8.1 乙方对自装车时起至收货人签收时止发生的货物丢失、短少、损坏承担赔偿责任，但因下列原因造成的除外：\n"
            "（1）不可抗力；\n（2）货物本身的自然性质或合理损耗；\n（3）甲方包装缺陷或申报不实；\n（4）收货人的过错。\n"
            "8.2 赔偿标准：\n（1）货物全部丢失的，按出厂价格赔偿；\n（2）部分损坏的，按修复费用赔偿。\n")

MANUAL = ("# 某某电饭煲使用说明书\n\n## 保修说明\n\n1. 本产品整机保修一年，自购买之日起计算。\n\n"
          "2. 下列情况不属于免费保修范围：\n\n（1）未按说明书使用造成损坏的；\n\n（2）擅自拆修的；\n\n"
          "3. 保修期内凭发票享受免费维修服务。\n")


def test_marker_styles():
    assert [_marker_style(x) for x in ("8.1 乙方", "（1）不可抗力", "一、总则", "（三）其他", "1. 申请", "普通文本")] == \
        ["9.9", "（9）", "一、", "（一）", "9.", ""]


def test_an_exception_lead_is_answered_with_its_items(kb_of):
    kb = kb_of({"某某货物运输合同.md": CONTRACT}, settings=AskSettings(gate_weights=""))
    a = kb.ask("承运人对运输期间的货物丢失损坏要赔，但哪些原因造成的除外？", trace=True)
    found = [a.to_dict()] + a.to_dict()["stages"].get("extract", {}).get("rejected", [])
    but = next(f for f in found if f["method"] == "strategy:exception.but")
    assert but["answer"] == ("8.1 乙方对自装车时起至收货人签收时止发生的货物丢失、短少、损坏承担赔偿责任，但因下列原因造成的除外："
                             "（1）不可抗力；（2）货物本身的自然性质或合理损耗；（3）甲方包装缺陷或申报不实；（4）收货人的过错。")


def test_a_lead_alone_gives_no_yes_no_answer(kb_of):
    kb = kb_of({"某某电饭煲使用说明书.md": MANUAL}, settings=AskSettings(gate_weights=""))
    a = kb.ask("我开饭馆用这个电饭煲，坏了能免费保修吗？", trace=True).to_dict()
    said = [a] + a["stages"].get("extract", {}).get("rejected", [])
    assert not any(f.get("answer", "").endswith("下列情况不属于免费保修范围：") for f in said if f.get("status") != "not_found"), said
    assert a["status"] == "not_found", a["answer"]
