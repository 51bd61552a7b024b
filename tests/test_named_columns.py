"""A table's column is named by the question only where the question's phrase is not part of a longer phrase that
another column's header holds (新一线城市: the column 新一线及二线城市, not 一线城市; pipeline/extract.py _named_columns)."""
from pipeline.extract import _named_columns

HEADER = ["费用项目", "一线城市", "新一线及二线城市", "三线及以下城市", "支付时间"]


def test_the_longer_phrase_names_its_column():
    assert _named_columns(HEADER, "我想在一个新一线城市开店，加盟费要交多少钱？") == [2]
    assert _named_columns(HEADER, "在一线城市开店加盟费多少？") == [1]
    assert _named_columns(HEADER, "三线及以下城市的加盟费和支付时间？") == [3, 4]


def test_the_tier_column_answers(kb_of):
    kb = kb_of({"加盟合同.md":
        "# 某茶饮品牌特许经营加盟合同\n\n## 第五条 费用\n\n5.1 乙方应向甲方支付的费用标准如下：\n\n"
        "| 费用项目 | 一线城市 | 新一线及二线城市 | 三线及以下城市 | 支付时间 |\n|---|---|---|---|---|\n"
        "| 加盟费 | 68,000 元 | 49,800 元 | 35,000 元 | 本合同签订之日起 5 个工作日内 |\n"
        "| 保证金 | 30,000 元 | 20,000 元 | 10,000 元 | 本合同签订之日起 5 个工作日内 |\n"})
    a = kb.ask("我想在新一线城市开一家店，加盟费要交多少钱？")
    assert a.status == "answered" and "49,800" in a.answer and "68,000" not in a.answer
    b = kb.ask("一线城市的加盟费要交多少钱？")
    assert b.status == "answered" and "68,000" in b.answer
