"""Ingest: turn files into Documents with Blocks. One parser per format, chosen by suffix.

Other formats register here (``PARSERS[".pdf"] = parse_pdf``); the store and
the CLI only call :func:`parse_file`.
"""
from __future__ import annotations

import os
from pathlib import Path
from typing import Callable, Iterator

from ..errors import LoopAgentError, message
from ..validate import quote_path
from .base import ParseResult, Parser
from .docx import parse_docx
from .limits import IngestLimits, ParseWorker, bound_blocks, sniff, with_budget
from .markdown import parse_markdown, parse_text

PARSERS: dict[str, Parser] = {
    ".md": parse_markdown,
    ".markdown": parse_markdown,
    ".txt": parse_text,
    ".docx": parse_docx,
}


def is_markdown(source: str) -> bool:
    """Does ingest parse ``source`` (a file name) as Markdown, whose tables print each row as |cell|cell|?"""
    return PARSERS.get(Path(source).suffix.lower()) is parse_markdown


# format -> (module holding the parser, its function, the optional package it needs)
_OPTIONAL = {".pdf": ("pdf", "parse_pdf", "pdfplumber"), ".html": ("html", "parse_html", "bs4"),
             ".htm": ("html", "parse_html", "bs4"), ".xlsx": ("xlsx", "parse_xlsx", "openpyxl")}


def _lazy(module: str, func: str) -> Parser:
    """A parser that imports its module on first call (pdfplumber, bs4, openpyxl cost about 0.5 s to
    import: a process that only answers questions never pays it)."""
    def parse(*args, **kwargs):
        import importlib
        return getattr(importlib.import_module(f"{__name__}.{module}"), func)(*args, **kwargs)
    parse.__name__ = func
    return parse


def _register_optional() -> None:
    """Formats whose parser modules need optional packages register themselves if those are installed."""
    from importlib.util import find_spec
    for suffix, (module, func, package) in _OPTIONAL.items():
        if find_spec(package) is not None:
            PARSERS[suffix] = _lazy(module, func)


_register_optional()


def parse_file(path: Path, source: str | None = None, password: str | None = None,
               raw: bytes | None = None, limits: IngestLimits | None = None,
               on_pages: Callable[[int], None] | None = None) -> ParseResult:
    """Parse one file; its content decides the format (the suffix only suggests it).

    Raises LoopAgentError with a catalogue code on bad input or when a limit of ``limits``
    is hit. ``password`` opens encrypted PDFs (other formats ignore it); ``raw`` is the
    file's bytes when the caller has already read them; ``on_pages`` hears a PDF's page count.
    """
    path = Path(path)
    limits = limits or IngestLimits()
    if not path.exists() and raw is None:
        raise LoopAgentError("E001", path=str(path))
    if path.suffix.lower() not in PARSERS:
        raise LoopAgentError("E002", path=str(path), suffix=path.suffix, supported=", ".join(sorted(PARSERS)))
    if raw is None:
        raw = read_bytes(path)
    if not raw.strip():
        raise LoopAgentError("E003", path=str(path))
    kind = sniff(path, raw, limits)
    parser = PARSERS.get(kind)
    if parser is None:
        raise LoopAgentError("E002", path=str(path), suffix=kind, supported=", ".join(sorted(PARSERS)))
    if password is not None and kind == ".pdf":
        run = lambda: parser(path, raw, source or path.name, password=password)  # type: ignore[call-arg]  # noqa: E731
    else:
        run = lambda: parser(path, raw, source or path.name)  # noqa: E731
    result = with_budget(limits, run, on_pages)
    result.document.meta.setdefault("path", str(path.resolve()))
    if not result.document.blocks:
        raise LoopAgentError("E006", path=str(path))
    bound_blocks(result.document, limits.max_block_chars, path, result.warnings)
    return result


def read_bytes(path: Path) -> bytes:
    """The file's bytes, or E005 saying why it cannot be read."""
    try:
        return Path(path).read_bytes()
    except OSError as exc:
        raise LoopAgentError("E005", path=str(path), detail=exc.strerror or str(exc)) from exc


def iter_files(paths: list[str | Path], follow_symlinks: bool = False) -> Iterator[tuple[Path, str, str]]:
    """Expand files and directories (recursively) into (path, source name, skip message) triples, sorted.

    A file given directly is named by its file name; a file found under a directory by its
    path relative to that directory (the ingest root). Hidden files and unknown suffixes
    inside a directory are skipped; a path that does not exist is yielded so the caller
    reports it. Symbolic links under a root that lead out of it (or nowhere) are yielded with
    a coded skip message (E015/E016) instead of being followed, unless ``follow_symlinks``.
    """
    for p in paths:
        p = Path(p)
        if not p.is_dir():
            yield p, p.name, ""
            continue
        root = os.path.realpath(p)
        found: list[tuple[Path, str, str]] = []
        seen: set[str] = set()
        for dirpath, dirnames, filenames in os.walk(p, followlinks=follow_symlinks):
            real = os.path.realpath(dirpath)
            if real in seen:  # a followed link that loops back
                dirnames[:] = []
                continue
            seen.add(real)
            dirnames[:] = sorted(d for d in dirnames if not d.startswith("."))
            rel_dir = Path(dirpath).relative_to(p)
            for d in list(dirnames):
                link = Path(dirpath) / d
                if link.is_symlink() and not follow_symlinks:
                    skip = _link_problem(link, root, follow_symlinks=False)
                    if skip:
                        found.append((link, (rel_dir / d).as_posix(), skip))
            for name in filenames:
                f = Path(dirpath) / name
                rel = (rel_dir / name).as_posix()
                if name.startswith(".") or f.suffix.lower() not in PARSERS:
                    continue
                skip = _link_problem(f, root, follow_symlinks) if f.is_symlink() else ""
                found.append((f, rel, skip))
        yield from sorted(found, key=lambda t: t[1])


def _link_problem(link: Path, root: str, follow_symlinks: bool) -> str:
    """The coded line for a link that must be skipped ('' when it may be followed)."""
    try:
        target = os.path.realpath(link, strict=True)
    except (OSError, RuntimeError) as exc:
        return message("E016", path=quote_path(link), detail=type(exc).__name__ if not getattr(exc, "strerror", None)
                       else exc.strerror)
    if follow_symlinks or target == root or target.startswith(root.rstrip(os.sep) + os.sep):
        return ""
    return message("E015", path=quote_path(link), target=quote_path(target), root=quote_path(root))


__all__ = ["PARSERS", "ParseResult", "parse_file", "iter_files", "read_bytes", "IngestLimits", "ParseWorker"]
