"""PDF ingest with pdfplumber: lines in reading order, headings from font statistics, tables,
running headers/footers removed, paragraphs and tables merged across page breaks.

Every block carries ``page_start``/``page_end`` and a ``bbox`` [x0, top, x1, bottom] in PDF
points on ``page_start`` (pdfplumber's coordinates); a block that crosses a page lists one
box per page in ``meta["boxes"]``. Document-level findings go to ``Document.meta``:
``headers_footers``, ``flagged_pages``, ``maturity`` (0-100 with its components), ``toc``.

Pages are read one at a time and closed at once, so memory does not grow with the page
count beyond the extracted text.
"""
from __future__ import annotations

import contextlib
import io
import logging
import re
import shutil
import subprocess
import tempfile
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterator, Optional

import pdfplumber
from pdfplumber.utils.exceptions import PdfminerException

from .. import cues
from ..errors import LoopAgentError, message
from ..types import Block
from .base import ParseResult, find_effective_date, new_document
from .cjk import clean_text, join_lines
from .limits import check_pages
from .maturity import maturity_score
from .structure import ENUM_RANK, DocBuilder, classify, is_heading_like

_BOLD = re.compile(r"bold|black|heavy|semibold|demibold", re.I)
_BULLET = re.compile(r"^([•◦▪‣●○■□◆◇►▶➢✓✔·\-*+])\s*(.+)$", re.S)
_CIRCLED = re.compile(r"^([①-⑳])\s*(.+)$", re.S)
_TOC = re.compile(r"(?:\.{4,}|…{2,}|·{4,}|(?:\. ){4,})\s*\d+$")
_PAGE_NO = re.compile(cues.pattern("ingest.pdf_page_number"), re.I)  # rules/pipeline_cues.yaml
_UNTITLED = frozenset(cues.words("ingest.untitled"))
_LETTER_ITEM = re.compile(r"^[A-Za-z][:：.、)）]")
_SENTENCE_MARKS = re.compile(r"[，,：！？。；“”\"]")
_SENTENCE_END = ("。", "！", "？", "!", "?", "；", ";")
ADAPTIVE_BASE = 5  # numbered/font headings rank below statutory 编/分编/章/节 (1-4)


@dataclass(frozen=True)
class PdfSettings:
    """Layout thresholds; the defaults suit Chinese documents set in 9-16 pt."""

    band: float = 0.12              # top/bottom share of the page searched for running headers/footers
    repeat_ratio: float = 0.3       # share of pages a line must repeat on to count as header/footer
    heading_size_delta: float = 1.2  # points above the body size that make a short line a heading
    max_heading_chars: int = 50
    dedupe_tolerance: float = 1.0   # fake-bold duplicate glyphs closer than this (pt) are dropped
    space_ratio: float = 0.25       # a gap wider than this share of the font size is a space
    ocr: bool = True                # OCR pages without a text layer when tesseract (chi_sim) is installed
    ocr_resolution: int = 200       # dpi of the page image handed to tesseract

    def __post_init__(self) -> None:
        checks = {
            "band": (0.0 < self.band < 0.5, "(0, 0.5)"),
            "repeat_ratio": (0.0 < self.repeat_ratio <= 1.0, "(0, 1]"),
            "heading_size_delta": (self.heading_size_delta > 0, "> 0"),
            "max_heading_chars": (self.max_heading_chars > 0, "> 0"),
            "dedupe_tolerance": (self.dedupe_tolerance >= 0, ">= 0"),
            "space_ratio": (self.space_ratio > 0, "> 0"),
            "ocr_resolution": (72 <= self.ocr_resolution <= 600, "72..600"),
        }
        for name, (ok, allowed) in checks.items():
            if not ok:
                raise LoopAgentError("E303", name=f"PdfSettings.{name}", value=getattr(self, name),
                                     why="out of range", allowed=allowed)


@dataclass
class Line:
    """One visual line of a page, cleaned, with its box and dominant font."""

    page: int
    text: str
    x0: float
    x1: float
    top: float
    bottom: float
    size: float
    bold: bool
    role: str = "body"  # body | header | footer | title | toc


@dataclass
class PdfTable:
    page: int
    bbox: tuple[float, float, float, float]
    rows: list[list[str]]
    strategy: str

    @property
    def ncols(self) -> int:
        return max((len(r) for r in self.rows), default=0)


@dataclass
class PageData:
    number: int
    width: float
    height: float
    lines: list[Line] = field(default_factory=list)
    tables: list[PdfTable] = field(default_factory=list)
    n_chars: int = 0
    n_cid: int = 0
    error: Optional[str] = None
    ocr: bool = False  # the lines came from OCR (no text layer)


# --- entry point ---------------------------------------------------------------

def parse_pdf(path: Path, raw: bytes, source: str, password: Optional[str] = None,
              settings: Optional[PdfSettings] = None) -> ParseResult:
    """Parse a PDF into blocks with pages, boxes, section paths and tables (see module doc)."""
    settings = settings or PdfSettings()
    warnings: list[str] = []
    pages: list[PageData] = []
    with quiet_pdfminer() as tally, _open(path, raw, password) as pdf:
        meta_title = str(pdf.metadata.get("Title") or "").strip()
        for number, page in _iter_pages(pdf, path):
            pages.append(_read_page(page, number, settings))
        if not pages:
            raise LoopAgentError("E008", path=str(path))
    doc = new_document(path, raw, source, "pdf")
    summary = tally.summary(path)
    if summary:
        warnings.append(summary)
    flagged = _flag_pages(pages, path, warnings)
    layout = _Layout.analyse(pages, settings)
    title = layout.title or (meta_title if _useful_title(meta_title) else None)
    if title:
        doc.title = title
    builder = DocBuilder(doc)
    asm = _Assembler(builder, layout, settings)
    asm.run(pages)
    doc.blocks = builder.blocks
    doc.effective_date = find_effective_date([b.text for b in doc.blocks[-30:]])
    doc.meta.update({
        "pages": len(pages),
        "headers_footers": layout.running,
        "flagged_pages": flagged,
        "cid_pages": [f["page"] for f in flagged if f["reason"] == "cid"],
        "body_font_size": layout.body_size,
        "tables": sum(1 for b in doc.blocks if b.type == "table"),
        "headings": sum(1 for b in doc.blocks if b.type == "heading"),
    })
    if asm.toc:
        doc.meta["toc"] = asm.toc
    doc.meta["maturity"] = maturity_score(doc, pages_total=len(pages),
                                          pages_with_text=sum(1 for p in pages if p.n_chars > p.n_cid),
                                          chars=sum(p.n_chars for p in pages),
                                          bad_chars=sum(p.n_cid for p in pages),
                                          table_quality=asm.table_quality)
    return ParseResult(doc, warnings)


class _Tally(logging.Handler):
    """Counts pdfminer's warnings by kind instead of printing one line per glyph."""

    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.kinds: Counter = Counter()

    def emit(self, record: logging.LogRecord) -> None:
        msg = " ".join(str(record.msg).split())  # the template, not the formatted text: one kind per message
        self.kinds[(msg[:45] + "…" if len(msg) > 46 else msg) or record.name] += 1

    def summary(self, path: Path) -> Optional[str]:
        """One W014 line for the file, or None when pdfminer said nothing."""
        if not self.kinds:
            return None
        kinds = ", ".join(f"{k} ×{n}" for k, n in self.kinds.most_common(3))
        return message("W014", n=sum(self.kinds.values()), path=str(path), kinds=kinds)


@contextlib.contextmanager
def quiet_pdfminer() -> Iterator[_Tally]:
    """pdfminer logs a warning per glyph for some fonts (FontBBox): tallied, summarised once per file."""
    log = logging.getLogger("pdfminer")
    old = (log.level, log.propagate, list(log.handlers))
    tally = _Tally()
    log.setLevel(logging.WARNING)
    log.propagate = False
    log.handlers = [tally]
    try:
        yield tally
    finally:
        log.setLevel(old[0])
        log.propagate = old[1]
        log.handlers = old[2]


@contextlib.contextmanager
def _open(path: Path, raw: bytes, password: Optional[str]):
    try:
        pdf = pdfplumber.open(io.BytesIO(raw), password=password or "")
    except PdfminerException as exc:
        inner = exc.args[0] if exc.args else exc
        name = type(inner).__name__
        if "Password" in name or "Encryption" in name:
            detail = "wrong password" if password else "no password given"
            if "Encryption" in name:
                detail = f"unsupported encryption: {inner}"
            raise LoopAgentError("E007", path=str(path), detail=detail) from exc
        raise LoopAgentError("E005", path=str(path), detail=f"{name}: {inner}") from exc
    except Exception as exc:  # pdfminer raises plain errors on garbage input
        raise LoopAgentError("E005", path=str(path), detail=f"{type(exc).__name__}: {exc}") from exc
    try:
        yield pdf
    finally:
        pdf.close()


def _iter_pages(pdf, path: Path):
    try:
        plist = pdf.pages
    except Exception as exc:
        raise LoopAgentError("E005", path=str(path), detail=f"page tree unreadable: {exc}") from exc
    check_pages(path, len(plist))  # E011 over the page limit; a long file earns watchdog time
    for i, page in enumerate(plist):
        yield i + 1, page
        # release the page's parsed objects and layout now: pdfplumber caches them otherwise
        page.close()


def _useful_title(t: str) -> bool:
    return bool(t) and t.lower() not in _UNTITLED and not t.lower().startswith(
        ("microsoft word", "untitled"))


# --- one page ----------------------------------------------------------------------

def _read_page(page, number: int, settings: PdfSettings) -> PageData:
    data = PageData(number=number, width=float(page.width), height=float(page.height))
    try:
        dp = page.dedupe_chars(tolerance=settings.dedupe_tolerance)
        chars = dp.chars
        data.n_chars = sum(1 for c in chars if not c["text"].isspace())
        data.n_cid = sum(1 for c in chars if c["text"].startswith("(cid:"))
        data.tables = _find_tables(dp, number)
        boxes = [t.bbox for t in data.tables]
        body = [c for c in chars if not _inside(c, boxes) and not c["text"].startswith("(cid:")]
        data.lines = _build_lines(body, number, settings)
        if data.n_chars == 0 and settings.ocr and ocr_available():
            data.lines = _ocr_lines(page, number, settings)
            data.ocr = bool(data.lines)
    except Exception as exc:  # one broken page must not lose the document
        data.error = f"{type(exc).__name__}: {exc}"
    return data


def ocr_available() -> bool:
    """Whether Debian's tesseract with the chi_sim language is installed (the optional OCR path)."""
    if shutil.which("tesseract") is None:
        return False
    try:
        out = subprocess.run(["tesseract", "--list-langs"], capture_output=True, text=True, timeout=20).stdout
    except (OSError, subprocess.SubprocessError):
        return False
    return "chi_sim" in out.split()


def _ocr_lines(page, number: int, settings: PdfSettings) -> list[Line]:
    """Recognise a page without a text layer with tesseract (chi_sim+eng) into Lines in PDF points."""
    scale = 72.0 / settings.ocr_resolution
    img = page.to_image(resolution=settings.ocr_resolution).original
    with tempfile.TemporaryDirectory() as tmp:
        png = Path(tmp) / "page.png"
        img.save(png)
        tsv = subprocess.run(["tesseract", str(png), "-", "-l", "chi_sim+eng", "--psm", "6", "tsv"],
                             capture_output=True, text=True, timeout=120).stdout
    rows: dict[tuple, list[dict]] = {}
    for line in tsv.splitlines()[1:]:
        f = line.split("\t")
        if len(f) < 12 or not f[11].strip() or float(f[10]) < 0:
            continue
        key = (f[2], f[3], f[4])  # block, paragraph, line
        rows.setdefault(key, []).append({"text": f[11], "left": int(f[6]), "top": int(f[7]),
                                         "width": int(f[8]), "height": int(f[9]), "conf": float(f[10])})
    out = []
    for words in rows.values():
        if sum(w["conf"] for w in words) / len(words) < 50:
            continue  # rules, boxes and stains come back as low-confidence noise
        words.sort(key=lambda w: w["left"])
        text = clean_text(join_lines([" ".join(w["text"] for w in words)]))
        text = re.sub(r"(?<=[\u3000-\u9fff\uff00-\uffef]) +(?=[\u3000-\u9fff\uff00-\uffef\d])|(?<=\d) +(?=[\u3000-\u9fff])", "", text)
        if len(re.findall(r"[\w\u4e00-\u9fff]", text)) < 2:
            continue
        x0 = min(w["left"] for w in words) * scale
        x1 = max(w["left"] + w["width"] for w in words) * scale
        top = min(w["top"] for w in words) * scale
        bottom = max(w["top"] + w["height"] for w in words) * scale
        out.append(Line(page=number, text=text, x0=x0, x1=x1, top=top, bottom=bottom,
                        size=round(bottom - top, 1), bold=False))
    out.sort(key=lambda l: (l.top, l.x0))
    return out


def _inside(c: dict, boxes: list) -> bool:
    cx, cy = (c["x0"] + c["x1"]) / 2, (c["top"] + c["bottom"]) / 2
    return any(b[0] <= cx <= b[2] and b[1] <= cy <= b[3] for b in boxes)


def _build_lines(chars: list[dict], number: int, settings: PdfSettings) -> list[Line]:
    """Group characters into lines by vertical overlap, then order each line left to right."""
    groups: list[list[dict]] = []
    band = (0.0, 0.0)
    for c in sorted(chars, key=lambda c: (round(c["top"], 1), c["x0"])):
        if groups:
            h = max(min(c["bottom"] - c["top"], band[1] - band[0]), 0.1)
            overlap = min(c["bottom"], band[1]) - max(c["top"], band[0])
            if overlap >= 0.5 * h:
                groups[-1].append(c)
                band = (min(band[0], c["top"]), max(band[1], c["bottom"]))
                continue
        groups.append([c])
        band = (c["top"], c["bottom"])
    lines = []
    for g in groups:
        line = _make_line(sorted(g, key=lambda c: c["x0"]), number, settings)
        if line is not None:
            lines.append(line)
    return lines


def _make_line(chars: list[dict], number: int, settings: PdfSettings) -> Optional[Line]:
    parts: list[str] = []
    prev = None
    for c in chars:
        if prev is not None and c["x0"] - prev["x1"] > settings.space_ratio * max(c["size"], 1.0):
            parts.append(" ")
        # some producers (Chromium) map the space glyph to a control character such as \x01
        parts.append(" " if len(c["text"]) == 1 and ord(c["text"]) < 32 else c["text"])
        prev = c
    text = clean_text("".join(parts))
    if not text:
        return None
    ink = [c for c in chars if not c["text"].isspace()] or chars
    sizes = sorted(round(c["size"], 1) for c in ink if not _BULLET.match(c["text"] + " x")) or \
        sorted(round(c["size"], 1) for c in ink)
    size = sizes[len(sizes) // 2]
    bold = sum(1 for c in ink if _BOLD.search(c.get("fontname", ""))) * 2 > len(ink)
    return Line(page=number, text=text, x0=min(c["x0"] for c in chars), x1=max(c["x1"] for c in chars),
                top=min(c["top"] for c in chars), bottom=max(c["bottom"] for c in chars), size=size, bold=bold)


def _find_tables(page, number: int) -> list[PdfTable]:
    """Ruled tables first; if none, tables drawn with horizontal rules only (三线表) by text columns."""
    out = [t for t in (_table(tb, number, "lines") for tb in page.find_tables()) if t]
    if not out and _has_rules(page):
        settings = {"vertical_strategy": "text", "horizontal_strategy": "lines"}
        out = [t for t in (_table(tb, number, "text") for tb in page.find_tables(settings)) if t]
    return out


def _has_rules(page) -> bool:
    """At least three horizontal rules of the same width inside the page margins."""
    width = float(page.width)
    widths = Counter(round(e["x1"] - e["x0"]) for e in page.horizontal_edges
                     if 0.3 * width < e["x1"] - e["x0"] < 0.97 * width)
    return any(n >= 3 for n in widths.values())


def _table(tb, number: int, strategy: str) -> Optional[PdfTable]:
    raw = tb.extract()
    rows = _carry_merged(tb, raw)
    rows = [r for r in rows if any(r)]
    if len(rows) < 2 or max(len(r) for r in rows) < 2:
        return None
    cells = [c for r in rows for c in r]
    if strategy == "text" and sum(1 for c in cells if c) < 0.6 * len(cells):
        return None  # text columns that do not fill a grid are prose, not a table
    x0, top, x1, bottom = tb.bbox
    return PdfTable(page=number, bbox=(float(x0), float(top), float(x1), float(bottom)), rows=rows,
                    strategy=strategy)


def _carry_merged(tb, raw: list[list[Optional[str]]]) -> list[list[str]]:
    """Cells covered by a merged cell (None in pdfplumber) take the merged cell's text."""
    anchors: list[tuple[tuple, int, int]] = []
    for r, row in enumerate(tb.rows):
        for c, cell in enumerate(row.cells):
            if cell is not None:
                anchors.append((cell, r, c))
    col_x = [((col.bbox[0] + col.bbox[2]) / 2) for col in tb.columns]
    row_y = [((row.bbox[1] + row.bbox[3]) / 2) for row in tb.rows]
    out: list[list[str]] = []
    for r, row in enumerate(raw):
        new_row = []
        for c, val in enumerate(row):
            if val is None and r < len(row_y) and c < len(col_x):
                x, y = col_x[c], row_y[r]
                for box, r0, c0 in anchors:
                    if box[0] <= x <= box[2] and box[1] <= y <= box[3]:
                        val = raw[r0][c0]
                        break
            new_row.append(_cell_text(val))
        out.append(new_row)
    return out


def _cell_text(val: Optional[str]) -> str:
    if not val:
        return ""
    val = re.sub(r"[\x00-\x1f]", lambda m: "\n" if m.group(0) == "\n" else " ", val)
    return clean_text(join_lines([clean_text(x) for x in val.split("\n")]))


def _flag_pages(pages: list[PageData], path: Path, warnings: list[str]) -> list[dict]:
    flagged = []
    for p in pages:
        if p.error:
            warnings.append(message("W006", page=p.number, path=str(path), detail=p.error))
            flagged.append({"page": p.number, "reason": "unreadable", "detail": p.error})
        elif p.n_cid:
            warnings.append(message("W003", page=p.number, path=str(path)))
            flagged.append({"page": p.number, "reason": "cid", "cid_glyphs": p.n_cid, "chars": p.n_chars})
        elif p.ocr:
            warnings.append(message("W009", page=p.number, path=str(path)))
            flagged.append({"page": p.number, "reason": "ocr", "lines": len(p.lines)})
        elif p.n_chars == 0:
            warnings.append(message("W004", page=p.number, path=str(path)))
            flagged.append({"page": p.number, "reason": "no_text"})
    return flagged


# --- document layout ---------------------------------------------------------------

@dataclass
class _Layout:
    """Document-wide statistics: body font size, text margins, running lines, title."""

    body_size: float
    left: float
    right: float
    running: list[dict]
    title: Optional[str]

    @classmethod
    def analyse(cls, pages: list[PageData], settings: PdfSettings) -> "_Layout":
        running = _mark_running(pages, settings)
        sizes: Counter = Counter()
        lefts: Counter = Counter()
        rights: Counter = Counter()
        for p in pages:
            for ln in p.lines:
                if ln.role != "body":
                    continue
                if _TOC.search(ln.text):
                    ln.role = "toc"
                    continue
                sizes[ln.size] += len(ln.text)
                if len(ln.text) >= 8:
                    lefts[round(ln.x0)] += 1
                    rights[round(ln.x1 / 2) * 2] += 1
        body = sizes.most_common(1)[0][0] if sizes else 10.0
        left = lefts.most_common(1)[0][0] if lefts else 0.0
        right = max(rights.most_common(3))[0] if rights else (pages[0].width if pages else 600.0)
        title = _mark_title(pages[0], body) if pages else None
        return cls(body_size=body, left=float(left), right=float(right), running=running, title=title)


def _mark_running(pages: list[PageData], settings: PdfSettings) -> list[dict]:
    """Mark lines repeated in the top/bottom band of many pages (digits may change) as header/footer."""
    seen: dict[tuple[str, str], list[Line]] = {}
    found: dict[tuple[str, str], dict] = {}
    for p in pages:
        for ln in p.lines:
            if ln.bottom <= p.height * settings.band:
                band = "header"
            elif ln.top >= p.height * (1 - settings.band):
                band = "footer"
            else:
                continue
            if _PAGE_NO.match(ln.text):
                ln.role = band
                entry = found.setdefault((band, "#page"), {"band": band, "text": "#", "kind": "page_number",
                                                           "pages": 0})
                entry["pages"] += 1
                continue
            seen.setdefault((band, re.sub(r"\d+", "#", ln.text)), []).append(ln)
    n = len(pages)
    need = max(3, int(settings.repeat_ratio * n + 0.999)) if n > 4 else n
    for (band, key), lines in seen.items():
        if n < 2 or len({ln.page for ln in lines}) < need:
            continue
        tops = sorted(ln.top for ln in lines)
        mid = tops[len(tops) // 2]
        same = [ln for ln in lines if abs(ln.top - mid) <= 6]
        if len({ln.page for ln in same}) < need:
            continue
        for ln in same:
            ln.role = band
        found[(band, key)] = {"band": band, "text": same[0].text, "kind": "repeated",
                              "pages": len({ln.page for ln in same})}
    return sorted(found.values(), key=lambda d: (d["band"], -d["pages"]))


def _mark_title(first: PageData, body: float) -> Optional[str]:
    """The largest text on page 1 (consecutive lines of that size) if clearly above body size."""
    lines = [ln for ln in first.lines if ln.role == "body"]
    if not lines:
        return None
    big = max(ln.size for ln in lines)
    if big < body * 1.3:
        return None
    chosen = [ln for ln in lines if abs(ln.size - big) < 0.5]
    # one block of consecutive lines only (a vertical title is one glyph per line)
    block = [chosen[0]]
    for ln in chosen[1:]:
        if ln.top - block[-1].bottom > 1.5 * big:
            break
        block.append(ln)
    text = join_lines([ln.text for ln in block])
    if classify(text).kind != "text":
        return None  # a numbered chapter or article on page 1 is structure, not the title
    for ln in block:
        ln.role = "title"
    return text


# --- blocks --------------------------------------------------------------------------

@dataclass
class _PendingTable:
    header: list[str]
    rows: list[list[str]]
    caption: str
    context_before: str
    strategy: str
    boxes: list[dict]
    ncols: int
    page_end: int


class _Assembler:
    """Walks lines and tables in reading order and feeds the DocBuilder."""

    def __init__(self, builder: DocBuilder, layout: _Layout, settings: PdfSettings) -> None:
        self.b = builder
        self.lay = layout
        self.s = settings
        self.buf: list[Line] = []
        self.buf_heading = False
        self.styles: list[str] = []
        self.table: Optional[_PendingTable] = None
        self.last_table_block: Optional[Block] = None
        self.last_line: Optional[Line] = None
        self.toc: list[str] = []
        self.toc_buf: list[str] = []
        self.table_quality: list[float] = []

    def run(self, pages: list[PageData]) -> None:
        for p in pages:
            items: list[tuple[float, int, object]] = [(ln.top, 0, ln) for ln in p.lines
                                                      if ln.role in ("body", "toc")]
            items += [(t.bbox[1], 1, t) for t in p.tables]
            items.sort(key=lambda x: (x[0], x[1]))
            for idx, (_, kind, el) in enumerate(items):
                if kind == 1:
                    self._on_table(el, first_on_page=idx == 0)  # type: ignore[arg-type]
                else:
                    self._on_line(el)  # type: ignore[arg-type]
        self._flush()
        if self.toc_buf:
            self._emit_toc()
        self._flush_table(None)

    # lines ---------------------------------------------------------------------
    def _on_line(self, ln: Line) -> None:
        if self.table is not None:
            self._flush_table(ln)
        if ln.role == "toc":
            self._flush()
            self.toc_buf.append(ln.text)
            return
        if self.toc_buf:
            self._emit_toc()
        heading = self._is_font_heading(ln)
        if heading:
            if self.buf_heading and self.buf and self._same_heading(self.buf[-1], ln):
                self.buf.append(ln)
            else:
                self._flush()
                self.buf, self.buf_heading = [ln], True
        elif self.buf and not self.buf_heading and self._continues(self.buf[-1], ln):
            self.buf.append(ln)
        else:
            self._flush()
            self.buf, self.buf_heading = [ln], False
        self.last_line = ln

    def _emit_toc(self) -> None:
        """Table-of-contents lines become one note block (never headings: they repeat the real ones)."""
        entries, self.toc_buf = self.toc_buf, []
        block = self.b.note("\n".join(entries))
        if block is not None:
            block.meta["toc"] = True
        self.toc.extend(entries)

    def _is_font_heading(self, ln: Line) -> bool:
        t = ln.text
        if len(t) > self.s.max_heading_chars or re.search(r"[。；;，,：:、]$", t):
            return False
        if _BULLET.match(t) or _CIRCLED.match(t):
            return False
        body = self.lay.body_size
        if ln.size >= body + self.s.heading_size_delta:
            return True
        if ln.bold and ln.size >= body - 0.1 and len(t) <= 30:
            return True
        lk = classify(t)
        centre = (self.lay.left + self.lay.right) / 2
        centred = abs((ln.x0 + ln.x1) / 2 - centre) < 0.08 * (self.lay.right - self.lay.left) \
            and ln.x0 > self.lay.left + 2 * ln.size
        return centred and len(t) <= 30 and (lk.rank is not None or lk.kind in ENUM_RANK)

    def _same_heading(self, prev: Line, ln: Line) -> bool:
        return prev.page == ln.page and abs(prev.size - ln.size) < 0.5 and ln.top - prev.bottom < 0.8 * ln.size

    def _full(self, ln: Line) -> bool:
        return ln.x1 >= self.lay.right - 1.5 * ln.size

    def _continues(self, prev: Line, ln: Line) -> bool:
        """Whether ``ln`` continues the paragraph whose last line is ``prev``."""
        t = ln.text
        if classify(t).kind != "text" or _BULLET.match(t) or _CIRCLED.match(t) or _LETTER_ITEM.match(t):
            return False
        if abs(ln.size - prev.size) > 1.5:
            return False
        if not self._full(prev) or self._indented(ln):
            return False
        if prev.page != ln.page:
            # a page break: continue only a full last line that did not end a sentence
            return ln.page == prev.page + 1 and not prev.text.endswith(_SENTENCE_END + ("：", ":"))
        return ln.top - prev.bottom <= 1.5 * max(ln.size, prev.size)

    def _indented(self, ln: Line) -> bool:
        first = self.buf[0].text
        if _BULLET.match(first) or _CIRCLED.match(first) or classify(first).kind != "text":
            return False  # hanging indent of a list item
        return ln.x0 > min(x.x0 for x in self.buf) + 1.0 * ln.size

    def _flush(self) -> None:
        if not self.buf:
            return
        lines, self.buf = self.buf, []
        if self.buf_heading:
            self._heading(lines)
        else:
            self._paragraph(lines)
        self.buf_heading = False

    def _pos(self, lines: list[Line]) -> tuple[dict, list[dict]]:
        boxes: list[dict] = []
        for ln in lines:
            if boxes and boxes[-1]["page"] == ln.page:
                b = boxes[-1]["bbox"]
                boxes[-1]["bbox"] = [min(b[0], ln.x0), min(b[1], ln.top), max(b[2], ln.x1), max(b[3], ln.bottom)]
            else:
                boxes.append({"page": ln.page, "bbox": [ln.x0, ln.top, ln.x1, ln.bottom]})
        for box in boxes:
            box["bbox"] = [round(v, 1) for v in box["bbox"]]
        pos = {"page_start": boxes[0]["page"], "page_end": boxes[-1]["page"], "bbox": boxes[0]["bbox"]}
        return pos, boxes

    @staticmethod
    def _boxes(block: Optional[Block], boxes: list[dict]) -> None:
        if block is not None and len(boxes) > 1:
            block.meta["boxes"] = boxes

    def _rank(self, style: str) -> int:
        """Rank of an adaptive heading style: the first style met is highest, later ones nest."""
        if style in self.styles:
            del self.styles[self.styles.index(style) + 1:]
        else:
            self.styles.append(style)
        return ADAPTIVE_BASE + len(self.styles) - 1

    def _heading(self, lines: list[Line]) -> None:
        text = join_lines([ln.text for ln in lines])
        pos, boxes = self._pos(lines)
        lk = classify(text)
        if lk.rank is not None:
            self.styles.clear()
            block = self.b.heading(f"{lk.label} {lk.rest}".strip(), lk.rank, **pos)
        elif lk.kind == "article":
            block = self.b.article(lk.label, lk.rest, **pos)
        else:
            style = _style(lk.kind, lk.label) if lk.kind != "text" else f"font:{lines[0].size}:{lines[0].bold}"
            block = self.b.heading(_label_text(lk.kind, lk.label, lk.rest, text), self._rank(style),
                                   label=lk.label.rstrip("、.．") or None, **pos)
        self._boxes(block, boxes)

    def _paragraph(self, lines: list[Line]) -> None:
        text = join_lines([ln.text for ln in lines])
        pos, boxes = self._pos(lines)
        lk = classify(text)
        m = _BULLET.match(text) or _CIRCLED.match(text)
        if m:
            block = self.b.list_item(m.group(1), m.group(2).strip(), **pos)
        elif lk.rank is not None:
            self.styles.clear()
            block = self.b.heading(f"{lk.label} {lk.rest}".strip(), lk.rank, **pos)
        elif lk.kind == "article":
            block = self.b.article(lk.label, lk.rest, **pos)
        elif (lk.kind in ENUM_RANK and len(lines) == 1 and not self.b.in_article and lk.rest
              and is_heading_like(lk.rest) and len(lk.rest) <= 20 and not _SENTENCE_MARKS.search(lk.rest)):
            block = self.b.heading(_label_text(lk.kind, lk.label, lk.rest, text), self._rank(_style(lk.kind, lk.label)),
                                   label=lk.label.rstrip("、.．"), **pos)
        elif lk.kind != "text":
            block = self.b.list_item(lk.label, lk.rest, **pos)
        else:
            block = self.b.paragraph(text, **pos)
        self._boxes(block, boxes)

    # tables --------------------------------------------------------------------
    def _on_table(self, t: PdfTable, first_on_page: bool) -> None:
        self._flush()
        pend = self.table
        box = {"page": t.page, "bbox": [round(v, 1) for v in t.bbox]}
        if pend is not None and first_on_page and pend.page_end == t.page - 1 and pend.ncols == t.ncols:
            rows = t.rows[1:] if t.rows and t.rows[0] == pend.header else t.rows
            pend.rows.extend(rows)
            pend.boxes.append(box)
            pend.page_end = t.page
            return
        self._flush_table(None)
        before = ""
        ln = self.last_line
        if ln is not None and ln.page == t.page and 0 <= t.bbox[1] - ln.bottom <= 3 * ln.size + 6:
            before = ln.text
        caption = before if before and len(before) <= 60 else ""
        self.table = _PendingTable(header=t.rows[0], rows=t.rows[1:], caption=caption, context_before=before,
                                   strategy=t.strategy, boxes=[box], ncols=t.ncols, page_end=t.page)

    def _flush_table(self, next_line: Optional[Line]) -> None:
        pend, self.table = self.table, None
        if pend is None:
            return
        first = pend.boxes[0]
        block = self.b.table(pend.header, pend.rows, caption=pend.caption, page_start=first["page"],
                             page_end=pend.page_end, bbox=first["bbox"])
        block.meta.update({"strategy": pend.strategy, "context_before": pend.context_before})
        if len(pend.boxes) > 1:
            block.meta["boxes"] = pend.boxes
        last = pend.boxes[-1]
        if next_line is not None and next_line.page == last["page"] and \
                next_line.top - last["bbox"][3] <= 3 * next_line.size + 6:
            block.meta["context_after"] = next_line.text
        self.table_quality.append(_table_quality(pend.header, pend.rows, pend.ncols))


def _style(kind: str, label: str) -> str:
    if kind == "dotted":
        return f"dotted{label.count('.') + 1}"
    if kind == "numbered":
        return "numbered" + label[-1]
    return kind


def _label_text(kind: str, label: str, rest: str, text: str) -> str:
    if kind == "text" or not rest:
        return text
    return f"{label}{rest}" if label.endswith(("、", "）", ")")) else f"{label} {rest}"


def _table_quality(header: list[str], rows: list[list[str]], ncols: int) -> float:
    """Share of well-formed cells: rows as wide as the header, header and cells filled."""
    if not rows:
        return 0.5
    same_width = sum(1 for r in rows if len(r) == ncols) / len(rows)
    header_filled = sum(1 for h in header if h) / max(len(header), 1)
    cells = [c for r in rows for c in r]
    filled = sum(1 for c in cells if c) / max(len(cells), 1)
    return round((same_width + header_filled + filled) / 3, 3)
