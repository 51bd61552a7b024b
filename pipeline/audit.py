"""The audit trail: one tamper-evident JSONL record per answer, written off the answering thread.

Each record carries ``seq``, the hash of the previous record (``prev``) and its own ``hash``
(SHA-256 of the record's canonical JSON without ``hash``), so ``loopagent audit verify``
finds an edited, removed or reordered record. Files rotate by size (``log.jsonl.1``,
``.2``, … oldest first) and the chain runs on across them. The last seq/hash also sit in
``log.jsonl.lock`` (the file every writer locks), so a cut-off tail is found too.

Writing never blocks or raises into ``ask``: records go to a queue that a writer thread
drains; a record that cannot be written (full queue, disk error) is counted in
``failures``. Every record is one ``os.write`` of a whole line under an exclusive
lock (``lockf``), so threads and processes sharing a file never interleave partial lines.
"""
from __future__ import annotations

import atexit
import fcntl
import hashlib
import json
import logging
import os
import queue
import re
import threading
import time
import uuid
import weakref
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterator, Optional

from .errors import message
from .types import Answer

log = logging.getLogger("loopagent")

GENESIS = ""               # ``prev`` of the very first record
DEFAULT_MAX_BYTES = 16 << 20
_TAIL = 1 << 16            # bytes read back from a file's end to find its last record


def new_trace_id() -> str:
    return uuid.uuid4().hex[:16]


def tool_version() -> str:
    from . import __version__
    return __version__


def canonical(row: dict[str, Any]) -> str:
    """The canonical JSON a record is hashed and written as (sorted keys, no spaces)."""
    return json.dumps(row, ensure_ascii=False, sort_keys=True, separators=(",", ":"), default=str)


def record_hash(row: dict[str, Any]) -> str:
    """SHA-256 of the record without its own ``hash`` field."""
    body = {k: v for k, v in row.items() if k != "hash"}
    return hashlib.sha256(canonical(body).encode("utf-8")).hexdigest()


def answer_record(answer: Answer, context: Optional[dict[str, Any]] = None) -> dict[str, Any]:
    """The audit record of one answer (before ``seq``/``prev``/``hash`` are set by the writer).

    ``context`` may hold ``docs`` ({doc_id: document row}) and ``blocks`` ({block_id: Block})
    to complete the evidence with content hash, dates and clause; every other key is copied.
    """
    ctx = dict(context or {})
    docs = ctx.pop("docs", {}) or {}
    blocks = ctx.pop("blocks", {}) or {}
    evidence = []
    for e in answer.evidence:
        d = docs.get(e.doc_id) or {}
        b = blocks.get(e.block_id)
        evidence.append({
            "doc_id": e.doc_id, "content_hash": d.get("content_hash"), "title": e.title, "source": e.source,
            "version_date": d.get("version_date"), "effective_date": d.get("effective_date"),
            "block_id": e.block_id, "clause": getattr(b, "clause", None), "section": e.section, "page": e.page,
            "bbox": e.bbox, "start": e.start, "end": e.end, "text": e.text,
            "doc_kind": e.doc_kind, "version": e.version})
    row = {
        "kind": "answer", "ts": round(time.time(), 3), "trace_id": answer.trace_id, "id": answer.id,
        "question": answer.question, "session": None, "collection": None,
        "status": answer.status, "answer": answer.answer, "value": answer.value, "method": answer.method,
        "confidence": round(float(answer.confidence), 3), "evidence": evidence, "reasoning": list(answer.reasoning),
        "rejected": [], "timings_ms": {k: round(v, 2) for k, v in answer.timings_ms.items()},
        "tool_version": tool_version(),
    }
    row.update(ctx)
    if answer.trace is not None:
        row["stages"] = answer.trace
    return row


class AuditLog:
    """Append-only, hash-chained JSONL log shared by threads and processes; ``None`` path disables it."""

    def __init__(self, path: Optional[str | Path], max_bytes: int = DEFAULT_MAX_BYTES,
                 queue_size: int = 10000) -> None:
        self.path = Path(path) if path else None
        self.max_bytes = max_bytes
        self.failures = 0
        self.written = 0
        self.last_error: Optional[str] = None
        self._warning: Optional[str] = None
        self._lock = threading.Lock()       # one writer per process at a time
        self._queue: queue.Queue = queue.Queue(maxsize=queue_size)
        self._pending = 0
        self._idle = threading.Condition()
        self._thread: Optional[threading.Thread] = None
        if self.path is not None:
            _OPEN.add(self)

    @property
    def enabled(self) -> bool:
        return self.path is not None

    # --- producing (caller threads; never raise) ------------------------------
    def record(self, answer: Answer, context: Optional[dict[str, Any]] = None) -> None:
        """Queue the record of one answer; a failure is counted, never raised."""
        if self.path is None:
            return
        try:
            self._put(answer_record(answer, context))
        except Exception as exc:  # a bad value in the record must not break answering
            self._fail(f"{type(exc).__name__}: {exc}")

    def event(self, kind: str, **fields: Any) -> None:
        """Queue a non-answer record (a document removed, feedback given) into the same chain."""
        if self.path is None:
            return
        self._put({"kind": kind, "ts": round(time.time(), 3), "tool_version": tool_version(), **fields})

    def _put(self, row: dict[str, Any]) -> None:
        with self._idle:
            self._pending += 1
        try:
            self._queue.put_nowait(row)
        except queue.Full:
            self._done()
            self._fail("queue full (the disk is slower than answering)")
            return
        self._ensure_thread()

    def _ensure_thread(self) -> None:
        if self._thread is None or not self._thread.is_alive():
            with self._lock:
                if self._thread is None or not self._thread.is_alive():
                    self._thread = threading.Thread(target=self._drain, name="loopagent-audit", daemon=True)
                    self._thread.start()

    def _fail(self, why: str) -> None:
        with self._idle:
            self.failures += 1
            self.last_error = why
            self._warning = message("W015", path=str(self.path), detail=why)
        log.warning(self._warning)

    def take_warning(self) -> Optional[str]:
        """The W015 warning of the last failed write since the previous call (None if all writes worked).

        Waits for queued records first, so a CLI run reports its own failures."""
        self.flush()
        with self._idle:
            w, self._warning = self._warning, None
        return w

    def _done(self) -> None:
        with self._idle:
            self._pending -= 1
            if self._pending <= 0:
                self._idle.notify_all()

    # --- consuming (the writer thread) -----------------------------------------
    def _drain(self) -> None:
        while True:
            row = self._queue.get()
            try:
                self.write_now(row)
            except Exception as exc:
                self._fail(f"{type(exc).__name__}: {exc}")
            finally:
                self._done()

    def flush(self, timeout: float = 10.0) -> bool:
        """Wait until every queued record is written (or failed); False on timeout."""
        deadline = time.monotonic() + timeout
        with self._idle:
            while self._pending > 0:
                left = deadline - time.monotonic()
                if left <= 0:
                    return False
                self._idle.wait(left)
        return True

    def write_now(self, row: dict[str, Any]) -> dict[str, Any]:
        """Chain and append one record synchronously (the writer thread's step; raises OSError)."""
        assert self.path is not None
        with _path_lock(self.path):  # POSIX locks do not exclude threads of one process: this does
            self.path.parent.mkdir(parents=True, exist_ok=True)
            lock_fd = os.open(f"{self.path}.lock", os.O_RDWR | os.O_CREAT, 0o644)
            try:
                # a POSIX record lock: held by this process only, so a fork child never inherits it
                fcntl.lockf(lock_fd, fcntl.LOCK_EX)
                seq, prev = self._head(lock_fd)
                row = {**row, "seq": seq + 1, "prev": prev}
                row["hash"] = record_hash(row)
                data = (canonical(row) + "\n").encode("utf-8")
                size = self.path.stat().st_size if self.path.exists() else 0
                if size and size + len(data) > self.max_bytes:
                    self._rotate()
                fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
                try:
                    n = os.write(fd, data)  # one write of the whole line
                    if n != len(data):
                        raise OSError(f"short write ({n} of {len(data)} bytes)")
                    size = os.fstat(fd).st_size
                finally:
                    os.close(fd)
                head = json.dumps({"seq": row["seq"], "hash": row["hash"], "size": size}).encode()
                os.pwrite(lock_fd, head.ljust(160), 0)
                self.written += 1
                return row
            finally:
                os.close(lock_fd)  # closing releases the lock

    def _head(self, lock_fd: int) -> tuple[int, str]:
        """(seq, hash) of the last record: from the lock file when it matches the log, else the log's tail."""
        raw = os.pread(lock_fd, 200, 0).strip()
        size = self.path.stat().st_size if self.path.exists() else 0
        try:
            head = json.loads(raw) if raw else None
        except ValueError:
            head = None
        if head and head.get("size") == size:
            return int(head["seq"]), str(head["hash"])
        for p in reversed(log_files(self.path)):
            last = _last_record(p)
            if last is not None:
                return int(last.get("seq", 0)), str(last.get("hash", GENESIS))
        return 0, GENESIS

    def _rotate(self) -> None:
        files = rotated_files(self.path)
        n = int(files[-1].name.rsplit(".", 1)[1]) + 1 if files else 1
        os.replace(self.path, f"{self.path}.{n}")

    def close(self) -> None:
        self.flush()


_OPEN: "weakref.WeakSet[AuditLog]" = weakref.WeakSet()
_PATH_LOCKS: dict[str, threading.Lock] = {}
_PATH_LOCKS_GUARD = threading.Lock()


def _path_lock(path: Path) -> threading.Lock:
    """One lock per log file in this process, shared by every AuditLog object writing it."""
    key = os.path.abspath(path)
    with _PATH_LOCKS_GUARD:
        return _PATH_LOCKS.setdefault(key, threading.Lock())


def _after_fork() -> None:  # a forked worker starts with fresh locks, queue and writer thread
    global _PATH_LOCKS_GUARD
    _PATH_LOCKS_GUARD = threading.Lock()
    _PATH_LOCKS.clear()
    for log in list(_OPEN):
        log._lock = threading.Lock()
        log._idle = threading.Condition()
        log._queue = queue.Queue(maxsize=log._queue.maxsize)
        log._pending = 0
        log._thread = None


os.register_at_fork(after_in_child=_after_fork)


@atexit.register
def _flush_all() -> None:  # records queued just before exit (the CLI) are still written
    for log in list(_OPEN):
        log.flush(timeout=10)


# --- reading -------------------------------------------------------------------
def rotated_files(path: Path) -> list[Path]:
    """Rotated files of ``path``, oldest first."""
    path = Path(path)
    pat = re.compile(re.escape(path.name) + r"\.(\d+)$")
    found = [(int(m.group(1)), p) for p in path.parent.glob(path.name + ".*") if (m := pat.match(p.name))]
    return [p for _, p in sorted(found)]


def log_files(path: Path) -> list[Path]:
    """Every file of the log, oldest first (rotated ones, then the current one)."""
    path = Path(path)
    return rotated_files(path) + ([path] if path.exists() else [])


def _last_record(path: Path) -> Optional[dict[str, Any]]:
    with open(path, "rb") as f:
        f.seek(0, os.SEEK_END)
        end = f.tell()
        f.seek(max(0, end - _TAIL))
        lines = f.read().splitlines()
    for line in reversed(lines):
        try:
            return json.loads(line)
        except ValueError:
            continue
    return None


def iter_records(path: Path) -> Iterator[tuple[Path, int, dict[str, Any]]]:
    """(file, line number, record) for every parseable line of the log, oldest first."""
    for p in log_files(path):
        with open(p, encoding="utf-8", errors="replace") as f:
            for lineno, line in enumerate(f, 1):
                if line.strip():
                    try:
                        yield p, lineno, json.loads(line)
                    except ValueError:
                        continue


def find_record(path: Path, trace_id: str) -> Optional[dict[str, Any]]:
    """The answer record with this trace id (newest files first), or None."""
    needle = f'"trace_id":"{trace_id}"'.encode()
    for p in reversed(log_files(Path(path))):
        with open(p, "rb") as f:
            for line in f:
                if needle in line:
                    try:
                        row = json.loads(line)
                    except ValueError:
                        continue
                    if row.get("trace_id") == trace_id and row.get("kind", "answer") == "answer":
                        return row
    return None


@dataclass
class VerifyReport:
    """What ``verify`` found: how many records and files, and each break in the chain."""

    records: int = 0
    files: int = 0
    problems: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.problems


def verify(path: str | Path) -> VerifyReport:
    """Check every record's hash, its link to the previous record, the seq order and the head."""
    from .errors import message
    path = Path(path)
    rep = VerifyReport()
    files = log_files(path)
    rep.files = len(files)
    prev, seq = GENESIS, 0
    for p in files:
        with open(p, "rb") as f:
            for lineno, raw in enumerate(f, 1):
                if not raw.strip():
                    continue
                where = f"{p.name}:{lineno}"
                try:
                    row = json.loads(raw.decode("utf-8"))
                    if not isinstance(row, dict):
                        raise ValueError("not an object")
                except ValueError:
                    rep.problems.append(message("E602", where=where, problem="the line is not a JSON record"))
                    continue
                rep.records += 1
                if record_hash(row) != row.get("hash"):
                    rep.problems.append(message("E602", where=where,
                                                problem=f"record seq {row.get('seq')} does not match its hash (edited)"))
                if row.get("prev") != prev:
                    rep.problems.append(message("E602", where=where, problem=(
                        f"record seq {row.get('seq')} does not follow the record before it "
                        f"(a record was removed, inserted or reordered)")))
                if row.get("seq") != seq + 1:
                    rep.problems.append(message("E602", where=where,
                                                problem=f"seq {row.get('seq')} after seq {seq}"))
                prev = str(row.get("hash"))
                seq = int(row["seq"]) if isinstance(row.get("seq"), int) else seq + 1
    lock = Path(f"{path}.lock")
    if lock.exists():
        try:
            head = json.loads(lock.read_bytes().strip() or b"{}")
        except ValueError:
            head = {}
        if head.get("hash") and (head.get("seq") != seq or head.get("hash") != prev):
            rep.problems.append(message("E602", where=lock.name, problem=(
                f"the log ends at seq {seq} but {head.get('seq')} records were written (records cut off the end)")))
    return rep
