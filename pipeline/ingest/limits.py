"""Resource limits on ingest: what one file may cost, checked before and while it is parsed.

* :class:`IngestLimits` holds the limits (a frozen, validated settings object).
* :func:`sniff` decides a file's format from its content (the suffix only suggests it) and checks
  docx/xlsx archives against the unpacked-size and member limits before any parser opens them.
* :func:`bound_blocks` cuts blocks longer than ``max_block_chars`` into windows.
* :class:`ParseWorker` parses each file in a forked worker process with a wall-clock limit, so a
  pathological file cannot stall the batch; a worker that overran is killed and replaced.

Parsers read the limits of the file being parsed with :func:`current` (page count, HTML depth).
"""
from __future__ import annotations

import contextvars
import io
import multiprocessing
import os
import re
import threading
import time
import zipfile
from dataclasses import dataclass, fields
from pathlib import Path
from typing import Any, Callable, Optional

from ..errors import LoopAgentError, message
from ..types import Block, Document


@dataclass(frozen=True)
class IngestLimits:
    """What one file may cost; every limit reports a coded message when it is hit."""

    max_unzipped_bytes: int = 64 * 2**20  # docx/xlsx: all members together, unpacked
    max_zip_members: int = 5000           # docx/xlsx: members of the archive
    max_zip_ratio: float = 100.0          # docx/xlsx: unpacked/packed size of one member over 1 MB
    max_block_chars: int = 20_000         # longer blocks are cut into windows (W013)
    max_pages: int = 3000                 # PDFs with more pages are refused (E011)
    max_html_depth: int = 100             # deeper HTML elements are read as plain text (W016)
    file_seconds: float = 10.0            # wall-clock per file, plus page_seconds per PDF page (E012)
    page_seconds: float = 1.0
    isolate: bool = True                  # parse in a worker process (needs fork); else in-process, no timeout

    def __post_init__(self) -> None:
        for f in fields(self):
            value = getattr(self, f.name)
            if f.name != "isolate" and not (isinstance(value, (int, float)) and value > 0):
                raise LoopAgentError("E303", name=f"IngestLimits.{f.name}", value=value, why="must be positive",
                                     allowed="a number > 0")


_CURRENT: contextvars.ContextVar[Optional["_Budget"]] = contextvars.ContextVar("ingest_budget", default=None)


class _Budget:
    """The limits of the file being parsed, and a way to tell the watchdog how many pages it has."""

    def __init__(self, limits: IngestLimits, on_pages: Optional[Callable[[int], None]] = None) -> None:
        self.limits = limits
        self.on_pages = on_pages


def current() -> IngestLimits:
    """The limits of the file being parsed (the defaults outside :func:`parse_file`)."""
    b = _CURRENT.get()
    return b.limits if b is not None else IngestLimits()


def check_pages(path: Path, n: int) -> None:
    """E011 when a document has more pages than allowed; else extend the watchdog's deadline."""
    b = _CURRENT.get()
    limits = b.limits if b is not None else IngestLimits()
    if n > limits.max_pages:
        raise LoopAgentError("E011", path=str(path), n=n, limit=limits.max_pages)
    if b is not None and b.on_pages is not None:
        b.on_pages(n)


def with_budget(limits: IngestLimits, fn: Callable[[], Any], on_pages: Optional[Callable[[int], None]] = None) -> Any:
    token = _CURRENT.set(_Budget(limits, on_pages))
    try:
        return fn()
    finally:
        _CURRENT.reset(token)


# --- content sniffing ----------------------------------------------------------------

TEXT_SUFFIXES = {".md", ".markdown", ".txt", ".html", ".htm"}
KIND_SUFFIX = {"pdf": ".pdf", "docx": ".docx", "xlsx": ".xlsx"}


def sniff(path: Path, raw: bytes, limits: IngestLimits) -> str:
    """The suffix of the parser for this content: the file's own for text, else its real format's.

    Raises E013 when the content is no document format we read (random bytes, an unknown
    archive, text in a file named .pdf) and E010 when an archive unpacks beyond the limits.
    """
    suffix = path.suffix.lower()
    if b"%PDF-" in raw[:1024]:
        kind = "pdf"
    elif raw[:4] == b"PK\x03\x04":
        kind = _zip_kind(path, raw, limits)
    elif _looks_like_text(raw):
        kind = "text"
    elif suffix in TEXT_SUFFIXES and raw[:2] in (b"\xff\xfe", b"\xfe\xff"):  # UTF-16 text: say how to re-save
        raise LoopAgentError("E004", path=str(path))
    else:
        raise LoopAgentError("E013", path=str(path), expected=suffix.lstrip(".") or "document", found="binary data")
    if kind == "text":
        if suffix in TEXT_SUFFIXES:
            return suffix
        raise LoopAgentError("E013", path=str(path), expected=suffix.lstrip("."), found="plain text")
    return KIND_SUFFIX[kind]


def _zip_kind(path: Path, raw: bytes, limits: IngestLimits) -> str:
    try:
        with zipfile.ZipFile(io.BytesIO(raw)) as zf:
            infos = zf.infolist()
    except (zipfile.BadZipFile, ValueError, OSError) as exc:
        raise LoopAgentError("E005", path=str(path), detail=f"broken zip archive ({exc})") from exc
    if len(infos) > limits.max_zip_members:
        raise LoopAgentError("E010", path=str(path), limit=f"{limits.max_zip_members} members",
                             what=f"{len(infos)} members", setting="max_zip_members")
    total = sum(i.file_size for i in infos)
    if total > limits.max_unzipped_bytes:
        raise LoopAgentError("E010", path=str(path), limit=f"{limits.max_unzipped_bytes / 2**20:.0f} MB",
                             what=f"{total / 2**20:.0f} MB unpacked", setting="max_unzipped_bytes")
    for i in infos:
        if i.file_size > 2**20 and i.file_size > limits.max_zip_ratio * max(i.compress_size, 1):
            raise LoopAgentError("E010", path=str(path), limit=f"{limits.max_zip_ratio:.0f}x its packed size",
                                 what=f"{i.filename}: {i.file_size / 2**20:.0f} MB from "
                                      f"{i.compress_size / 1024:.0f} KB", setting="max_zip_ratio")
    names = {i.filename for i in infos}
    if "word/document.xml" in names:
        return "docx"
    if "xl/workbook.xml" in names:
        return "xlsx"
    raise LoopAgentError("E013", path=str(path), expected=path.suffix.lstrip(".") or "document",
                         found="a zip archive that is neither .docx nor .xlsx")


_CONTROL = re.compile("[\x00-\x08\x0b\x0e-\x19\x1b-\x1f]")


def _looks_like_text(raw: bytes) -> bool:
    """UTF-8 or GB18030 text without NULs and with (almost) no control characters."""
    sample = raw[:65536]
    if b"\x00" in sample:
        return False
    text = None
    for enc in ("utf-8", "gb18030"):
        try:
            text = sample.decode(enc)
            break
        except UnicodeDecodeError as exc:
            if len(sample) == 65536 and exc.start >= len(sample) - 4:  # a character cut by the sample
                text = sample[:exc.start].decode(enc, errors="ignore")
                break
    if text is None:
        return False
    return len(_CONTROL.findall(text)) <= max(2, len(text) // 200)


# --- long blocks -----------------------------------------------------------------------

_BREAKS = "。！？；!?;\n"


def bound_blocks(doc: Document, limit: int, path: Path, warnings: list[str]) -> None:
    """Cut every block longer than ``limit`` characters into windows (at sentence ends when it can)."""
    if all(len(b.text) <= limit for b in doc.blocks):
        return
    from .structure import stable_id

    out: list[Block] = []
    for b in doc.blocks:
        if len(b.text) <= limit:
            b.order = len(out)
            out.append(b)
            continue
        warnings.append(message("W013", path=str(path), where=b.block_id, n=len(b.text), limit=limit))
        for k, piece in enumerate(_windows(b.text, limit)):
            out.append(Block(block_id=stable_id(b.block_id, "window", str(k)), doc_id=b.doc_id, type=b.type,
                             text=piece, order=len(out), section=list(b.section), clause=b.clause,
                             page_start=b.page_start, page_end=b.page_end, bbox=b.bbox,
                             table_header=b.table_header, table_rows=None,
                             meta={**b.meta, "window": k}))
    doc.blocks = out


def _windows(text: str, limit: int) -> list[str]:
    out = []
    start = 0
    while len(text) - start > limit:
        cut = start + limit
        soft = max(text.rfind(ch, start + limit // 2, cut) for ch in _BREAKS)
        if soft > start:
            cut = soft + 1
        out.append(text[start:cut])
        start = cut
    out.append(text[start:])
    return [w for w in out if w.strip()]


# --- the watchdog: one forked worker process that parses, killed when a file overruns ----------

def fork_available() -> bool:
    return "fork" in multiprocessing.get_all_start_methods()


class ParseWorker:
    """Parses files in a forked child with a wall-clock limit per file; thread-safe, reused across files."""

    def __init__(self) -> None:
        self._proc = None
        self._conn = None
        self._lock = threading.Lock()

    def parse(self, path: Path, source: str, password: Optional[str], raw: bytes, limits: IngestLimits,
              index: Optional[tuple] = None):
        """The file's ParseResult; with ``index`` (:func:`pipeline.tokenize.dictionary_files`) also its
        folded document's search tokens, as ``(result, tokens)``, computed in the worker."""
        from . import parse_file

        if not (limits.isolate and fork_available()):
            result = parse_file(path, source, password=password, raw=raw, limits=limits)
            return result if index is None else (result, _index(result, index))
        with self._lock:
            self._start()
            assert self._conn is not None
            self._conn.send((str(path), source, password, raw, limits, index))
            deadline = time.monotonic() + limits.file_seconds
            while True:
                remaining = deadline - time.monotonic()
                if remaining <= 0 or not self._conn.poll(remaining):
                    self.close()
                    raise LoopAgentError("E012", path=str(path), limit=round(limits.file_seconds, 1))
                try:
                    msg = self._conn.recv()
                except (EOFError, OSError):
                    code = self._proc.exitcode if self._proc is not None else None
                    self.close()
                    raise LoopAgentError("E005", path=str(path),
                                         detail=f"the parser process died (exit code {code})") from None
                if msg[0] == "pages":  # a long PDF earns time per page
                    deadline += msg[1] * limits.page_seconds
                    continue
                if msg[0] == "ok":
                    return msg[1] if index is None else (msg[1], msg[2])
                if msg[0] == "error":
                    raise LoopAgentError(msg[1], **msg[2])
                raise LoopAgentError("E005", path=str(path), detail=msg[1])

    def _start(self) -> None:
        if self._proc is not None and self._proc.is_alive():
            return
        ctx = multiprocessing.get_context("fork")
        parent, child = ctx.Pipe()
        self._proc = ctx.Process(target=_serve, args=(child, parent), daemon=True, name="loopagent-parse")
        self._proc.start()
        child.close()
        self._conn = parent

    def close(self) -> None:
        """Stop the worker (killed when busy); the next parse starts a fresh one."""
        if self._proc is not None:
            if self._proc.is_alive():
                self._proc.kill()
            self._proc.join(timeout=5)
        if self._conn is not None:
            self._conn.close()
        self._proc = self._conn = None


def _index(result: Any, index: tuple) -> Any:
    """Fold the parsed document (Traditional characters) and compute its search tokens with the
    dictionaries ``index`` names (the parent's: a worker forked earlier may hold older ones)."""
    from .. import tokenize
    from ..fold import fold_document
    from ..store import document_tokens

    tokenize.configure(*index)
    fold_document(result.document)
    return document_tokens(result.document)


def _serve(conn, parent_end) -> None:  # pragma: no cover - runs in the worker process
    from . import parse_file

    parent_end.close()
    while True:
        try:
            path, source, password, raw, limits, index = conn.recv()
        except (EOFError, OSError):
            os._exit(0)
        try:
            result = parse_file(Path(path), source, password=password, raw=raw, limits=limits,
                                on_pages=lambda n: conn.send(("pages", n)))
            conn.send(("ok", result, _index(result, index) if index is not None else None))
        except LoopAgentError as exc:
            conn.send(("error", exc.code, {k: str(v) for k, v in exc.fields.items()}))
        except BaseException as exc:  # a parser bug: reported for this file, the worker lives on
            conn.send(("exception", f"{type(exc).__name__}: {exc}"))
