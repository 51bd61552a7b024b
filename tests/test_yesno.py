"""Yes/no answers: the provision must state the asked act, and stage 2's best sentence passes a lower bar."""
from pipeline.orchestrator import AskSettings

DOC = ("# 某科技公司员工手册\n\n## 第十二条 休假\n\n"
       "员工当月累计请假三天及以上的，取消当月全勤奖。\n\n"
       "## 第十三条 宿舍\n\n"
       "公司宿舍内不得使用电炉、电热毯等大功率电器。宿舍由行政部统一管理。\n\n"
       "## 第十四条 培训\n\n"
       "新员工入职后须参加为期三天的安全培训，培训费用由公司承担。\n")


def test_a_consequence_that_does_not_state_the_asked_act_is_no_answer(kb_of):
    # the provision says the bonus is cancelled (取消); the question asks whether it is kept (保留)
    a = kb_of({"手册.md": DOC}).ask("我这个月已经请了四天假了，这个月的全勤奖还能保留吗？")
    assert a.status == "not_found"


def test_a_prohibition_from_the_best_sentence_passes_the_yesno_bar(kb_of, tmp_path):
    # a situational question whose words the provision covers only in part (35%), the asking clause too
    # (so the situational allowance does not apply): it is stage 2's best sentence and states the asked act
    # (电炉) with a deciding modal (不得), so the yes/no bar decides
    from pipeline import KnowledgeBase
    from pipeline.orchestrator import AskSettings
    q = "冬天太冷，值夜班回来能不能偷偷在宿舍内使用电炉？"
    kb_of({"手册.md": DOC})
    # the rules under the bar (the trained gate off): tests/test_gate_model.py has the trained gate
    low = KnowledgeBase(tmp_path / "kb.sqlite", settings=AskSettings(min_coverage_yesno=0.3, gate_weights="")).ask(q)
    assert low.status == "answered"
    assert low.value == {"kind": "boolean", "value": False}
    assert low.evidence[0].text == "公司宿舍内不得使用电炉、电热毯等大功率电器。"
    assert "抽取：是非问题：最佳锚点句，覆盖 35%（需 ≥ 30%）" in low.reasoning
    default = KnowledgeBase(tmp_path / "kb.sqlite", settings=AskSettings(gate_weights="")).ask(q)  # 35% < 45%
    assert default.status == "not_found"


def test_a_code_name_the_question_gives_must_be_in_the_evidence(kb_of):
    doc = ("# 开发规范\n\n## 并发\n\n线程池不允许使用 Executors 去创建，而是通过 ThreadPoolExecutor 的方式。\n\n"
           "## 随机数\n\n在JDK7之后，项目里可以直接使用API ThreadLocalRandom来生成随机数。\n")
    kb = kb_of({"规范.md": doc})
    a = kb.ask("项目里能直接使用API ThreadLocalRandom来生成随机数吗？")
    assert (a.status, a.value) == ("answered", {"kind": "boolean", "value": True})
    # a dotted name the evidence does not hold: like a model number, it must be there
    b = kb.ask("项目里能直接使用API ThreadLocalRandom.current来生成随机数吗？")
    assert b.status == "not_found"
    assert "拒答：strategy:yesno.modal 的证据不含问题点名的「ThreadLocalRandom.current」" in b.reasoning


def test_other_words_for_the_act_when_the_act_is_in_the_modal_clause(kb_of):
    # 合在一起办公 / 合署办公: no long shared run, but the asked act's word sits in the clause of 不得 and
    # another asked word is in the provision
    doc = ("# 某公司内部审计制度\n\n## 第五条\n\n内部审计部门应当保持独立性，不得置于财务部门的领导之下，"
           "或者与财务部门合署办公。\n\n## 第六条\n\n内部审计部门每年向董事会报告一次工作。\n")
    a = kb_of({"审计.md": doc}).ask("为了省事，公司能不能把内审部门挂在财务部下面、跟财务部合在一起办公？")
    assert (a.status, a.value) == ("answered", {"kind": "boolean", "value": False})
    assert a.evidence[0].text == "内部审计部门应当保持独立性，不得置于财务部门的领导之下，或者与财务部门合署办公。"
    assert "抽取：所问的「财务部」见于条文的模态分句，另有「部门」" in a.reasoning


def test_a_plain_negation_decides_like_a_prohibition(kb_of):
    # no modal: 不 before a verb in the deciding clause answers no; the same words as a condition do not
    doc = ("# 某公司福利制度\n\n## 第八条 停薪留职\n\n员工停薪留职期间不计算为本公司的司龄。\n\n"
           "## 第九条 体检\n\n员工年度体检的费用不由个人承担。\n")
    kb = kb_of({"福利.md": doc})
    a = kb.ask("停薪留职期间算不算本公司的司龄？")
    assert (a.status, a.value) == ("answered", {"kind": "boolean", "value": False})
    assert a.evidence[0].text == "员工停薪留职期间不计算为本公司的司龄。"


def test_negated_statement_reads_words_and_skips_conditions():
    from pipeline.extract import negated_statement
    assert negated_statement("农民合同工本人不缴纳失业保险费") is True
    assert negated_statement("即使你拥有这些材料，也不自动纳入本协议") is True  # an adverb between
    assert negated_statement("不缴纳的，由征收机构责令限期缴纳") is False  # 不缴纳的: a condition
    assert negated_statement("不动产登记簿记载的事项，应当更正") is False  # 不动产: one word, no negation
    assert negated_statement("本人缴纳失业保险费") is False


def test_a_one_character_verb_of_the_question_inside_the_provisions_verb(kb_of):
    # 可以养大型犬吗 / 禁止饲养烈性犬、大型犬: the asked act (大型犬) is in the prohibition, and the asked verb 养 is the
    # last character of the provision's 饲养, though the two share no four-character run
    doc = ("# 某市养犬管理条例\n\n## 第八条 禁养\n\n市区居民饲养犬只应当遵守本条例。重点管理区内，禁止饲养烈性犬、大型犬。\n\n"
           "## 第九条 登记\n\n养犬人应当自取得犬只之日起三十日内办理养犬登记。\n")
    # the strategy's reading (rules' gate and stage 2's own order: in a one-document store the trained gate doubts
    # it, and the anchor ranker's scores put a near reading of the first sentence ahead, which only the trained gate
    # may accept)
    a = kb_of({"养犬条例.md": doc}, settings=AskSettings(gate_weights="", anchor_ranker="")).ask("市区居民家里可以养大型犬吗？")
    assert (a.status, a.value, a.method) == ("answered", {"kind": "boolean", "value": False}, "strategy:yesno.modal")
    assert a.evidence[0].text == "重点管理区内，禁止饲养烈性犬、大型犬。"
    assert "抽取：所问的「大型犬」见于条文的模态分句，另有「养」" in a.reasoning


SLOTS = ("# 房屋租赁合同\n\n## 第五条 费用\n\n租赁期间，房屋维修费用由出租人承担，水电费由承租人承担。\n\n"
         "## 第九条 文本\n\n本合同中英文文本具有同等效力，如有不一致，以中文文本为准。\n")


def test_a_frame_filled_otherwise_in_the_provision_answers_no(kb_of):
    kb = kb_of({"合同.md": SLOTS})
    a = kb.ask("本合同的中英文文本如有不一致，是不是以英文文本为准？")
    assert (a.status, a.value, a.method) == ("answered", {"kind": "boolean", "value": False}, "strategy:yesno.slot")
    assert a.evidence[0].text == "本合同中英文文本具有同等效力，如有不一致，以中文文本为准。"
    assert "抽取：同一表述的填充：问题为「英文」，条文为「中文」" in a.reasoning


def test_the_frame_of_the_clause_about_the_asked_thing_decides(kb_of):
    # two 由X承担 frames in one sentence: the one in the clause that speaks of 水电费 answers
    kb = kb_of({"合同.md": SLOTS})
    yes = kb.ask("租赁期间水电费由承租人承担吗？")
    assert (yes.status, yes.value) == ("answered", {"kind": "boolean", "value": True})
    no = kb.ask("租赁期间水电费是不是由出租人承担？")
    assert (no.status, no.value) == ("answered", {"kind": "boolean", "value": False})
    assert "抽取：同一表述的填充：问题为「出租人」，条文为「承租人」" in no.reasoning


PROCUREMENT = ("# 某公司采购管理制度\n\n## 第八条 回避\n\n同一供应商不得在同一工程中既负责设计又负责施工。\n\n"
               "## 第九条 付款\n\n采购款项在验收合格后三十日内支付。\n")


def test_the_asked_act_in_other_words_is_a_near_reading_only_the_gate_decides(kb_of, tmp_path):
    # 包揽…建设 / 负责…施工: the provision's modal clause (不得) answers, but not in the asked act's words; the
    # reading is kept as strategy:yesno.near for the trained gate, and the rules alone never accept it
    from pipeline import KnowledgeBase
    q = "一家供应商已经给某个项目做了设计，还能接着包揽这个项目的建设吗？"
    kb = kb_of({"制度.md": PROCUREMENT})
    a = kb.ask(q, trace=True)
    seen = [a.method] + [x["method"] for x in a.to_dict()["stages"]["extract"].get("rejected", [])]
    assert "strategy:yesno.near" in seen
    if a.status == "answered":
        assert a.value == {"kind": "boolean", "value": False}
        assert "抽取：所问的「建设」未见于条文" in a.reasoning
    rules = KnowledgeBase(tmp_path / "kb.sqlite", settings=AskSettings(gate_weights="")).ask(q)
    assert rules.status == "not_found"
    assert "拒答：strategy:yesno.near 是近似的读法，只由门控模型判定（门控模型或 e5 不在）" in rules.reasoning


SIDELINE = ("# 某公司员工守则\n\n## 第九条 第二职业\n\n职工因家庭需要从事第二职业的，应当书面报备，但是不得使用单位的设备。\n\n"
            "## 第十条 软件维护\n\n乙方有义务免费为甲方修复软件缺陷。\n\n## 第十一条 保修\n\n保修期自验收合格之日起一年。\n")


def test_the_clause_stating_the_asked_act_decides_not_a_condition_with_a_modal_word(kb_of):
    # …需要从事第二职业的 is a condition (its 需要 decides nothing); 不得使用单位的设备 states the asked act
    a = kb_of({"守则.md": SIDELINE}).ask("我经单位同意做了第二职业，能用单位的设备吗？")
    assert (a.status, a.value) == ("answered", {"kind": "boolean", "value": False}), a.reasoning
    assert a.evidence[0].text == "职工因家庭需要从事第二职业的，应当书面报备，但是不得使用单位的设备。"


def test_a_figure_in_the_asked_clause_needs_a_provision_with_a_figure(kb_of):
    # …保修两年，是吗: the provision of a duty without a length (有义务免费…) does not check 两年
    a = kb_of({"守则.md": SIDELINE}).ask("软件验收以后，厂家保修两年，是吗？", trace=True)
    assert a.evidence == [] or a.evidence[0].text != "乙方有义务免费为甲方修复软件缺陷。", a.reasoning
    assert a.value != {"kind": "boolean", "value": True}


def test_a_question_asking_whether_an_act_is_forbidden_is_answered_yes_by_a_prohibition(kb_of):
    # 宿舍里是不是不准用电炉: the provision forbids it (不得使用电炉), so the answer is yes
    a = kb_of({"手册.md": DOC}).ask("公司宿舍里是不是不准使用电炉？", trace=True)
    found = [a.to_dict()] if a.method.startswith("strategy:yesno") else \
        [x for x in a.to_dict()["stages"]["extract"].get("rejected", []) if x["method"].startswith("strategy:yesno")]
    assert found, a.reasoning
    assert found[0]["answer"] == "是。依据：公司宿舍内不得使用电炉、电热毯等大功率电器。"


def test_a_reading_that_says_no_may_have_its_own_gate_bar():
    import pytest
    from pipeline.errors import LoopAgentError
    from pipeline.orchestrator import Orchestrator  # noqa: F401
    assert AskSettings().gate_threshold_no is None  # the gate reads the polarity itself
    assert AskSettings(gate_threshold_no=0.55).gate_threshold_no == 0.55
    with pytest.raises(LoopAgentError) as err:
        AskSettings(gate_threshold_no=1.5)
    assert err.value.code == "E303"


def test_the_no_bar_shares_the_gate_and_falls_back_to_its_bar(kb_of, tmp_path):
    from pipeline import KnowledgeBase
    kb_of({"手册.md": DOC})
    orch = KnowledgeBase(tmp_path / "kb.sqlite", settings=AskSettings(gate_threshold_no=0.55)).orchestrator
    assert orch.gate_model_no.model is orch.gate_model.model
    assert (orch.gate_model_no.threshold, orch.gate_model.threshold) == (0.55, 0.7)
    same = KnowledgeBase(tmp_path / "kb.sqlite").orchestrator
    assert same.gate_model_no is same.gate_model


NET_CAFE = "# 某市网吧管理规定\n\n第八条 除法定节假日外，网吧不得接纳未成年人。\n\n第九条 网吧应当在入口处悬挂标志。\n"


def _yesno_reading(a):
    if a.method.startswith("strategy:yesno"):
        return a.to_dict()
    return next((x for x in a.to_dict()["stages"]["extract"].get("rejected", [])
                 if x["method"].startswith("strategy:yesno")), None)


def test_a_case_the_provision_leaves_out_gets_the_opposite_of_its_modal(kb_of):
    kb = kb_of({"规定.md": NET_CAFE})
    # 除法定节假日外，不得…: on a holiday the prohibition does not hold
    holiday = _yesno_reading(kb.ask("法定节假日的时候，网吧能接纳未成年人吗？", trace=True))
    assert holiday and holiday["answer"].startswith("是。依据：除法定节假日外"), holiday
    # a working day is not the case left out: the prohibition holds
    weekday = _yesno_reading(kb.ask("平常的工作日，网吧能接纳未成年人吗？", trace=True))
    assert weekday and weekday["answer"].startswith("否。"), weekday


def test_asked_whether_an_act_may_be_left_undone(kb_of):
    # 可以先不执行吗 / 就可以不再保密了吗: a provision that says the act goes on or requires it answers no
    kb = kb_of({"某市行政执法监督规定.md": "# 某市行政执法监督规定\n\n第二十条 复查期间，行政执法监督处理决定不停止执行。\n",
                "某某公司保密协议.md": "# 某某公司保密协议\n\n第五条 本协议终止后，双方仍负有保密义务，不得向第三方披露对方的商业秘密。\n"})
    a = kb.ask("对行政执法监督处理决定申请复查后，复查期间这个处理决定可以先不执行吗？")
    assert (a.status, a.value) == ("answered", {"kind": "boolean", "value": False}), a.reasoning
    assert any("问题问的是能否不做" in r for r in a.reasoning), a.reasoning
    b = kb.ask("某某公司保密协议终止以后，双方就可以不再保密了吗？")
    assert (b.status, b.value) == ("answered", {"kind": "boolean", "value": False}), b.reasoning


def test_the_asked_negation_cue():
    from pipeline.extract import CUES
    rx = CUES.rx("yesno.asked_negation")
    assert rx.search("能不能不交房产税？") and rx.search("可以先不执行吗？")
    assert not rx.search("能不能申请复查？") and not rx.search("可不可以转让？")


LOGO = ("# 企业标识使用规定\n\n第六条 公司标识及其图形不得用于：\n\n（一）个人名片、私人信函；\n\n（二）商品包装、广告宣传；\n\n"
        "（三）其他不宜使用公司标识及其图形的场合。\n")


def test_a_colon_lead_without_xialie_reads_its_items_and_the_items_own_words_pick_one(kb_of):
    # the lead says 不得用于： with no 下列; the catch-all item (三) repeats the lead's words (公司标识, 图形) and must not
    # outrank the item that names the asked use (广告)
    kb = kb_of({"制度/企业标识使用规定.md": LOGO})
    a = kb.ask("公司标识的图形能不能印在广告上？")
    assert (a.status, a.method, a.value) == ("answered", "strategy:yesno.item", {"kind": "boolean", "value": False})
    assert [e.text for e in a.evidence] == ["公司标识及其图形不得用于：", "（二）商品包装、广告宣传；"]


def test_a_tag_question_ending_in_ba_asks_yes_or_no(tmp_path):
    from pipeline.analyze import QueryAnalyzer
    from pipeline.rules import RuleSet
    from pipeline.store import Store
    qa = QueryAnalyzer(RuleSet(), Store(tmp_path / "q.sqlite"))
    assert qa.run("申请行政复议是不收费的吧？").qtype == "yesno"
    assert qa.run("收到申请后几天内决定是否受理？").qtype == "duration"  # 决定是否…: an embedded clause


PARK = ("# 城市公园管理条例\n\n第二十条 在公园草坪内露营烧烤的，由公园管理机构责令改正，处五十元以上二百元以下罚款。\n\n"
        "第二十一条 在公园内采摘花卉，情节轻微并及时改正的，不予处罚。\n")


def test_whether_a_sanction_follows_the_askers_act(kb_of):
    kb = kb_of({"公园/城市公园管理条例.md": PARK})
    a = kb.ask("在公园草坪内露营烧烤会被罚款吗？")
    assert (a.status, a.method, a.value) == ("answered", "strategy:yesno.sanction", {"kind": "boolean", "value": True})
    assert a.evidence[0].text == "在公园草坪内露营烧烤的，由公园管理机构责令改正，处五十元以上二百元以下罚款。"
    # a fine does not answer whether one is sentenced, and a waived sanction answers nothing
    assert kb.ask("在公园草坪内露营烧烤会被判刑吗？").method != "strategy:yesno.sanction"
    assert kb.ask("在公园内采摘花卉会被罚款吗？").method != "strategy:yesno.sanction"
    # the asker's case is a mitigated one (第一次, 马上改正): a provision silent on such a case does not decide it
    assert kb.ask("第一次在公园草坪内露营烧烤，马上改正了，会被罚款吗？").method != "strategy:yesno.sanction"


SOIL = ("# 土壤污染防治条例\n\n第十二条 农用地土壤状况调查至少每十年开展一次，蔬菜基地、饮用水水源地等敏感区域，至少每三年开展一次。\n\n"
        "第十三条 调试接口仅A型下载器支持（B型下载器不支持）。\n")


def test_the_limit_of_the_tier_the_question_names(kb_of):
    # two lower bounds in one sentence: the question names the sensitive areas, so their 三年 is compared, not 十年
    kb = kb_of({"条例/土壤污染防治条例.md": SOIL})
    a = kb.ask("蔬菜基地这类敏感区域，土壤状况调查是不是至少三年就要开展一次？")
    assert (a.status, a.method, a.value) == ("answered", "strategy:yesno.limit", {"kind": "boolean", "value": True})


def test_a_restriction_to_the_asked_thing_answers_yes(kb_of):
    kb = kb_of({"条例/土壤污染防治条例.md": SOIL})
    a = kb.ask("调试接口是不是只能用A型下载器，B型的不行？")
    assert (a.status, a.method, a.value) == ("answered", "strategy:yesno.only", {"kind": "boolean", "value": True})
    assert a.evidence[0].text == "调试接口仅A型下载器支持（B型下载器不支持）。"


def test_a_yes_or_no_answers_one_of_two_asks_only(kb_of):
    kb = kb_of({"条例/土壤污染防治条例.md": SOIL})
    a = kb.ask("调试接口是不是只能用A型下载器？为什么？")
    assert a.status == "not_found"
    assert "拒答：问题有两问，strategy:yesno.only 只取出一个值" in a.reasoning


TREATY = ("# 对外签约规定\n\n第六条 下列人员签署协议，无须出具授权书：\n\n（一）公司董事长、总经理；\n\n（二）经董事会指定的项目负责人。\n\n"
          "第七条 其他人员的授权书由公司董事长签署。\n")


def test_an_item_anchor_is_read_with_its_lead_and_wuxu_says_no(kb_of):
    kb = kb_of({"制度/对外签约规定.md": TREATY})
    a = kb.ask("公司总经理亲自去签协议，还要拿出授权书吗？")
    assert (a.status, a.method, a.value) == ("answered", "strategy:yesno.item", {"kind": "boolean", "value": False})
    assert [e.text for e in a.evidence] == ["下列人员签署协议，无须出具授权书：", "（一）公司董事长、总经理；"]


BURNING = ("# 某市市容管理条例\n\n第三十条 违反本条例规定，在城区露天焚烧落叶的，由城市管理部门责令改正，"
           "对个人处500元以上2000元以下的罚款。\n\n第三十一条 以批发业务为主的农贸市场不列入本次改造补贴范围。\n\n"
           "第三十二条 办理临时摊点备案不收取任何费用。\n")


def test_a_figure_asked_against_a_range_is_checked_against_both_bounds(kb_of):
    # 500元以上2000元以下的罚款: 以下的 before a penalty bounds it (it is no condition on whom), and the asked
    # figure must lie within both bounds
    kb = kb_of({"条例.md": BURNING})
    a = kb.ask("在城区露天焚烧落叶，对个人的罚款最高是不是能到1万元？")
    assert (a.status, a.method, a.value) == ("answered", "strategy:yesno.limit", {"kind": "boolean", "value": False})
    assert "抽取：数量比较：问题中的1万元超过条款上限2000元" in a.reasoning
    b = kb.ask("在城区露天焚烧落叶，对个人的罚款是不是可能罚到1000元？")
    assert (b.status, b.method, b.value) == ("answered", "strategy:yesno.limit", {"kind": "boolean", "value": True})
    assert "抽取：数量比较：问题中的1000元在条款范围500元至2000元之内" in b.reasoning


def test_asked_whether_the_asker_cannot_do_the_act(kb_of):
    # 是不是申请不了: a provision that excludes the case answers yes
    a = _yesno_reading(kb_of({"条例.md": BURNING}).ask("以批发业务为主的农贸市场，是不是申请不了本次改造补贴？", trace=True))
    assert a and a["answer"] == "是。依据：以批发业务为主的农贸市场不列入本次改造补贴范围。", a


def test_a_negated_synonym_of_the_asked_word_states_it(kb_of):
    # 免费 / 不收取: the provision's negation is the asked word in its own words, so it says yes
    a = kb_of({"条例.md": BURNING}).ask("办理临时摊点备案是免费的吗？")
    assert (a.status, a.value) == ("answered", {"kind": "boolean", "value": True}), a.reasoning
    assert a.answer == "是。依据：办理临时摊点备案不收取任何费用。"
    assert "抽取：条文的「不收取」即所问的「免费」" in a.reasoning


def test_asked_whether_a_step_may_be_skipped(kb_of):
    # 可以跳过…吗 asks whether the act may be left undone: 无需进行 answers yes
    kb = kb_of({"手册.md": "# 电调使用手册\n\n## 5 校准\n\n使用数字信号接入时无需进行油门行程校准。\n"})
    a = kb.ask("使用数字信号接入时，是不是可以跳过油门行程校准？")
    assert (a.status, a.value) == ("answered", {"kind": "boolean", "value": True}), a.reasoning
    assert "抽取：问题问的是能否不做：条文不要求或禁止去做，即为「是」" in a.reasoning


def test_an_item_after_a_colon_takes_the_modal_of_the_clause_that_leads_it(kb_of):
    # 下列工作不属于…，甲方需要时…另行签订合同：监测、监理…: asked of an item, 不属于 decides (not 需要)
    doc = ("# 某某方案编制技术服务合同\n\n第二条 服务范围\n\n2.2 下列工作不属于本合同服务范围，甲方需要时双方另行签订合同："
           "环境监测、工程监理、竣工验收报告编制。\n")
    a = _yesno_reading(kb_of({"合同.md": doc}).ask("后期的环境监测、竣工验收报告，也包含在这份合同的服务范围里吗？", trace=True))
    assert a and a["answer"].startswith("否。依据：2.2 下列工作不属于本合同服务范围"), a


def test_a_negation_the_provisions_condition_shares_is_the_askers_situation(kb_of):
    # 一直不组织验收…能算验收通过吗 / 逾期未组织验收…的，视为验收合格: the question's negation is the provision's
    # condition, so 视为验收合格 says yes (it does not contradict the question)
    doc = "# 某某系统实施服务合同\n\n第十条 甲方逾期未组织验收又未提出书面异议的，视为验收合格。\n"
    a = _yesno_reading(kb_of({"合同.md": doc}).ask("甲方一直不组织验收、也没提出书面异议，能算验收合格吗？", trace=True))
    assert a and a["answer"] == "是。依据：甲方逾期未组织验收又未提出书面异议的，视为验收合格。", a


# --- 是不是（也）不用X asks an omission; a negated matter the provision negates too is shared, not contrasted ----------

DEVICES = """# 某某公司办公设备借用管理办法

第八条 借用设备丢失或者毁损，由借用人按设备残值赔偿。

第九条 借用人外出办事时设备被盗，能出示公安机关出具的报案证明的，借用人免于赔偿。

第十条 借用部门可在11月30日前申请将当年未使用额度顺延至下一年度。
"""


def test_is_it_that_i_need_not_asks_an_omission(kb_of):
    kb = kb_of({"某某公司办公设备借用管理办法.md": DEVICES}, settings=AskSettings(gate_weights=""))
    a = kb.ask("出差时借用的设备被盗了，我有公安机关的证明，是不是也不用赔了？")
    assert (a.status, a.value) == ("answered", {"kind": "boolean", "value": True}), a.reasoning


def test_a_negated_matter_the_provision_negates_too_is_no_contrast(kb_of):
    kb = kb_of({"某某公司办公设备借用管理办法.md": DEVICES}, settings=AskSettings(gate_weights=""))
    a = kb.ask("借用部门没花完的额度，能不能申请顺延至下一年度？")
    assert (a.status, a.value) == ("answered", {"kind": "boolean", "value": True}), a.reasoning
