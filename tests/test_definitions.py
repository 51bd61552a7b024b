"""Definitions in numbered lists with quoted terms (（一）“X”，是指…) define X."""


def test_a_quoted_term_in_a_numbered_item_is_defined(kb_of):
    kb = kb_of({"物业规定.md": "# 某市物业服务规定\n\n## 第五十条\n\n本规定下列用语的含义：\n\n"
                              "（一）“专项维修资金”，是指专项用于住宅共用部位、共用设施设备保修期满后的维修和更新、改造的资金。\n\n"
                              "（二）“业主”，是指房屋的所有权人。\n"})
    a = kb.ask("“专项维修资金”是指什么？")
    assert a.status == "answered"
    assert a.value == {"kind": "text", "text": "专项用于住宅共用部位、共用设施设备保修期满后的维修和更新、改造的资金"}
    assert a.method == "template:definition.is"


def test_an_enumeration_inside_a_sentence_answers_a_list_question(kb_of):
    doc = ("# 某市无障碍环境建设条例\n\n## 第二十条 公共服务\n\n银行、医院、车站等场所的自助公共服务终端设备，"
           "应当具备语音、大字、盲文等无障碍功能。\n\n## 第二十一条 登记\n\n分支机构的登记事项包括：名称、营业场所、负责人、经营范围。\n")
    kb = kb_of({"条例.md": doc})
    a = kb.ask("银行和医院的自助终端设备，必须具备哪些无障碍功能？")
    assert (a.status, a.method) == ("answered", "strategy:list.enumeration")
    assert a.value == {"kind": "list", "items": ["语音", "大字", "盲文"]}  # the setting's 银行、医院 is no answer
    b = kb.ask("分支机构的登记事项包括哪些？")
    assert b.value == {"kind": "list", "items": ["名称", "营业场所", "负责人", "经营范围"]}


def test_a_rule_that_opens_with_the_term_is_not_its_definition(kb_of):
    # 厨余物应当…: a line that opens with the asked term but goes on with a modal states a duty, not a meaning;
    # 厨余物：… (the term as a label) does define it
    rule = "# 某市生活废弃物管理规定\n\n第十条 厨余物应当由专门车辆每日清运。\n"
    a = kb_of({"规定.md": rule}).ask("某市生活废弃物管理规定里说的厨余物具体指什么？")
    assert a.status == "not_found", a.answer
    label = "# 某市生活废弃物管理规定\n\n第三条 厨余物：家庭和单位食堂产生的易腐废弃物。\n"
    b = kb_of({"规定.md": label}).ask("某市生活废弃物管理规定里说的厨余物具体指什么？")
    assert (b.status, b.evidence[0].text) == ("answered", "厨余物：家庭和单位食堂产生的易腐废弃物。"), b.reasoning


def test_two_items_by_dunhao_and_a_third_joined_by_ji(kb_of):
    doc = "# 合同管理办法\n\n第六条 公司负责合同审查的职能部门为财务部门、法务部门及审计部门。\n"
    from pipeline.extract import CUES
    assert CUES.rx("enumeration.run").search("为财务部门、法务部门及审计部门")
    a = kb_of({"制度/合同管理办法.md": doc}).ask("公司由哪几个部门负责审查合同？")
    assert (a.status, a.method) == ("answered", "strategy:list.enumeration")
    assert a.value == {"kind": "list", "items": ["财务部门", "法务部门", "审计部门"]}


def test_a_total_the_provision_states_answers_a_question_asking_in_all(kb_of):
    doc = "# 抚恤办法\n\n第九条 因公死亡的，一次性抚恤金和丧葬补助的总额为本人月工资的四十倍。\n"
    a = kb_of({"抚恤办法.md": doc}).ask("因公死亡的，抚恤金加丧葬补助一共是月工资的几倍？")
    assert a.status == "answered"
    assert a.value == {"kind": "number", "number": 40, "unit": "倍"}


def test_a_definition_of_a_shorter_term_the_asked_one_contains_is_no_answer(kb_of):
    doc = ("# 某市物业管理条例\n\n第二条 本条例所称业主，是指房屋的所有权人。\n\n"
           "第三条 本条例所称非业主使用人，是指房屋的承租人和其他实际使用房屋的人。\n")
    kb = kb_of({"条例/某市物业管理条例.md": doc})
    a = kb.ask("这部条例所称的非业主使用人是指什么人？")
    assert a.status == "answered", a.reasoning
    assert a.evidence[0].text == "本条例所称非业主使用人，是指房屋的承租人和其他实际使用房屋的人。"  # not 业主's definition
    assert "承租人" in a.answer and "所有权人" not in a.answer


def test_the_asked_term_before_a_comma_and_juti(kb_of):
    # …所说的临时摊点，具体指的是什么: the term is the phrase before the comma, not 具体
    from pipeline.extract import CUES
    m = CUES.rx("ask.defined_term").search("条例所说的临时摊点，具体指的是什么？")
    assert m.group("term") == "临时摊点"
    doc = ("# 某市摊点管理条例\n\n第二条 本条例所称临时摊点，是指经批准在指定地点和时段设置的流动经营摊位。\n\n"
           "第三条 本条例所称固定摊点，是指在农贸市场内设置的经营摊位。\n")
    a = kb_of({"条例.md": doc}).ask("条例所说的临时摊点，具体指的是什么？")
    assert (a.status, a.evidence[0].text) == \
        ("answered", "本条例所称临时摊点，是指经批准在指定地点和时段设置的流动经营摊位。"), a.reasoning
