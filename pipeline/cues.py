"""Cue words and patterns as data: the `cue` rules of rules/pipeline_cues.yaml and dictionaries/cjk_variants.yaml.

Each cue rule has an ``id``, a ``note`` (what kind of language it names), ``examples`` and exactly
one value: ``regex`` (a pattern), ``words`` (a list), ``chars`` (a string of single characters),
``text`` (one string) or ``table`` (a mapping). The modules that use a cue read it once, when they
are imported, from the shipped folders (like dictionaries/units.yaml in pipeline/numbers.py) and
compile it there, so nothing is read or compiled per question; a changed cue file takes effect at
the next start. A broken file raises its E201/E208 error at import (no half-loaded cues).

Example semantics (``loopagent rules test``): a ``regex`` example expects true/false (does it
match the input anywhere) or a string (the first group that matched, else the whole match);
``words``/``chars``/``text`` expect true/false (does the input contain a word/character/the text);
a ``table`` example expects the input with every key replaced by its value (longest key first).
"""
from __future__ import annotations

import threading
from pathlib import Path
from typing import Any, Optional

import yaml

from .config import shipped_dir
from .errors import LoopAgentError
from .rules import Field, load_rule_file, register_regex, register_schema, strip_lines

VALUE_KEYS = ("regex", "words", "chars", "text", "table")


def _check(rule: dict) -> Optional[str]:
    present = [k for k in VALUE_KEYS if k in rule]
    if len(present) != 1:
        return f"a cue needs exactly one of {', '.join(VALUE_KEYS)} (has {', '.join(present) or 'none'})"
    if not rule.get("note"):
        return "a cue needs a 'note' saying what kind of language it names"
    return None


register_schema("cue", {
    "regex": Field((str,), False, "a Python regular expression, in single quotes"),
    "words": Field((list,), False, "a list of words, e.g. [word, another word]"),
    "chars": Field((str,), False, "a string of single characters, each one counts"),
    "text": Field((str,), False, "one string"),
    "table": Field((dict,), False, "a mapping, one entry a line"),
}, check=_check)
register_regex("cue", regex=None)

# the shipped files that hold cues, by folder
CUE_FILES = (("rules", "pipeline_cues.yaml"), ("dictionaries", "cjk_variants.yaml"))

_lock = threading.Lock()
_cues: Optional[dict[str, Any]] = None


def _load() -> dict[str, Any]:
    global _cues
    with _lock:
        if _cues is None:
            out: dict[str, Any] = {}
            for folder, name in CUE_FILES:
                rf = load_rule_file(shipped_dir(folder) / name)
                for r in rf.rules:
                    key = next(k for k in VALUE_KEYS if k in r)
                    out[r["id"]] = strip_lines(r[key])
            _cues = out
    return _cues


def cue(cue_id: str) -> Any:
    """The value of the shipped cue ``cue_id`` (E201 when no cue file defines it)."""
    cues = _load()
    if cue_id not in cues:
        files = ", ".join(f"{f}/{n}" for f, n in CUE_FILES)
        raise LoopAgentError("E201", file=files, line=0, rule_id=cue_id, problem="missing cue",
                             fix=f"add a rule with id '{cue_id}' to one of {files}")
    return cues[cue_id]


def pattern(cue_id: str) -> str:
    """A ``regex`` cue's pattern (compiled by the caller, once, with its flags)."""
    return str(cue(cue_id))


def words(cue_id: str) -> tuple[str, ...]:
    """A ``words`` cue in file order (order matters where it becomes an alternation)."""
    return tuple(str(w) for w in cue(cue_id))


def chars(cue_id: str) -> str:
    return str(cue(cue_id))


def text(cue_id: str) -> str:
    return str(cue(cue_id))


def table(cue_id: str) -> dict:
    return dict(cue(cue_id))


def shipped_settings(folder: str, name: str) -> dict[str, Any]:
    """The file-level settings of a shipped rule file, read without validation (for defaults at import)."""
    with open(Path(shipped_dir(folder)) / name, encoding="utf-8") as f:
        data = yaml.safe_load(f) or {}
    return {k: v for k, v in data.items() if k not in ("kind", "rules")}


def check_example(rule: dict, ex: dict) -> tuple[bool, Any]:
    """Run one example of a cue rule (see the module docstring); returns (passed, what the cue gave)."""
    import regex
    given, expect = strip_lines(ex.get("input")), strip_lines(ex.get("expect"))
    given = "" if given is None else str(given)
    if "regex" in rule:
        m = regex.search(rule["regex"], given)
        if isinstance(expect, bool) or expect is None:
            got: Any = bool(m) if isinstance(expect, bool) else (m.group(0) if m else None)
        else:
            got = next((g for g in m.groups() if g is not None), m.group(0)) if m else None
    elif "words" in rule:
        got = any(str(w) in given for w in rule["words"])
    elif "chars" in rule:
        got = any(ch in rule["chars"] for ch in given)
    elif "text" in rule:
        got = str(rule["text"]) in given
    else:
        tab = {str(k): str(v) for k, v in strip_lines(rule["table"]).items()}
        if tab:
            rx = regex.compile("|".join(regex.escape(k) for k in sorted(tab, key=len, reverse=True)))
            got = rx.sub(lambda m: tab[m.group(0)], given)
        else:
            got = given
    return got == expect, got
