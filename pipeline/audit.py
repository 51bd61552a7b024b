"""JSONL audit log: one line per decision (question, status, method, evidence ids, trace id, rules version)."""
from __future__ import annotations

import json
import logging
import threading
import time
import uuid
from pathlib import Path
from typing import Any, Optional

from .errors import message
from .types import Answer

log = logging.getLogger("loopagent")


def new_trace_id() -> str:
    return uuid.uuid4().hex[:16]


class AuditLog:
    """Append-only JSONL file, safe from several threads; ``None`` path disables it."""

    def __init__(self, path: Optional[str | Path]) -> None:
        self.path = Path(path) if path else None
        self._lock = threading.Lock()
        self._warning: Optional[str] = None
        self.failures = 0  # records that could not be written (each also logged as W015)

    def record(self, answer: Answer, extra: Optional[dict[str, Any]] = None) -> None:
        if self.path is None:
            return
        row = {
            "ts": round(time.time(), 3), "trace_id": answer.trace_id, "id": answer.id,
            "question": answer.question, "status": answer.status, "answer": answer.answer,
            "value": answer.value, "method": answer.method, "confidence": round(answer.confidence, 3),
            "evidence": [{"block_id": e.block_id, "source": e.source, "section": e.section, "text": e.text}
                         for e in answer.evidence],
            "reasoning": answer.reasoning, "timings_ms": answer.timings_ms,
        }
        if answer.trace is not None:
            row["stages"] = answer.trace
        if extra:
            row.update(extra)
        line = json.dumps(row, ensure_ascii=False, default=str) + "\n"
        with self._lock:
            try:
                self.path.parent.mkdir(parents=True, exist_ok=True)
                with open(self.path, "a", encoding="utf-8", errors="backslashreplace") as f:
                    f.write(line)
            except (OSError, ValueError) as exc:  # a log that cannot be written never costs the answer
                self._warning = message("W015", path=str(self.path), detail=f"{type(exc).__name__}: {exc}")
                self.failures += 1
                log.warning(self._warning)

    def take_warning(self) -> Optional[str]:
        """The W015 warning of the last failed write since the previous call (None if all writes worked)."""
        with self._lock:
            w, self._warning = self._warning, None
        return w
