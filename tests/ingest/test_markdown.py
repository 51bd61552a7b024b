"""Markdown statutes: every 第X条 addressable, 款 and 项 kept, header lines are metadata."""
from pathlib import Path

import pytest

from pipeline.errors import LoopAgentError
from pipeline.ingest import parse_file
from tests.conftest import ANNUAL_LEAVE, LABOUR_CONTRACT


@pytest.fixture(scope="module")
def labour():
    return parse_file(LABOUR_CONTRACT, "社会法/劳动合同法(2012-12-28).md").document


def clause(doc, label):
    return [b for b in doc.blocks if b.clause == label and b.type != "heading"]


def test_metadata_from_header_lines(labour):
    assert labour.title == "中华人民共和国劳动合同法"
    assert labour.version_date == "2012-12-28"
    assert labour.effective_date == "2008-01-01"
    assert labour.meta["history_dates"] == ["2007-06-29", "2012-12-28"]
    assert labour.kind == "markdown"
    assert all("INFO END" not in b.text and "常务委员会" not in b.text for b in labour.blocks[:3])


def test_article_section_paths(labour):
    b19 = clause(labour, "第十九条")
    assert [b.section[-1] for b in b19] == ["第十九条"] * 4
    assert b19[0].text.startswith("劳动合同期限三个月以上不满一年的，试用期不得超过一个月；")
    assert [b.meta["paragraph"] for b in b19] == [1, 2, 3, 4]
    b42 = clause(labour, "第四十二条")
    assert b42[0].section == ["第四章 劳动合同的解除和终止", "第四十二条"]
    assert [b.type for b in b42] == ["clause"] + ["list_item"] * 6
    assert b42[3].text == "（三）患病或者非因工负伤，在规定的医疗期内的；"
    assert b42[3].meta["label"] == "（三）"


def test_chapter_of_article_19(labour):
    # 第十九条 sits in 第二章 in this version of the law
    assert clause(labour, "第十九条")[0].section == ["第二章 劳动合同的订立", "第十九条"]


def test_every_article_addressable(labour):
    labels = {b.clause for b in labour.blocks if b.type == "clause"}
    assert len(labels) == 98  # 第一条 … 第九十八条
    assert "第九十八条" in labels


def test_ascii_bracket_items_are_list_items():
    doc = parse_file(ANNUAL_LEAVE).document
    items = [b for b in doc.blocks if b.clause == "第四条" and b.type == "list_item"]
    assert [b.meta["label"] for b in items] == ["(一)", "(二)", "(三)", "(四)", "(五)"]
    assert doc.title == "职工带薪年休假条例"
    assert doc.effective_date is None or doc.effective_date == "2008-01-01"


def test_block_ids_are_stable(labour):
    again = parse_file(LABOUR_CONTRACT, "社会法/劳动合同法(2012-12-28).md").document
    assert [b.block_id for b in again.blocks] == [b.block_id for b in labour.blocks]
    assert len({b.block_id for b in labour.blocks}) == len(labour.blocks)


def test_plain_text_and_tables(tmp_path):
    p = tmp_path / "notice.md"
    p.write_text("# 关于调整差旅标准的通知\n\n一、住宿标准\n\n住宿标准分三档：\n\n| 级别 | 标准 |\n|---|---|\n| 一档 | 800元 |\n| 二档 | 500元 |\n",
                 encoding="utf-8")
    doc = parse_file(p).document
    table = [b for b in doc.blocks if b.type == "table"][0]
    assert table.table_header == ["级别", "标准"]
    assert table.table_rows == [["一档", "800元"], ["二档", "500元"]]
    assert table.section == ["一、住宿标准"]
    assert "级别：一档；标准：800元。" in table.text


def test_gb18030_text_is_decoded_with_warning(tmp_path):
    p = tmp_path / "gbk.txt"
    p.write_bytes("第一条 本办法适用于全体职工。".encode("gb18030"))
    res = parse_file(p)
    assert res.document.blocks[0].text == "本办法适用于全体职工。"
    assert res.warnings[0].startswith("W002")


@pytest.mark.parametrize("content,code", [(b"", "E003"), (b"   \n", "E003"), (b"\xff\xfe\x00\xd8" * 3, "E004")])
def test_bad_text_files(tmp_path, content, code):
    p = tmp_path / "bad.txt"
    p.write_bytes(content)
    with pytest.raises(LoopAgentError) as e:
        parse_file(p)
    assert e.value.code == code


def test_unknown_suffix_and_missing_path(tmp_path):
    with pytest.raises(LoopAgentError) as e:
        parse_file(tmp_path / "nope.md")
    assert e.value.code == "E001"
    p = tmp_path / "a.xyz"
    p.write_text("x")
    with pytest.raises(LoopAgentError) as e:
        parse_file(p)
    assert e.value.code == "E002"


def test_front_matter_is_metadata_and_gives_the_title(tmp_path):
    p = tmp_path / "notice.md"
    p.write_text("---\n标题: 关于印发《某镇加装电梯维保补贴实施意见》的通知\n文号: 某府发〔2025〕3号\n"
                 "发布日期: 2025-03-06\n---\n\n各村、居委会：\n\n本意见有效期至2026年6月30日。\n", encoding="utf-8")
    doc = parse_file(p, "notice.md").document
    assert doc.title == "关于印发《某镇加装电梯维保补贴实施意见》的通知"
    assert doc.meta["header"] == ["标题: 关于印发《某镇加装电梯维保补贴实施意见》的通知", "文号: 某府发〔2025〕3号",
                                  "发布日期: 2025-03-06"]
    assert [b.text for b in doc.blocks] == ["各村、居委会：", "本意见有效期至2026年6月30日。"]


def test_a_rule_that_opens_a_page_is_no_front_matter(tmp_path):
    p = tmp_path / "rule.md"
    p.write_text("---\n这是一段正文，不是元数据\n---\n\n第二段。\n", encoding="utf-8")
    doc = parse_file(p, "rule.md").document
    assert "header" not in doc.meta
    assert any("这是一段正文" in b.text for b in doc.blocks)


def test_inline_bold_and_escapes_are_not_part_of_the_text(tmp_path):
    p = tmp_path / "cla.md"
    p.write_text("# 贡献者许可协议\n\n本协议中的“项目管理方”是**北京某某科技有限责任公司**。\n\n"
                 "公司 **每月10日** 发薪，文档以纯文本形式\\(易读\\)编写，2 * 3 = 6。\n", encoding="utf-8")
    doc = parse_file(p, "cla.md").document
    assert [b.text for b in doc.blocks] == ["本协议中的“项目管理方”是北京某某科技有限责任公司。",
                                            "公司 每月10日 发薪，文档以纯文本形式(易读)编写，2 * 3 = 6。"]


def test_steps_numbered_with_a_closing_bracket_are_list_items(tmp_path):
    """1）… / 2) … (a number and a closing bracket, no opening one: manuals and contracts number steps so) are list
    items of the lead before them, kept as written, and a short last step (5）执行) is no heading."""
    p = tmp_path / "manual.md"
    p.write_text("# 烧录工具使用说明\n\n## 3.2 下载\n\n使用烧录工具下载固件的流程为：\n\n1）连接调试器；\n\n"
                 "2) 选择芯片型号；\n\n3）添加固件文件；\n\n4）执行\n\n注：仅新版调试器支持此流程。\n", encoding="utf-8")
    doc = parse_file(p).document
    body = [(b.type, b.text) for b in doc.blocks if b.type != "heading"]
    assert body == [("paragraph", "使用烧录工具下载固件的流程为："), ("list_item", "1）连接调试器；"),
                    ("list_item", "2)选择芯片型号；"), ("list_item", "3）添加固件文件；"), ("list_item", "4）执行"),
                    ("paragraph", "注：仅新版调试器支持此流程。")]
    assert [b.meta["label"] for b in doc.blocks if b.type == "list_item"] == ["1）", "2)", "3）", "4）"]
    assert all(b.section == ["3.2 下载"] for b in doc.blocks if b.type == "list_item")
