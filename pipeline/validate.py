"""The input boundary: what a question, a batch line and a document string must look like.

Every interface (library, CLI, HTTP) passes questions through :func:`clean_question`
before any stage sees them, so the stages can rely on bounded, normalised text.
Strings from documents pass through :func:`terminal_safe` before they reach a terminal.
"""
from __future__ import annotations

import json
import re
from typing import Any

from .errors import LoopAgentError
from .text import normalize

DEFAULT_MAX_QUESTION_CHARS = 500

# zero-width and bidirectional-control characters: invisible, they only break matching
_INVISIBLE = re.compile("[\u00ad\u034f\u061c\u115f\u1160\u17b4\u17b5\u180e\u200b-\u200f\u202a-\u202e"
                        "\u2060-\u2064\u2066-\u206f\ufeff\ufe00-\ufe0f]")
_SURROGATE = re.compile("[\ud800-\udfff]")
# C0/C1 controls (tab and newline become spaces in a question)
_CONTROL_ALL = re.compile("[\x00-\x1f\x7f-\x9f]")


def clean_question(question: Any, max_chars: int = DEFAULT_MAX_QUESTION_CHARS) -> str:
    """The question normalised (NFKC, invisible and control characters removed, surrogates replaced).

    Raises E305 when it is not a string, E301 when nothing is left, E304 when it is
    longer than ``max_chars`` characters after cleaning (the limit is ``Settings.max_question_chars``).

    >>> clean_question("年休假\u200b有几天？")
    '年休假有几天？'
    """
    if not isinstance(question, str):
        raise LoopAgentError("E305", field="question", got=type(question).__name__)
    text = _SURROGATE.sub("\ufffd", question)
    text = _INVISIBLE.sub("", text)
    text = _CONTROL_ALL.sub(" ", text)
    text = normalize(text).strip()
    if not text:
        raise LoopAgentError("E301")
    if len(text) > max_chars:
        raise LoopAgentError("E304", length=len(text), limit=max_chars)
    return text


def optional_str(value: Any, name: str) -> str | None:
    """``value`` when it is a string or None (a batch line's ``session``, ``collection``, ``id``); else E305."""
    if value is None or isinstance(value, str):
        return value
    raise LoopAgentError("E305", field=name, got=type(value).__name__)


def line_id(row: Any) -> Any:
    """The ``id`` a batch line's answer carries: the line's own if it is a JSON scalar, else None."""
    if isinstance(row, dict):
        v = row.get("id")
        if v is None or isinstance(v, (str, int, float, bool)):
            return v
        return json.dumps(v, ensure_ascii=False)  # echo a structured id back as text, never drop the line
    return None


_TERMINAL_UNSAFE = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")


def terminal_safe(text: Any) -> str:
    """``text`` without control characters (ESC sequences, bidi overrides), fit for a terminal line.

    Newlines and tabs become spaces so one value stays on one line.
    """
    s = _SURROGATE.sub("\ufffd", str(text if text is not None else ""))
    return _TERMINAL_UNSAFE.sub("", s.replace("\n", " ").replace("\t", " ").replace("\r", " "))


def quote_path(path: Any) -> str:
    """A file name for a summary line: JSON-quoted when it holds anything a terminal could misread."""
    s = str(path)
    if s.isprintable() and '"' not in s:
        return s
    return json.dumps(_SURROGATE.sub("\ufffd", s), ensure_ascii=True)
