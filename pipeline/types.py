"""Shared data types: the document model and the answer contract (see DESIGN.md).

Every stage and every interface (library, CLI, HTTP) speaks these types; the
JSON shape of :class:`Answer` is the public contract.
"""
from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any, Literal, Optional, TypedDict, Union

BlockType = Literal["heading", "paragraph", "clause", "list_item", "table", "note"]
Status = Literal["answered", "not_found", "ambiguous", "navigation", "error"]  # DESIGN.md, "The answer object"
ValueKind = Literal["count", "number", "money", "duration", "date", "boolean", "range", "list", "text"]

BLOCK_TYPES: tuple[str, ...] = ("heading", "paragraph", "clause", "list_item", "table", "note")
VALUE_KINDS: tuple[str, ...] = ("count", "number", "money", "duration", "date", "boolean", "range", "list", "text")
# the question types rules may name (question_types.yaml `type`, templates' and hints' `types`)
QUESTION_TYPES: tuple[str, ...] = ("count", "number", "money", "duration", "date", "yesno", "list", "condition",
                                   "exception", "definition", "who", "procedure", "compare", "open", "multihop",
                                   "table", "code")


# --- the typed shapes of Answer.value (one per value kind; JSON-compatible dicts) -------------------
class QuantityValue(TypedDict, total=False):
    """count / number / money / duration: ``number`` in ``unit`` (money in 元, durations 日/月/年/…)."""

    kind: Literal["count", "number", "money", "duration"]
    number: float
    unit: str
    items: list[str]   # count: the enumerated items, when the count comes from a list


class DateValue(TypedDict, total=False):
    kind: Literal["date"]
    iso: str          # YYYY-MM-DD (or YYYY-MM / YYYY when the document is that precise)
    text: str


class BooleanValue(TypedDict):
    kind: Literal["boolean"]
    value: bool


class RangeValue(TypedDict, total=False):
    kind: Literal["range"]
    min: Optional[float]
    max: Optional[float]
    unit: str


class ListValue(TypedDict, total=False):
    kind: Literal["list"]
    items: list[Any]   # strings, or the alternatives of an ``ambiguous`` answer


class TextValue(TypedDict, total=False):
    kind: Literal["text"]
    text: str
    term: str          # definition: the term defined


Value = Union[QuantityValue, DateValue, BooleanValue, RangeValue, ListValue, TextValue]


@dataclass
class Sentence:
    """A sentence of a block, with character offsets inside the block's text."""

    text: str
    start: int
    end: int


@dataclass
class Block:
    """A structural unit of a document: a heading, a paragraph (款), a list item, a table...

    ``block_id`` is derived from the document's content and the block's position and
    text, so re-ingesting the same content gives the same ids.
    """

    block_id: str
    doc_id: str
    type: str
    text: str
    order: int
    section: list[str] = field(default_factory=list)
    clause: Optional[str] = None
    page_start: Optional[int] = None
    page_end: Optional[int] = None
    bbox: Optional[list[float]] = None
    table_header: Optional[list[str]] = None
    table_rows: Optional[list[list[str]]] = None
    meta: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass
class Document:
    """One ingested file and its metadata."""

    doc_id: str
    title: str
    source: str
    kind: str
    content_hash: str
    version_date: Optional[str] = None
    effective_date: Optional[str] = None
    meta: dict[str, Any] = field(default_factory=dict)
    blocks: list[Block] = field(default_factory=list)

    def to_dict(self, with_blocks: bool = False) -> dict[str, Any]:
        d = asdict(self)
        if not with_blocks:
            d.pop("blocks")
        return d


@dataclass
class Evidence:
    """Where an answer comes from: document, page, clause, sentence and offsets in the block."""

    doc_id: str
    title: str
    source: str
    block_id: str
    section: list[str]
    text: str
    start: int
    end: int
    page: Optional[int] = None
    bbox: Optional[list[float]] = None
    doc_kind: Optional[str] = None   # statute … other (pipeline/sources.py DOC_KINDS)
    version: Optional[str] = None    # the document's version label (2023-12-29, 2020版, 第2版), None if unknown

    def to_dict(self) -> dict[str, Any]:
        return {
            "doc_id": self.doc_id, "title": self.title, "source": self.source,
            "page": self.page, "block_id": self.block_id, "section": list(self.section),
            "text": self.text, "start": self.start, "end": self.end, "bbox": self.bbox,
            "doc_kind": self.doc_kind, "version": self.version,
        }


@dataclass
class Answer:
    """The result of ``ask``; ``to_dict()`` is the JSON every interface prints."""

    question: str
    status: str = "not_found"        # one of Status
    answer: str = ""
    value: Optional[Value] = None     # a dict of one of the Value shapes; kind is one of VALUE_KINDS
    evidence: list[Evidence] = field(default_factory=list)
    method: str = ""
    confidence: float = 0.0
    reasoning: list[str] = field(default_factory=list)
    trace_id: str = ""
    timings_ms: dict[str, float] = field(default_factory=dict)
    id: Optional[str] = None
    trace: Optional[dict[str, Any]] = None
    # status navigation: [{doc_id, title, section, block_id, summary}] (pipeline/sources.py)
    navigation: Optional[list[dict[str, Any]]] = None

    def to_dict(self) -> dict[str, Any]:
        d: dict[str, Any] = {
            "id": self.id,
            "question": self.question,
            "status": self.status,
            "answer": self.answer,
            "value": self.value,
            "evidence": [e.to_dict() for e in self.evidence],
            "method": self.method,
            "confidence": round(float(self.confidence), 3),
            "reasoning": list(self.reasoning),
            "trace_id": self.trace_id,
            "timings_ms": {k: round(v, 2) for k, v in self.timings_ms.items()},
        }
        if self.navigation is not None:
            d["navigation"] = [dict(x) for x in self.navigation]
        if self.trace is not None:
            d["stages"] = self.trace  # per-stage details, only with trace=True / --trace
        return d


def check_ask_args(question: Any, id: Any, session: Any, collection: Any) -> None:
    """The argument types ``ask`` accepts, embedded (KnowledgeBase) or remote (Client): TypeError otherwise."""
    if not isinstance(question, str):
        raise TypeError(f"question must be str, not {type(question).__name__}")
    if id is not None and not isinstance(id, (str, int)):
        raise TypeError(f"id must be str, int or None, not {type(id).__name__}")
    for name, value in (("session", session), ("collection", collection)):
        if value is not None and not isinstance(value, str):
            raise TypeError(f"{name} must be str or None, not {type(value).__name__}")


def not_found(question: str, reasoning: list[str] | None = None) -> Answer:
    """An answer object saying no evidence supports an answer."""
    return Answer(question=question, status="not_found", reasoning=list(reasoning or []))


# --- what the stages pass each other ------------------------------------------

@dataclass
class Query:
    """Query analysis output: the question type, its terms and constraints."""

    text: str
    qtype: str = "open"
    terms: list[str] = field(default_factory=list)          # content words of the question (jieba)
    weights: dict[str, float] = field(default_factory=dict)  # term -> weight (lexicon tier or IDF)
    expansions: dict[str, list[str]] = field(default_factory=dict)  # term -> document wordings (synonyms)
    core_verb: Optional[str] = None
    entities: list[str] = field(default_factory=list)
    doc_hint: Optional[str] = None       # a document named by 《…》 or a short name
    article_hint: Optional[str] = None   # 第X条 named in the question
    constraints: dict[str, Any] = field(default_factory=dict)
    reasons: list[str] = field(default_factory=list)
    rejected: list[dict[str, Any]] = field(default_factory=list)  # {method, why} refused by the gate (audit)


@dataclass
class Candidate:
    """A block chosen by stage 1, with its document's title/source and the score breakdown."""

    block: Block
    title: str
    source: str
    score: float
    breakdown: dict[str, Any] = field(default_factory=dict)


@dataclass
class Anchor:
    """A sentence chosen by stage 2 as likely to hold the answer."""

    candidate: Candidate
    sentence: Sentence
    score: float
    pattern: Optional[str] = None
    details: dict[str, Any] = field(default_factory=dict)


# --- fallback generation (pipeline.generate) -----------------------------------

@dataclass
class Piece:
    """One sentence-sized piece of a distilled context, with where it comes from.

    ``role`` is ``anchor``, ``before``, ``after``, ``table_header``, ``list_previous``
    or ``list_lead``; ``start``/``end`` index into the source block's text (-1 for
    a table header built from ``Block.table_header``).
    """

    role: str
    text: str
    block_id: str
    start: int
    end: int


@dataclass
class Distilled:
    """The small context the generator may answer from: a few pieces around an anchor."""

    text: str
    pieces: list[Piece]
    anchor_block_id: str
    budget: int

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass
class GenResult:
    """What the generator said, and whether every number, code and date in it is in the context.

    ``grounded`` is False for 未提及, an empty answer, or a failed check; ``reason``
    says which (e.g. ``number 45 not in context``). ``tokens`` counts generated tokens.
    """

    text: str
    grounded: bool
    reason: str
    tokens: int
    ms: float
    model: str = ""
    raw: str = ""

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)
