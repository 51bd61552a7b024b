"""Datasheet and manual values: sizes, rates and frequencies with Latin units, the size of a whole thing asked
with 一共, and a bare number written right after the asked value noun."""
DOC = ("# 某型号单片机数据手册\n\n## 存储器\n\n引导区大小为 3072Byte，用户闪存容量为 32KB。\n\n"
       "## 时钟\n\n系统主频最高可达 72MHz。\n\n"
       "## 通信接口\n\n调试串口的默认波特率为115200，可在配置工具中修改。\n\n"
       "## 看门狗\n\n看门狗的默认超时值为2000，单位由预分频决定；喂狗间隔默认为500。\n")


def test_a_size_in_bytes_answers_how_big_the_whole_area_is(kb_of):
    a = kb_of({"手册.md": DOC}).ask("引导区一共有多大？")
    assert a.status == "answered"
    assert a.value == {"kind": "number", "number": 3072, "unit": "Byte"}
    assert a.evidence[0].text == "引导区大小为 3072Byte，用户闪存容量为 32KB。"


def test_a_capacity_asked_with_its_noun_takes_the_kb_value(kb_of):
    a = kb_of({"手册.md": DOC}).ask("用户闪存容量有多大？")
    assert (a.status, a.value) == ("answered", {"kind": "number", "number": 32, "unit": "KB"})


def test_a_frequency_in_mhz(kb_of):
    a = kb_of({"手册.md": DOC}).ask("系统主频最高能跑到多少？")
    assert (a.status, a.value) == ("answered", {"kind": "number", "number": 72, "unit": "MHz"})


def test_a_bare_number_right_after_the_asked_noun_answers_a_rate_question(kb_of):
    a = kb_of({"手册.md": DOC}).ask("调试串口默认的波特率是多少？")
    assert a.status == "answered"
    assert a.value == {"kind": "number", "number": 115200, "unit": ""}
    assert a.evidence[0].text == "调试串口的默认波特率为115200，可在配置工具中修改。"


def test_a_bare_number_is_no_answer_to_a_question_asking_several_values(kb_of):
    # 分别: one number is not the answer to several, and a bare number needs the single asked noun beside it
    a = kb_of({"手册.md": DOC}).ask("调试串口和烧录串口的默认波特率分别是多少？")
    assert a.status == "not_found"
    assert "抽取：没有模板在有依据的句子上命中，不作答" in a.reasoning



SDK = ("# 某推送服务SDK开发手册\n\n## 错误码\n\n请求返回的错误码定义如下：\n\n"
       "PushErrorCode_Success = 0, // 成功\n\nPushErrorCode_AuthFailed = 40103, // 权限验证失败\n\n"
       "PushErrorCode_Timeout = 40106, // 请求时间戳验证超时\n")


def test_a_numeric_error_code_is_searched_and_read_from_its_enum_line(kb_of):
    a = kb_of({"sdk.md": SDK}).ask("SDK返回错误码40106代表什么？")
    assert (a.status, a.method) == ("answered", "strategy:code.meaning")
    assert a.value == {"kind": "text", "text": "请求时间戳验证超时", "code": "40106"}
    assert a.evidence[0].text == "PushErrorCode_Timeout = 40106, // 请求时间戳验证超时"
    assert any(r.startswith("关键词：") and "40106" in r for r in a.reasoning)


def test_a_computed_product_states_the_total_a_question_asks_for(kb_of):
    doc = ("# 场地租赁合同\n\n## 第三条 租金\n\n第一年租金为人民币：8000元×12个月=96,000.00元。\n\n"
           "第二年租金为人民币：8400元×12个月=100,800.00元。\n")
    a = kb_of({"合同.md": doc}).ask("按这份场地租赁合同，第二年的租金一共要付多少钱？")
    assert (a.status, a.value) == ("answered", {"kind": "money", "number": 100800, "unit": "元"})
    assert a.evidence[0].text == "第二年租金为人民币：8400元×12个月=100,800.00元。"


def test_latin_units_are_read_after_a_space_and_fold_to_one_spelling():
    from pipeline.numbers import find_quantities
    got = [(q["number"], q["unit"]) for q in find_quantities("峰值电流 340 mA，间距 100mm，重量 2.5 kg，环境 25 °C，容量 6800 mAh，门店 10 km 以内")]
    assert got == [(340, "mA"), (100, "毫米"), (2.5, "千克"), (25, "℃"), (6800, "mAh"), (10, "公里")]
    assert find_quantities("CH32V003 的 E3 引脚") == []  # a model number's digits and a code are no quantities
    assert find_quantities("TGL-18R 配的转子，DFN-6 封装") == []  # nor a name's digits after a hyphen
    assert [(q["number"], q["unit"]) for q in find_quantities("工作6-10年")] == [(6, ""), (10, "年")]


def test_a_condition_in_latin_units_with_spaces_places_the_askers_figure():
    from pipeline.extract import condition_match
    from pipeline.numbers import find_quantities
    fee = "门店 10 km 以内 50 元/次，超过 10 km 的每公里加收 3 元"
    assert condition_match(find_quantities("送到5公里远"), "门店 10 km 以内 50 元/次", None) == 1.0
    assert condition_match(find_quantities("送到15公里远"), "超过 10 km 的每公里加收 3 元", None) == 1.0
    assert condition_match(find_quantities("就在5公里内"), "超过 10 km 的每公里加收 3 元", None) == -1.0
    assert condition_match(find_quantities("输入电压为 2.5 V 时"), "输入低于 3.0 V 时进入欠压保护", None) == 1.0
    assert condition_match(find_quantities("送到5公里远"), fee, None) == 1.0  # one of the two conditions holds


def test_resistance_and_capacitance_are_measures_with_their_units(kb_of):
    from pipeline.numbers import find_quantities
    got = [(q["number"], q["unit"]) for q in find_quantities("终端电阻 120 Ω，上拉 4.7 kΩ，绝缘电阻 100 兆欧，滤波电容 10 uF")]
    assert got == [(120, "Ω"), (4.7, "kΩ"), (100, "MΩ"), (10, "μF")]
    doc = "# 某型号变送器手册\n\n## 接线\n\nRS485 总线两端应各接一只 120 Ω 的终端电阻，总线长度不超过 1200 m。\n"
    a = kb_of({"手册.md": doc}).ask("总线两端的终端电阻要接多少欧姆的？")
    assert (a.status, a.value) == ("answered", {"kind": "number", "number": 120, "unit": "Ω"}), a.reasoning
