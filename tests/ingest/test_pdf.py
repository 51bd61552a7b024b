"""PDF ingest on generated fixtures (scripts/make_test_pdfs.py) and, when present, the dev PDFs."""
from __future__ import annotations

import os
import resource
import subprocess
import sys
from pathlib import Path

import pytest

from pipeline.errors import LoopAgentError
from pipeline.ingest import parse_file
from pipeline.ingest.cjk import clean_text
from pipeline.ingest.pdf import PdfSettings, parse_pdf

DATA = Path(__file__).resolve().parent.parent / "data" / "pdf"
SHARED_PDF = Path(__file__).resolve().parents[3] / "shared" / "eval" / "dev" / "docs" / "pdf"


@pytest.fixture(scope="module")
def handbook():
    return parse_file(DATA / "structured_handbook.pdf").document


def _block(doc, start: str):
    hits = [b for b in doc.blocks if b.text.startswith(start)]
    assert hits, f"no block starts with {start!r}"
    return hits[0]


def test_title_and_heading_tree(handbook):
    assert handbook.title == "测试集团员工手册"
    headings = [(b.text, b.section) for b in handbook.blocks if b.type == "heading"]
    assert headings == [
        ("第一章 总则", ["第一章 总则"]),
        ("第二章 薪酬", ["第二章 薪酬"]),
        ("一、工资发放", ["第二章 薪酬", "一、工资发放"]),
        ("二、加班", ["第二章 薪酬", "二、加班"]),
        ("第三章 附则", ["第三章 附则"]),
        ("三、特殊岗位", ["第三章 附则", "三、特殊岗位"]),
    ]


def test_articles_are_clauses_with_section_path(handbook):
    b = _block(handbook, "为规范员工管理")
    assert b.type == "clause" and b.clause == "第一条"
    assert b.section == ["第一章 总则", "第一条"]
    assert (b.page_start, b.page_end) == (1, 1)
    assert b.bbox == [60.0, 149.0, 348.3, 175.0]


def test_running_header_and_page_footer_removed(handbook):
    texts = [b.text for b in handbook.blocks]
    assert not any("第 1 页" in t or t.startswith("第1页") for t in texts)
    assert sum(t == "测试集团员工手册" for t in texts) == 0  # header and title are not body blocks
    assert handbook.meta["headers_footers"] == [
        {"band": "footer", "text": "#", "kind": "page_number", "pages": 3},
        {"band": "header", "text": "测试集团员工手册", "kind": "repeated", "pages": 3},
    ]


def test_paragraph_across_page_break_is_merged(handbook):
    b = _block(handbook, "员工工资由基本工资")
    assert b.text.endswith("七日内向人力资源部书面提出复核申请")
    assert (b.page_start, b.page_end) == (1, 2)
    assert [box["page"] for box in b.meta["boxes"]] == [1, 2]
    assert b.section == ["第二章 薪酬", "一、工资发放"]


def test_table_across_page_break_is_one_table(handbook):
    tables = [b for b in handbook.blocks if b.type == "table"]
    assert len(tables) == 2
    t = tables[0]
    assert t.table_header == ["工龄", "年休假", "备注"]
    assert t.table_rows == [["1年以上不满10年", "5天", "含法定节假日外"],
                            ["10年以上不满20年", "10天", "同上"],
                            ["20年以上", "15天", "同上"]]  # repeated header on page 3 dropped
    assert (t.page_start, t.page_end) == (2, 3)
    assert t.meta["caption"] == "表1年休假天数"
    assert t.meta["context_after"] == "注：年休假不跨年度安排。"
    assert t.meta["strategy"] == "lines"
    assert "工龄：20年以上；年休假：15天" in t.text


def test_merged_cells_carry_the_value(handbook):
    t = [b for b in handbook.blocks if b.type == "table"][1]
    assert t.table_header == ["类别", "项目", "标准"]
    assert [r[0] for r in t.table_rows] == ["津贴", "津贴", "津贴", "补贴"]
    assert t.table_rows[1] == ["津贴", "夜班", "50元"]
    assert t.section == ["第三章 附则", "三、特殊岗位"]


def test_every_block_has_page_and_bbox(handbook):
    for b in handbook.blocks:
        assert b.page_start is not None and b.page_end >= b.page_start, b
        assert b.bbox is None or len(b.bbox) == 4
        if b.type != "note":
            assert b.bbox is not None, b


def test_maturity_score(handbook):
    m = handbook.meta["maturity"]
    assert m["score"] == 100
    assert set(m) >= {"text_layer", "text_quality", "headings", "tables", "notes"}


def test_cid_glyphs_flag_the_page():
    r = parse_file(DATA / "cid_glyphs.pdf")
    # pdfminer's complaint about the font is one coded W014 line, not a log line per glyph
    assert [w[:4] for w in r.warnings] == ["W014", "W003"]
    assert "(Could not get FontBBox from font descriptor b… ×1)" in r.warnings[0]
    assert r.document.meta["flagged_pages"] == [{"page": 1, "reason": "cid", "cid_glyphs": 3, "chars": 10}]
    assert [b.text for b in r.document.blocks] == ["Page one"]  # (cid:N) glyphs never reach the text
    assert r.document.meta["maturity"]["text_layer"] == 1.0
    assert r.document.meta["maturity"]["text_quality"] == 0.7


def test_page_without_text_layer_is_flagged():
    r = parse_file(DATA / "scanned_page.pdf")
    assert r.warnings == [f"W004: Page 2 of {DATA / 'scanned_page.pdf'} has no text layer (scanned?). "
                          "Install tesseract with chi_sim to OCR it."]
    assert r.document.meta["flagged_pages"] == [{"page": 2, "reason": "no_text"}]
    assert r.document.meta["maturity"]["text_layer"] == 0.5


def test_encrypted_pdf_needs_password():
    path = DATA / "encrypted_secret.pdf"
    with pytest.raises(LoopAgentError) as exc:
        parse_file(path)
    assert exc.value.code == "E007" and "no password given" in str(exc.value)
    with pytest.raises(LoopAgentError) as exc:
        parse_pdf(path, path.read_bytes(), path.name, password="wrong")
    assert exc.value.code == "E007" and "wrong password" in str(exc.value)
    doc = parse_pdf(path, path.read_bytes(), path.name, password="secret").document
    assert [b.text for b in doc.blocks] == ["Encrypted body text."]


@pytest.mark.parametrize("name, code", [("truncated.pdf", "E005"), ("zero_pages.pdf", "E008")])
def test_broken_pdfs_raise_coded_errors(name, code):
    with pytest.raises(LoopAgentError) as exc:
        parse_file(DATA / name)
    assert exc.value.code == code


def test_text_named_pdf_is_e013(tmp_path):
    p = tmp_path / "garbage.pdf"
    p.write_bytes(b"this is not a pdf at all\n" * 10)
    with pytest.raises(LoopAgentError) as exc:
        parse_file(p)
    assert exc.value.code == "E013"  # content sniffing: the suffix only suggests the format
    assert "is not a pdf file (its content looks like plain text)" in exc.value.message


def test_settings_are_validated():
    with pytest.raises(LoopAgentError) as exc:
        PdfSettings(band=0.7)
    assert exc.value.code == "E303" and "PdfSettings.band" in str(exc.value)


@pytest.mark.parametrize("raw, clean", [
    ("⽤⼾⼿册", "用户手册"),                 # Kangxi radicals, ⼾ to the simplified 户
    ("数据⻓度，⻅附录", "数据长度，见附录"),   # CJK radical supplement look-alikes
    ("扣款 30 元\x01", "扣款30元"),           # layout spaces and control characters
    ("① 本人如实填写", "①本人如实填写"),      # circled labels survive NFKC
    ("Communication Protocol", "Communication Protocol"),
])
def test_clean_text(raw, clean):
    assert clean_text(raw) == clean


# --- the dev PDFs (evaluation only; never copied into the repository) -------------------

def _dev(name: str):
    path = SHARED_PDF / name
    if not path.exists():
        pytest.skip(f"{path} not present")
    return parse_file(path).document


@pytest.mark.shared
def test_dev_handbook_structure():
    doc = _dev("yisu_xianhua_employee_handbook.pdf")
    assert doc.title == "易速鲜花员工手册"
    assert doc.meta["headers_footers"][1]["text"] == "易速鲜花集团"
    assert not any(b.text == "易速鲜花集团" for b in doc.blocks)
    leave = _block(doc, "2、事假")
    assert (leave.page_start, leave.page_end) == (22, 23)  # merged across the page break
    assert "一个月请事假最多不得超过10天，超过的（含10天）扣发当月薪资" in leave.text
    assert leave.section == ["第四章 规章制度", "第二节 假别"]
    late = _block(doc, "B: 9:11- 9:20到")
    assert late.text == "B: 9:11- 9:20到,即迟到11-20分钟/次,扣款30元"
    assert late.section == ["第四章 规章制度", "第一节 考勤制度", "四、迟到、早退和旷工的奖惩制度:"]
    assert [b.text for b in doc.blocks if b.type == "heading"][:4] == [
        "董事长致辞", "易速鲜花晨会宣言", "易速鲜花简介", "第一章 人事管理制度"]
    assert _block(doc, "① 本人如实填写").type == "list_item"
    assert any(b.meta.get("toc") for b in doc.blocks)


@pytest.mark.shared
def test_dev_manual_spec_table_carries_merged_category():
    doc = _dev("onero_actuator_manual_zh.pdf")
    tables = [b for b in doc.blocks if b.type == "table"]
    assert len(tables) == 2
    t = tables[1]
    assert t.section == ["4. XD5757-1/2", "4.2 电机规格"]
    assert t.table_header == ["类型", "名称", "规格"]
    assert ["性能参数", "额定扭矩", "15N.m"] in t.table_rows
    assert ["性能参数", "峰值扭矩", "30N.m"] in t.table_rows
    assert ["接口参数", "通信端子", "XT30(2+2)"] in t.table_rows
    assert "支持20V〜55V供电" in _block(doc, "• 宽电压供电范围").text


@pytest.mark.shared
def test_dev_protocol_register_table_spans_two_pages():
    doc = _dev("onero_actuator_protocol_zh.pdf")
    (t,) = [b for b in doc.blocks if b.type == "table"]
    assert (t.page_start, t.page_end) == (6, 7)
    assert t.table_header[0] == "寄存器地址(十进制)"
    assert len(t.table_rows) == 26
    assert t.table_rows[-1] == ["36", "sub_ver", "子版本号", "RO", "/", "uint32"]
    assert t.section == ["三、附录", "寄存器列表及范围"]
    err = _block(doc, "• ERR表示状态")
    assert "C――电机线圈过温" in err.text


# --- memory on a long document -----------------------------------------------------------

@pytest.mark.slow
def test_memory_stays_flat_on_a_long_pdf(tmp_path):
    pytest.importorskip("reportlab")
    root = Path(__file__).resolve().parents[2]
    sizes = {}
    for pages in (100, 1000):
        pdf = tmp_path / f"long{pages}.pdf"
        subprocess.run([sys.executable, str(root / "scripts" / "make_test_pdfs.py"), "--long", str(pages), str(pdf)],
                       check=True)
        code = ("import resource,sys;from pathlib import Path;from pipeline.ingest import parse_file;"
                f"d=parse_file(Path({str(pdf)!r})).document;assert d.meta['pages']=={pages};"
                "print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)")
        out = subprocess.run([sys.executable, "-c", code], check=True, capture_output=True, text=True,
                             env={**os.environ, "PYTHONPATH": str(root)})
        sizes[pages] = int(out.stdout.split()[-1])  # KiB
    # ten times the pages may cost the extracted text, not the parsed page objects
    assert sizes[1000] - sizes[100] < 150_000, sizes
    assert resource  # keeps the import used in environments without the slow marker


# --- evidence images ---------------------------------------------------------------------

def test_render_evidence_crops_and_highlights(handbook, tmp_path):
    from PIL import Image

    from pipeline.ingest.render import render_evidence

    b = _block(handbook, "为规范员工管理")
    out = render_evidence(DATA / "structured_handbook.pdf", b.page_start, b.bbox, "根据国家有关法律法规",
                          tmp_path / "ev.png", resolution=72)
    img = Image.open(out).convert("RGB")
    # full page width, block height plus 24 pt of context above and below
    assert img.size == (420, round(b.bbox[3] - b.bbox[1] + 48))
    yellow = [(x, y) for x in range(img.width) for y in range(img.height)
              if img.getpixel((x, y))[2] < 150 and img.getpixel((x, y))[0] > 240]
    # the highlight covers the ten 11-pt characters of the phrase, after "第一条 为规范员工管理，"
    xs = [x for x, _ in yellow]
    assert 60 + 11 * 11 < min(xs) < 60 + 11 * 12 + 3 and abs((max(xs) - min(xs)) - 10 * 11) <= 2


def test_render_evidence_rejects_a_missing_page(tmp_path):
    from pipeline.ingest.render import render_evidence

    with pytest.raises(LoopAgentError) as exc:
        render_evidence(DATA / "structured_handbook.pdf", 9, None, None, tmp_path / "x.png")
    assert exc.value.code == "E303"
