"""Structure recognition shared by every format: headings, articles (条), paragraphs (款), list items.

A format parser (Markdown, text, docx, PDF…) feeds lines or paragraphs to a
:class:`DocBuilder`; the builder keeps the heading stack and gives each block its
section path and clause number, so all formats agree on what "第三章 > 第十九条" means.
"""
from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from typing import Optional

from .. import cues
from ..types import Block, Document

CN_NUM = cues.chars("ingest.numerals")  # rules/pipeline_cues.yaml
_NUM = rf"[{CN_NUM}\d]+"

# rank: smaller is higher in the tree. Markdown '#' levels map into the same space.
PART = re.compile(rf"^(第{_NUM}编)\s*(.*)$")
SUBPART = re.compile(rf"^(第{_NUM}分编)\s*(.*)$")
CHAPTER = re.compile(rf"^(第{_NUM}章)\s*(.*)$")
SECTION = re.compile(rf"^(第{_NUM}节)\s*(.*)$")
ARTICLE = re.compile(rf"^(第{_NUM}条(?:之[{CN_NUM}]+)?)(?:\s+|(?=[\u4e00-\u9fff“（]))(.*)$", re.S)
CN_ENUM = re.compile(rf"^([{CN_NUM}]+、)\s*(.*)$", re.S)
PAREN_CN = re.compile(rf"^([（(][{CN_NUM}]+[)）])\s*(.*)$", re.S)
DOTTED = re.compile(r"^(\d+(?:\.\d+){1,4})\.?(?:\s+|(?=[\u4e00-\u9fff]))(.*)$", re.S)
ARABIC = re.compile(r"^(\d{1,2}[.．、])(?!\d)\s*(.*)$", re.S)
PAREN_AR = re.compile(r"^([（(]\d{1,2}[)）])\s*(.*)$", re.S)
HALF_AR = re.compile(r"^(\d{1,2}[)）])\s*(.*)$", re.S)  # 1）连接… / 2) 选择…: steps numbered with a closing bracket
BULLET = re.compile(r"^([-*+•●○■◆·])\s+(.*)$", re.S)
APPENDIX = re.compile(cues.pattern("ingest.appendix"))

HEADING_RANKS = {"part": 1, "subpart": 2, "chapter": 3, "section": 4}
MARKDOWN_RANK = {1: 0, 2: 3, 3: 4, 4: 5, 5: 6, 6: 7}


@dataclass(frozen=True)
class LineKind:
    """What a line is: its structural kind, numbering label, remaining text, and rank if a heading."""

    kind: str  # part/subpart/chapter/section/article/enum/item/dotted/numbered/item_ar/item_half/bullet/text
    label: str
    rest: str
    rank: Optional[int] = None


def classify(line: str) -> LineKind:
    """Classify one logical line by its numbering (pure function, no context)."""
    s = line.strip()
    for kind, rx in (("part", PART), ("subpart", SUBPART), ("chapter", CHAPTER), ("section", SECTION)):
        m = rx.match(s)
        if m and len(s) <= 40 and not s.endswith(("。", "；")):
            return LineKind(kind, m.group(1), m.group(2).strip(), HEADING_RANKS[kind])
    m = ARTICLE.match(s)
    if m:
        return LineKind("article", m.group(1), m.group(2).strip())
    for kind, rx in (("enum", CN_ENUM), ("item", PAREN_CN), ("dotted", DOTTED), ("numbered", ARABIC),
                     ("item_ar", PAREN_AR), ("item_half", HALF_AR), ("bullet", BULLET)):
        m = rx.match(s)
        if m:
            return LineKind(kind, m.group(1), m.group(2).strip())
    return LineKind("text", "", s)


def is_heading_like(text: str) -> bool:
    """Short line without sentence-final punctuation: reads as a heading, not a provision."""
    t = text.strip()
    return 0 < len(t) <= 30 and not re.search(r"[。；：，,;]$", t) and "。" not in t


# numbered headings outside articles rank below chapters and sections
ENUM_RANK = {"enum": 5, "dotted": 6, "item": 7, "numbered": 8, "item_ar": 9}


def stable_id(*parts: str) -> str:
    """A short hex id from the given strings (sha1, 16 hex chars)."""
    h = hashlib.sha1("\x1f".join(parts).encode("utf-8")).hexdigest()
    return h[:16]


class DocBuilder:
    """Collects blocks in reading order while tracking the heading stack and the current article."""

    def __init__(self, doc: Document) -> None:
        self.doc = doc
        self.blocks: list[Block] = []
        self._stack: list[tuple[int, str]] = []  # (rank, heading text)
        self._article: Optional[str] = None
        self._numbered: Optional[str] = None  # nearest numbered heading label outside articles
        self._paragraph_no = 0
        self._seen: dict[tuple[str, str], int] = {}

    # --- headings -----------------------------------------------------
    def heading(self, text: str, rank: int, label: Optional[str] = None, **pos) -> Block:
        """Open a heading of ``rank``; closes deeper headings and any open article."""
        text = text.strip()
        while self._stack and self._stack[-1][0] >= rank:
            self._stack.pop()
        self._stack.append((rank, text))
        self._article = None
        self._numbered = label
        return self._add("heading", text, clause=label, **pos)

    def section_path(self) -> list[str]:
        path = [t for _, t in self._stack]
        if self._article:
            path.append(self._article)
        return path

    # --- articles and their paragraphs -----------------------------------
    def article(self, label: str, text: str, **pos) -> Optional[Block]:
        """Start article ``label`` (第十九条); ``text`` is its first paragraph, if on the same line."""
        self._article = label
        self._paragraph_no = 0
        if text.strip():
            return self.paragraph(text, **pos)
        return None

    def paragraph(self, text: str, block_type: Optional[str] = None, **pos) -> Optional[Block]:
        """A paragraph: a 款 inside an article (type clause), else a plain paragraph."""
        text = text.strip()
        if not text:
            return None
        btype = block_type or ("clause" if self._article else "paragraph")
        meta = {}
        if self._article and btype == "clause":
            self._paragraph_no += 1
            meta["paragraph"] = self._paragraph_no
        return self._add(btype, text, meta=meta, **pos)

    def list_item(self, label: str, text: str, **pos) -> Block:
        """An enumerated item such as （一）… or 1. …, kept with its label."""
        full = f"{label}{text}" if label.startswith(("（", "(")) or label.endswith(("、", ".", "．", ")", "）")) \
            else f"{label} {text}"
        return self._add("list_item", full.strip(), meta={"label": label}, **pos)

    def table(self, header: list[str], rows: list[list[str]], caption: str = "", **pos) -> Block:
        """A table; its text is the caption plus rows as 'header: cell' pairs, so it is searchable."""
        lines = [caption] if caption else []
        for row in rows:
            cells = []
            for i, cell in enumerate(row):
                h = header[i] if i < len(header) else ""
                if cell:
                    cells.append(f"{h}：{cell}" if h and h != cell else cell)
            lines.append("；".join(cells) + "。" if cells else "")
        text = "\n".join(x for x in lines if x)
        return self._add("table", text or " | ".join(header), table_header=list(header),
                         table_rows=[list(r) for r in rows], meta={"caption": caption} if caption else {}, **pos)

    def note(self, text: str, **pos) -> Optional[Block]:
        return self._add("note", text.strip(), **pos) if text.strip() else None

    # --- internals ---------------------------------------------------------
    def _add(self, btype: str, text: str, clause: Optional[str] = None, meta: Optional[dict] = None,
             page_start: Optional[int] = None, page_end: Optional[int] = None, bbox=None,
             table_header=None, table_rows=None) -> Block:
        order = len(self.blocks)
        section = self.section_path()
        # id from document, place and text (not position), so an edit elsewhere keeps this id
        key = ("/".join(section), text)
        dup = self._seen.get(key, 0)
        self._seen[key] = dup + 1
        block = Block(
            block_id=stable_id(self.doc.doc_id, key[0], text, str(dup)),
            doc_id=self.doc.doc_id, type=btype, text=text, order=order, section=section,
            clause=clause or self._article or self._numbered, page_start=page_start,
            page_end=page_end if page_end is not None else page_start, bbox=bbox,
            table_header=table_header, table_rows=table_rows, meta=meta or {},
        )
        self.blocks.append(block)
        return block

    @property
    def in_article(self) -> bool:
        return self._article is not None

    def feed_line(self, line: str, **pos) -> None:
        """Route one logical line (a paragraph of text) through :func:`classify`."""
        lk = classify(line)
        if lk.rank is not None:
            self.heading(f"{lk.label} {lk.rest}".strip(), lk.rank, label=None, **pos)
        elif lk.kind == "article":
            self.article(lk.label, lk.rest, **pos)
        elif lk.kind in ("item", "item_ar", "item_half", "bullet") or (lk.kind in ENUM_RANK and self.in_article):
            self.list_item(lk.label, lk.rest, **pos)
        elif lk.kind in ENUM_RANK and is_heading_like(lk.rest):
            self.heading(f"{lk.label}{lk.rest}" if lk.label.endswith("、") else f"{lk.label} {lk.rest}",
                         ENUM_RANK[lk.kind], label=lk.label.rstrip("、.．"), **pos)
        elif lk.kind in ENUM_RANK:
            self.list_item(lk.label, lk.rest, **pos)
        else:
            self.paragraph(line, **pos)
