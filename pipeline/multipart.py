"""Questions that ask twice or three times (…由哪个部门负责？这个部门的专职人员至少要几个人？).

Each asking sentence becomes a part answered on its own, in order. A later part reads as a follow-up of the
one before (its words count, at a lower weight, as a session's next question would), is looked for first in
the document that answered the part before, and a demonstrative phrase that points back at the previous
answer (这个部门, 那部条例) is replaced by that answer when the answer is a short name. The question is
answered only when every part is; otherwise the caller answers it whole, as before. The cues are data
(rules/pipeline_cues.yaml ``multipart.*``).
"""
from __future__ import annotations

import re
from typing import Any, Optional

from . import cues
from .analyze import joined_asks

_ASKING = re.compile(cues.pattern("question.asking_clause"))
_REFERENCE = re.compile(cues.pattern("multipart.reference"))
_NOT_A_NAME = re.compile(cues.pattern("multipart.not_a_name"))
MAX_PARTS = 3
NAME_MAX = 30  # an answer longer than this is a sentence, not a name another part can lean on


def split_asks(question: str) -> list[str]:
    """The parts of a question with two or three asking sentences, each with the telling sentences before it
    (我在上海买了房。税率多少？免税面积多少？ → 我在上海买了房。税率多少？ / 免税面积多少？). Fewer than two
    or more than three asking sentences: []."""
    sentences = [s for s in re.split(r"(?<=[？?])", question) if s.strip()]
    parts: list[str] = []
    lead = ""
    for s in sentences:
        if _ASKING.search(re.sub(r"[？?]$", "", s)) and s.rstrip().endswith(("？", "?")):
            parts.append(lead + s)
            lead = ""
        else:
            lead += s
    if lead and parts:  # words after the last ask (…多少？请说明依据。) belong to it
        parts[-1] += lead
    return parts if 2 <= len(parts) <= MAX_PARTS else []


def split_joined(question: str) -> list[str]:
    """The parts of a question whose one asking sentence asks twice, joined by 、 or a comma (E类人才租房，每个月补贴
    多少、最长能补多久？ → E类人才租房，每个月补贴多少？ / E类人才租房，最长能补多久？): each ask with the words before
    the first of them (analyze.joined_asks finds the asks). Not two or three asks: []."""
    asks = joined_asks(question)
    if not 2 <= len(asks) <= MAX_PARTS:
        return []
    start = question.find(asks[0])
    if start < 0:
        return []
    lead = question[:start]
    return [f"{lead}{a.rstrip('？?，,、 ')}？" for a in asks]


def name_of(value: Optional[dict[str, Any]]) -> Optional[str]:
    """The previous part's answer when it is a short name (内部审计部门, 《…条例》) a later part can point at."""
    v = value or {}
    text = v.get("text") if v.get("kind") == "text" else None
    text = (text or "").strip()
    if not text or len(text) > NAME_MAX or _NOT_A_NAME.search(text):
        return None
    return text


def refer(part: str, name: Optional[str]) -> tuple[str, Optional[str]]:
    """``part`` with its first demonstrative phrase pointing back (这个部门, 那部条例) replaced by ``name``;
    the phrase replaced, or None when there is none or no name to put in its place."""
    if not name:
        return part, None
    m = _REFERENCE.search(part)
    if m is None:
        return part, None
    return part[:m.start()] + name + part[m.end():], m.group(0)
