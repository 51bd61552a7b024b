"""Value language of stage 3 with its own question forms: how often (多久…一次) is answered by a period (每隔15日,
每年), never by another length of time the provision states; which hours (什么时间段) by a clock range; and a
bound stated with a comparison verb gives a bare number only right after the asked noun."""
from pipeline.orchestrator import AskSettings

RULES = AskSettings(gate_weights="")  # the coverage bar decides: these tests are about extraction

DOCS = {
    "办法.md": "# 某市电梯安全管理办法\n\n## 第十条 维护保养\n\n维护保养单位应当每隔15日对电梯进行一次清洁、润滑、调整和检查。\n\n"
              "## 第十一条 档案\n\n使用单位应当建立电梯安全技术档案，档案保存期限不得少于四年。\n\n"
              "## 第十二条 评估\n\n电梯使用单位应当每年对电梯进行一次安全评估。\n",
    "规定.md": "# 某市养犬管理规定\n\n## 第九条 出户\n\n大型犬每日7时至20时不得出户活动。\n\n"
              "## 第十条 噪声\n\n工作日12时至14时、22时至次日6时，禁止在住宅楼内进行产生噪声的装修作业。\n\n"
              "## 第十一条 登记\n\n养犬人应当在取得犬只后三十日内办理登记。\n",
    "规范.md": "# 某系统接口规范\n\n## 3 字段\n\n备注字段的长度不得超过200，超出部分截断。\n\n"
              "## 4 导出\n\n导出文件名的长度由系统生成，单次导出的记录数量不得超过5000。\n",
}


def test_how_often_is_answered_by_the_period(kb_of):
    kb = kb_of(DOCS, settings=RULES)
    a = kb.ask("维护保养单位多久要对电梯清洁检查一次？")
    assert a.status == "answered"
    assert a.value == {"kind": "duration", "number": 15, "unit": "日"}
    assert a.method == "template:duration.every"
    assert a.evidence[0].text == "维护保养单位应当每隔15日对电梯进行一次清洁、润滑、调整和检查。"
    b = kb.ask("电梯使用单位多长时间要做一次安全评估？")
    assert b.value == {"kind": "duration", "number": 1, "unit": "年"}


def test_a_length_of_time_does_not_answer_how_often(kb_of):
    kb = kb_of(DOCS, settings=RULES)
    a = kb.ask("电梯安全技术档案多久要更新一次？")  # the provision gives how long it is kept, not how often
    assert a.status == "not_found"
    kept = kb.ask("电梯安全技术档案至少要保存多久？")
    assert kept.value == {"kind": "duration", "number": 4, "unit": "年"}


def test_a_bare_bound_after_the_asked_noun(kb_of):
    kb = kb_of(DOCS, settings=RULES)
    a = kb.ask("备注字段的长度最多是多少？")
    assert a.status == "answered" and a.value == {"kind": "number", "number": 200, "unit": ""}
    assert a.method == "template:number.bound"
    # a bare number whose noun is not the asked one (长度 asked, 数量 bounded) is no answer
    assert kb.ask("导出文件名的长度最多是多少？").status == "not_found"


def test_which_hours_is_answered_by_a_clock_range(kb_of):
    kb = kb_of(DOCS, settings=RULES)
    a = kb.ask("大型犬每天什么时间段不能出户？")
    assert a.status == "answered" and a.method == "template:time.clock_range"
    assert a.value == {"kind": "range", "min": 7, "max": 20, "unit": "时"}
    b = kb.ask("工作日哪个时段禁止在住宅楼里搞有噪声的装修？")
    assert b.value == {"kind": "range", "min": 12, "max": 14, "unit": "时"}
    # a question that does not ask for hours is not answered by them
    c = kb.ask("养犬人取得犬只后多长时间内要办理登记？")
    assert c.value == {"kind": "duration", "number": 30, "unit": "日"}
