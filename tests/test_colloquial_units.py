"""Units people say rather than write: 一刻钟 is fifteen minutes when a figure is placed in a graded condition."""

def test_a_quarter_of_an_hour_is_a_figure_of_15_minutes():
    from pipeline.extract import condition_match
    from pipeline.numbers import find_quantities
    q = find_quantities("要是迟到了一刻钟，要扣多少钱？")
    assert [(x["number"], x["unit"], x["text"]) for x in q] == [(1, "刻钟", "一刻钟")]
    assert condition_match(q, "迟到十分钟内的，") == -1  # 15 minutes is not within ten
    assert condition_match(q, "迟到超过十分钟的，") == 1


def test_more_than_between_a_number_and_its_unit_keeps_the_figure():
    from pipeline.extract import condition_match
    from pipeline.numbers import find_quantities
    q = find_quantities("我早上晚到了二十多分钟，要扣多少钱？")
    assert [(x["number"], x["unit"], x["text"]) for x in q] == [(20, "分钟", "二十多分钟")]
    assert condition_match(q, "迟到十分钟内的，") == -1
    assert [(x["number"], x["unit"]) for x in find_quantities("共有一百余人参加")] == [(100, "人")]
    assert find_quantities("要多长时间？") == []  # 多 before a measure word is the interrogative, no figure


def test_nautical_miles_centimetres_and_hours_said_as_zhongtou():
    from pipeline.numbers import find_quantities
    assert [(x["number"], x["unit"]) for x in find_quantities("航道外侧十二海里以内")] == [(12, "海里")]
    assert [(x["number"], x["unit"]) for x in find_quantities("旗面长一百二十公分")] == [(120, "厘米")]
    assert [(x["number"], x["unit"]) for x in find_quantities("每天最多干八个钟头")] == [(8, "小时")]


def test_a_distance_in_nautical_miles_answers_how_far(kb_of):
    kb = kb_of({"海域管理规定.md": "# 海域管理规定\n\n第四条 保护区的外部界限距离海岸线十二海里。\n"})
    a = kb.ask("保护区的外部界限离海岸线有多远？")
    assert a.status == "answered"
    assert a.value == {"kind": "number", "number": 12, "unit": "海里"}
    assert a.method == "template:number.measure"


def test_hours_asked_as_zhongtou_are_not_answered_in_months(kb_of):
    kb = kb_of({"合同/顾问合同.md": "# 顾问合同\n\n第二条 本合同有效期为签约之日起六个月。\n"})
    assert kb.ask("顾问一天最多可以工作几个钟头？").status == "not_found"


def test_a_household_counted_in_kou_is_a_count_of_persons():
    # 我们家4口人: four persons, placed in the tier 4人及以上
    from pipeline.extract import condition_match
    from pipeline.numbers import find_quantities
    q = find_quantities("我们家4口人，财产最多不能超过多少？")
    assert [(x["number"], x["unit"], x["text"]) for x in q] == [(4, "人", "4口人")]
    assert condition_match(q, "家庭成员4人及以上的，") == 1
    assert condition_match(q, "家庭成员3人及以下的，") == -1
