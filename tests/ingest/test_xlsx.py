"""Excel ingest on a workbook the test writes with openpyxl: title row, header detection, merged cells."""
from __future__ import annotations

import datetime as dt

import pytest

from pipeline.errors import LoopAgentError
from pipeline.ingest import parse_file
from pipeline.ingest.xlsx import ROWS_PER_BLOCK

openpyxl = pytest.importorskip("openpyxl")


@pytest.fixture(scope="module")
def workbook(tmp_path_factory):
    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = "XD5757参数"
    ws.append(["XD5757 关节参数表"])
    ws.merge_cells("A1:C1")
    ws.append(["类型", "名称", "规格"])
    ws.append(["性能参数", "额定扭矩", "15N.m"])
    ws.append([None, "峰值扭矩", "30N.m"])
    ws.append([None, "额定电压", 48])
    ws.merge_cells("A3:A5")
    ws.append(["结构参数", "重量(kg)", 0.39])
    ws.append(["版本", "发布日期", dt.datetime(2024, 5, 1)])
    long = wb.create_sheet("寄存器")
    long.append(["地址", "变量", "读写"])
    for i in range(65):
        long.append([i, f"REG_{i}", "RW"])
    hidden = wb.create_sheet("草稿")
    hidden.append(["不应出现", "x"])
    hidden.sheet_state = "hidden"
    wb.properties.title = "关节参数"
    path = tmp_path_factory.mktemp("xlsx") / "params.xlsx"
    wb.save(path)
    return parse_file(path).document


def test_sheet_heading_and_detected_header(workbook):
    assert workbook.title == "关节参数"
    assert workbook.blocks[0].type == "heading" and workbook.blocks[0].text == "XD5757参数"
    t = workbook.blocks[1]
    assert t.type == "table"
    assert t.table_header == ["类型", "名称", "规格"]
    assert t.meta == {"caption": "XD5757关节参数表", "sheet": "XD5757参数", "first_row": 3, "header_row": 2}
    assert t.section == ["XD5757参数"]


def test_merged_cells_and_values(workbook):
    t = workbook.blocks[1]
    assert t.table_rows == [
        ["性能参数", "额定扭矩", "15N.m"],
        ["性能参数", "峰值扭矩", "30N.m"],
        ["性能参数", "额定电压", "48"],
        ["结构参数", "重量(kg)", "0.39"],
        ["版本", "发布日期", "2024-05-01"],
    ]
    assert "类型：性能参数；名称：峰值扭矩；规格：30N.m。" in t.text


def test_long_sheet_is_split_with_the_header_repeated(workbook):
    blocks = [b for b in workbook.blocks if b.meta.get("sheet") == "寄存器"]
    assert [len(b.table_rows) for b in blocks] == [ROWS_PER_BLOCK, ROWS_PER_BLOCK, 5]
    assert all(b.table_header == ["地址", "变量", "读写"] for b in blocks)
    assert [b.meta["first_row"] for b in blocks] == [2, 32, 62]
    assert blocks[2].table_rows[-1] == ["64", "REG_64", "RW"]


def test_hidden_sheets_are_skipped_and_listed(workbook):
    assert workbook.meta["hidden_sheets"] == ["草稿"]
    assert not any("不应出现" in b.text for b in workbook.blocks)


def test_corrupt_workbook_is_e005(tmp_path):
    p = tmp_path / "bad.xlsx"
    p.write_bytes(b"PK\x03\x04 not really a zip")
    with pytest.raises(LoopAgentError) as exc:
        parse_file(p)
    assert exc.value.code == "E005"
