"""Two kinds of language the evidence check must read: a thing named by a modifier and a head noun (机场服务费) that a
provision about another thing of the same head (上门送取车服务费) does not answer, and a yes/no question that negates
something itself (没有发票，还能…吗), which a provision negating the same matter (无需提供发票) answers yes."""
from pipeline.orchestrator import AskSettings

RENTAL = ("# 某某租车服务合同\n\n## 第四条 费用\n\n"
          "4.1 租金按日计收，经济型车辆每日 180 元。\n\n"
          "4.2 上门送取车服务费：门店 10 km 以内 50 元/次，超过 10 km 的每公里加收 3 元。\n\n"
          "4.3 车辆押金为 3000 元，还车后 30 日内退还。\n")

MAINTENANCE = ("# 某某空压机维护手册\n\n## 5 维护周期\n\n"
               "5.1 在多尘、高温（环境温度长期高于 40°C）等恶劣工况下，维护周期应缩短为表中规定的一半。\n")

TRAVEL = ("# 某某公司差旅费管理办法\n\n## 第七条 住宿\n\n"
          "7.1 员工出差住宿费在标准内凭发票据实报销。\n\n"
          "7.3 出差期间入住亲友住所、不产生住宿费的，可按对应城市住宿标准的 30% 领取住宿补贴，无需提供发票。\n")


def rejected(kb, question: str) -> list[dict]:
    """The extractions the gate refused for ``question`` (trace)."""
    return kb.ask(question, trace=True).to_dict()["stages"].get("extract", {}).get("rejected", [])


def test_a_fee_of_another_kind_does_not_answer(kb_of):
    kb = kb_of({"某某租车服务合同.md": RENTAL}, settings=AskSettings(gate_weights=""))
    a = kb.ask("在机场门店取车，要额外付多少机场服务费？")
    assert a.status == "not_found", a.answer
    why = [r.get("why", "") for r in rejected(kb, "在机场门店取车，要额外付多少机场服务费？")]
    assert any("「取车服务费」，问题问的是「机场服务费」" in w for w in why), why
    # the fee the provision names is answered
    b = kb.ask("上门送取车的服务费在10公里以内是多少？")
    assert b.status == "answered", b.reasoning
    assert (b.value["number"], b.value["unit"]) == (50, "元"), b.value  # the condition before 50 元 holds, not 超过 10 km


def readings(kb, question: str) -> list[str]:
    """The yes/no readings of ``question``: the answer's if it is one, then those the gate refused (trace)."""
    a = kb.ask(question, trace=True).to_dict()
    got = [a] if (a.get("method") or "").startswith("strategy:yesno") else []
    got += [r for r in a["stages"].get("extract", {}).get("rejected", []) if r["method"].startswith("strategy:yesno")]
    return [r["answer"] for r in got]


def test_a_negation_the_question_makes_itself_agrees_with_the_provision(kb_of):
    kb = kb_of({"某某公司差旅费管理办法.md": TRAVEL}, settings=AskSettings(gate_weights=""))
    said = "依据：7.3 出差期间入住亲友住所、不产生住宿费的，可按对应城市住宿标准的 30% 领取住宿补贴，无需提供发票。"
    assert readings(kb, "出差时我住在亲戚家里，没有酒店发票，还能拿到住宿补贴吗？")[0] == "是。" + said
    # asked of the invoice itself, the same provision says no
    assert readings(kb, "住在亲友家领住宿补贴，需要提供发票吗？")[0] == "否。" + said


def test_a_negation_the_question_makes_is_contradicted_by_a_requirement(kb_of):
    kb = kb_of({"某某空压机维护手册.md": MAINTENANCE}, settings=AskSettings(gate_weights=""))
    said = "依据：5.1 在多尘、高温（环境温度长期高于 40°C）等恶劣工况下，维护周期应缩短为表中规定的一半。"
    assert readings(kb, "环境温度长期高于40℃时，维护周期照常执行、无需缩短，对吗？")[0] == "否。" + said
    assert readings(kb, "环境温度长期高于40℃时，维护周期要缩短吗？")[0] == "是。" + said


def test_a_verb_not_verb_question_negates_nothing(kb_of):
    doc = "# 某某公司考勤制度\n\n## 第九条 出勤\n\n9.2 员工参加公司组织的消防演练，所用时间视同正常出勤。\n"
    kb = kb_of({"某某公司考勤制度.md": doc}, settings=AskSettings(gate_weights=""))
    said = "依据：9.2 员工参加公司组织的消防演练，所用时间视同正常出勤。"
    assert readings(kb, "参加消防演练那半天，算不算正常出勤？")[0] == "是。" + said
