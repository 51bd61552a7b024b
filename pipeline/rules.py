"""The one loader for rule files (YAML under rules/ and dictionaries/): validation, line numbers, hot reload.

A rule file is a mapping with ``kind`` (which schema applies) and ``rules`` (a list of
mappings, each with an ``id``). Every error names ``file:line rule-id`` and says how
to fix it. :class:`RuleSet` reloads changed files on demand and keeps the previous
rules when a new version is broken.
"""
from __future__ import annotations

import hashlib
import logging
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Optional

import yaml

from .config import Settings, as_settings, rule_files
from .errors import LoopAgentError
from .types import QUESTION_TYPES

log = logging.getLogger("loopagent.rules")


@dataclass(frozen=True)
class Field:
    """One key of a rule: its type(s), whether required, and a hint shown when it is wrong."""

    types: tuple[type, ...]
    required: bool = False
    hint: str = ""


# kind -> {key: Field}; stages register the schema of the rule kinds they read.
SCHEMAS: dict[str, dict[str, Field]] = {}
# kind -> extra validation of one rule, returning a problem or None
CHECKS: dict[str, Callable[[dict], Optional[str]]] = {}

_COMMON = {"id": Field((str,), True, "give every rule a unique id such as 'duration.limit'"),
           "examples": Field((list,), False, "a list of {input: ..., expect: ...}"),
           "note": Field((str,), False, "free text for maintainers")}


# kind -> {key: placeholders expanded before compiling, or None}; checked before the kind's own check,
# so a bad pattern is reported at its position in the rule's own text
REGEX_FIELDS: dict[str, dict[str, Optional[dict[str, str]]]] = {}
# kind -> {key: allowed values} for keys whose value (or list items) names a kind of something
VOCABULARIES: dict[str, dict[str, tuple[str, ...]]] = {}


def register_regex(kind: str, **keys: Optional[dict[str, str]]) -> None:
    """Declare which keys of ``kind`` hold a ``regex`` pattern (value: placeholder -> expansion, or None)."""
    REGEX_FIELDS.setdefault(kind, {}).update(keys)


def register_vocabulary(kind: str, key: str, allowed: tuple[str, ...]) -> None:
    """Declare the values ``key`` of a rule of ``kind`` may take (a string, or each item of a list)."""
    VOCABULARIES.setdefault(kind, {})[key] = tuple(allowed)


def expand_tracked(pattern: str, placeholders: Optional[dict[str, str]]) -> tuple[str, list[int]]:
    """``pattern`` with placeholders expanded, and for each expanded position its position in ``pattern``."""
    if not placeholders:
        return pattern, list(range(len(pattern) + 1))
    import re
    names = "|".join(re.escape(k) for k in sorted(placeholders, key=len, reverse=True))
    out, where, last = [], [], 0
    for m in re.finditer(rf"(?<![A-Za-z_])(?:{names})(?![A-Za-z_])", pattern):
        out.append(pattern[last:m.start()])
        where += range(last, m.start())
        rep = placeholders[m.group(0)]
        out.append(rep)
        where += [m.start()] * len(rep)
        last = m.end()
    out.append(pattern[last:])
    where += range(last, len(pattern) + 1)
    return "".join(out), where


def regex_problem(pattern: str, placeholders: Optional[dict[str, str]] = None) -> Optional[tuple[int, str]]:
    """None when ``pattern`` compiles, else (position in ``pattern`` itself, what is wrong)."""
    import regex
    expanded, where = expand_tracked(pattern, placeholders)
    try:
        regex.compile(expanded)
    except regex.error as exc:
        pos = exc.pos if isinstance(exc.pos, int) else len(expanded)
        detail = str(exc.msg if hasattr(exc, "msg") else exc).split(" at position")[0]
        return where[min(pos, len(where) - 1)], detail
    return None


def register_schema(kind: str, fields: dict[str, Field], check: Optional[Callable[[dict], Optional[str]]] = None) -> None:
    """Declare the keys a rule of ``kind`` may have (``id``, ``examples`` and ``note`` are implicit)."""
    SCHEMAS[kind] = {**_COMMON, **fields}
    if check:
        CHECKS[kind] = check


# the shared vocabularies (pipeline/types.py); a typo such as `ratoi` is an error, never a silent no-match
register_vocabulary("question_type", "type", QUESTION_TYPES)
register_vocabulary("template", "types", QUESTION_TYPES)
register_vocabulary("structure_hint", "types", QUESTION_TYPES)
register_regex("question_type", regex=None)
register_regex("structure_hint", cue=None)


@dataclass
class RuleFile:
    path: Path
    kind: str
    rules: list[dict[str, Any]]
    settings: dict[str, Any] = field(default_factory=dict)


class _LineLoader(getattr(yaml, "CSafeLoader", yaml.SafeLoader)):  # type: ignore[misc]
    """SafeLoader that records the line of every mapping as key '__line__' (libyaml's when installed:
    the same values about 10x faster, which is most of a cold start's rule loading)."""


def _construct_mapping(loader: _LineLoader, node: yaml.MappingNode, deep: bool = False) -> dict:
    mapping = loader.construct_mapping(node, deep=deep)
    mapping["__line__"] = node.start_mark.line + 1
    return mapping


_LineLoader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, _construct_mapping)


def strip_lines(obj: Any) -> Any:
    """A copy of ``obj`` without the '__line__' bookkeeping keys."""
    if isinstance(obj, dict):
        return {k: strip_lines(v) for k, v in obj.items() if k != "__line__"}
    if isinstance(obj, list):
        return [strip_lines(v) for v in obj]
    return obj


def load_rule_file(path: Path) -> RuleFile:
    """Parse and validate one rule file; raises LoopAgentError E202 (syntax) or E201 (content)."""
    path = Path(path)
    try:
        data = yaml.load(path.read_text(encoding="utf-8"), Loader=_LineLoader)
    except (yaml.YAMLError, UnicodeDecodeError, OSError) as exc:
        raise LoopAgentError("E202", file=str(path), detail=str(exc).replace("\n", " ")) from exc
    if not isinstance(data, dict):
        raise LoopAgentError("E201", file=str(path), line=1, rule_id="-", problem="the file is not a mapping",
                             fix="start the file with 'kind: ...' and 'rules:'")
    kind = data.get("kind")
    if kind not in SCHEMAS:
        raise LoopAgentError("E201", file=str(path), line=data.get("__line__", 1), rule_id="-",
                             problem=f"unknown kind {kind!r}", fix=f"use one of {sorted(SCHEMAS)}")
    schema = SCHEMAS[kind]
    rules = data.get("rules") or []
    if not isinstance(rules, list):
        raise LoopAgentError("E201", file=str(path), line=data.get("__line__", 1), rule_id="-",
                             problem="'rules' is not a list", fix="write rules as a YAML list ('- id: ...')")
    seen: set[str] = set()
    for rule in rules:
        line = rule.get("__line__", 0) if isinstance(rule, dict) else 0
        if not isinstance(rule, dict):
            raise LoopAgentError("E201", file=str(path), line=line, rule_id="-", problem="a rule is not a mapping",
                                 fix="each list entry needs keys such as 'id:'")
        rid = rule.get("id", "-")
        for key, spec in schema.items():
            if spec.required and key not in rule:
                raise LoopAgentError("E201", file=str(path), line=line, rule_id=rid,
                                     problem=f"missing key '{key}'", fix=spec.hint or f"add '{key}:'")
        for key, value in rule.items():
            if key == "__line__":
                continue
            if key not in schema:
                raise LoopAgentError("E201", file=str(path), line=line, rule_id=rid, problem=f"unknown key '{key}'",
                                     fix=f"allowed keys: {', '.join(sorted(schema))}")
            if not isinstance(value, schema[key].types):
                names = "/".join(t.__name__ for t in schema[key].types)
                raise LoopAgentError("E201", file=str(path), line=line, rule_id=rid,
                                     problem=f"'{key}' must be {names}, got {type(value).__name__}",
                                     fix=schema[key].hint or f"write '{key}' as {names}")
        for key, allowed in VOCABULARIES.get(kind, {}).items():
            values = rule.get(key)
            for v in values if isinstance(values, list) else [values] if values is not None else []:
                if v not in allowed:
                    raise LoopAgentError("E201", file=str(path), line=line, rule_id=rid,
                                         problem=f"unknown {key} {v!r}", fix=f"use one of {', '.join(allowed)}")
        for key, placeholders in REGEX_FIELDS.get(kind, {}).items():
            if isinstance(rule.get(key), str):
                bad = regex_problem(rule[key], placeholders)
                if bad:
                    pos, detail = bad
                    raise LoopAgentError("E208", file=str(path), line=line, rule_id=rid, pos=pos, detail=detail,
                                         text=f"{key}: {rule[key]}", caret=" " * (len(key) + 2 + pos) + "^")
        if rid in seen:
            raise LoopAgentError("E201", file=str(path), line=line, rule_id=rid, problem="duplicate id",
                                 fix="rename one of the rules")
        seen.add(rid)
        check = CHECKS.get(kind)
        problem = check(rule) if check else None
        if problem:
            raise LoopAgentError("E201", file=str(path), line=line, rule_id=rid, problem=problem,
                                 fix="see the rule schema in docs/rules.md")
    settings = {k: v for k, v in data.items() if k not in ("kind", "rules", "__line__")}
    return RuleFile(path=path, kind=kind, rules=rules, settings=strip_lines(settings))


class RuleSet:
    """All rule files under the configured folders, reloaded when a file changes.

    ``get(kind)`` returns the rules of that kind (a list of dicts with '__file__' and
    '__line__'). Folders are read in order (shipped first, then overlays); a rule of an
    overlay with the same kind and id replaces the earlier one in place. A broken file
    keeps the last good version and records the error in ``errors``; nothing is
    replaced until the file validates. The jieba user dictionaries (``*.txt`` of the
    dictionary folders) are reloaded the same way (see :mod:`pipeline.tokenize`).

    ``dirs`` (kept for old callers) replaces the folder list; ``settings`` is the usual way.
    Raises E205 when no rule file exists in any folder.

    :meth:`maybe_reload` (asked before every answer) looks at the files at most once every
    ``check_interval`` seconds (``Settings.rules_check_interval_s``; 0: every time), since
    listing and stat-ing every rule file costs about 0.6 ms; :meth:`reload` always looks.
    """

    def __init__(self, dirs: Optional[list[Path]] = None, settings: Optional[Settings] = None) -> None:
        if dirs is not None and not isinstance(dirs, (list, tuple)):
            raise TypeError(f"dirs must be a list of folders, not {type(dirs).__name__}")
        self.config = as_settings(settings)
        self.dirs = [Path(d) for d in dirs] if dirs else list(self.config.rule_search_path)
        # extra jieba user dictionaries in explicitly given folders (besides the settings' dictionary folders)
        self._extra_dicts = ([p for d in self.dirs for p in sorted(d.glob("*.txt")) if p.name != "stopwords.txt"]
                             if dirs else [])
        self._lock = threading.Lock()
        self._files: dict[Path, tuple[float, RuleFile]] = {}
        self.errors: dict[Path, str] = {}
        self.version = 0
        self._order_cache: Optional[tuple[int, list[RuleFile]]] = None
        self.check_interval = float(self.config.rules_check_interval_s)
        self._checked_at = float("-inf")  # time.monotonic() of the last look at the files
        if not self._paths():
            where = ", ".join(str(d) for d in self.dirs)
            raise LoopAgentError("E205", path=where, origin=self.config.origins.get("rules", "the rules_dirs argument")
                                 if not dirs else "the dirs argument")
        self.reload()

    def _paths(self) -> list[Path]:
        out: list[Path] = []
        for d in self.dirs:
            out += [p for p in rule_files(d) if p not in out]
        return out

    def _reload_dictionaries(self) -> bool:
        from . import tokenize
        files = self.config.user_dict_files()
        files += [p for p in self._extra_dicts if p not in files]
        return tokenize.configure(files, self.config.stopword_files())

    def maybe_reload(self) -> bool:
        """:meth:`reload`, unless the files were looked at less than ``check_interval`` seconds ago."""
        if self.check_interval > 0 and time.monotonic() - self._checked_at < self.check_interval:
            return False
        return self.reload()

    def reload(self, force: bool = False) -> bool:
        """Re-read changed files (rules and user dictionaries); returns True when anything changed."""
        changed = False
        with self._lock:
            self._checked_at = time.monotonic()
            paths = self._paths()
            for p in list(self._files):
                if p not in paths:
                    del self._files[p]
                    changed = True
            for p in paths:
                try:
                    mtime = p.stat().st_mtime_ns
                except OSError:
                    continue
                old = self._files.get(p)
                if old and old[0] == mtime and not force:
                    continue
                if p in self.errors and not force and self.errors[p].startswith(f"{mtime}:"):
                    continue
                try:
                    rf = load_rule_file(p)
                except LoopAgentError as exc:
                    self.errors[p] = f"{mtime}:{exc}"
                    log.warning("%s (previous rules of this file stay active)", exc)
                    continue
                self.errors.pop(p, None)
                for r in rf.rules:
                    r["__file__"] = str(p)
                self._files[p] = (mtime, rf)
                changed = True
            if self._reload_dictionaries():
                changed = True
            if changed:
                self.version += 1
        return changed

    def _ordered(self) -> list[RuleFile]:
        """Loaded files in override order: by folder position, then path (computed once per change)."""
        files = self._files
        cached = self._order_cache
        if cached is not None and cached[0] == self.version:
            return cached[1]
        rank: dict[Path, tuple[int, str]] = {}
        for i, d in enumerate(self.dirs):
            for p in rule_files(d):
                rank.setdefault(p, (i, str(p)))
        out = [rf for _, rf in sorted(files.values(),
                                      key=lambda x: rank.get(x[1].path, (len(self.dirs), str(x[1].path))))]
        self._order_cache = (self.version, out)
        return out

    def fingerprint(self) -> tuple[str, float]:
        """(content hash of every rule and dictionary file under the rule folders, newest mtime).

        The hash covers YAML rules and the jieba .txt dictionaries alike, so two processes with
        the same fingerprint answer with the same rules; it is recomputed only when a file's
        size or mtime changes.
        """
        stats = []
        for d in self.dirs:
            if d.is_dir():
                for p in sorted(d.rglob("*")):
                    if p.suffix in (".yaml", ".yml", ".txt") and p.is_file():
                        st = p.stat()
                        stats.append((p, st.st_mtime_ns, st.st_size))
        key = tuple(stats)
        cached = getattr(self, "_fp", None)
        if cached and cached[0] == key:
            return cached[1], cached[2]
        h = hashlib.sha256()
        for d in self.dirs:
            for p, _, _ in stats:
                if d in p.parents:
                    h.update(f"{d.name}/{p.relative_to(d)}\0".encode())
                    h.update(hashlib.sha256(p.read_bytes()).digest())
        fp = h.hexdigest()[:16]
        newest = max((m for _, m, _ in stats), default=0) / 1e9
        self._fp = (key, fp, newest)
        return fp, newest

    def get(self, kind: str) -> list[dict[str, Any]]:
        """Rules of ``kind``; an overlay rule with an id seen before replaces that rule in place."""
        out: list[dict[str, Any]] = []
        where: dict[str, int] = {}
        for rf in self._ordered():
            if rf.kind != kind:
                continue
            for r in rf.rules:
                rid = r.get("id")
                if rid in where:
                    out[where[rid]] = r
                else:
                    where[rid] = len(out)
                    out.append(r)
        return out

    def settings(self, kind: str) -> dict[str, Any]:
        """File-level settings of ``kind``, later folders winning."""
        merged: dict[str, Any] = {}
        for rf in self._ordered():
            if rf.kind == kind:
                merged.update(rf.settings)
        return merged

    def error_lines(self) -> list[str]:
        return [e.split(":", 1)[1] for e in self.errors.values()]
