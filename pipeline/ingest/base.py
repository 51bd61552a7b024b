"""What every format parser shares: the parser signature, decoding, document metadata."""
from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Optional

from .. import cues
from ..errors import LoopAgentError, message
from ..types import Document
from .structure import stable_id


@dataclass
class ParseResult:
    """A parsed document (with blocks) and the coded warnings met on the way."""

    document: Document
    warnings: list[str] = field(default_factory=list)


# A parser takes the file path, its raw bytes and the source name stored with the
# document, and returns a ParseResult or raises LoopAgentError.
Parser = Callable[[Path, bytes, str], ParseResult]


def content_hash(raw: bytes) -> str:
    return hashlib.sha256(raw).hexdigest()


def new_document(path: Path, raw: bytes, source: str, kind: str, title: Optional[str] = None) -> Document:
    """A Document with id, hash, title (default: file stem without a date suffix) and filename date."""
    stem = path.stem
    date = _filename_date(stem)
    clean_stem = re.sub(r"[（(]\d{4}-\d{2}-\d{2}[)）]$", "", stem).strip()
    return Document(doc_id=stable_id("doc", source), title=title or clean_stem, source=source, kind=kind,
                    content_hash=content_hash(raw), version_date=date)


def _filename_date(stem: str) -> Optional[str]:
    m = re.search(r"[（(](\d{4}-\d{2}-\d{2})[)）]$", stem)
    return m.group(1) if m else None


def decode_text(path: Path, raw: bytes, warnings: list[str]) -> str:
    """UTF-8 (with or without BOM), else GB18030 with a W002 warning, else E004."""
    if not raw.strip():
        raise LoopAgentError("E003", path=str(path))
    try:
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError:
        pass
    try:
        text = raw.decode("gb18030")
    except UnicodeDecodeError:
        raise LoopAgentError("E004", path=str(path)) from None
    warnings.append(message("W002", path=str(path)))
    return text


_CN_DATE = re.compile(cues.pattern("ingest.cn_date"))  # rules/pipeline_cues.yaml


def iso_date(text: str) -> Optional[str]:
    """The first 2008年1月1日-style date in ``text`` as YYYY-MM-DD."""
    m = _CN_DATE.search(text)
    return f"{int(m.group(1)):04d}-{int(m.group(2)):02d}-{int(m.group(3)):02d}" if m else None


_EFFECTIVE = re.compile(cues.pattern("ingest.effective_date"))


def find_effective_date(texts: list[str]) -> Optional[str]:
    """The effective date stated in the body (本法自2008年1月1日起施行), searched from the end."""
    for t in reversed(texts):
        m = _EFFECTIVE.search(t)
        if m:
            return iso_date(m.group(1))
    return None
