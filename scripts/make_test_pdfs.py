"""Generate the small PDF fixtures under tests/data/pdf/ (needs reportlab: `pip install reportlab`).

Each file reproduces one layout problem the PDF parser must handle; the tests assert exact
values on them, so regenerate only when you change a test with it:

    python scripts/make_test_pdfs.py            # writes tests/data/pdf/*.pdf
    python scripts/make_test_pdfs.py --long 1000 /tmp/long.pdf   # a long document for benchmarks
"""
from __future__ import annotations

import argparse
import io
import zlib
from pathlib import Path

OUT = Path(__file__).resolve().parent.parent / "tests" / "data" / "pdf"
FONT = "STSong-Light"  # reportlab's built-in CID font: no font file needed
W, H = 420.0, 595.0    # A5 portrait, points
LEFT, CHARS, BODY = 60.0, 27, 11.0  # body text: 27 CJK characters of 11 pt fill a line
RIGHT = LEFT + CHARS * BODY


def _canvas(buf, **kw):
    from reportlab.pdfbase import pdfmetrics
    from reportlab.pdfbase.cidfonts import UnicodeCIDFont
    from reportlab.pdfgen import canvas

    pdfmetrics.registerFont(UnicodeCIDFont(FONT))
    c = canvas.Canvas(buf, pagesize=(W, H), pageCompression=0, invariant=1, **kw)
    c.setTitle("Docs")
    return c


class Writer:
    """Draws lines top-down on pages with a running header and a page-numbered footer."""

    def __init__(self, c, header: str = "测试集团员工手册") -> None:
        self.c = c
        self.header = header
        self.page = 0
        self._start_page()

    def _start_page(self) -> None:
        self.page += 1
        self.y = 80.0  # distance from the top of the page
        self.c.setFont(FONT, 9)
        self.c.drawCentredString(W / 2, H - 40, self.header)
        self.c.drawCentredString(W / 2, 30, f"第 {self.page} 页")

    def new_page(self) -> None:
        self.c.showPage()
        self._start_page()

    def line(self, text: str, size: float = BODY, x: float = LEFT, centred: bool = False, gap: float = 6.0) -> None:
        if self.y + size > H - 70:
            self.new_page()
        self.c.setFont(FONT, size)
        if centred:
            self.c.drawCentredString(W / 2, H - self.y - size, text)
        else:
            self.c.drawString(x, H - self.y - size, text)
        self.y += size + gap

    def paragraph(self, text: str, indent: bool = True) -> None:
        """Wrap at CHARS characters (a full line reaches the right margin); first line indented 2 chars."""
        first = CHARS - 2 if indent else CHARS
        lines = [text[:first]]
        rest = text[first:]
        while rest:
            lines.append(rest[:CHARS])
            rest = rest[CHARS:]
        for i, ln in enumerate(lines):
            self.line(ln, x=LEFT + (2 * BODY if indent and i == 0 else 0), gap=4.0)
        self.y += 6


def table(w: Writer, rows: list[list[str]], widths: list[float], merge_col0: tuple[int, int] | None = None,
          row_h: float = 20.0) -> None:
    """A ruled table drawn from the current position; ``merge_col0`` = (first, last) row merged in column 0."""
    c = w.c
    top = H - w.y
    xs = [LEFT]
    for wd in widths:
        xs.append(xs[-1] + wd)
    n = len(rows)
    for i in range(n + 1):
        y = top - i * row_h
        inside = merge_col0 and merge_col0[0] < i <= merge_col0[1]
        c.line(xs[1] if inside else xs[0], y, xs[-1], y)
    for x in xs:
        c.line(x, top, x, top - n * row_h)
    c.setFont(FONT, 10)
    for r, row in enumerate(rows):
        for col, cell in enumerate(row):
            if cell:
                c.drawString(xs[col] + 3, top - r * row_h - 14, cell)
    w.y += n * row_h + 10


LONG_PARA = ("员工工资由基本工资、岗位津贴和绩效工资组成，公司每月十五日以银行转账方式发放上月工资，"
             "遇法定节假日顺延至节后第一个工作日发放，员工对工资有异议的可以在发放后七日内向人力资源部书面提出复核申请")


def make_structured(path: Path) -> None:
    """Title, chapters, articles, a paragraph across a page break, a table across a page break."""
    buf = io.BytesIO()
    c = _canvas(buf)
    w = Writer(c)
    w.line("测试集团员工手册", size=22, centred=True, gap=18)
    w.line("第一章 总则", size=16, centred=True, gap=10)
    w.paragraph("第一条 为规范员工管理，根据国家有关法律法规，制定本手册。", indent=False)
    w.paragraph("第二条 本手册适用于公司全体员工。", indent=False)
    w.line("第二章 薪酬", size=16, centred=True, gap=10)
    w.line("一、工资发放", size=BODY, gap=8)
    # fill page 1 so that LONG_PARA breaks across pages 1 and 2
    while w.y < H - 70 - 3 * (BODY + 4):
        w.paragraph("公司实行岗位绩效工资制度。")
    w.paragraph(LONG_PARA)
    w.line("二、加班", size=BODY, gap=8)
    w.paragraph("加班须经部门经理书面批准，未经批准的不计加班。")
    header = ["工龄", "年休假", "备注"]
    rows = [header, ["1年以上不满10年", "5天", "含法定节假日外"], ["10年以上不满20年", "10天", "同上"]]
    # the table starts near the bottom of page 2 and continues on page 3 with a repeated header
    while w.y < H - 70 - len(rows) * 20 - 5 - 2 * (BODY + 6):
        w.paragraph("年休假由部门统一安排。")
    w.line("表1 年休假天数", size=BODY, gap=4)
    table(w, rows, [130, 80, 110])
    w.new_page()
    table(w, [header, ["20年以上", "15天", "同上"]], [130, 80, 110])
    w.line("注：年休假不跨年度安排。", gap=10)
    w.line("第三章 附则", size=16, centred=True, gap=10)
    w.line("三、特殊岗位", size=BODY, gap=8)
    table(w, [["类别", "项目", "标准"], ["津贴", "高温", "300元"], ["", "夜班", "50元"], ["", "出差", "100元"],
              ["补贴", "通讯", "200元"]], [80, 100, 100], merge_col0=(1, 3))
    w.paragraph("第三条 本手册自2024年1月1日起施行。", indent=False)
    c.save()
    path.write_bytes(buf.getvalue())


def make_scanned(path: Path) -> None:
    """Page 1 has text; page 2 holds only an image (a scan without a text layer)."""
    from reportlab.lib.utils import ImageReader
    from PIL import Image, ImageDraw

    buf = io.BytesIO()
    c = _canvas(buf)
    c.setFont(FONT, 12)
    c.drawString(LEFT, H - 100, "第一条 本页有文字层。")
    c.showPage()
    img = Image.new("L", (200, 100), 255)
    ImageDraw.Draw(img).rectangle([20, 20, 180, 80], outline=0, width=3)
    c.drawImage(ImageReader(img), LEFT, H - 300, width=200, height=100)
    c.showPage()
    c.save()
    path.write_bytes(buf.getvalue())


def make_scanned_text(path: Path, font: str = "/usr/share/fonts/truetype/wqy/wqy-microhei.ttc") -> None:
    """One page that is only an image of Chinese text (a scan): OCR must recover its provisions.

    Needs a CJK TrueType font to draw the image (Debian: fonts-wqy-microhei); the PDF is committed.
    """
    from reportlab.lib.utils import ImageReader
    from PIL import Image, ImageDraw, ImageFont

    lines = ["第一条 员工迟到的，每次扣款30元。", "第二条 员工结婚的，享受婚假3天。"]
    img = Image.new("L", (1400, 260), 255)
    draw = ImageDraw.Draw(img)
    face = ImageFont.truetype(font, 48)
    for i, line in enumerate(lines):
        draw.text((40, 40 + i * 100), line, font=face, fill=0)
    buf = io.BytesIO()
    c = _canvas(buf)
    c.drawImage(ImageReader(img), LEFT, H - 200, width=420, height=78)
    c.showPage()
    c.save()
    path.write_bytes(buf.getvalue())


def make_encrypted(path: Path, password: str = "secret") -> None:
    from reportlab.lib import pdfencrypt

    buf = io.BytesIO()
    c = _canvas(buf, encrypt=pdfencrypt.StandardEncryption(password, canPrint=1))
    # Latin text: pdfminer does not decode reportlab's CID encoding once the file is encrypted
    c.setFont("Helvetica", 12)
    c.drawString(LEFT, H - 100, "Encrypted body text.")
    c.showPage()
    c.save()
    path.write_bytes(buf.getvalue())


def make_cid(path: Path) -> None:
    """A Type0 font with Identity-H encoding and no ToUnicode map: text extracts as (cid:N)."""
    content = b"BT /F1 12 Tf 60 500 Td <0ab10b2c0c3d> Tj ET\nBT /F2 12 Tf 60 460 Td (Page one) Tj ET"
    objs = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 420 595] /Contents 4 0 R "
        b"/Resources << /Font << /F1 5 0 R /F2 7 0 R >> >> >>",
        b"<< /Length %d >>\nstream\n" % len(content) + content + b"\nendstream",
        b"<< /Type /Font /Subtype /Type0 /BaseFont /NoMapFont /Encoding /Identity-H /DescendantFonts [6 0 R] >>",
        b"<< /Type /Font /Subtype /CIDFontType2 /BaseFont /NoMapFont "
        b"/CIDSystemInfo << /Registry (Adobe) /Ordering (Identity) /Supplement 0 >> /DW 1000 >>",
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
    ]
    path.write_bytes(_raw_pdf(objs))


def make_zero_pages(path: Path) -> None:
    path.write_bytes(_raw_pdf([b"<< /Type /Catalog /Pages 2 0 R >>", b"<< /Type /Pages /Kids [] /Count 0 >>"]))


def _raw_pdf(objs: list[bytes]) -> bytes:
    out = bytearray(b"%PDF-1.4\n")
    offsets = []
    for i, body in enumerate(objs, 1):
        offsets.append(len(out))
        out += b"%d 0 obj\n" % i + body + b"\nendobj\n"
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objs) + 1)
    for off in offsets:
        out += b"%010d 00000 n \n" % off
    out += b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (len(objs) + 1, xref)
    return bytes(out)


def make_long(path: Path, pages: int) -> None:
    """A long generated document (one article per page) for memory and speed checks."""
    buf = path.open("wb")
    c = _canvas(buf)
    w = Writer(c, header="长文档测试")
    for i in range(1, pages + 1):
        w.line(f"第{i}章 测试章节", size=16, centred=True, gap=10)
        for _ in range(6):
            w.paragraph(LONG_PARA)
        if i < pages:
            w.new_page()
    c.save()
    buf.close()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--long", type=int, help="write only a long document with this many pages")
    ap.add_argument("out", nargs="?", help="output file for --long")
    args = ap.parse_args()
    if args.long:
        make_long(Path(args.out or "/tmp/long.pdf"), args.long)
        return
    OUT.mkdir(parents=True, exist_ok=True)
    make_structured(OUT / "structured_handbook.pdf")
    raw = (OUT / "structured_handbook.pdf").read_bytes()
    (OUT / "truncated.pdf").write_bytes(raw[: len(raw) // 3])
    make_scanned(OUT / "scanned_page.pdf")
    if Path("/usr/share/fonts/truetype/wqy/wqy-microhei.ttc").exists():
        make_scanned_text(OUT / "scanned_text.pdf")
    make_encrypted(OUT / "encrypted_secret.pdf")
    make_cid(OUT / "cid_glyphs.pdf")
    make_zero_pages(OUT / "zero_pages.pdf")
    for p in sorted(OUT.glob("*.pdf")):
        print(f"{p.relative_to(OUT.parent.parent.parent)}  {p.stat().st_size} bytes")


if __name__ == "__main__":
    main()
