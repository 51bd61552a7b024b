"""Word (.docx) ingest with python-docx: heading styles, numbered paragraphs and tables in body order."""
from __future__ import annotations

import io
import re
import zipfile
from pathlib import Path

from .. import cues
from ..errors import LoopAgentError
from ..text import normalize
from .base import ParseResult, find_effective_date, new_document
from .structure import DocBuilder, classify

# Word style names of headings and titles: rules/pipeline_cues.yaml ingest.docx_*
_HEADING_STYLE = re.compile(cues.pattern("ingest.docx_heading_style"), re.I)
_TITLE_STYLES = cues.words("ingest.docx_title_styles")


def parse_docx(path: Path, raw: bytes, source: str) -> ParseResult:
    """Parse a .docx; 'Heading N' styles become headings, tables keep their first row as header."""
    try:
        import docx  # python-docx
        from docx.table import Table
        from docx.text.paragraph import Paragraph
    except ImportError as exc:  # pragma: no cover - core dependency
        raise LoopAgentError("E005", path=str(path), detail=f"python-docx missing ({exc})") from exc
    if not raw.strip():
        raise LoopAgentError("E003", path=str(path))
    try:
        document = docx.Document(io.BytesIO(raw))
    except (zipfile.BadZipFile, KeyError, ValueError) as exc:
        raise LoopAgentError("E005", path=str(path), detail=f"not a valid .docx ({exc})") from exc

    title = (document.core_properties.title or "").strip() or None
    doc = new_document(path, raw, source, "docx", title=title)
    builder = DocBuilder(doc)
    pending_title = title is None
    for child in document.element.body.iterchildren():
        tag = child.tag.rsplit("}", 1)[-1]
        if tag == "p":
            para = Paragraph(child, document)
            text = normalize(para.text).strip()
            if not text:
                continue
            style = (para.style.name if para.style is not None else "") or ""
            if style.lower() == "title" or (pending_title and style.lower().startswith(_TITLE_STYLES) and not builder.blocks):
                doc.title = text
                pending_title = False
                continue
            m = _HEADING_STYLE.match(style)
            if m:
                lk = classify(text)
                if lk.kind == "article":
                    builder.article(lk.label, lk.rest)
                else:
                    builder.heading(text, lk.rank if lk.rank is not None else int(m.group(1)) + 2)
                continue
            if style.lower().startswith("list"):
                lk = classify(text)
                builder.list_item(lk.label or "•", lk.rest if lk.label else text)
                continue
            builder.feed_line(text)
        elif tag == "tbl":
            rows = _table_rows(Table(child, document))
            if not rows:
                continue
            caption = builder.blocks[-1].text if builder.blocks and len(builder.blocks[-1].text) <= 40 else ""
            builder.table(rows[0], rows[1:], caption=caption)
    if doc.title == doc.source and builder.blocks:
        doc.title = path.stem
    doc.blocks = builder.blocks
    doc.effective_date = find_effective_date([b.text for b in doc.blocks[-30:]])
    return ParseResult(doc)


def _table_rows(table) -> list[list[str]]:
    """Rows of cell texts; horizontally merged cells repeat their value, as Word reports them."""
    rows = []
    for row in table.rows:
        cells = [normalize(c.text).strip().replace("\n", " ") for c in row.cells]
        if any(cells):
            rows.append(cells)
    return rows
