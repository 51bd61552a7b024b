"""The generator's prompt: a strict Chinese instruction, the distilled context, the question.

The key instruction (answer only from the material, else reply exactly 未提及) comes
last, right before the model answers, where small models heed it most. The
tokenizer's own chat template turns the messages into the model's format.
"""
from __future__ import annotations

import re
from typing import Any

from .. import cues
from .grounding import NOT_STATED

SYSTEM = cues.text("generate.system_prompt")  # rules/pipeline_cues.yaml
INSTRUCTION = (
    "要求：只根据上面的资料回答问题；用一句话直接给出答案，不要前言，不要解释，不要重复问题。"
    f"如果资料中没有写明答案，只回答“{NOT_STATED}”。"
)

Messages = list[dict[str, str]]


def build_messages(question: str, context: str) -> Messages:
    """Chat messages for ``question`` over ``context``; the instruction is the last thing said.

    >>> build_messages("试用期不得超过多久？", "试用期不得超过一个月。")[-1]["content"].endswith("未提及”。")
    True
    """
    user = f"资料：\n{context.strip()}\n\n问题：{question.strip()}\n\n{INSTRUCTION}"
    return [{"role": "system", "content": SYSTEM}, {"role": "user", "content": user}]


def render(tokenizer: Any, messages: Messages) -> str:
    """The prompt text in the model's own chat format, ready for the assistant's turn."""
    if getattr(tokenizer, "chat_template", None):
        return tokenizer.apply_chat_template(messages, tokenize=False, add_generation_prompt=True)
    # No template (a base model): a plain layout the model can still continue.
    body = "\n\n".join(m["content"] for m in messages)
    return f"{body}\n\n答案："


_THINK = re.compile(r"<think>.*?(</think>|$)", re.S)
_PREFACE = re.compile(cues.pattern("generate.answer_preface"))
_ENDERS = "。！？!?"


def clean_answer(raw: str) -> str:
    """The answer sentence from raw model output: first line, no preface, quotes or trailing 。.

    >>> clean_answer("答案：不得超过一个月。\\n这是因为……")
    '不得超过一个月'
    """
    text = _THINK.sub("", raw).replace("<|im_end|>", "").replace("<|endoftext|>", "")
    line = next((ln.strip() for ln in text.splitlines() if ln.strip()), "")
    line = _PREFACE.sub("", line).strip()
    cut = min((line.index(ch) for ch in _ENDERS if ch in line), default=-1)
    if cut >= 0:
        line = line[:cut]
    return line.strip().strip("“”\"'‘’「」").strip("，,；;：: ")
