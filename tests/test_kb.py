"""The library API end to end on the bundled statutes: exact values, evidence, refusals, threads."""
from concurrent.futures import ThreadPoolExecutor

import pytest

from pipeline import KnowledgeBase, LoopAgentError
from pipeline.orchestrator import AskSettings


def kb_from(tmp_path, name, text):
    """A KnowledgeBase over one small document written for the test."""
    d = tmp_path / "docs"
    d.mkdir()
    (d / name).write_text(text, encoding="utf-8")
    kb = KnowledgeBase(tmp_path / "kb.sqlite")
    kb.ingest([d])
    return kb


CASES = [
    ("劳动合同期限一年以上不满三年的，试用期最长多久？", {"kind": "duration", "number": 2, "unit": "月"}, "第十九条"),
    ("女职工生育享受多少天产假？", {"kind": "duration", "number": 98, "unit": "日"}, "第七条"),
    ("单位不办理住房公积金缴存登记，逾期不办理的，罚款多少？", {"kind": "range", "min": 10000, "max": 50000, "unit": "元"}, "第三十七条"),
]


@pytest.mark.parametrize("question,value,clause", CASES)
def test_answers_with_value_and_evidence(example_kb, question, value, clause):
    a = example_kb.ask(question)
    assert a.status == "answered", a.reasoning
    assert a.value == value
    assert a.evidence[0].section[-1] == clause
    block = example_kb.block(a.evidence[0].block_id)
    assert block.text[a.evidence[0].start:a.evidence[0].end] == a.evidence[0].text
    assert a.method.startswith("template:")
    assert any(r.startswith("命中条款") for r in a.reasoning)


def test_an_answer_the_trained_gate_once_doubted(example_kb):
    """The stop-41 gate refused the count of levels (0.76, under its 0.79) though every question word is in the
    provision, and the loop's retries within 《工伤保险条例》 were refused the same way; the stop-42 gate, on rows asked
    with the stop-42 anchor ranker, accepts it on the first pass (0.84), as the rules' gate (the coverage bar) does;
    so does the stop-54 gate (0.81)."""
    question = "工伤职工的生活护理费按几个等级支付？"
    value = {"kind": "count", "number": 3, "unit": "个"}
    rules = KnowledgeBase(example_kb.store.path, audit_log=None, settings=AskSettings(gate_weights=""))
    a = rules.ask(question)
    assert (a.status, a.value, a.evidence[0].section[-1]) == ("answered", value, "第三十四条")
    b = example_kb.ask(question)
    assert (b.status, b.value, b.evidence[0].section[-1]) == ("answered", value, "第三十四条")
    assert any(r.startswith("抽取：门控模型采纳（概率0.81") for r in b.reasoning)  # 几个等级 counts kinds: no value kind
    assert not any(r.startswith("循环：") for r in b.reasoning)  # no retry was needed


def test_the_tier_that_answers_is_accepted_with_stage_2_s_order_learnt(example_kb):
    """Stage 2 used to rank the leave-exception item about the same years of service (…满10年不满20年的职工，请病假累计
    3个月以上的) above the tier that answers, and the gate refused the tier for being 0.3 behind it; the anchor ranker
    put the tier ahead of that item, and the gate accepted it (stop 41). The stop-42 ranker puts it third again, after
    the 1-10 year tier and that item; stage 3 still reads it first (its condition is the asker's figure) and the gate
    accepts it."""
    a = example_kb.ask("按职工带薪年休假条例，职工累计工作已满10年不满20年的，每年年休假几天？", trace=True)
    assert (a.status, a.value, a.evidence[0].section[-1]) == \
        ("answered", {"kind": "duration", "number": 10, "unit": "日"}, "第三条")
    assert a.evidence[0].text == "已满10年不满20年的，年休假10天；"
    texts = [x["text"] for x in a.to_dict()["stages"]["syntax"]["anchors"]]
    assert texts.index("已满10年不满20年的，年休假10天；") == 2
    assert any(r.startswith("抽取：门控模型采纳（概率") for r in a.reasoning)


@pytest.mark.parametrize("question", [
    "2024年上海市的月最低工资标准是多少元？",
    "用工单位使用劳务派遣工的数量，最多不得超过其用工总量的百分之几？",
])
def test_unsupported_questions_are_not_found(example_kb, question):
    a = example_kb.ask(question)
    assert a.status == "not_found"
    assert a.answer == "" and a.evidence == [] and a.value is None
    d = a.to_dict()
    assert d["status"] == "not_found" and d["evidence"] == []


def test_list_answer_keeps_all_items(example_kb):
    a = example_kb.ask("职工有哪些情形时不享受当年的年休假？")
    assert a.status == "answered"
    assert a.value["kind"] == "list" and len(a.value["items"]) == 5
    assert a.value["items"][0].startswith("(一)职工依法享受寒暑假")
    assert a.evidence[0].section[-1] == "第四条"


def test_ask_is_thread_safe(example_kb):
    questions = [c[0] for c in CASES] * 4
    with ThreadPoolExecutor(max_workers=4) as pool:
        answers = list(pool.map(example_kb.ask, questions))
    assert [a.value for a in answers] == [c[1] for c in CASES] * 4


def test_empty_question_is_a_coded_error(example_kb):
    with pytest.raises(LoopAgentError) as e:
        example_kb.ask("  ")
    assert e.value.code == "E301"


def test_audit_log_records_each_decision(tmp_path, example_kb):
    kb = KnowledgeBase(example_kb.store.path, audit_log=tmp_path / "audit.jsonl")
    a = kb.ask(CASES[0][0], id="q1")
    assert kb.audit.flush()  # records are written by a background thread
    import json
    rows = [json.loads(l) for l in (tmp_path / "audit.jsonl").read_text(encoding="utf-8").splitlines()]
    assert rows[-1]["trace_id"] == a.trace_id and rows[-1]["id"] == "q1"
    assert rows[-1]["evidence"][0]["block_id"] == a.evidence[0].block_id


def test_collections_route_and_override(tmp_path, docs_copy):
    hr = tmp_path / "hr"
    hr.mkdir()
    (hr / "员工手册.md").write_text(
        "# 员工手册\n\n## 第三章 考勤\n\n第十条 员工迟到11至20分钟的，每次扣款30元。\n\n"
        "第十一条 员工结婚的，享受婚假3天。\n", encoding="utf-8")
    kb = KnowledgeBase(tmp_path / "kb.sqlite")
    kb.ingest([docs_copy], collection="法规")
    kb.ingest([hr], collection="人事制度")
    a = kb.ask("按员工手册，迟到15分钟扣多少钱？", trace=True)
    assert a.status == "answered" and a.value == {"kind": "money", "number": 30, "unit": "元"}
    assert a.evidence[0].source == "员工手册.md"
    assert "文档集合：人事制度（路由规则 route.hr_handbook）" in a.reasoning
    # the explicit collection wins over routing: the statutes say nothing about lateness
    b = kb.ask("按员工手册，迟到15分钟扣多少钱？", collection="法规")
    assert b.status == "not_found"
    c = kb.ask("女职工生育享受多少天产假？", collection="人事制度")
    assert c.status == "not_found"


def test_follow_up_question_reuses_the_session(example_kb):
    first = example_kb.ask("女职工生育享受多少天产假？", session="s1")
    assert first.value["number"] == 98
    follow = example_kb.ask("难产的呢？", session="s1")
    assert follow.status == "answered"
    assert follow.value == {"kind": "duration", "number": 15, "unit": "日"}
    assert "难产" in follow.evidence[0].text
    alone = example_kb.ask("难产的呢？")
    assert alone.status == "not_found"


def test_trace_lists_stage_details(example_kb):
    d = example_kb.ask(CASES[0][0], trace=True).to_dict()
    cands = d["stages"]["prefilter"]["candidates"]
    assert 1 <= len(cands) <= 30
    assert set(cands[0]) >= {"block_id", "doc_id", "score", "terms", "text"}
    order = [c["breakdown"].get("rrf", c["score"]) for c in cands]  # embeddings on: the fused rank decides
    assert order == sorted(order, reverse=True)
    assert d["stages"]["syntax"]["anchors"][0]["text"] == d["evidence"][0]["text"]
    assert d["stages"]["analyze"]["type"] == "duration"


def test_table_cell_lookup_keeps_the_row(example_kb):
    a = example_kb.ask("年休假天数表里，累计工作已满10年不满20年的年休假天数是多少？")
    assert a.status == "answered", a.reasoning
    assert a.method == "strategy:table.cell"
    assert a.answer == "已满10年不满20年：10天"
    assert a.value == {"kind": "duration", "number": 10, "unit": "日"}
    # a table row's evidence is printed as the document prints it (the row and its neighbours' cells); its offsets
    # locate the store's rendered line of the row
    e = a.evidence[-1]
    assert e.text == "已满1年不满10年 5天 已满10年不满20年 10天 已满20年 15天"
    assert example_kb.block(e.block_id).text[e.start:e.end] == "累计工作年限：已满10年不满20年；年休假天数：10天。"


def test_count_change_and_enumeration(tmp_path):
    kb = kb_from(tmp_path, "差旅通知.md",
        "# 关于调整差旅住宿标准的通知\n\n一、调整内容\n\n自2024年1月1日起，差旅住宿标准由三档调整为四档。\n\n"
        "二、标准\n\n会议费分为三类：一类会议每人每天660元；二类会议每人每天500元；三类会议每人每天450元。\n")
    a = kb.ask("差旅住宿标准调整为几档？")
    assert a.status == "answered", a.reasoning
    assert a.value == {"kind": "count", "number": 4, "unit": "档", "from": 3}
    assert a.method == "template:count.adjusted"
    b = kb.ask("会议费分为几类？")
    assert b.value["number"] == 3 and b.value["kind"] == "count"


def test_tiered_provision_without_the_deciding_condition_gives_every_tier(example_kb):
    from pipeline.orchestrator import AskSettings
    rules = KnowledgeBase(example_kb.store.path, settings=AskSettings(gate_weights=""), audit_log=None)
    a = rules.ask("试用期最长多久？")
    assert a.value == {"kind": "list", "items": ["1个月", "2个月", "6个月"]}  # not 2月 (February)
    assert [e.section[-1] for e in a.evidence] == ["第十九条"] * 3


@pytest.mark.xfail(strict=True, reason="the stop-40 trained gate doubts a tier list over the whole provision (0.74)")
def test_the_trained_gate_takes_every_tier(example_kb):
    # Known refusal of the trained gate (models/gate): every question word is in the provision, but the template's
    # training precision and e5's margin (-0.002) leave the probability at 0.74 against 0.79 (0.60 at stop 39)
    a = example_kb.ask("试用期最长多久？")
    assert a.value == {"kind": "list", "items": ["1个月", "2个月", "6个月"]}, a.reasoning


@pytest.mark.parametrize("question", [
    "住房公积金的缴存比例上限是百分之几？",        # the regulation states only a lower bound
    "劳动合同法规定的最低工资标准是每月多少元？",  # a percentage is no amount in 元
    # 下个月 is nowhere in the documents: the notice provision (提前三十日…通知…或者额外支付一个月工资) covers 66% of
    # the words at e5 0.94; the stop-40 gate accepted it, the stop-41 and stop-42 gates (anchor ranker's
    # probabilities) refused it, the stop-54 gate accepts it again (0.87): a known wrong answer of the shipped gate
    pytest.param("用人单位应当提前多少天支付下个月的工资？", marks=pytest.mark.xfail(
        strict=True, reason="the stop-54 gate accepts a near miss e5 puts at 0.94 (probability 0.87)")),
])
def test_near_miss_questions_are_refused(example_kb, question):
    assert example_kb.ask(question).status == "not_found"


def test_a_near_miss_under_the_bar_is_refused_by_the_rules(example_kb):
    from pipeline.orchestrator import AskSettings
    rules = KnowledgeBase(example_kb.store.path, settings=AskSettings(gate_weights=""), audit_log=None)
    a = rules.ask("用人单位应当提前多少天支付下个月的工资？")
    assert a.status == "not_found"
    assert any(r.startswith("拒答：template:duration.advance 的证据只覆盖问题关键词的 66%（需 ≥ 70%）") for r in a.reasoning)


def test_a_named_chapter_boosts_its_blocks(example_kb):
    a = example_kb.ask("劳动合同法第二章规定，试用期最长多久？", trace=True)
    cands = a.trace["prefilter"]["candidates"]
    assert cands[0]["section"][0] == "第二章 劳动合同的订立"
    assert cands[0]["breakdown"]["named_unit"] is True


@pytest.mark.parametrize("question,value,clause", [
    # the situation is told in the asker's words (干了一年半, 摔伤, 不管不问); the asking clause is covered
    ("老张在单位干了一年半，单位跟他约定的试用期最长可以多久？", {"kind": "duration", "number": 2, "unit": "月"}, "第十九条"),
    ("小李在车间干活时摔伤了，单位不管不问，他自己最晚要在多长时间内提出工伤认定申请？",
     {"kind": "duration", "number": 1, "unit": "年"}, "第十七条"),
])
def test_situational_question_is_answered_when_the_asking_clause_is_covered(example_kb, question, value, clause):
    # the rules under the coverage bar (no trained gate: gate_weights=""); the trees refuse the second (0.55)
    rules = KnowledgeBase(example_kb.store.path, audit_log=None, settings=AskSettings(gate_weights=""))
    a = rules.ask(question)
    assert a.status == "answered", a.reasoning
    assert a.value == value
    assert a.evidence[0].section[-1] == clause
    # the situation's own words weigh little, so the bar is met outright or through the asking clause
    assert any(r.startswith(("抽取：情境式提问", "抽取：证据覆盖率")) for r in a.reasoning)


def test_situational_words_no_document_uses_weigh_little(example_kb):
    # 今年 and 想请 are the asker's situation, not what is asked: 今年 (the asker's own year) is a stop word and
    # 想请 weighs nothing, so the 产假 provision covers the question (the asker's age is no condition of 产假)
    a = example_kb.ask("我今年45岁了，想请产假，女职工生育能休多少天产假？")
    assert a.status == "answered"
    assert a.value == {"kind": "duration", "number": 98, "unit": "日"}
    assert a.reasoning[1] == "关键词：产假(1.5)、女职工(0.9)、生育(1.4)、能休(0.3)"


@pytest.mark.parametrize("question,yes", [
    ("怀孕8个月的女职工能安排夜班劳动吗？", False),   # 对怀孕7个月以上的女职工…不得…安排夜班劳动
    ("怀孕5个月的女职工能安排夜班劳动吗？", True),    # the prohibition's condition is not met
])
def test_a_figure_in_whom_a_provision_is_about_is_a_condition_not_a_limit(example_kb, question, yes):
    # the extraction's reading of the condition (the trained gate doubts the 5-month answer: probability 0.74)
    a = KnowledgeBase(example_kb.store.path, audit_log=None, settings=AskSettings(gate_weights="")).ask(question)
    assert a.value == {"kind": "boolean", "value": yes}
    assert a.method == "strategy:yesno.modal"
    assert "7个月以上" in a.evidence[0].text


def test_long_list_answers_with_the_items_that_name_the_asked_subject(tmp_path):
    kb = kb_from(tmp_path, "差旅费管理办法.md",
        "# 差旅费管理办法\n\n第五条 出差人员乘坐交通工具，按下列规定执行：\n\n"
        "（一）火车：\n\n1.部级人员乘坐高铁商务座、动车组一等座；\n\n2.司局级人员乘坐高铁一等座、动车组一等座；\n\n"
        "3.其余人员乘坐高铁二等座、动车组二等座；\n\n（二）轮船：\n\n4.部级人员乘坐一等舱；\n\n"
        "5.司局级人员乘坐二等舱；\n\n6.其余人员乘坐三等舱。\n")
    a = kb.ask("司局级人员出差乘坐轮船有什么要求？")
    assert a.status == "answered", a.reasoning
    assert a.method == "strategy:list.matching"
    assert a.value == {"kind": "text", "text": "5.司局级人员乘坐二等舱"}
    # the lead and the sub-lead the item sits under stay in the evidence
    assert [e.text for e in a.evidence] == ["出差人员乘坐交通工具，按下列规定执行：", "（二）轮船：", "5.司局级人员乘坐二等舱；"]


def test_question_form_picks_the_deadline_and_value_runs_count_grades(tmp_path):
    kb = kb_from(tmp_path, "许可办理规定.md",
        "# 某市行政许可办理规定\n\n第八条 受理机关应当自受理申请之日起10日内作出决定，情况复杂的，延长期限最长不得超过30日。\n\n"
        "第九条 年度考核优秀的，给予奖励，奖励标准为5000元、3000元、1000元或者500元。\n")
    # 多少天内 asks for the …日内 deadline, 最长 for the 不得超过 one, though one sentence holds both
    within = kb.ask("受理申请后，受理机关一般多少天内要作出决定？")
    assert within.value == {"kind": "duration", "number": 10, "unit": "日"}
    assert within.method == "template:duration.within"
    limit = kb.ask("受理机关作出决定，延长期限最长多少天？")
    assert limit.value == {"kind": "duration", "number": 30, "unit": "日"}
    assert limit.method == "template:duration.limit"
    grades = kb.ask("年度考核优秀的奖励标准分为几档？")
    assert grades.value == {"kind": "count", "number": 4, "items": ["5000元", "3000元", "1000元", "500元"]}
    assert grades.method == "strategy:count.values"


def test_exception_by_cited_articles_quotes_what_they_say(example_kb):
    a = example_kb.ask("用人单位不得与劳动者约定由劳动者承担违约金，有什么例外？")
    assert a.method == "strategy:exception.but"
    assert a.value == {"kind": "list", "items": [
        "第二十二条：劳动者违反服务期约定的，应当按照约定向用人单位支付违约金",
        "第二十三条：劳动者违反竞业限制约定的，应当按照约定向用人单位支付违约金"]}
    assert [e.section[-1] for e in a.evidence] == ["第二十五条", "第二十二条", "第二十三条"]


def test_exception_list_needs_a_lead_that_excludes(example_kb):
    a = example_kb.ask("职工有哪些情形不享受当年的年休假？")
    assert a.method == "strategy:list.items"
    assert len(a.value["items"]) == 5 and a.evidence[0].text.endswith("不享受当年的年休假：")


def test_exception_following_sentence_when_the_question_asks_for_one(tmp_path):
    kb = kb_from(tmp_path, "档案管理办法.md",
        "# 档案管理办法\n\n第十条 档案自形成之日起满二十五年向社会开放；涉及国家安全或者重大利益的档案，上述期限可以多于二十五年。\n")
    a = kb.ask("档案形成满二十五年向社会开放，这个规定有没有例外？")
    assert a.method == "strategy:exception.following", a.reasoning
    assert a.value == {"kind": "text", "text": "涉及国家安全或者重大利益的档案，上述期限可以多于二十五年。"}


def test_two_deadlines_asked_together_come_from_neighbouring_items(tmp_path):
    kb = kb_from(tmp_path, "复查办法.md",
        "# 复查办法\n\n第十条 复查按下列程序进行：\n\n（一）申请人对处理决定不服的，应当在收到决定后十日内提出复查申请；\n\n"
        "（二）复查机关应当在受理后三十日内作出复查结论，并书面通知申请人；\n\n（三）复查结论为最终结论。\n")
    a = kb.ask("申请复查和作出复查结论在时间上有什么要求？")
    assert a.status == "answered", a.reasoning
    assert a.value == {"kind": "list", "items": ["10日", "30日"]}
    assert [e.text[:3] for e in a.evidence] == ["（一）", "（二）"]


ACCIDENTS = ("# 事故处罚规定\n\n第五十条 发生生产安全事故，对负有责任的单位由应急管理部门依照下列规定处以罚款：\n\n"
             "（一）发生一般事故的，处二十万元以上五十万元以下的罚款；\n\n（二）发生较大事故的，处五十万元以上一百万元以下的罚款；\n\n"
             "（三）发生重大事故的，处一百万元以上五百万元以下的罚款。\n\n"
             "第五十一条 发生生产安全事故，情节特别严重的，应急管理部门可以按照前条罚款数额的二倍以上五倍以下对负有责任的单位处以罚款。\n")


@pytest.mark.parametrize("question,lo,hi", [
    ("发生较大事故的，对负有责任的单位罚款多少？", 500000, 1000000),
    ("发生重大事故的，对负有责任的单位罚款多少？", 1000000, 5000000),
])
def test_graded_tier_named_in_the_question_picks_the_penalty(tmp_path, question, lo, hi):
    # stage 3's choice of tier, decided by the rules' gate (the trained gate's verdict is the next test's)
    kb_from(tmp_path, "事故处罚规定.md", ACCIDENTS)
    kb = KnowledgeBase(tmp_path / "kb.sqlite", settings=AskSettings(gate_weights=""))
    a = kb.ask(question)
    assert a.value == {"kind": "range", "min": lo, "max": hi, "unit": "元"}, a.reasoning


@pytest.mark.parametrize("question,lo,hi", [
    # Known refusals of the trained gate (models/gate): e5 puts a neighbouring tier a little closer to the question than
    # the tier it names (margins -0.03 and -0.02 in this four-paragraph store), and the stop-40 gate's probabilities are
    # 0.77 and 0.57 against its 0.79 (the stop-39 gate took the first at 0.78); the rules' gate takes both (above)
    pytest.param("发生较大事故的，对负有责任的单位罚款多少？", 500000, 1000000, marks=pytest.mark.xfail(
        strict=True, reason="the trained gate doubts a tier e5 ranks just behind its neighbour")),
    pytest.param("发生重大事故的，对负有责任的单位罚款多少？", 1000000, 5000000, marks=pytest.mark.xfail(
        strict=True, reason="the trained gate doubts a tier e5 ranks just behind its neighbour")),
])
def test_the_trained_gate_takes_the_named_tier(tmp_path, question, lo, hi):
    kb = kb_from(tmp_path, "事故处罚规定.md", ACCIDENTS)
    a = kb.ask(question)
    assert a.value == {"kind": "range", "min": lo, "max": hi, "unit": "元"}, a.reasoning


def test_product_class_noun_and_bracketed_ranges(tmp_path):
    kb = kb_from(tmp_path, "acme_servo_protocol.md",
        "# acme 伺服关节通信协议\n\n## 2.1 位置模式\n\n位置模式下，控制帧的帧ID为设定的CANID加上0x100。\n\n"
        "## 2.2 阻抗模式\n\n各参数的范围可由写参数指令进行设定，其中Kp的范围为[0,500]，Kd的范围为[0,5]。\n")
    a = kb.ask("acme电机阻抗模式下，Kp和Kd参数的取值范围分别是多少？")
    # 电机 after the product name acme is covered by acme's documents; both ranges of the sentence are asked
    assert a.status == "answered", a.reasoning
    assert a.method == "template:number.interval"
    assert a.value == {"kind": "list", "items": ["0–500", "0–5"]}
    assert kb.orchestrator.analyzer.run("acme电机阻抗模式下，Kp是多少？").constraints["named_class"] == "电机"


def test_section_named_in_the_question_picks_its_list_item(tmp_path):
    kb = kb_from(tmp_path, "acme_servo_protocol.md",
        "# acme 伺服关节通信协议\n\n## 2. 控制帧\n\n### 2.2 位置速度模式\n\n- 帧ID为设定的CANID值加上0x100\n"
        "- P_des：位置给定，浮点型\n- V_des：速度给定，浮点型\n\n### 2.3 速度模式\n\n- 帧ID为设定的CANID值加上0x200\n"
        "- V_des：速度给定，浮点型\n")
    a = kb.ask("用速度模式控制acme电机时，控制帧的帧ID应该怎么设置？", trace=True)
    assert a.status == "answered", a.reasoning
    assert a.method == "strategy:list.matching"
    # a procedure's matched step comes first, the step after it follows
    assert a.value == {"kind": "list", "items": ["帧ID为设定的CANID值加上0x200", "V_des：速度给定，浮点型"]}
    assert all(e.section[-1] == "2.3 速度模式" for e in a.evidence[1:])
    by_section = {c["section"][-1]: c["breakdown"].get("named_section") for c in a.trace["prefilter"]["candidates"]}
    assert by_section["2.3 速度模式"] == "速度模式"
    assert by_section["2.2 位置速度模式"] is None  # 位置速度模式 is not named in the question


def test_multiple_asked_for_wants_a_multiple(example_kb):
    # 几倍 wants 二倍/20倍; the 1次 of 一次性 or the 1日 of 次日 next to it is no answer
    a = example_kb.ask("职工因工死亡，一次性工亡补助金标准为上一年度全国城镇居民人均可支配收入的多少倍？")
    assert a.value == {"kind": "number", "number": 20, "unit": "倍"}


def test_a_dictionary_word_jieba_splits_stays_a_term(example_kb, monkeypatch):
    q = example_kb.orchestrator.analyzer.run("我在单位工作满15年了，每年能休几天年假？")
    assert "年假" in q.weights and "休几天" not in q.weights
    monkeypatch.setattr("pipeline.orchestrator.shared_e5", lambda: None)  # the bar decides (see test_gate_model)
    a = example_kb.ask("我在单位工作满15年了，每年能休几天年假？")
    assert a.value == {"kind": "duration", "number": 10, "unit": "日"}
    assert "已满10年不满20年" in a.evidence[0].text  # the 条例 tier or the 实施办法 table row


def test_value_in_the_sentence_after_the_anchor_and_the_asking_clause_types_the_question(tmp_path):
    kb = kb_from(tmp_path, "复议办法.md",
        "# 复议办法\n\n第二十条 复议机关责令被申请人重新作出行政行为的，被申请人应当在法律、法规规定的期限内重新作出；"
        "法律、法规未规定期限的，重新作出行政行为的期限为60日。\n\n"
        "第二十一条 申请人受过行政处罚的，复议机关可以对其处一千元以下罚款。\n\n"
        "第二十二条 缴费单位逾期仍不缴纳的，自欠缴之日起，按日加收万分之五的滞纳金。\n\n"
        "第二十三条 下列事项不适用本办法：（一）内部人事处理；（二）民事纠纷的调解。\n\n"
        "第二十四条 本办法适用于本市行政复议活动。\n")
    q = "复议机关撤销了对我的处罚决定，让原机关重新作出，法规没规定期限的话，他们要在多少天内重新作出？"
    # 处罚 in the situation does not make it a money question: the asking clause asks 多少天
    assert kb.orchestrator.analyzer.qtype(q)[0] == "duration"
    a = kb.ask(q)
    assert a.value == {"kind": "duration", "number": 60, "unit": "日"}, a.reasoning
    assert any("锚点句后第1句" in r for r in a.reasoning)
    b = kb.ask("缴费单位逾期不缴纳的，滞纳金按日加收多少比例？")
    assert b.value == {"kind": "number", "number": 5, "unit": "‱"}


def test_exception_sentence_must_state_the_exclusion_and_not_repeat_the_question(example_kb):
    from pipeline.extract import _restates_question

    q = "因作为申请人的自然人死亡而中止的行政复议，在什么情况下会终止？"
    assert _restates_question(q, "(一)作为申请人的自然人死亡而中止行政复议的；")
    assert not _restates_question(q, "满60日行政复议中止的原因仍未消除的，行政复议终止。")
    # the 年休假 条例 says 不享受 for its list; no sentence says 不适用 about 年休假. The exception strategy and the
    # rules under the coverage bar refuse it; the trained gate (models/gate) accepts the 不享受 list at about 0.67
    # (coverage 55%, e5 0.93), a reading of the question this test does not settle
    from pipeline.orchestrator import AskSettings
    rules = KnowledgeBase(example_kb.store.path, settings=AskSettings(gate_weights=""), audit_log=None)
    assert rules.ask("哪些职工不适用年休假的规定？").status == "not_found"


def test_yes_no_provision_must_speak_of_the_asked_act(example_kb):
    from pipeline.extract import _tail_predicate

    assert _tail_predicate("结论维持原认定，我对同一事故还能再申请一次复核吗？") == "对同一事故申请一次复核"
    assert _tail_predicate("老板想让工人先搬进去住，这样合规吗？") == ""  # judges the situation, names nothing
    # 试用期 provisions say nothing about 单方延长: no yes/no from a sentence about something else
    a = example_kb.ask("我们签了两年合同，试用期结束后公司还能再单方延长一次试用期吗？")
    assert a.status == "not_found" or "延长" in a.evidence[0].text


def test_who_reads_agents_not_persons_in_charge(tmp_path):
    kb = kb_from(tmp_path, "矿山事故规定.md",
        "# 矿山事故规定\n\n第十条 发生矿山事故后，矿山企业及其负责人应当迅速采取有效措施组织抢救。\n\n"
        "第十一条 发生一般矿山事故，由矿山企业负责调查和处理。\n")
    a = kb.ask("矿山发生一般事故，事故的调查和处理由谁负责？")
    assert a.value == {"kind": "text", "text": "矿山企业"}
    assert a.evidence[0].section[-1] == "第十一条"


def test_a_figure_that_qualifies_the_subject_must_be_met_by_the_evidence(tmp_path):
    kb = kb_from(tmp_path, "驾驶人学习规定.md",
        "# 驾驶人学习规定\n\n第十条 驾驶人一个记分周期内有记分的，审验时应当参加不少于三小时的学习。\n\n"
        "第十一条 驾驶人一个记分周期内累积记分满24分的，应当参加不少于二十小时的学习。\n")
    # 满12分的驾驶人: neither provision speaks of 12分, so neither answers for that driver
    assert kb.ask("累积记分满12分的驾驶人，需要参加多少小时的学习？").status == "not_found"
    a = kb.ask("累积记分满24分的驾驶人，需要参加多少小时的学习？")
    assert a.value == {"kind": "duration", "number": 20, "unit": "小时"}


def test_a_procedure_answer_keeps_the_steps_after_the_first(tmp_path):
    kb = kb_from(tmp_path, "宅基地办法.md",
                 "# 宅基地办法\n\n第三十三条 宅基地的审批程序，依照本办法办理。\n\n"
                 "第三十四条 农村村民申请宅基地的，应当以户为单位向村集体经济组织提出申请。"
                 "申请经村民会议讨论通过并公示后，报乡（镇）人民政府审核批准。\n")
    a = kb.ask("农村村民申请宅基地，应当按照什么程序办理？")
    assert a.status == "answered", a.reasoning
    assert a.method == "strategy:procedure.sentence"
    assert "以户为单位" in a.answer and "报乡（镇）人民政府审核批准" in a.answer
    assert len(a.evidence) == 2


def test_a_two_ask_question_is_not_answered_with_one_templated_value(tmp_path):
    # 多少日内作出裁决？最多能延长多少日？ asks two values; the rules state only the first (延长 without a figure): a
    # templated answer with one value would leave the second ask unanswered (half an answer reads as a whole one)
    kb = kb_from(tmp_path, "仲裁规则.md",
        "# 仲裁规则\n\n第五条 仲裁庭应当自受理仲裁申请之日起六十日内作出裁决；案情复杂需要延长的，经仲裁委员会主任批准，"
        "可以适当延长。\n\n第九条 仲裁庭由三名仲裁员组成，设首席仲裁员一名。\n")
    one = kb.ask("仲裁庭应当自受理仲裁申请之日起多少日内作出裁决？")
    assert (one.status, one.value) == ("answered", {"kind": "duration", "number": 60, "unit": "日"}), one.reasoning
    two = kb.ask("仲裁庭应当自受理仲裁申请之日起多少日内作出裁决？案情复杂需要延长的，最多能延长多少日？")
    assert two.status == "not_found"
    assert any(r.startswith("拒答：问题有两问，template:duration.") and r.endswith("只取出一个值")
               for r in two.reasoning), two.reasoning


def test_steps_numbered_with_a_closing_bracket_answer_a_procedure_whole(kb_of):
    """A manual's steps written 1）… 2) … are list items of their lead (pipeline/ingest/structure.py HALF_AR), so a
    procedure question gets every step with its evidence; as paragraphs, the first step alone was all stage 3 saw."""
    kb = kb_of({"烧录工具使用说明.md": "# 烧录工具使用说明\n\n## 3.2 下载\n\n使用烧录工具下载固件的流程为：\n\n"
                "1）连接调试器；\n\n2) 选择芯片型号；\n\n3）添加固件文件；\n\n4）执行\n\n注：仅新版调试器支持此流程。\n\n"
                "## 3.3 擦除\n\n工具可以通过控制复位引脚对芯片的用户区进行全部擦除。\n"})
    a = kb.ask("下载固件的流程是什么？")
    assert (a.status, a.method) == ("answered", "strategy:list.items")
    assert a.value == {"kind": "list", "items": ["1）连接调试器", "2)选择芯片型号", "3）添加固件文件", "4）执行"]}
    assert a.answer == "1）连接调试器；2)选择芯片型号；3）添加固件文件；4）执行"
    assert [e.text for e in a.evidence] == ["使用烧录工具下载固件的流程为：", "1）连接调试器；", "2)选择芯片型号；",
                                           "3）添加固件文件；", "4）执行"]


def test_what_case_the_act_is_not_done_in_is_an_exception_question(kb_of):
    # 什么情况下不用退: the case the provision exempts (无需退还), not the general rule's figure (按比例退还)
    doc = ("# 某公司员工住房补贴办法\n\n第九条 员工在领取补贴后的当年12月31日前主动离职的，应当按照剩余月份占全年12个月的比例"
           "退还当年补贴。员工因公司裁员、劳动合同期满公司不续签等非本人原因离职的，无需退还。\n")
    kb = kb_of({"办法.md": doc})
    q = "领了住房补贴后年底前离职一般要按比例退钱，什么情况下不用退？"
    assert kb.orchestrator.analyzer.qtype(q)[0] == "exception"
    a = kb.ask(q)
    assert (a.status, a.method) == ("answered", "strategy:exception.sentence"), a.reasoning
    assert "员工因公司裁员、劳动合同期满公司不续签等非本人原因离职的，无需退还" in a.answer
