"""Markdown and plain-text ingest: statutes (第X章/第X条), notices (一、（一）), lists and pipe tables."""
from __future__ import annotations

import re
from pathlib import Path

from .. import cues
from ..text import normalize
from .base import ParseResult, decode_text, find_effective_date, iso_date, new_document
from .structure import MARKDOWN_RANK, DocBuilder, classify

INFO_END = "<!-- INFO END -->"
_MD_HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*#*$")
_TABLE_SEP = re.compile(r"^\|?\s*:?-{2,}:?\s*(\|\s*:?-{2,}:?\s*)*\|?$")
_MD_LIST = re.compile(r"^\s*(?:[-*+]|\d+[.)])\s+")
_HTML_COMMENT = re.compile(r"<!--.*?-->", re.S)
# front matter: --- on the first line, key: value lines, --- alone on a line (at most 60 lines between)
_FRONT_MATTER = re.compile(r"\A\ufeff?---[ \t]*\n((?:.*\n){0,60}?)---[ \t]*(?:\n|\Z)")
_STRONG = re.compile(r"\*\*(?=\S)(.+?)(?<=\S)\*\*|__(?=\S)(.+?)(?<=\S)__")
_ESCAPE = re.compile(r"\\([\\`*_{}\[\]()#+\-.!|])")
_FIELD = re.compile(r"^([^:：\s][^:：]{0,30})[:：]\s*(.*)$")


def parse_markdown(path: Path, raw: bytes, source: str) -> ParseResult:
    """Parse a Markdown file; header lines before ``<!-- INFO END -->`` are metadata, not body."""
    return _parse(path, raw, source, kind="markdown", markdown=True)


def parse_text(path: Path, raw: bytes, source: str) -> ParseResult:
    """Parse plain text with the same structure rules (numbering-based headings only)."""
    return _parse(path, raw, source, kind="text", markdown=False)


def _parse(path: Path, raw: bytes, source: str, kind: str, markdown: bool) -> ParseResult:
    warnings: list[str] = []
    text = normalize(decode_text(path, raw, warnings).replace("\r\n", "\n").replace("\r", "\n"))
    title, header_lines, body = _split_header(text, markdown)
    doc = new_document(path, raw, source, kind, title=title)
    if header_lines:
        doc.meta["header"] = header_lines
        dates = [d for d in (iso_date(x) for x in header_lines) if d]
        if dates:
            doc.meta["history_dates"] = dates
            doc.version_date = doc.version_date or max(dates)
    builder = DocBuilder(doc)
    lines = _HTML_COMMENT.sub("", body).split("\n") if markdown else body.split("\n")
    _feed(builder, lines, markdown)
    doc.blocks = builder.blocks
    doc.effective_date = find_effective_date([b.text for b in doc.blocks[-30:]])
    return ParseResult(doc, warnings)


def _front_matter(text: str) -> tuple[str | None, list[str], str]:
    """A YAML-style front matter (``---`` lines around ``key: value`` lines at the very top, as Jekyll and Hugo
    write it): the title its title key gives, its lines as header metadata, and the text after it. A page that
    opens with a rule (---) and no key: value lines has none."""
    m = _FRONT_MATTER.match(text[:8000])
    if not m:
        return None, [], text
    lines = [x.strip() for x in m.group(1).split("\n") if x.strip()]
    fields = [_FIELD.match(x) for x in lines]
    if not lines or sum(f is not None for f in fields) < max(1, len(lines) // 2):
        return None, [], text
    title = next((f.group(2).strip().strip("\"'") for f in fields
                  if f and f.group(1).strip().lower() in cues.words("ingest.front_matter_title_keys")), None)
    return title or None, lines, text[m.end():]


def _split_header(text: str, markdown: bool) -> tuple[str | None, list[str], str]:
    """Title from the first '# ' line (or a front matter's title key); lines up to INFO END, and a front
    matter, are header metadata, not body."""
    front_title, header, text = _front_matter(text) if markdown else (None, [], text)
    title, more, body = _split_body_header(text, markdown)
    return front_title or title, header + more, body


def _split_body_header(text: str, markdown: bool) -> tuple[str | None, list[str], str]:
    title = None
    header: list[str] = []
    body = text
    if INFO_END in text:
        head, body = text.split(INFO_END, 1)
        for line in head.split("\n"):
            line = line.strip()
            if not line:
                continue
            m = _MD_HEADING.match(line)
            if m and title is None:
                title = m.group(2).strip()
            else:
                header.append(line)
    elif markdown:
        lines = text.split("\n")
        for i, line in enumerate(lines):
            if not line.strip():
                continue
            m = _MD_HEADING.match(line.strip())
            if m and len(m.group(1)) == 1:
                title = m.group(2).strip()
                body = "\n".join(lines[i + 1:])
            break
    return title, header, body


def _feed(builder: DocBuilder, lines: list[str], markdown: bool) -> None:
    """Walk lines: blank lines separate paragraphs; headings, tables and list lines stand alone."""
    para: list[str] = []

    def flush() -> None:
        if para:
            text = "".join(para) if _is_cjk_join(para) else " ".join(para)
            builder.feed_line(_plain_inline(text) if markdown else text)
            para.clear()

    i = 0
    n = len(lines)
    while i < n:
        line = lines[i].strip()
        if not line:
            flush()
            i += 1
            continue
        m = _MD_HEADING.match(line) if markdown else None
        if m:
            flush()
            level, htext = len(m.group(1)), m.group(2).strip()
            lk = classify(htext)
            rank = lk.rank if lk.rank is not None else MARKDOWN_RANK[level]
            if lk.kind == "article":  # '### 第五条 …' used as a heading: still an article
                builder.article(lk.label, lk.rest)
            elif rank > 0 or builder.blocks:
                builder.heading(htext, max(rank, 1))
            i += 1
            continue
        if markdown and line.startswith("|") and i + 1 < n and _TABLE_SEP.match(lines[i + 1].strip()):
            flush()
            header = _cells(line)
            rows = []
            i += 2
            while i < n and lines[i].strip().startswith("|"):
                rows.append(_cells(lines[i].strip()))
                i += 1
            caption = builder.blocks[-1].text if builder.blocks and len(builder.blocks[-1].text) <= 40 else ""
            builder.table(header, rows, caption=caption)
            continue
        if para and (classify(line).kind != "text" or (markdown and _MD_LIST.match(line))):
            flush()  # a numbered line starts a new paragraph even without a blank line
        para.append(line)
        i += 1
    flush()


def _plain_inline(text: str) -> str:
    """Markdown's inline marks off a paragraph: **bold** and __bold__ keep their words, \\( keeps its (."""
    return _ESCAPE.sub(r"\1", _STRONG.sub(lambda m: m.group(1) or m.group(2), text))


def _cells(line: str) -> list[str]:
    s = line.strip().strip("|")
    return [c.strip() for c in s.split("|")]


def _is_cjk_join(parts: list[str]) -> bool:
    """Soft-wrapped Chinese lines join without a space; Latin lines with one."""
    return all(p and re.match(r"[\u3000-\u9fff\uff00-\uffef]", p[-1]) for p in parts[:-1])
