"""Word ingest: title, heading styles, articles and a table with header."""
import pytest

from pipeline.errors import LoopAgentError
from pipeline.ingest import parse_file
from tests.conftest import LEAVE_DOCX


def test_docx_structure():
    doc = parse_file(LEAVE_DOCX).document
    assert doc.title == "企业职工带薪年休假实施办法"
    assert doc.kind == "docx"
    art5 = [b for b in doc.blocks if b.clause == "第五条"]
    assert [b.type for b in art5] == ["clause", "clause"]
    assert art5[0].text.startswith("职工新进用人单位且符合本办法第三条规定的")
    table = [b for b in doc.blocks if b.type == "table"][0]
    assert table.section == ["附表"]
    assert table.table_header == ["累计工作年限", "年休假天数"]
    assert table.table_rows[1] == ["已满10年不满20年", "10天"]
    assert table.meta["caption"] == "年休假天数表（依据《职工带薪年休假条例》第三条）"


def test_corrupt_docx(tmp_path):
    p = tmp_path / "broken.docx"
    p.write_bytes(b"PK\x03\x04 this is not a zip")
    with pytest.raises(LoopAgentError) as e:
        parse_file(p)
    assert e.value.code == "E005"
