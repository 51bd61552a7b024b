"""Numeric conditions: a question's quantity or range against a provision's tier."""
import pytest

from pipeline.extract import condition_match, range_conditions


@pytest.mark.parametrize("text,quantity,expect", [
    ("职工累计工作已满1年不满10年的，年休假5天", {"number": 12, "unit": "年"}, -1.0),
    ("已满10年不满20年的，年休假10天", {"number": 12, "unit": "年"}, 1.0),
    ("工作6-10年者年休假7天", {"number": 8, "unit": "年"}, 1.0),
    ("工作6-10年者年休假7天", {"number": 11, "unit": "年"}, -1.0),
    ("即迟到11-20分钟/次,扣款30元", {"number": 15, "unit": "分钟"}, 1.0),
    ("在48小时之内经抢救无效死亡的", {"number": 30, "unit": "小时"}, 1.0),
    ("用人单位有会员二十五人以上的，应当建立基层工会委员会", {"number": 30, "unit": "人"}, 1.0),
    ("试用期不得超过二个月", {"number": 3, "unit": "月"}, 0.0),  # a limit, not a condition
    # 超过 excludes the figure itself, 满 and 以上 include it
    ("借款金额超过五万元的，须经总经理批准", {"number": 50000, "unit": "元"}, -1.0),
    ("借款金额超过五万元的，须经总经理批准", {"number": 60000, "unit": "元"}, 1.0),
    ("借款金额五万元以上的，须经总经理批准", {"number": 50000, "unit": "元"}, 1.0),
    ("连续工作满5年的，可以申请", {"number": 5, "unit": "年"}, 1.0),
])
def test_condition_match(text, quantity, expect):
    assert condition_match([quantity], text) == expect


def test_question_range_must_equal_the_tier():
    q_ranges = [r[:4] + (list(r[4]),) for r in range_conditions("已满10年不满20年的")]
    assert condition_match([], "已满10年不满20年的，年休假10天", q_ranges) == 1.0
    assert condition_match([], "已满20年的，年休假15天", q_ranges) == -1.0


def test_clock_times_are_not_ranges():
    assert range_conditions("9:11-9:20到") == []


def test_an_open_ended_question_figure_is_where_the_asker_stands():
    from pipeline.extract import condition_match, range_conditions

    asked = [r[:4] + (list(r[4]),) for r in range_conditions("我在单位工作满15年了")]
    assert condition_match([], "职工累计工作已满1年不满10年的，年休假5天", asked) == -1.0
    assert condition_match([], "已满10年不满20年的，年休假10天", asked) == 1.0
    assert condition_match([], "已满20年的，年休假15天", asked) == -1.0


def test_a_floor_is_no_upper_bound():
    from pipeline.extract import _limit_check, condition_match, range_conditions

    # 不得少于两人 says at least two: it is no 少于两人 condition that two would fail
    assert range_conditions("在公路上执勤执法不得少于两人。") == []
    two = [{"number": 2, "unit": "人", "text": "两人", "start": 0, "end": 2}]
    assert condition_match(two, "在公路上执勤执法不得少于两人。", []) == 0.0
    assert _limit_check(two, "在公路上执勤执法不得少于两人。")[0] is True
    assert range_conditions("不满两人的")[0][1:3] == (float("-inf"), 2.0)


def test_an_ordinal_is_no_quantity(kb_of):
    # 第二年 says which year, not how long: a 几个月 question finds no duration in it, and takes the real one
    kb = kb_of({"租赁合同.md": "# 门面租赁合同\n\n## 第四条 租金\n\n乙方每年6月1日前支付第二年的租金。\n\n"
                             "## 第五条 押金\n\n乙方应于签约时交付相当于三个月租金的押金。\n"})
    orch = kb.orchestrator
    q = orch.analyzer.run("押金要交几个月的租金？")
    assert orch.extractor._matches(q, "乙方每年6月1日前支付第二年的租金。") == []
    values = [m[1] for m in orch.extractor._matches(q, "乙方应于签约时交付相当于三个月租金的押金。")]
    assert values[0] == {"kind": "duration", "number": 3, "unit": "月"}


def test_a_penalty_for_a_duty_is_read_from_the_article_that_cites_it(kb_of):
    # the duty (第五条) shares the question's words; the figure is in 第九条, which cites it as violated
    doc = ("# 某市非机动车管理条例\n\n## 第五条 头盔\n\n电动自行车驾驶人应当佩戴安全头盔。\n\n"
           "## 第九条 罚则\n\n违反本条例第四条规定的，处一百元罚款；违反本条例第五条规定，未佩戴安全头盔的，"
           "由公安机关交通管理部门处警告或者二十元以上五十元以下罚款。\n")
    kb = kb_of({"条例.md": doc})
    orch = kb.orchestrator
    q = orch.analyzer.run("电动自行车驾驶人没戴安全头盔会怎么罚？")
    anchor = next(a for a in orch._anchors(q, orch.prefilter.run(q)) if a.sentence.text.startswith("电动自行车驾驶人"))
    f = orch.extractor._s_penalty(q, anchor)
    assert (f.method, f.value) == ("template:money.range", {"kind": "range", "min": 20, "max": 50, "unit": "元"})
    assert [s.text for _, s, _, _ in f.evidence] == [
        "违反本条例第五条规定，未佩戴安全头盔的，由公安机关交通管理部门处警告或者二十元以上五十元以下罚款。",
        "电动自行车驾驶人应当佩戴安全头盔。"]


INVEST = ("# 理财管理制度\n\n第八条 公司已对未来十二个月内理财额度进行合理预计并经董事会审议通过的，按审议范围执行。\n\n"
          "第九条 理财额度占公司净资产的百分之十以上，且金额超过五百万元的，应当事先经董事会审议。\n")


def test_a_threshold_is_a_bound_to_pass_not_a_window(kb_of):
    # both provisions hold a figure in a condition followed by 董事会审议; only the second says how far the amount
    # must go (以上, 超过), the first names a window (十二个月内)
    kb = kb_of({"制度/理财管理制度.md": INVEST})
    a = kb.ask("理财额度到什么程度就要事先经董事会审议？")
    assert (a.status, a.method, a.value) == \
        ("answered", "strategy:threshold", {"kind": "text", "text": "理财额度占公司净资产的百分之十以上，且金额超过五百万元的"})


def test_a_family_name_with_x_names_its_members():
    from pipeline.orchestrator import _names_identifier
    assert _names_identifier("ch32v00x评估板说明书", "ch32v003")
    assert _names_identifier("stm32f10x参考手册", "stm32f103")
    assert not _names_identifier("ch32v00x评估板说明书", "ch32v103")
    assert not _names_identifier("ch32v00x评估板说明书", "ch32v0035")  # another length is another part


def test_an_identifier_is_named_with_or_without_its_joining_marks():
    from pipeline.orchestrator import _names_identifier
    assert _names_identifier("package: sot-23-6, tape and reel", "sot23")
    assert _names_identifier("适配tr100系列", "tr-100")
    assert not _names_identifier("封装：sot-89", "sot23")
    assert not _names_identifier("最大电流max 200ma", "x200")  # a space is no joining mark


def test_points_of_a_score_are_ranges_but_minutes_of_a_clock_are_not():
    from pipeline.extract import condition_match, range_conditions
    from pipeline.numbers import find_quantities
    assert [c[:4] for c in range_conditions("考核得分80分至89分的，拨付70%")] == [("points", 80.0, 89.0, True)]
    assert [c[:4] for c in range_conditions("累积记分满12分的")] == [("points", 12.0, float("inf"), False)]
    assert range_conditions("办理时间为上午8时30分至11时30分") == []  # a time of day
    assert range_conditions("每日8:30分至17:30分开放") == []
    assert [c[0] for c in range_conditions("迟到3至8分钟的")] == ["hours"]  # 分钟 stays a duration
    assert condition_match(find_quantities("考核得了85分"), "80分至89分的，拨付70%") == 1.0
    assert condition_match(find_quantities("考核得了95分"), "80分至89分的，拨付70%") == -1.0
