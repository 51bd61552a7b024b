"""Spec files an expert can write (rules/specs/*.yaml): a text snippet and questions about it, each with
the expected status, value and evidence. They run in ``loopagent rules test`` and in pytest.

Each spec rule: id, document (Markdown text), examples: [{input: question, expect: {status, value, evidence}}].
``value`` lists the value fields that must match; ``evidence`` is a substring of the cited sentence.
"""
from __future__ import annotations

import tempfile
from pathlib import Path
from typing import Any, Optional

from .rules import Field, register_schema, strip_lines

register_schema("spec", {
    "document": Field((str,), True, "the document text (Markdown) the questions are asked about"),
    "title": Field((str,), False, "file name of the document, e.g. 租赁合同.md (default: the rule id)"),
})

_CACHE: dict[str, Any] = {}


def _kb(rule: dict, config: Any = None, rules_gate: bool = False):
    """The rule's store (built once), asked with the shipped settings, or with the rules deciding instead of the
    trained gate (``rules_gate``: the same store, opened again with ``AskSettings(gate_weights="")``)."""
    from .kb import KnowledgeBase
    key = rule["id"] + "\0" + rule["document"] + "\0" + repr(config)
    if rules_gate:
        kb = _CACHE.get(key + "\0rules")
        if kb is None:
            from .orchestrator import AskSettings
            shipped = _kb(rule, config)
            kb = _CACHE[key + "\0rules"] = KnowledgeBase(shipped.store.path, audit_log=None, config=shipped.config,
                                                         create=False, settings=AskSettings(gate_weights=""))
        return kb
    kb = _CACHE.get(key)
    if kb is None:
        tmp = Path(tempfile.mkdtemp(prefix="loopagent-spec-"))
        (tmp / "docs").mkdir()
        name = rule.get("title") or f"{rule['id']}.md"
        (tmp / "docs" / name).write_text(rule["document"], encoding="utf-8")
        kb = KnowledgeBase(tmp / "spec.sqlite", audit_log=None, config=config)  # the rules under test
        kb.ingest([tmp / "docs"])
        _CACHE[key] = kb
    return kb


def check_spec(rule: dict, ex: dict, config: Any = None) -> tuple[bool, Any]:
    """Ask the example's question over the rule's document (with the rules of ``config``, a
    pipeline.config.Settings; default: the shipped ones); compare status, value fields and evidence.

    ``expect.gate: refuses`` marks a known refusal of the shipped trained gate (models/gate, learned, not a
    rule an expert edits): the expectation is then checked with the rules deciding (the coverage bar and the
    rules under it, ``AskSettings(gate_weights="")``), and the shipped gate must still refuse the answer; once
    it accepts it, the example fails until the marker is removed."""
    expect: dict = strip_lines(ex.get("expect")) or {}
    shipped = _kb(rule, config).ask(ex["input"]).to_dict()
    if expect.get("gate") != "refuses":
        return _compare(shipped, expect)
    ok, got = _compare(_kb(rule, config, rules_gate=True).ask(ex["input"]).to_dict(), expect)
    got["shipped_gate"] = shipped["status"]
    return ok and shipped["status"] == "not_found", got


def _compare(ans: dict, expect: dict) -> tuple[bool, Any]:
    got = {"status": ans["status"], "value": ans.get("value"),
           "evidence": [e["text"] for e in ans.get("evidence") or []], "method": ans.get("method")}
    ok = ans["status"] == expect.get("status", "answered")
    want_value: Optional[dict] = expect.get("value")
    if want_value:
        ok = ok and all((ans.get("value") or {}).get(k) == v for k, v in want_value.items())
    if expect.get("evidence"):
        ok = ok and any(expect["evidence"] in t for t in got["evidence"])
    return ok, got
