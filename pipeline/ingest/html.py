"""HTML ingest: headings h1-h6, paragraphs, lists, tables (rowspan/colspan carried), element ids
as anchors; scripts, styles and navigation stripped.

A block whose element (or enclosing heading) has an ``id`` keeps it in ``meta["anchor"]``, so
evidence can link to ``page.html#anchor``.
"""
from __future__ import annotations

import re
from pathlib import Path
from typing import Optional

from bs4 import BeautifulSoup, NavigableString, Tag

from ..errors import message
from .base import ParseResult, find_effective_date, new_document
from .cjk import clean_text, join_lines
from .limits import current
from .structure import MARKDOWN_RANK, DocBuilder, classify

STRIP = ("script", "style", "noscript", "nav", "header", "footer", "aside", "form", "iframe", "svg",
         "template", "button", "select", "input", "head")
BLOCK_TAGS = {"p", "div", "section", "article", "main", "blockquote", "pre", "ul", "ol", "li", "table",
              "h1", "h2", "h3", "h4", "h5", "h6", "dl", "dt", "dd", "figure", "figcaption", "body", "center"}


def parse_html(path: Path, raw: bytes, source: str) -> ParseResult:
    """Parse an HTML file (encoding from the BOM/meta charset, else detected) into blocks."""
    soup = BeautifulSoup(raw, "html.parser")
    title_tag = soup.find("title")
    title = clean_text(title_tag.get_text(" ")) if title_tag else ""
    for tag in soup.find_all(STRIP):
        tag.decompose()
    for tag in soup.find_all(attrs={"role": ["navigation", "banner", "contentinfo"]}):
        tag.decompose()
    first_h1 = soup.find("h1")
    if not title and first_h1:
        title = clean_text(first_h1.get_text(" "))
    doc = new_document(path, raw, source, "html", title=title or None)
    warnings: list[str] = []
    limit = current().max_html_depth
    if _flatten_deep(soup, limit):  # the walker recurses per level: bound the levels first, iteratively
        warnings.append(message("W016", path=str(path), limit=limit))
    walker = _Walker(DocBuilder(doc), title)
    walker.walk(soup.body or soup)
    walker.flush()
    doc.blocks = walker.b.blocks
    doc.effective_date = find_effective_date([b.text for b in doc.blocks[-30:]])
    return ParseResult(doc, warnings)


def _flatten_deep(root: Tag, limit: int) -> int:
    """Replace every element nested ``limit`` levels deep by its text (an explicit stack, no recursion)."""
    flattened = 0
    stack = [(root, 0)]
    while stack:
        el, depth = stack.pop()
        for child in list(el.children):
            if not isinstance(child, Tag):
                continue
            if depth + 1 >= limit:
                child.replace_with(NavigableString(child.get_text(" ")))
                flattened += 1
            else:
                stack.append((child, depth + 1))
    return flattened


class _Walker:
    def __init__(self, builder: DocBuilder, title: str) -> None:
        self.b = builder
        self.title = title
        self.inline: list[str] = []
        self.anchor: Optional[str] = None

    def walk(self, el: Tag) -> None:
        for child in el.children:
            if isinstance(child, NavigableString):
                if child.strip():
                    self.inline.append(str(child))
                continue
            if not isinstance(child, Tag):
                continue
            name = child.name
            if name == "br":
                self.flush()
            elif re.fullmatch(r"h[1-6]", name):
                self.flush()
                self._heading(child, int(name[1]))
            elif name in ("ul", "ol"):
                self.flush()
                self._list(child, ordered=name == "ol")
            elif name == "table":
                self.flush()
                self._table(child)
            elif name in BLOCK_TAGS:
                self.flush()
                self._remember_anchor(child)
                self.walk(child)
                self.flush()
            else:
                self._remember_anchor(child)
                self.walk(child)

    def _remember_anchor(self, el: Tag) -> None:
        anchor = el.get("id") or (el.get("name") if el.name == "a" else None)
        if anchor and not self.inline:
            self.anchor = str(anchor)

    def flush(self) -> None:
        text = clean_text(join_lines(self.inline)) if self.inline else ""
        self.inline = []
        if not text:
            return
        before = len(self.b.blocks)
        self.b.feed_line(text)
        self._tag_new(before)

    def _tag_new(self, before: int) -> None:
        if self.anchor and len(self.b.blocks) > before:
            self.b.blocks[before].meta["anchor"] = self.anchor
        self.anchor = None

    def _heading(self, el: Tag, level: int) -> None:
        text = clean_text(el.get_text(" "))
        if not text:
            return
        anchor = el.get("id") or next((a.get("id") or a.get("name") for a in el.find_all("a")
                                       if a.get("id") or a.get("name")), None)
        if level == 1 and text == self.title and not self.b.blocks:
            return  # the document title, already in Document.title
        lk = classify(text)
        before = len(self.b.blocks)
        if lk.kind == "article":
            self.b.article(lk.label, lk.rest)
        else:
            rank = lk.rank if lk.rank is not None else MARKDOWN_RANK[level]
            self.b.heading(f"{lk.label} {lk.rest}".strip() if lk.rank is not None else text, max(rank, 1))
        self.anchor = str(anchor) if anchor else None
        self._tag_new(before)

    def _list(self, el: Tag, ordered: bool, depth: int = 0) -> None:
        n = 0
        for li in el.find_all("li", recursive=False):
            n += 1
            nested = li.find_all(["ul", "ol"], recursive=False)
            for sub in nested:
                sub.extract()
            text = clean_text(li.get_text(" "))
            if text:
                before = len(self.b.blocks)
                lk = classify(text)
                if lk.kind != "text":
                    self.b.list_item(lk.label, lk.rest)
                else:
                    self.b.list_item(f"{n}." if ordered else "•", text)
                self.b.blocks[-1].meta["depth"] = depth
                self.anchor = str(li["id"]) if li.get("id") else None
                self._tag_new(before)
            for sub in nested:
                self._list(sub, ordered=sub.name == "ol", depth=depth + 1)

    def _table(self, el: Tag) -> None:
        grid = _grid(el)
        if not grid:
            return
        caption_tag = el.find("caption")
        caption = clean_text(caption_tag.get_text(" ")) if caption_tag else ""
        has_th = bool(el.find("th"))
        header, rows = (grid[0], grid[1:]) if (has_th or len(grid) > 1) else ([""] * len(grid[0]), grid)
        block = self.b.table(header, rows, caption=caption)
        anchor = el.get("id") or self.anchor
        if anchor:
            block.meta["anchor"] = str(anchor)
        self.anchor = None


def _grid(table: Tag) -> list[list[str]]:
    """Rows of cell texts with rowspan/colspan cells repeated over the cells they cover."""
    rows: list[list[str]] = []
    pending: dict[tuple[int, int], str] = {}
    trs = [tr for tr in table.find_all("tr") if tr.find_parent("table") is table]
    for r, tr in enumerate(trs):
        row: list[str] = []
        c = 0
        for cell in tr.find_all(["td", "th"], recursive=False):
            while (r, c) in pending:
                row.append(pending.pop((r, c)))
                c += 1
            text = clean_text(cell.get_text(" "))
            rs, cs = _span(cell.get("rowspan")), _span(cell.get("colspan"))
            for dc in range(cs):
                row.append(text)
                for dr in range(1, rs):
                    pending[(r + dr, c + dc)] = text
            c += cs
        while (r, c) in pending:
            row.append(pending.pop((r, c)))
            c += 1
        if any(row):
            rows.append(row)
    width = max((len(r) for r in rows), default=0)
    return [r + [""] * (width - len(r)) for r in rows]


def _span(value) -> int:
    try:
        return max(1, min(int(str(value)), 1000))
    except (TypeError, ValueError):
        return 1
