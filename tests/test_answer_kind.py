"""The answer-kind grammar (rules/value_kinds.yaml): interrogative + value noun or unit → kind and focus."""
import pytest

from pipeline.answer_kind import AnswerKindGrammar
from pipeline.analyze import QueryAnalyzer
from pipeline.rules import RuleSet
from pipeline.store import Store


@pytest.fixture(scope="module")
def grammar():
    return AnswerKindGrammar(RuleSet())


@pytest.mark.parametrize("question, kind, focus, how", [
    ("按什么费率缴纳？", "percent", "费率", "after"),
    ("电压应设为多少伏？", "measure", "伏", "unit"),
    ("串口默认波特率是多少？", "measure", "波特率", "before"),
    ("复位的指令是什么？", "code", "指令", "before"),
    ("弄坏了怎么赔？", "money", "赔", "after"),
    ("试用期最长多久？", "duration", "试用期", "before"),
    ("违约时要付合同总价的多少？", "percent", "总价", "share"),
    ("绿地应当占项目用地面积的多少？", "percent", "面积", "share"),    # a share of an area
    ("残疾人职工应占本单位职工人数的多少？", "percent", "人数", "share"),  # a share of a headcount
    ("赔偿金是月工资的多少倍？", "multiple", "倍", "unit"),
    ("维修费用由哪一方承担？", "agent", "一方", "after"),
    ("年度计划最晚什么时候交？", "time", "什么时候", "ask"),
])
def test_kind_and_focus(grammar, question, kind, focus, how):
    ak = grammar.infer(question)
    assert (ak.kind, ak.focus, ak.how) == (kind, focus, how)


@pytest.mark.parametrize("question", [
    "办理居住证需要什么材料？",            # no value noun: the question-type rules decide
    "出租方工作人员不得以哪些名义收取费用？",  # 工作人员 is no value noun; 费用 is not what 哪些 asks
    "哪些人员可以申请？",
])
def test_no_kind_without_a_linked_value_noun(grammar, question):
    assert grammar.infer(question) is None


def test_units_follow_the_kind(grammar):
    assert grammar.infer("按什么费率缴纳？").units == ("%", "‰", "‱")
    assert grammar.infer("罚款是多少元？").units == ("元",)  # 多少元: that unit only
    assert set(grammar.infer("供电电压是多少？").units) == {"V", "mV", "kV", "伏", "伏特"}


def test_a_new_value_noun_is_one_yaml_line(tmp_path):
    (tmp_path / "kinds.yaml").write_text(
        "kind: value_kind\ninterrogatives: [多少, 什么]\nrules:\n"
        "  - id: vk.deposit_rate\n    value_kind: percent\n    qtype: number\n"
        "    nouns: [保证金比例]\n    units: ['%']\n", encoding="utf-8")
    g = AnswerKindGrammar(RuleSet([tmp_path]))
    ak = g.infer("履约保证金比例是多少？")
    assert (ak.kind, ak.focus, ak.rule_id, ak.units) == ("percent", "保证金比例", "vk.deposit_rate", ("%",))


def test_analyzer_refines_an_open_question(tmp_path):
    store = Store(tmp_path / "kb.sqlite")
    q = QueryAnalyzer(RuleSet(), store).run("这种设备按什么费率收取管理费？")
    assert q.qtype == "number"
    assert q.constraints["value_kind"] == "percent" and q.constraints["focus"] == "费率"
    assert any(r.startswith("答案类型：percent（规则 vk.percent") for r in q.reasons)
    # two asks of different kinds: the grammar does not narrow the answer
    q2 = QueryAnalyzer(RuleSet(), store).run("罚款是工资的多少倍？按什么天数折算？")
    assert "value_kind" not in q2.constraints
    store.close()


def test_a_named_model_number_must_be_the_evidence_documents(tmp_path):
    from pipeline import KnowledgeBase
    d = tmp_path / "docs"
    d.mkdir()
    (d / "KX200模块手册.md").write_text("# KX200模块手册\n\n## 电气参数\n\nKX200模块供电电压为3.3V。\n", encoding="utf-8")
    kb = KnowledgeBase(tmp_path / "kb.sqlite")
    kb.ingest([d])
    a = kb.ask("KX200模块的供电电压是多少？")
    assert a.status == "answered" and a.value == {"kind": "number", "number": 3.3, "unit": "V"}
    b = kb.ask("KX300模块的供电电压是多少？")  # another model: this manual does not answer for it
    assert b.status == "not_found"
    assert any("KX300" in r for r in b.reasoning)


def test_a_refusal_for_another_model_lets_the_next_extraction_answer(tmp_path):
    from pipeline import KnowledgeBase
    d = tmp_path / "docs"
    d.mkdir()
    (d / "KX200模块手册.md").write_text(
        "# KX200模块手册\n\n## 工作模式\n\n模块的工作模式下，模块供电电压为3.3V，模块供电电流为20mA。\n", encoding="utf-8")
    (d / "KY500模块手册.md").write_text("# KY500模块手册\n\n## 电源\n\n模块工作时供电电压为5V。\n", encoding="utf-8")
    from pipeline.orchestrator import AskSettings
    kb = KnowledgeBase(tmp_path / "kb.sqlite", settings=AskSettings(gate_weights=""))  # the bar decides: this
    kb.ingest([d])  # tests which extraction reaches the gate (the trained gate refuses the lone 5V, p 0.5)
    a = kb.ask("KY500模块工作模式下的模块供电电压是多少？", trace=True).to_dict()
    assert a["status"] == "answered" and a["value"] == {"kind": "number", "number": 5, "unit": "V"}
    # the KX200 manual's sentence ranked first and was refused for naming another model
    rejected = a["stages"]["extract"]["rejected"]
    assert [r["answer"][:8] for r in rejected] == ["模块的工作模式下"] and "「KY500」" in rejected[0]["why"]
    assert a["evidence"][0]["text"] == "模块工作时供电电压为5V。"


def test_a_generic_agent_noun_takes_the_body_that_opens_the_provision(tmp_path):
    from pipeline import KnowledgeBase
    d = tmp_path / "docs"
    d.mkdir()
    (d / "社区矫正办法.md").write_text(
        "# 社区矫正办法\n\n## 第十条\n\n人民检察院在审查社区矫正决定时，应当听取社区矫正对象所在村民委员会的意见。\n\n"
        "## 第十一条\n\n社区矫正对象应当按时向司法所报告，并接受县级司法行政机关的监督。\n", encoding="utf-8")
    kb = KnowledgeBase(tmp_path / "kb.sqlite")
    kb.ingest([d])
    a = kb.ask("审查社区矫正决定的时候，哪个机关应当听取村民委员会的意见？")
    assert a.status == "answered" and a.value == {"kind": "text", "text": "人民检察院"}
    assert a.method == "template:who.named"
    # a named body inside the sentence (not its subject) is not taken for a generic 哪个机关
    b = kb.ask("社区矫正对象按时报告，是哪个机关监督？")
    assert b.status == "not_found" and b.value is None


def test_a_consequence_without_a_modal_holds_when_the_askers_figure_meets_its_condition(tmp_path):
    from pipeline import KnowledgeBase
    d = tmp_path / "docs"
    d.mkdir()
    (d / "会员章程.md").write_text(
        "# 会员章程\n\n## 第六条 会员资格\n\n申请人注册后七日内完成实名认证的，视为正式会员。\n\n"
        "## 第七条 会费\n\n正式会员每年缴纳会费一百元。\n", encoding="utf-8")
    kb = KnowledgeBase(tmp_path / "kb.sqlite")
    kb.ingest([d])
    a = kb.ask("注册后第3天完成了实名认证，是否视为正式会员？")
    assert a.status == "answered" and a.value == {"kind": "boolean", "value": True}
    b = kb.ask("注册后第10天完成了实名认证，是否视为正式会员？")
    assert b.status == "answered" and b.value == {"kind": "boolean", "value": False}
    assert any("条件不满足" in r for r in b.reasoning)
