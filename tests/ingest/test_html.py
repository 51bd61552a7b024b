"""HTML ingest on tests/data/html/leave_policy.html: headings, anchors, lists, rowspan/colspan tables."""
from __future__ import annotations

from pathlib import Path

import pytest

from pipeline.ingest import parse_file

DATA = Path(__file__).resolve().parent.parent / "data" / "html"


@pytest.fixture(scope="module")
def doc():
    return parse_file(DATA / "leave_policy.html").document


def test_title_and_dates(doc):
    assert doc.title == "某公司休假管理办法"
    assert doc.kind == "html"
    assert doc.effective_date == "2024-03-01"


def test_scripts_navigation_header_footer_stripped(doc):
    text = "\n".join(b.text for b in doc.blocks)
    for gone in ("第九十九条", "首页", "公司内网", "版权所有", "font-family"):
        assert gone not in text


def test_headings_articles_and_anchors(doc):
    heads = [(b.text, b.section, b.meta.get("anchor")) for b in doc.blocks if b.type == "heading"]
    assert heads == [
        ("第一章 总则", ["第一章 总则"], "ch1"),
        ("第二章 假期类别", ["第二章 假期类别"], "ch2"),
        ("一、年休假", ["第二章 假期类别", "一、年休假"], "annual"),
        ("二、病假", ["第二章 假期类别", "二、病假"], None),
    ]
    first = doc.blocks[1]
    assert (first.type, first.clause, first.section, first.text) == (
        "clause", "第一条", ["第一章 总则", "第一条"], "为规范员工休假管理，制定本办法。")


def test_lists_keep_nesting(doc):
    items = [(b.text, b.meta["depth"], b.meta.get("anchor")) for b in doc.blocks if b.type == "list_item"]
    assert items == [
        ("• 年休假一般不跨年度安排。", 0, None),
        ("• 确因工作需要，可以分段安排：", 0, "split"),
        ("1.每段不少于1天；", 1, None),
        ("2.全年不超过3段。", 1, None),
    ]


def test_table_spans_carry_values(doc):
    (t,) = [b for b in doc.blocks if b.type == "table"]
    assert t.table_header == ["工龄", "病假期限", "工资比例"]
    assert t.table_rows == [["不满10年", "6个月以内", "70%"],
                            ["不满10年", "6个月以上", "60%"],
                            ["10年以上", "按基本工资的80%计发", "按基本工资的80%计发"]]
    assert t.meta == {"caption": "病假工资标准", "anchor": "sick-pay"}
    assert t.section == ["第二章 假期类别", "二、病假"]


def test_gb18030_meta_charset(tmp_path):
    p = tmp_path / "gbk.html"
    p.write_bytes('<html><head><meta charset="gb18030"></head><body><h2>第一章 总则</h2>'
                  '<p>第一条 编码测试。</p></body></html>'.encode("gb18030"))
    doc = parse_file(p).document
    assert [b.text for b in doc.blocks] == ["第一章 总则", "编码测试。"]
