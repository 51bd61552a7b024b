"""The one loader for rule files (YAML under rules/ and dictionaries/): validation, line numbers, hot reload.

A rule file is a mapping with ``kind`` (which schema applies) and ``rules`` (a list of
mappings, each with an ``id``). Every error names ``file:line rule-id`` and says how
to fix it. :class:`RuleSet` reloads changed files on demand and keeps the previous
rules when a new version is broken.
"""
from __future__ import annotations

import logging
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Optional

import yaml

from .errors import LoopAgentError

log = logging.getLogger("loopagent.rules")

RULES_DIR = Path(__file__).resolve().parent.parent / "rules"
DICT_DIR = Path(__file__).resolve().parent.parent / "dictionaries"


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


def register_schema(kind: str, fields: dict[str, Field], check: Optional[Callable[[dict], Optional[str]]] = None) -> None:
    """Declare the keys a rule of ``kind`` may have (``id``, ``examples`` and ``note`` are implicit)."""
    SCHEMAS[kind] = {**_COMMON, **fields}
    if check:
        CHECKS[kind] = check


@dataclass
class RuleFile:
    path: Path
    kind: str
    rules: list[dict[str, Any]]
    settings: dict[str, Any] = field(default_factory=dict)


class _LineLoader(yaml.SafeLoader):
    """SafeLoader that records the line of every mapping as key '__line__'."""


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
    """All rule files of some kinds under given folders, reloaded when a file changes.

    ``get(kind)`` returns the rules of that kind (a list of dicts with '__file__' and
    '__line__'). A broken file keeps the last good version and records the error in
    ``errors``; nothing is replaced until the file validates.
    """

    def __init__(self, dirs: Optional[list[Path]] = None) -> None:
        self.dirs = [Path(d) for d in (dirs or [RULES_DIR, DICT_DIR])]
        self._lock = threading.Lock()
        self._files: dict[Path, tuple[float, RuleFile]] = {}
        self.errors: dict[Path, str] = {}
        self.version = 0
        self.reload()

    def _paths(self) -> list[Path]:
        out = []
        for d in self.dirs:
            if d.is_dir():
                out += sorted(p for p in d.rglob("*.y*ml") if p.suffix in (".yaml", ".yml"))
        return out

    def reload(self, force: bool = False) -> bool:
        """Re-read changed files; returns True when anything changed."""
        changed = False
        with self._lock:
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
            if changed:
                self.version += 1
        return changed

    def get(self, kind: str) -> list[dict[str, Any]]:
        out: list[dict[str, Any]] = []
        for _, rf in sorted(self._files.values(), key=lambda x: str(x[1].path)):
            if rf.kind == kind:
                out.extend(rf.rules)
        return out

    def settings(self, kind: str) -> dict[str, Any]:
        merged: dict[str, Any] = {}
        for _, rf in sorted(self._files.values(), key=lambda x: str(x[1].path)):
            if rf.kind == kind:
                merged.update(rf.settings)
        return merged

    def error_lines(self) -> list[str]:
        return [e.split(":", 1)[1] for e in self.errors.values()]
