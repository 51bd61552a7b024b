"""Optional LLM decision mode: a configured generator chooses the steps, code checks every one.

The model answers each turn with one JSON object:
``{"action": "search", "query": "…"}`` · ``{"action": "read", "block_id": "…"}`` ·
``{"action": "expand", "block_id": "…"}`` (the block and its neighbours) ·
``{"action": "answer", "answer": "…", "evidence_ids": ["…"]}``.
The rules hold: a search is never repeated; an answer cites only blocks the model has read; every
number, code and date of the answer is in the cited blocks (pipeline.generate.grounding); invalid
JSON is asked for again once, then the decision mode gives up and the rules path answers. Nothing the
model says becomes an answer without passing those checks.
"""
from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any, Callable, Optional

from .config import shipped_dir
from .errors import LoopAgentError
from .rules import load_rule_file, register_schema
from .types import Block

ACTIONS = ("search", "read", "expand", "answer")

register_schema("decide_prompt", {})  # rules/decide_prompt.yaml: file-level settings only


def _load_prompt() -> dict[str, str]:
    """The system prompt and the replies to the model's actions (rules/decide_prompt.yaml)."""
    rf = load_rule_file(shipped_dir("rules") / "decide_prompt.yaml")
    return {str(k): str(v) for k, v in rf.settings.items()}


PROMPT = _load_prompt()
SYSTEM = PROMPT["system"]


@dataclass(frozen=True)
class DecideSettings:
    """How long the model may drive."""

    max_turns: int = 6
    max_new_tokens: int = 200
    results: int = 5          # blocks a search lists
    read_chars: int = 400     # characters of a block a read returns

    def __post_init__(self) -> None:
        for name in ("max_turns", "max_new_tokens", "results", "read_chars"):
            v = getattr(self, name)
            if not isinstance(v, int) or v < 1:
                raise LoopAgentError("E303", name=name, value=v, why="must be a positive integer", allowed="1, 2, …")


@dataclass
class Decision:
    """An accepted answer of the decision mode: its text and the blocks it cites."""

    answer: str
    blocks: list[Block]
    steps: list[dict[str, Any]]


def parse_action(raw: str) -> Optional[dict[str, Any]]:
    """The JSON object of a model turn (the first {...} in the text), or None when it is not a valid action."""
    m = re.search(r"\{.*\}", raw or "", re.S)
    if not m:
        return None
    try:
        obj = json.loads(m.group(0))
    except ValueError:
        return None
    if not isinstance(obj, dict) or obj.get("action") not in ACTIONS:
        return None
    need = {"search": ("query",), "read": ("block_id",), "expand": ("block_id",), "answer": ("answer",)}
    if any(not isinstance(obj.get(k), str) or not obj[k].strip() for k in need[obj["action"]]):
        return None
    if obj["action"] == "answer" and not isinstance(obj.get("evidence_ids", []), list):
        return None
    return obj


class DecisionMode:
    """Runs the model's actions over the store; ``search(query_text)`` returns candidate blocks (stage 1)."""

    def __init__(self, generator: Any, store: Any, search: Callable[[str], list[Block]],
                 settings: Optional[DecideSettings] = None) -> None:
        self.generator = generator
        self.store = store
        self.search = search
        self.settings = settings or DecideSettings()

    def run(self, question: str) -> tuple[Optional[Decision], list[dict[str, Any]]]:
        """(the accepted answer or None, every step with what the model asked and what it got)."""
        from .generate.grounding import check_grounding
        s = self.settings
        backend = self.generator.load()
        messages: list[dict[str, str]] = [{"role": "system", "content": SYSTEM}, {"role": "user", "content": question}]
        steps: list[dict[str, Any]] = []
        searched: set[str] = set()
        read: dict[str, Block] = {}
        retried = False
        while len(steps) < s.max_turns:
            raw, _ = backend.generate(messages, s.max_new_tokens)
            action = parse_action(raw)
            if action is None:
                steps.append({"action": "invalid", "raw": raw[:200]})
                if retried:
                    return None, steps  # twice no valid JSON: the rules path answers
                retried = True
                messages += [{"role": "assistant", "content": raw},
                             {"role": "user", "content": PROMPT["invalid"]}]
                continue
            kind = action["action"]
            if kind == "search":
                key = re.sub(r"\s+", "", action["query"])
                if key in searched:
                    result = PROMPT["repeated"].format(query=action["query"])
                else:
                    searched.add(key)
                    hits = self.search(action["query"])[:s.results]
                    result = "\n".join(f"{b.block_id} | {'/'.join(b.section[-2:])} | {b.text[:60]}" for b in hits) \
                        or PROMPT["no_results"]
            elif kind in ("read", "expand"):
                b = self.store.block(action["block_id"])
                if b is None:
                    result = PROMPT["no_block"].format(block_id=action["block_id"])
                else:
                    blocks = [b] if kind == "read" else self.store.doc_blocks(b.doc_id, max(0, b.order - 1), b.order + 2)
                    for x in blocks:
                        read[x.block_id] = x
                    result = "\n".join(f"[{x.block_id}] {x.text[:s.read_chars]}" for x in blocks)
            else:
                ids = [str(i) for i in action.get("evidence_ids") or []]
                unread = [i for i in ids if i not in read]
                if not ids or unread:
                    result = PROMPT["uncited"] + (PROMPT["unread"].format(ids="、".join(unread)) if unread
                                                  else PROMPT["no_citation"])
                else:
                    cited = [read[i] for i in ids]
                    check = check_grounding(action["answer"], "\n".join(b.text for b in cited), question)
                    if check.grounded:
                        steps.append({"action": "answer", "answer": action["answer"], "evidence_ids": ids,
                                      "result": PROMPT["accepted"]})
                        return Decision(answer=action["answer"].strip(), blocks=cited, steps=steps), steps
                    result = PROMPT["ungrounded"].format(reason=check.reason)
            steps.append({**action, "result": result[:300]})
            messages += [{"role": "assistant", "content": json.dumps(action, ensure_ascii=False)},
                         {"role": "user", "content": result}]
        return None, steps


def reasons(steps: list[dict[str, Any]]) -> list[str]:
    """One reasoning line per step of the decision mode."""
    out = []
    for i, st in enumerate(steps, 1):
        what = st.get("query") or st.get("block_id") or st.get("answer") or st.get("raw", "")
        out.append(f"决策：第{i}步 {st['action']}「{str(what)[:40]}」→ {str(st.get('result', '无效 JSON'))[:60]}")
    return out
