"""Pydantic models of the HTTP API: the answer contract of DESIGN.md, field by field, plus requests.

The answer models mirror :meth:`pipeline.types.Answer.to_dict` exactly (a test checks the keys and
validates real answers), so ``/openapi.json`` documents every field the library and CLI print.
"""
from __future__ import annotations

from typing import Any, Literal, Optional, Union

from pydantic import BaseModel, ConfigDict, Field

from ..types import VALUE_KINDS  # noqa: F401  (the Literal below lists the same kinds)

StatusName = Literal["answered", "not_found", "ambiguous", "navigation", "error"]
KindName = Literal["count", "number", "money", "duration", "date", "boolean", "range", "list", "text"]


class Value(BaseModel):
    """The normalised value; which fields are present depends on ``kind`` (pipeline.types.Value)."""

    model_config = ConfigDict(extra="allow")
    kind: KindName = Field(description="count, number, money, duration, date, boolean, range, list or text")
    number: Optional[float] = Field(None, description="count/number/money/duration: the number in `unit`")
    unit: Optional[str] = Field(None, description="unit of `number` (money in 元, durations 日/月/年…) or of a range")
    iso: Optional[str] = Field(None, description="date: YYYY-MM-DD (or YYYY-MM / YYYY)")
    text: Optional[str] = Field(None, description="text (and date) values: the text")
    term: Optional[str] = Field(None, description="definition answers: the term defined")
    value: Optional[bool] = Field(None, description="boolean: the answer")
    min: Optional[float] = Field(None, description="range: lower bound (null = open)")
    max: Optional[float] = Field(None, description="range: upper bound (null = open)")
    items: Optional[list[Any]] = Field(None, description="list: the items; ambiguous answers: the alternatives")


class Evidence(BaseModel):
    """Where an answer comes from; ``start``/``end`` are character offsets of ``text`` in the block."""

    doc_id: str
    title: str
    source: str = Field(description="the document's source name (its file name as ingested)")
    page: Optional[int] = Field(None, description="PDF page (1-based); null for other formats")
    block_id: str = Field(description="open it with GET /blocks/{block_id}")
    section: list[str] = Field(description="section path, outermost first, e.g. [第二章 …, 第十九条]")
    text: str = Field(description="the cited sentence")
    start: int = Field(description="offset of `text` in the block's text")
    end: int
    bbox: Optional[list[float]] = Field(None, description="PDF: [x0, top, x1, bottom] in points")
    doc_kind: Optional[str] = Field(None, description="statute, administrative_regulation, departmental_rule, "
                                    "local_regulation, policy_notice, internal_policy, contract, manual or other")
    version: Optional[str] = Field(None, description="the document's version label (2023-12-29, 2020版, 第2版)")


class NavigationItem(BaseModel):
    """A section an open question may read: status navigation."""

    doc_id: str
    title: str
    section: list[str]
    block_id: str = Field(description="open it with GET /blocks/{block_id}")
    summary: str = Field(description="the block's first sentence, quoted")


class Answer(BaseModel):
    """One answer: the object `loopagent ask --json` prints and ``Answer.to_dict()`` returns."""

    id: Optional[Union[str, int, float, bool]] = Field(None, description="the caller's id, echoed")
    question: Optional[str] = Field(None, description="the question as answered (normalised)")
    status: StatusName
    answer: str = Field("", description="the provision's wording; empty unless answered")
    value: Optional[Value] = None
    evidence: list[Evidence] = Field(default_factory=list)
    method: str = Field("", description="id of the rule that produced the value (a template, a strategy, …)")
    confidence: float = 0.0
    reasoning: list[str] = Field(default_factory=list, description="the reasoning steps, in Chinese")
    trace_id: str = Field("", description="the audit record: GET /trace/{trace_id}")
    timings_ms: dict[str, float] = Field(default_factory=dict, description="per stage and total, milliseconds")
    stages: Optional[dict[str, Any]] = Field(None, description="per-stage details; only with trace=true")
    navigation: Optional[list[NavigationItem]] = Field(None, description="status navigation: the relevant sections")


class ErrorDetail(BaseModel):
    code: str = Field(description="a catalogue code (pipeline/errors.py), e.g. E301")
    message: str = Field(description="what went wrong and what to do next")


class ErrorResponse(BaseModel):
    """Every 4xx/5xx response body."""

    error: ErrorDetail


class BatchError(BaseModel):
    """A batch item that is not a valid question: the batch goes on."""

    id: Optional[Union[str, int, float, bool]] = None
    line: int = Field(description="1-based position of the item in the batch")
    question: Optional[str] = None
    status: Literal["error"] = "error"
    error: ErrorDetail


class AskRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")
    question: str = Field(description="the question (at most max_question_chars, default 500, characters)")
    id: Optional[Union[str, int]] = Field(None, description="echoed in the answer")
    session: Optional[str] = Field(None, description="links follow-up questions (reuse the previous terms)")
    collection: Optional[str] = Field(None, description="only documents of this collection")
    trace: bool = Field(False, description="add the per-stage details (`stages`)")


class BatchRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")
    questions: list[Any] = Field(description='items {"id", "question", "session"?, "collection"?}; an invalid '
                                             "item gets a status \"error\" entry and the batch goes on")
    trace: bool = False
    collection: Optional[str] = Field(None, description="default collection for items without one")


class BatchResponse(BaseModel):
    answers: list[Union[Answer, BatchError]]


class FeedbackRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")
    trace_id: str = Field(description="the answer's trace_id")
    verdict: Literal["right", "wrong"] = Field(description="right (答案正确) or wrong (不准确)")
    expected: Optional[str] = Field(None, max_length=2000, description="the answer it should have given")
    note: Optional[str] = Field(None, max_length=2000)


class FeedbackResponse(BaseModel):
    id: int = Field(description="the feedback row")
    trace_id: str
    verdict: str


class DocumentInfo(BaseModel):
    model_config = ConfigDict(extra="allow")
    doc_id: str
    title: str
    source: str
    kind: str = Field(description="document kind (statute, regulation, manual, contract, …)")
    content_hash: str
    version_date: Optional[str] = None
    effective_date: Optional[str] = None
    collection: Optional[str] = None
    n_blocks: Optional[int] = None
    ingested_at: Optional[float] = None
    maturity: Optional[int] = Field(None, description="PDF structural maturity score 0-100")
    meta: dict[str, Any] = Field(default_factory=dict)
    superseded_at: Optional[float] = Field(None, description="history=true: when a newer version replaced this one")
    superseded_by: Optional[str] = Field(None, description="history=true: the content hash of the newer version")


class DocumentList(BaseModel):
    documents: list[DocumentInfo]


class IngestResponse(BaseModel):
    source: str = Field(description="the source name the upload is stored under")
    status: Literal["added", "updated", "unchanged"]
    doc_id: Optional[str] = None
    blocks: int
    maturity: Optional[int] = None
    warnings: list[str] = Field(default_factory=list, description="coded lines (W…)")
    seconds: float


class RemoveResponse(BaseModel):
    doc_id: str
    source: str
    removed: bool


class BlockInfo(BaseModel):
    model_config = ConfigDict(extra="allow")
    block_id: str
    doc_id: str
    type: str
    text: str
    order: int
    section: list[str]
    clause: Optional[str] = None
    page_start: Optional[int] = None
    page_end: Optional[int] = None
    bbox: Optional[list[float]] = None
    table_header: Optional[list[str]] = None
    table_rows: Optional[list[list[str]]] = None
    meta: dict[str, Any] = Field(default_factory=dict)
    title: Optional[str] = None
    source: Optional[str] = None
    kind: Optional[str] = None
    version_date: Optional[str] = None
    content_hash: Optional[str] = None
    superseded_by: Optional[str] = None
    superseded_at: Optional[float] = None


class TraceResponse(BaseModel):
    record: dict[str, Any] = Field(description="the hash-chained audit record (pipeline/audit.py)")
    explain: list[str] = Field(description="the record in plain Chinese (as `loopagent explain`)")


class ReloadResponse(BaseModel):
    changed: bool
    version: int = Field(description="the store's rules version counter (every worker reloads when it moves)")
    fingerprint: str = Field(description="content hash of the rule and dictionary files in force")
    errors: list[str] = Field(description="rule files that failed to load (their previous rules stay active)")


class LintResponse(BaseModel):
    errors: list[str]
    warnings: list[str]


class Health(BaseModel):
    status: Literal["ok"]
    version: str
    documents: int
    blocks: int
    worker: str = Field(description="a random id of the worker process that answered")
    rules_version: int = Field(description="the store's rules version this worker's rules are loaded at")
