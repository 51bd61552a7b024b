"""Evidence images: a PDF page crop around a block with the evidence sentence highlighted.

Used by ``loopagent show BLOCK_ID --image out.png`` (and later the web page). Rendering
goes through pdfplumber's pypdfium2 backend; nothing else is needed.
"""
from __future__ import annotations

import io
from pathlib import Path
from typing import Optional

import pdfplumber

from ..errors import LoopAgentError
from .cjk import clean_text

PAD = 24.0  # points of context kept above and below the block
HIGHLIGHT = (255, 220, 0, 110)
OUTLINE = (220, 40, 40, 255)


def render_evidence(pdf_path: Path, page: int, bbox: Optional[list[float]], highlight_text: Optional[str],
                    out: Path, resolution: int = 110, password: Optional[str] = None) -> Path:
    """Write a PNG of page ``page`` (1-based) cropped to ``bbox`` [x0, top, x1, bottom] (PDF points,
    full page width kept for context), the block outlined and ``highlight_text`` marked in yellow.

    >>> render_evidence(Path("manual.pdf"), 5, [48, 73, 555, 657], "15N.m", Path("ev.png"))  # doctest: +SKIP
    """
    from PIL import Image, ImageDraw

    pdf_path, out = Path(pdf_path), Path(out)
    if not pdf_path.exists():
        raise LoopAgentError("E001", path=str(pdf_path))
    try:
        pdf = pdfplumber.open(pdf_path, password=password or "")
    except Exception as exc:
        raise LoopAgentError("E005", path=str(pdf_path), detail=f"{type(exc).__name__}: {exc}") from exc
    with pdf:
        if not 1 <= page <= len(pdf.pages):
            raise LoopAgentError("E303", name="page", value=page, why=f"{pdf_path} has {len(pdf.pages)} pages",
                                 allowed=f"1..{len(pdf.pages)}")
        p = pdf.pages[page - 1]
        width, height = float(p.width), float(p.height)
        crop = (0.0, 0.0, width, height)
        if bbox:
            crop = (0.0, max(0.0, bbox[1] - PAD), width, min(height, bbox[3] + PAD))
        marks = _text_boxes(p, highlight_text, bbox) if highlight_text else []
        img = p.crop(crop).to_image(resolution=resolution).original.convert("RGBA")
        p.close()
    scale = resolution / 72.0
    overlay = Image.new("RGBA", img.size, (0, 0, 0, 0))
    draw = ImageDraw.Draw(overlay)

    def px(box):
        return [(box[0] - crop[0]) * scale, (box[1] - crop[1]) * scale,
                (box[2] - crop[0]) * scale, (box[3] - crop[1]) * scale]

    for box in marks:
        draw.rectangle(px(box), fill=HIGHLIGHT)
    if bbox:
        draw.rectangle(px([bbox[0] - 2, bbox[1] - 2, bbox[2] + 2, bbox[3] + 2]), outline=OUTLINE, width=2)
    img = Image.alpha_composite(img, overlay).convert("RGB")
    out.parent.mkdir(parents=True, exist_ok=True)
    buf = io.BytesIO()
    img.save(buf, format="PNG")
    out.write_bytes(buf.getvalue())
    return out


def _text_boxes(page, text: str, bbox: Optional[list[float]]) -> list[list[float]]:
    """Boxes (one per line) of the characters spelling ``text`` (cleaned the way ingest cleans it),
    searched inside ``bbox`` first, then on the whole page."""
    target = clean_text(text).replace(" ", "")
    if not target:
        return []
    chars = [c for c in page.chars if not c["text"].isspace()]
    regions = [chars]
    if bbox:
        inside = [c for c in chars if bbox[0] - 2 <= (c["x0"] + c["x1"]) / 2 <= bbox[2] + 2
                  and bbox[1] - 2 <= (c["top"] + c["bottom"]) / 2 <= bbox[3] + 2]
        regions.insert(0, inside)
    for region in regions:
        region = sorted(region, key=lambda c: (round(c["top"]), c["x0"]))
        # clean each glyph separately so that offsets in the joined string map back to glyphs
        pieces = [clean_text(c["text"]).replace(" ", "") for c in region]
        joined, owner = "", []
        for i, piece in enumerate(pieces):
            joined += piece
            owner.extend([i] * len(piece))
        at = joined.find(target)
        if at < 0:
            continue
        hit = [region[i] for i in sorted(set(owner[at:at + len(target)]))]
        return _line_boxes(hit)
    return []


def _line_boxes(chars: list[dict]) -> list[list[float]]:
    boxes: list[list[float]] = []
    for c in chars:
        if boxes and abs(c["top"] - boxes[-1][1]) < 0.5 * (c["bottom"] - c["top"]):
            b = boxes[-1]
            boxes[-1] = [min(b[0], c["x0"]), min(b[1], c["top"]), max(b[2], c["x1"]), max(b[3], c["bottom"])]
        else:
            boxes.append([c["x0"], c["top"], c["x1"], c["bottom"]])
    return boxes
