"""Excel (.xlsx) ingest: each sheet a heading plus its table; the header row is detected, merged
cells carry their value, and long sheets are split into table blocks of ``ROWS_PER_BLOCK`` rows
that repeat the header, so each row stays addressable as (sheet, row header, column header).

Block meta: ``sheet``, ``first_row`` (the spreadsheet row number of the block's first data row),
``caption`` (title lines above the header).
"""
from __future__ import annotations

import datetime as dt
import io
from pathlib import Path

from openpyxl import load_workbook

from .. import cues
from ..errors import LoopAgentError
from .base import ParseResult, new_document
from .cjk import clean_text
from .structure import DocBuilder

_YES_NO = {str(k): str(v) for k, v in cues.table("value.boolean_words").items()}  # rules/pipeline_cues.yaml

ROWS_PER_BLOCK = 30
HEADER_SCAN = 10  # rows searched for the header


def parse_xlsx(path: Path, raw: bytes, source: str) -> ParseResult:
    """Parse every visible sheet of a workbook into a heading and table blocks."""
    try:
        wb = load_workbook(io.BytesIO(raw), data_only=True)
    except Exception as exc:  # zipfile/openpyxl raise many kinds on corrupt files
        raise LoopAgentError("E005", path=str(path), detail=f"{type(exc).__name__}: {exc}") from exc
    title = (wb.properties.title or "").strip() or None
    doc = new_document(path, raw, source, "xlsx", title=title)
    builder = DocBuilder(doc)
    warnings: list[str] = []
    hidden = []
    for ws in wb.worksheets:
        if ws.sheet_state != "visible":
            hidden.append(ws.title)
            continue
        grid = _sheet_grid(ws)
        if not grid:
            continue
        builder.heading(clean_text(ws.title) or "Sheet", 1)
        _sheet_blocks(builder, ws.title, grid)
    if hidden:
        doc.meta["hidden_sheets"] = hidden
    doc.blocks = builder.blocks
    wb.close()
    return ParseResult(doc, warnings)


def _sheet_grid(ws) -> list[tuple[int, list[str]]]:
    """(row number, cell texts) for non-empty rows, merged ranges filled, empty columns dropped."""
    values: dict[tuple[int, int], str] = {}
    for row in ws.iter_rows():
        for cell in row:
            text = _text(cell.value)
            if text:
                values[(cell.row, cell.column)] = text
    for rng in ws.merged_cells.ranges:
        top = values.get((rng.min_row, rng.min_col), "")
        for r in range(rng.min_row, rng.max_row + 1):
            for c in range(rng.min_col, rng.max_col + 1):
                if top:
                    values[(r, c)] = top
    if not values:
        return []
    cols = sorted({c for _, c in values})
    rows = sorted({r for r, _ in values})
    return [(r, [values.get((r, c), "") for c in cols]) for r in rows]


def _text(value) -> str:
    if value is None:
        return ""
    if isinstance(value, bool):
        return _YES_NO["yes" if value else "no"]
    if isinstance(value, float):
        return str(int(value)) if value.is_integer() else repr(round(value, 10))
    if isinstance(value, dt.datetime):
        return value.date().isoformat() if value.time() == dt.time(0) else value.isoformat(sep=" ")
    if isinstance(value, (dt.date, dt.time)):
        return value.isoformat()
    return clean_text(str(value).replace("\n", " "))


def _header_index(grid: list[tuple[int, list[str]]]) -> int:
    """The first row (of the first few) that is mostly filled with non-numeric labels and has rows below."""
    width = len(grid[0][1])
    for i, (_, cells) in enumerate(grid[:HEADER_SCAN]):
        filled = [c for c in cells if c]
        # a merged title row repeats one text over the columns: not a header
        if i + 1 < len(grid) and len(filled) >= max(2, 0.6 * width) and len(set(filled)) >= 2 \
                and not any(_numeric(c) for c in filled):
            return i
    return 0


def _numeric(text: str) -> bool:
    try:
        float(text.replace(",", "").rstrip("%"))
        return True
    except ValueError:
        return False


def _sheet_blocks(builder: DocBuilder, sheet: str, grid: list[tuple[int, list[str]]]) -> None:
    h = _header_index(grid)
    # title lines above the header; a merged title repeats over its columns, keep it once
    caption = "；".join(" ".join(dict.fromkeys(c for c in cells if c)) for _, cells in grid[:h] if any(cells))
    header = grid[h][1]
    body = grid[h + 1:]
    if not body:
        body, header = grid[h:], [""] * len(header)
    for start in range(0, len(body), ROWS_PER_BLOCK):
        chunk = body[start:start + ROWS_PER_BLOCK]
        block = builder.table(header, [cells for _, cells in chunk], caption=caption)
        block.meta.update({"sheet": sheet, "first_row": chunk[0][0], "header_row": grid[h][0]})
