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
