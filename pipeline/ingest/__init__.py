"""Ingest: turn files into Documents with Blocks. One parser per format, chosen by suffix.

Other formats register here (``PARSERS[".pdf"] = parse_pdf``); the store and
the CLI only call :func:`parse_file`.
"""
from __future__ import annotations

from pathlib import Path
from typing import Iterator

from ..errors import LoopAgentError
from .base import ParseResult, Parser
from .docx import parse_docx
from .markdown import parse_markdown, parse_text

PARSERS: dict[str, Parser] = {
    ".md": parse_markdown,
    ".markdown": parse_markdown,
    ".txt": parse_text,
    ".docx": parse_docx,
}


def _register_optional() -> None:
    """Formats whose parser modules need optional packages register themselves if importable."""
    try:
        from .pdf import parse_pdf  # noqa: WPS433
        PARSERS[".pdf"] = parse_pdf
    except ImportError:
        pass
    try:
        from .html import parse_html
        PARSERS[".html"] = parse_html
        PARSERS[".htm"] = parse_html
    except ImportError:
        pass
    try:
        from .xlsx import parse_xlsx
        PARSERS[".xlsx"] = parse_xlsx
    except ImportError:
        pass


_register_optional()


def parse_file(path: Path, source: str | None = None, password: str | None = None,
               raw: bytes | None = None) -> ParseResult:
    """Parse one file by suffix; raises LoopAgentError with a catalogue code on bad input.

    ``password`` opens encrypted PDFs (other formats ignore it); ``raw`` is the file's bytes
    when the caller has already read them.
    """
    path = Path(path)
    if not path.exists():
        raise LoopAgentError("E001", path=str(path))
    parser = PARSERS.get(path.suffix.lower())
    if parser is None:
        raise LoopAgentError("E002", path=str(path), suffix=path.suffix, supported=", ".join(sorted(PARSERS)))
    if raw is None:
        raw = read_bytes(path)
    if not raw.strip():
        raise LoopAgentError("E003", path=str(path))
    if password is not None and path.suffix.lower() == ".pdf":
        result = parser(path, raw, source or path.name, password=password)  # type: ignore[call-arg]
    else:
        result = parser(path, raw, source or path.name)
    result.document.meta.setdefault("path", str(path.resolve()))
    if not result.document.blocks:
        raise LoopAgentError("E006", path=str(path))
    return result


def read_bytes(path: Path) -> bytes:
    """The file's bytes, or E005 saying why it cannot be read."""
    try:
        return Path(path).read_bytes()
    except OSError as exc:
        raise LoopAgentError("E005", path=str(path), detail=exc.strerror or str(exc)) from exc


def iter_files(paths: list[str | Path]) -> Iterator[tuple[Path, str]]:
    """Expand files and directories (recursively) into (path, source name) pairs, sorted.

    A file given directly is named by its file name; a file found under a directory by
    its path relative to that directory. Hidden files and unknown suffixes inside a
    directory are skipped; a path that does not exist is yielded so the caller reports it.
    """
    for p in paths:
        p = Path(p)
        if p.is_dir():
            for f in sorted(p.rglob("*")):
                if f.is_file() and not any(part.startswith(".") for part in f.relative_to(p).parts) \
                        and f.suffix.lower() in PARSERS:
                    yield f, f.relative_to(p).as_posix()
        else:
            yield p, p.name


__all__ = ["PARSERS", "ParseResult", "parse_file", "iter_files", "read_bytes"]
