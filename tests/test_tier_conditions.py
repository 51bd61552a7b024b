"""Conditions that pick out a tier or a party: the tiers of approval and fee tables written with both bounds and
their units (5,000元（含）至10,000元, 30万元以上至200万元（含）), and a figure inside an attributive that says who
(年营业收入 5 亿元以上…的企业), which is no value of what they get."""
from pipeline.extract import condition_match, range_conditions
from pipeline.numbers import find_quantities


def test_tiers_with_both_bounds_and_units():
    assert range_conditions("50,000元(含)至300,000元") == [("yuan", 50000.0, 300000.0, True, (0, 19))]
    assert range_conditions("30万元以上至200万元（含）")[0][:4] == ("yuan", 300000.0, 2000000.0, True)
    assert range_conditions("3天以上至7天(含)")[0][:4] == ("days", 3.0, 7.0, True)
    assert condition_match(find_quantities("买一台20万元左右的设备"), "50,000元(含)至300,000元") == 1.0
    assert condition_match(find_quantities("买一台40万元左右的设备"), "50,000元(含)至300,000元") == -1.0
    # 亿元 is a unit of conditions too
    assert range_conditions("年营业收入 5 亿元以上")[0][:3] == ("yuan", 500000000.0, float("inf"))


def test_a_figure_that_picks_out_who_is_no_answer(kb_of):
    doc = ("# 某市安全生产标准化评审办法\n\n## 第六条 申请\n\n"
           "首次申请的企业，一般从三级起评，但年营业收入 5 亿元以上或从业人员 1000 人以上的企业可直接申请二级。\n")
    kb = kb_of({"评审办法.md": doc})
    a = kb.ask("通过二级评审的企业能拿到多少元奖励？", trace=True).to_dict()
    offered = ([a] if a["status"] == "answered" else []) + a["stages"].get("extract", {}).get("rejected", [])
    assert not any("5 亿元" in (f.get("answer") or "") and f["method"].startswith("template:money") for f in offered), offered
    assert a["status"] == "not_found", a["answer"]


APPROVAL = ("# 某某公司采购管理制度\n\n## 第十条 审批权限\n\n采购申请按单个项目采购金额实行分级审批，审批权限如下：\n\n"
            "| 采购金额（含税） | 审批层级 |\n|---|---|\n"
            "| 5万元以下 | 需求部门负责人、采购中心负责人 |\n"
            "| 5万元（含）至30万元 | 上述人员及分管副总经理 |\n"
            "| 30万元（含）至200万元 | 上述人员及财务总监、总经理 |\n")


def test_a_figure_said_without_its_unit_picks_the_tier_row(kb_of):
    assert condition_match(find_quantities("预算80万"), "30万元（含）至200万元") == 1.0  # read in 元, the text's one dimension
    assert condition_match(find_quantities("预算10万"), "30万元（含）至200万元") == -1.0
    kb = kb_of({"采购管理制度.md": APPROVAL})
    a = kb.ask("我这个采购项目预算80万，审批最高要走到谁那里签字？", trace=True).to_dict()
    offered = ([a] if a["status"] == "answered" else []) + a["stages"].get("extract", {}).get("rejected", [])
    table = [f["answer"] for f in offered if f["method"] == "strategy:table.cell"]
    assert table and table[0] == "采购金额（含税）30万元（含）至200万元：上述人员及财务总监、总经理", offered


def test_two_bare_figures_that_fall_in_two_tiers_pick_no_row(kb_of):
    kb = kb_of({"采购管理制度.md": APPROVAL})
    a = kb.ask("两个项目分别预算8万和80万，各要谁审批？", trace=True).to_dict()  # no failure on the second figure
    offered = ([a] if a["status"] == "answered" else []) + a["stages"].get("extract", {}).get("rejected", [])
    assert not [f for f in offered if f["method"] == "strategy:table.cell"], offered  # two rows hold them: none is picked


ORDERING = ("# 某某电机驱动芯片数据手册\n\n## 10 订购信息\n\n"
            "| 订购型号 | 配置方式 | 封装 | 包装形式 |\n|---|---|---|---|\n"
            "| XR8316S-QN40 | SPI | QFN-40 6mm×6mm | 卷带 |\n"
            "| XR8316S-TQ48 | SPI | TQFP-48 7mm×7mm | 托盘 |\n"
            "| XR8316H-TQ48 | 硬件引脚 | TQFP-48 7mm×7mm | 托盘 |\n")


def test_a_part_number_is_taken_from_the_column_the_question_does_not_name(kb_of):
    kb = kb_of({"数据手册.md": ORDERING})
    a = kb.ask("想买用SPI做配置、封装是TQFP、按托盘出货的那个版本，下单时该写哪个料号？", trace=True).to_dict()
    offered = ([a] if a["status"] == "answered" else []) + a["stages"].get("extract", {}).get("rejected", [])
    table = [f["answer"] for f in offered if f["method"] == "strategy:table.cell"]
    assert table and table[0] == "SPI：XR8316S-TQ48", offered  # not the TQFP-48 cell the question names


def test_the_reasoning_says_the_row_was_chosen_by_the_askers_figure(kb_of):
    from pipeline.orchestrator import AskSettings
    kb = kb_of({"采购管理制度.md": APPROVAL}, settings=AskSettings(gate_weights="", min_coverage=0.3))
    a = kb.ask("我这个采购项目预算80万，审批最高要走到谁那里签字？")
    assert (a.status, a.method) == ("answered", "strategy:table.cell"), a.reasoning
    assert "抽取：按问题中的数量（80万）所在区间选行" in a.reasoning, a.reasoning


LEAD = ("# 某市餐饮业油烟污染防治条例\n\n第十二条 餐饮服务经营者应当保证油烟净化设施正常使用，不得擅自拆除、闲置，并按照下列规定进行清洗维护：\n\n"
        "（一）大型餐饮服务经营者每15日至少清洗一次；\n\n（二）中型餐饮服务经营者每1个月至少清洗一次；\n\n"
        "（三）小型餐饮服务经营者每3个月至少清洗一次。\n")


def test_a_lead_without_a_value_is_answered_by_the_item_the_question_names(kb_of):
    # the anchor is the lead (…按照下列规定进行清洗维护：): the value is in the item the asked case falls under
    from pipeline.types import Anchor, Candidate, Sentence
    kb = kb_of({"条例.md": LEAD})
    orch = kb.orchestrator
    block = next(b for d in orch.store.documents() for b in orch.store.doc_blocks(d["doc_id"])
                 if b.text.endswith("清洗维护："))
    sent = Sentence(text=block.text[block.text.index("餐饮服务经营者应当"):], start=0, end=0)
    anchor = Anchor(candidate=Candidate(block=block, title="某市餐饮业油烟污染防治条例", source="条例.md", score=1.0),
                    sentence=sent, score=1.0)
    query = orch.analyzer.run("中型餐饮服务经营者的油烟净化设施多久至少清洗一次？")
    found = orch.extractor._item_value(query, anchor)
    assert found is not None
    assert found.value == {"kind": "duration", "number": 1, "unit": "月"}, found.value
    assert [e[1].text for e in found.evidence][-1] == "（二）中型餐饮服务经营者每1个月至少清洗一次；"


WARRANTY = ("# 某某破壁料理机使用说明书\n\n## 8 保修说明\n\n本产品整机保修2年，电机保修5年，加热管保修3年，保修期自购买之日起计算。\n")


def test_parts_named_as_people_name_them_pick_their_warranty(kb_of):
    # 马达 is the manual's 电机, 发热管 its 加热管 (dictionaries/synonyms.yaml): the part's own figure answers
    from pipeline.orchestrator import AskSettings
    kb = kb_of({"说明书.md": WARRANTY}, settings=AskSettings(gate_weights=""))
    a = kb.ask("料理机的马达保修期是几年？")
    assert (a.status, a.value) == ("answered", {"kind": "duration", "number": 5, "unit": "年"}), a.reasoning
    b = kb.ask("料理机的发热管保修期是几年？")
    assert (b.status, b.value) == ("answered", {"kind": "duration", "number": 3, "unit": "年"}), b.reasoning


def test_who_approves_is_the_agent_of_the_tier_that_holds_the_askers_figure(kb_of):
    # 费用15万元: the tier 10万元以上的 decides, not the first agent of the sentence
    from pipeline.orchestrator import AskSettings
    doc = ("# 某公司新媒体合作管理规定\n\n第十六条 与网络达人开展付费合作推广的，按照单次合作费用分级审批，单次费用在2万元以下的，"
           "由开设单位负责人审批，2万元以上10万元以下的，由品牌公关部负责人审批，10万元以上的，由分管品牌工作的集团副总裁审批。\n")
    from pipeline.types import Anchor, Candidate, Sentence
    kb = kb_of({"规定.md": doc}, settings=AskSettings(gate_weights=""))
    orch = kb.orchestrator
    block = next(b for d in orch.store.documents() for b in orch.store.doc_blocks(d["doc_id"]) if "分级审批" in b.text)
    text = block.text[block.text.index("与网络达人"):]
    anchor = Anchor(candidate=Candidate(block=block, title="某公司新媒体合作管理规定", source="规定.md", score=1.0),
                    sentence=Sentence(text=text, start=0, end=len(text)), score=1.0)
    query = orch.analyzer.run("我们想请网络达人付费合作推广，单次合作费用15万元，需要由谁审批？")
    # both who strategies: the responsible agent of a template and the doer of the asked act (审批)
    for who in (orch.extractor._s_who(query, anchor), orch.extractor._s_who_acts(query, anchor)):
        assert who is not None and who.value["text"].endswith("集团副总裁"), who
    # every who strategy tells the tiers apart (the doer of the asked act, 审批, too), with the shipped gate as well
    for settings in (AskSettings(gate_weights=""), AskSettings()):
        a = kb_of({"规定.md": doc}, settings=settings).ask("网络达人付费合作推广，单次费用15万元，需要由谁审批？")
        assert (a.status, a.value) == ("answered", {"kind": "text", "text": "分管品牌工作的集团副总裁"}), a.reasoning


def test_a_bare_figure_is_no_length_of_time():
    # 30万的奖金 against 改造完成后一年内…评定的: money said without 元 is not compared with a year
    q = find_quantities("改造后被评上五星级，是不是还另外有一笔30万的奖金？")
    assert condition_match(q, "改造完成后一年内通过市级五星级农贸市场评定的，") == 0
    assert condition_match(find_quantities("预算80万够吗"), "预算30万元（含）至200万元的，") == 1


def test_which_time_it_is_in_the_askers_words_reaches_the_tier(kb_of):
    # 头一回 / 首次, 第二回 / 再次 (dictionaries/synonyms.yaml): tiers of sanctions are written by which time it is
    kb = kb_of({"规定.md": "# 某公司软件正版化管理规定\n\n第二十条 首次发现的，给予通报批评。\n"})
    q = kb.orchestrator.analyzer.run("员工头一回被查出私自装软件，会怎么处理？")
    assert "首次" in q.expansions["头一回"]
    assert "再次" in kb.orchestrator.analyzer.run("第二回被查出会怎么处理？").expansions["第二回"]
