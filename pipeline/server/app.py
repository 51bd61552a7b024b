"""The FastAPI application: ``create_app(settings)`` serves one store through :class:`KnowledgeBase`.

Routes only translate HTTP to library calls (``KnowledgeBase.ask``/``ingest``/``remove``, the store's
documents, blocks and feedback, the audit log's records and ``explain_lines``, ``rules_cli.lint``);
the checks that protect the service (API key, rate limit, upload name and size, coded errors) live here.
"""
from __future__ import annotations

import hashlib
import hmac
import json
import logging
import os
import shutil
import tempfile
import threading
import time
import uuid
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any, Optional

from fastapi import FastAPI, File, Form, Query, Request, UploadFile
from fastapi.exceptions import RequestValidationError
from fastapi.middleware.cors import CORSMiddleware
from fastapi.responses import FileResponse, JSONResponse, Response
from fastapi.staticfiles import StaticFiles
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.routing import Match

from .. import __version__
from ..config import Settings
from ..errors import LoopAgentError
from ..ingest import PARSERS, IngestLimits
from ..ingest.limits import sniff
from ..kb import KnowledgeBase
from . import models as m
from .metrics import Metrics
from .settings import ServerSettings

log = logging.getLogger("loopagent.server")
STATIC = Path(__file__).resolve().parent / "static"
RULES_VERSION_KEY = "rules_version"  # store meta: bumped by POST /rules/reload, watched by every worker
OPEN_PATHS = {"/health", "/", "/favicon.ico", "/docs", "/docs/oauth2-redirect", "/redoc", "/openapi.json"}
WARM_UP_QUESTION = "职工每年享受几天年休假？"  # any question: it loads what the first real one would
UPLOAD_SLACK = 64 * 1024  # multipart framing around the file itself
MAX_JSON_BYTES = 2 * 2**20  # any other request body (a full batch is about 0.2 MB)
MAX_BUCKETS = 10_000  # rate-limit buckets kept before refilled ones are dropped

# HTTP status per catalogue code (prefix match, longest first); anything else is a 400
STATUS_BY_CODE = {
    "E013": 415, "E010": 413, "E011": 413, "E0": 422,
    "E103": 404, "E1": 503,
    "E2": 500, "E303": 400, "E306": 500, "E3": 400, "E4": 503,
    "E601": 404, "E603": 404,
    "E702": 401, "E703": 429, "E704": 413, "E705": 404, "E706": 400, "E708": 500, "E709": 413,
    "E009": 404,
}
_PREFIXES = sorted(STATUS_BY_CODE, key=len, reverse=True)


def http_status(code: str) -> int:
    """The HTTP status for a catalogue code (its longest prefix in STATUS_BY_CODE; else 400)."""
    return next((STATUS_BY_CODE[p] for p in _PREFIXES if code.startswith(p)), 400)


def error_response(code: str, text: str, status: Optional[int] = None,
                   headers: Optional[dict[str, str]] = None) -> JSONResponse:
    return JSONResponse({"error": {"code": code, "message": scrub(text)}}, status_code=status or http_status(code),
                        headers=headers)


_SERVER_DIRS: list[str] = []  # folders of this server's files: never shown to a client (longest first)


def scrub(text: str) -> str:
    """``text`` without the server's own folders (a message names the file, not where it lives)."""
    for d in _SERVER_DIRS:
        text = text.replace(d + os.sep, "").replace(d, "…")
    return text


def coded(exc: LoopAgentError, status: Optional[int] = None, headers: Optional[dict[str, str]] = None) -> JSONResponse:
    return error_response(exc.code, exc.message, status, headers)


def audit_path(db: str, arg: Optional[str]) -> Optional[str]:
    from ..cli import _audit_path  # the CLI's rule: beside the store, "-" disables, $LOOPAGENT_AUDIT
    return _audit_path(db, arg)


class PlainJSON(JSONResponse):
    """JSON as the CLI prints it: any value a stage put into a trace is written (``default=str``), never a 500."""

    def render(self, content: Any) -> bytes:
        return json.dumps(content, ensure_ascii=False, default=str, separators=(",", ":")).encode("utf-8")


class RateLimiter:
    """A token bucket per key: ``per_minute`` requests a minute, bursts up to the same number."""

    def __init__(self, per_minute: int) -> None:
        self.rate = per_minute / 60.0
        self.capacity = float(per_minute)
        self._buckets: dict[str, tuple[float, float]] = {}
        self._lock = threading.Lock()

    def take(self, key: str) -> float:
        """0 when the request may go on, else the seconds until it may."""
        if self.rate <= 0:
            return 0.0
        now = time.monotonic()
        with self._lock:
            if len(self._buckets) > MAX_BUCKETS:  # forget clients whose bucket has refilled
                full = now - self.capacity / self.rate
                self._buckets = {k: v for k, v in self._buckets.items() if v[1] > full}
            tokens, last = self._buckets.get(key, (self.capacity, now))
            tokens = min(self.capacity, tokens + (now - last) * self.rate)
            if tokens >= 1.0:
                self._buckets[key] = (tokens - 1.0, now)
                return 0.0
            self._buckets[key] = (tokens, now)
            return (1.0 - tokens) / self.rate


class Service:
    """The knowledge base and what the routes share (locks, rules version, upload folder)."""

    def __init__(self, settings: ServerSettings) -> None:
        self.settings = settings
        config = Settings.resolve(rules=list(settings.rules) or None, dictionaries=list(settings.dictionaries) or None,
                                  db=settings.db)
        self.audit_log = audit_path(settings.db, settings.audit_log)
        self.kb = KnowledgeBase(settings.db, audit_log=self.audit_log, config=config,
                                limits=IngestLimits(max_pages=settings.max_pages), embed=settings.embed)
        self.uploads = settings.uploads_dir().resolve()
        self.ingest_lock = threading.Lock()  # one ingest at a time per worker; questions go on meanwhile
        self._rules_lock = threading.Lock()
        self._rules_seen = self.kb.store.get_meta(RULES_VERSION_KEY)
        self.worker = uuid.uuid4().hex[:8]  # tells the workers of `serve --workers N` apart in /health

    @property
    def rules_version(self) -> int:
        """The store's rules version this worker's rules are loaded at."""
        return int(self._rules_seen or 0)

    def sync_rules(self) -> None:
        """Reload the rules when another worker (or this one) bumped the store's rules version."""
        seen = self.kb.store.get_meta(RULES_VERSION_KEY)
        if seen != self._rules_seen:
            with self._rules_lock:
                if seen != self._rules_seen:
                    self.kb.rules.reload(force=True)
                    self._rules_seen = seen

    def bump_rules(self) -> int:
        with self._rules_lock:
            n = int(self.kb.store.get_meta(RULES_VERSION_KEY) or 0) + 1
            self.kb.store.set_meta(RULES_VERSION_KEY, str(n))
            self._rules_seen = str(n)
            return n

    def warm_up(self) -> None:
        """Load the parser, dictionaries and grammars before the first request: one unrecorded question."""
        from ..audit import AuditLog
        orch = self.kb.orchestrator
        recorded, orch.audit = orch.audit, AuditLog(None)  # the warm-up question is not an answer anyone asked
        try:
            orch.ask(WARM_UP_QUESTION)
        except Exception as exc:  # noqa: BLE001  a failed warm-up only means a slower first request
            log.warning("warm-up question failed (%s: %s); the first request loads the models", type(exc).__name__, exc)
        finally:
            orch.audit = recorded

    def record(self, trace_id: str) -> dict[str, Any]:
        from ..audit import find_record, log_files
        self.kb.audit.flush()  # the writer thread may still hold the record just answered
        if not self.audit_log or not log_files(Path(self.audit_log)):
            raise LoopAgentError("E601", path=self.audit_log)
        rec = find_record(Path(self.audit_log), trace_id)
        if rec is None:
            raise LoopAgentError("E603", trace_id=trace_id, path=self.audit_log)
        return rec

    def close(self) -> None:
        self.kb.close()


def check_upload_name(name: Optional[str]) -> str:
    """The client's file name when it is one plain name with a supported suffix; else E706."""
    supported = ", ".join(sorted(PARSERS))
    if not name or not name.strip():
        raise LoopAgentError("E706", name=name or "", why="it is empty", supported=supported)
    if "/" in name or "\\" in name or name in (".", "..") or ".." in name:
        raise LoopAgentError("E706", name=name, why="it names a folder or a parent folder", supported=supported)
    if name.startswith(".") or any(ord(c) < 32 or ord(c) == 127 for c in name) \
            or len(name.encode("utf-8", "surrogatepass")) > 240:  # file systems allow 255 bytes a name
        raise LoopAgentError("E706", name=name, why="hidden, too long or with control characters",
                             supported=supported)
    if Path(name).suffix.lower() not in PARSERS:
        raise LoopAgentError("E706", name=name, why=f"the suffix {Path(name).suffix!r} is not a format LoopAgent reads",
                             supported=supported)
    return name


def _validation_detail(exc: RequestValidationError) -> tuple[str, bool]:
    """A short summary of pydantic's errors (never the input itself) and whether the body was not JSON."""
    parts, bad_json = [], False
    for e in exc.errors()[:5]:
        if e.get("type") == "json_invalid":
            bad_json = True
            parts.append(f"malformed JSON ({e.get('ctx', {}).get('error', 'parse error')})")
            continue
        loc = ".".join(str(x) for x in e.get("loc", ()) if x != "body")
        parts.append(f"{loc or 'body'}: {e.get('msg')}")
    return "; ".join(parts) or "invalid request", bad_json


def create_app(settings: ServerSettings) -> FastAPI:
    """The application serving ``settings.db``; every route but /health (and the page) needs a key when keys are set."""
    if not isinstance(settings, ServerSettings):
        raise TypeError(f"settings must be ServerSettings, not {type(settings).__name__}")
    svc = Service(settings)
    for d in (svc.uploads, Path(settings.db).resolve().parent if not settings.is_postgres else None,
              Path(svc.audit_log).resolve().parent if svc.audit_log else None, Path.cwd()):
        if d is not None and str(d) not in _SERVER_DIRS and str(d) != os.sep:
            _SERVER_DIRS.append(str(d))
    _SERVER_DIRS.sort(key=len, reverse=True)
    metrics = Metrics()
    limiter = RateLimiter(settings.rate_limit)

    @asynccontextmanager
    async def lifespan(app: FastAPI):
        if settings.warm:
            svc.warm_up()
        yield
        svc.close()

    app = FastAPI(title="LoopAgent", version=__version__, lifespan=lifespan,
                  description="Factual answers about Chinese policy documents, each with its evidence and reasoning. "
                              "Errors are JSON `{\"error\": {\"code\", \"message\"}}` with a catalogue code.",
                  responses={400: {"model": m.ErrorResponse}, 401: {"model": m.ErrorResponse},
                             404: {"model": m.ErrorResponse}, 429: {"model": m.ErrorResponse}})
    app.state.service = svc
    app.state.metrics = metrics

    def route_label(scope: dict) -> str:
        for r in app.router.routes:
            match, _ = r.matches(scope)
            if match == Match.FULL:
                return getattr(r, "path", "other")
        return "other"

    @app.middleware("http")
    async def guard(request: Request, call_next):
        """API key, rate limit, upload size; metrics; and no stack trace ever reaches the client."""
        t0 = time.perf_counter()
        path = request.url.path
        label = route_label(request.scope)
        try:
            response = None
            if path not in OPEN_PATHS and not path.startswith("/static/") and request.method != "OPTIONS":
                key = request.headers.get("x-api-key")
                auth = request.headers.get("authorization", "")
                if not key and auth.lower().startswith("bearer "):
                    key = auth[7:].strip()
                if settings.api_keys:
                    if not key:
                        response = coded(LoopAgentError("E702", why="No API key was sent"))
                    elif not any(hmac.compare_digest(key.encode(), k.encode()) for k in settings.api_keys):
                        response = coded(LoopAgentError("E702", why="The API key is not one this service accepts"))
                who = key if settings.api_keys else (request.client.host if request.client else "?")
                if response is None:
                    wait = limiter.take(who)
                    if wait:
                        response = coded(LoopAgentError("E703", limit=settings.rate_limit, retry=int(wait) + 1),
                                         headers={"Retry-After": str(int(wait) + 1)})
                size = request.headers.get("content-length")
                if response is None and size and size.isdigit():  # refused before the body is read
                    upload = path == "/documents" and request.method == "POST"
                    limit = settings.max_upload_bytes + UPLOAD_SLACK if upload else MAX_JSON_BYTES
                    if int(size) > limit:
                        response = coded(LoopAgentError("E704", what="The upload" if upload else "The request body",
                                                        limit=settings.max_upload_bytes if upload else limit))
            if response is None:
                response = await call_next(request)
        except Exception:  # noqa: BLE001  the client gets a reference, the log the traceback
            ref = uuid.uuid4().hex[:12]
            log.exception("request %s %s failed (reference %s)", request.method, path, ref)
            response = coded(LoopAgentError("E708", ref=ref))
            metrics.error("E708")
        metrics.request(request.method, label, response.status_code, time.perf_counter() - t0)
        return response

    if settings.cors_origins:  # off by default: the page is served from the same origin
        app.add_middleware(CORSMiddleware, allow_origins=list(settings.cors_origins),
                           allow_methods=["GET", "POST", "DELETE"],
                           allow_headers=["X-API-Key", "Authorization", "Content-Type"])

    @app.exception_handler(LoopAgentError)
    async def on_coded(request: Request, exc: LoopAgentError):
        metrics.error(exc.code)
        return coded(exc)

    @app.exception_handler(RequestValidationError)
    async def on_invalid(request: Request, exc: RequestValidationError):
        detail, bad_json = _validation_detail(exc)
        metrics.error("E701")
        return error_response("E701", LoopAgentError("E701", detail=detail).message, 400 if bad_json else 422)

    @app.exception_handler(StarletteHTTPException)
    async def on_http(request: Request, exc: StarletteHTTPException):
        if exc.status_code in (404, 405):
            metrics.error("E707")
            return error_response("E707", LoopAgentError("E707", method=request.method,
                                                          path=request.url.path[:200]).message, exc.status_code)
        return error_response(f"HTTP{exc.status_code}", str(exc.detail), exc.status_code)

    # --- questions ---------------------------------------------------------------------
    def answer(req_q: Any, qid: Any, session: Any, collection: Any, trace: bool) -> dict[str, Any]:
        svc.sync_rules()
        ans = svc.kb.ask(req_q, id=qid, session=session, trace=trace, collection=collection)
        metrics.answer(ans.status)
        return ans.to_dict()

    @app.post("/ask", response_model=m.Answer, tags=["questions"],
              summary="Answer one question with evidence and reasoning")
    def ask(req: m.AskRequest) -> Any:
        return PlainJSON(answer(req.question, req.id, req.session, req.collection, req.trace))

    @app.post("/ask/batch", response_model=m.BatchResponse, tags=["questions"],
              summary="Answer several questions; an invalid item gets a status \"error\" entry")
    def ask_batch(req: m.BatchRequest) -> Any:
        from ..validate import line_id, optional_str
        if len(req.questions) > settings.max_batch:
            raise LoopAgentError("E709", n=len(req.questions), limit=settings.max_batch)
        out = []
        for i, row in enumerate(req.questions, 1):
            try:
                if not isinstance(row, dict) or "question" not in row:
                    raise LoopAgentError("E701", detail=f"item {i} is not an object with a \"question\" field")
                if not isinstance(row["question"], str):
                    raise LoopAgentError("E305", field="question", got=type(row["question"]).__name__)
                session = optional_str(row.get("session"), "session")
                collection = optional_str(row.get("collection"), "collection") or req.collection
                qid = line_id(row)
                d = answer(row["question"], qid if isinstance(qid, (str, int)) else None, session, collection,
                           req.trace)
                d["id"] = qid
                out.append(d)
            except LoopAgentError as exc:
                metrics.error(exc.code)
                q = row.get("question") if isinstance(row, dict) else None
                out.append({"id": line_id(row), "line": i, "question": q if isinstance(q, str) else None,
                            "status": "error", "error": {"code": exc.code, "message": exc.message}})
        return PlainJSON({"answers": out})

    # --- audit -------------------------------------------------------------------------
    @app.get("/trace/{trace_id}", response_model=m.TraceResponse, tags=["audit"],
             summary="The audit record of an answer, and its explanation in plain Chinese")
    def trace(trace_id: str) -> Any:
        from ..audit_cli import explain_lines
        rec = svc.record(trace_id)
        return PlainJSON({"record": rec, "explain": explain_lines(rec, svc.kb.store, svc.kb.rules.fingerprint()[0])})

    @app.post("/feedback", response_model=m.FeedbackResponse, tags=["audit"],
              summary="Mark an answer right (答案正确) or wrong (不准确)")
    def feedback(req: m.FeedbackRequest) -> Any:
        rec = svc.record(req.trace_id)
        rid = svc.kb.store.add_feedback(rec["trace_id"], req.verdict, req.expected, req.note)
        svc.kb.audit.event("feedback", trace_id=rec["trace_id"], verdict=req.verdict, expected=req.expected,
                           note=req.note)
        return {"id": rid, "trace_id": rec["trace_id"], "verdict": req.verdict}

    # --- documents and blocks ------------------------------------------------------------
    def doc_info(d: dict[str, Any]) -> dict[str, Any]:
        meta = {k: v for k, v in (d.get("meta") or {}).items() if k != "path"}  # no server paths to clients
        mat = meta.get("maturity")
        return {**{k: v for k, v in d.items() if k != "meta"}, "meta": meta,
                "maturity": mat.get("score") if isinstance(mat, dict) else None}

    @app.get("/documents", response_model=m.DocumentList, tags=["documents"],
             summary="The ingested documents (history=true: every version)")
    def documents(collection: Optional[str] = Query(None, max_length=200),
                  history: bool = Query(False, description="every version, superseded ones marked")) -> Any:
        if history:
            rows = [v for v in svc.kb.store.versions() if not collection or v.get("collection") == collection]
        else:
            rows = svc.kb.documents(collection)
        return {"documents": [doc_info(d) for d in rows]}

    @app.post("/documents", response_model=m.IngestResponse, status_code=201, tags=["documents"],
              summary="Upload one file and ingest it (the content decides the format)")
    def upload(file: UploadFile = File(...), collection: str = Form("default", max_length=200)) -> Any:
        name = check_upload_name(file.filename)
        raw = file.file.read(settings.max_upload_bytes + 1)
        if len(raw) > settings.max_upload_bytes:
            raise LoopAgentError("E704", what=f"The upload {name!r}", limit=settings.max_upload_bytes)
        if not raw.strip():
            raise LoopAgentError("E003", path=name)
        limits = svc.kb.limits
        sniff(Path(name), raw, limits)  # E013: a .pdf that is no PDF is refused before it is stored
        # a generated folder per file name: the same name again is a new version of the same document
        folder = svc.uploads / hashlib.sha256(name.encode("utf-8")).hexdigest()[:16]
        target = folder / name
        with svc.ingest_lock:
            folder.mkdir(parents=True, exist_ok=True)
            fd, tmp = tempfile.mkstemp(dir=folder, prefix=".upload-")
            with os.fdopen(fd, "wb") as f:
                f.write(raw)
            previous = target.read_bytes() if target.exists() else None
            os.replace(tmp, target)
            rep = svc.kb.ingest([target], collection=collection)
            if rep.failed:
                if previous is None:
                    shutil.rmtree(folder, ignore_errors=True)
                else:
                    target.write_bytes(previous)
                line = next((ln for ln in rep.lines if ln[:1] == "E"), rep.lines[0] if rep.lines else "E005: failed")
                code, _, text = line.partition(": ")
                metrics.error(code)
                return error_response(code, text.replace(str(target), name))
            source = svc.kb.store.source_paths()[0].get(os.path.realpath(target))
        doc = next((d for d in svc.kb.documents() if d["source"] == source), None)
        svc.kb.audit.event("ingest", source=source, via="http", status="added" if rep.added else
                           "updated" if rep.updated else "unchanged")
        return {"source": source or name, "status": "added" if rep.added else "updated" if rep.updated else "unchanged",
                "doc_id": doc["doc_id"] if doc else None, "blocks": doc["n_blocks"] if doc else 0,
                "maturity": rep.maturity.get(source or ""), "seconds": round(rep.seconds, 3),
                "warnings": [ln.replace(str(target), name) for ln in rep.lines]}

    @app.delete("/documents/{doc_id}", response_model=m.RemoveResponse, tags=["documents"],
                summary="Delete a document, every version of it")
    def remove(doc_id: str) -> Any:
        d = svc.kb.store.document(doc_id)
        if d is None:
            raise LoopAgentError("E705", doc_id=doc_id)
        with svc.ingest_lock:
            n = svc.kb.remove([d["source"]])
            svc.kb.audit.event("remove", sources=[d["source"]], removed=n, versions="all", via="http")
            path = (d.get("meta") or {}).get("path")
            if path and svc.uploads in Path(path).resolve().parents:  # an uploaded file goes with its document
                shutil.rmtree(Path(path).resolve().parent, ignore_errors=True)
        return {"doc_id": doc_id, "source": d["source"], "removed": bool(n)}

    def find_block(block_id: str):
        found = svc.kb.store.block_version(block_id)
        if found is None:
            raise LoopAgentError("E103", block_id=block_id, db="the store")
        return found

    @app.get("/blocks/{block_id}", response_model=m.BlockInfo, tags=["documents"],
             summary="One evidence block with its document (superseded versions marked)")
    def block(block_id: str) -> Any:
        b, doc = find_block(block_id)
        d = b.to_dict()
        d["meta"] = {k: v for k, v in (d.get("meta") or {}).items() if k != "path"}
        d.update({k: doc.get(k) for k in ("title", "source", "kind", "version_date", "content_hash",
                                          "superseded_by", "superseded_at")})
        return PlainJSON(d)

    @app.get("/blocks/{block_id}/image", tags=["documents"], response_class=Response,
             responses={200: {"content": {"image/png": {}}}},
             summary="The PDF page crop of a block, the cited sentence highlighted (PNG)")
    def block_image(block_id: str, trace: Optional[str] = Query(None, max_length=64),
                    highlight: Optional[str] = Query(None, max_length=500)) -> Any:
        from ..ingest.render import render_evidence
        b, doc = find_block(block_id)
        pdf = (doc.get("meta") or {}).get("path")
        if not pdf or not b.page_start or not str(pdf).lower().endswith(".pdf") or not Path(pdf).exists():
            raise LoopAgentError("E009", block_id=block_id)
        cited = highlight
        if cited is None and trace:
            rec = svc.record(trace)
            cited = next((e.get("text") for e in rec.get("evidence") or [] if e.get("block_id") == block_id), None)
        with tempfile.TemporaryDirectory() as tmp:
            out = render_evidence(Path(pdf), b.page_start, b.bbox, cited or b.text, Path(tmp) / "ev.png")
            return Response(Path(out).read_bytes(), media_type="image/png")

    # --- rules -------------------------------------------------------------------------
    @app.post("/rules/reload", response_model=m.ReloadResponse, tags=["rules"],
              summary="Re-read the rule and dictionary files now, in every worker")
    def rules_reload() -> Any:
        changed = svc.kb.rules.reload(force=True)
        version = svc.bump_rules()
        return {"changed": changed, "version": version, "fingerprint": svc.kb.rules.fingerprint()[0],
                "errors": svc.kb.rules.error_lines()}

    @app.get("/rules/lint", response_model=m.LintResponse, tags=["rules"],
             summary="Validate the rule files in force (as `loopagent rules lint`)")
    def rules_lint() -> Any:
        from ..rules_cli import lint
        problems = lint(svc.kb.config)
        return {"errors": [p for p in problems if p.startswith("E")],
                "warnings": [p for p in problems if not p.startswith("E")]}

    # --- operations ----------------------------------------------------------------------
    @app.get("/health", response_model=m.Health, tags=["operations"], summary="Liveness (needs no key)")
    def health() -> Any:
        svc.sync_rules()
        st = svc.kb.store.stats()
        return {"status": "ok", "version": __version__, "documents": st["documents"], "blocks": st["blocks"],
                "worker": svc.worker, "rules_version": svc.rules_version}

    @app.get("/metrics", tags=["operations"], response_class=Response,
             summary="Prometheus text: requests, latency histogram, answers by status, errors by code")
    def prometheus() -> Any:
        body, ctype = metrics.render()
        return Response(body, media_type=ctype)

    # --- the page --------------------------------------------------------------------------
    app.mount("/static", StaticFiles(directory=STATIC), name="static")

    @app.get("/", include_in_schema=False)
    def index() -> Any:
        return FileResponse(STATIC / "index.html")

    return app


def create_app_from_env() -> FastAPI:
    """The factory each `loopagent serve --workers N` worker calls (settings from $LOOPAGENT_SERVER_SETTINGS)."""
    return create_app(ServerSettings.from_env())
