"""A client of `loopagent serve` with the library's ``ask()``: switch between embedded and remote use.

>>> from pipeline.client import Client                                   # doctest: +SKIP
>>> kb = Client("http://127.0.0.1:8000", api_key="…")                     # doctest: +SKIP
>>> kb.ask("女职工生育享受多少天产假？").value                             # doctest: +SKIP

Standard library only (urllib), so a checker needs no extra package to call a remote service.
"""
from __future__ import annotations

import json
import urllib.error
import urllib.request
from typing import Any, Optional

from .errors import LoopAgentError
from .types import Answer, Evidence, check_ask_args


class RemoteError(LoopAgentError):
    """A coded error the service returned (``code``, ``message``, ``status``: the HTTP status)."""

    def __init__(self, code: str, text: str, status: int) -> None:
        self.code, self.message, self.status, self.fields = code, text, status, {}
        Exception.__init__(self, f"{code}: {text}")


def answer_from_dict(d: dict[str, Any]) -> Answer:
    """The :class:`~pipeline.types.Answer` whose ``to_dict()`` is ``d`` (the inverse, for remote answers)."""
    return Answer(question=d.get("question") or "", status=d.get("status", "not_found"), answer=d.get("answer") or "",
                  value=d.get("value"), evidence=[Evidence(**e) for e in d.get("evidence") or []],
                  method=d.get("method") or "", confidence=float(d.get("confidence") or 0.0),
                  reasoning=list(d.get("reasoning") or []), trace_id=d.get("trace_id") or "",
                  timings_ms=dict(d.get("timings_ms") or {}), id=d.get("id"), trace=d.get("stages"))


class Client:
    """The HTTP API of a LoopAgent service; ``ask`` has the signature and return type of ``KnowledgeBase.ask``."""

    def __init__(self, url: str = "http://127.0.0.1:8000", api_key: Optional[str] = None,
                 timeout: float = 60.0) -> None:
        if not isinstance(url, str) or not url.startswith(("http://", "https://")):
            raise TypeError(f"url must be an http(s):// URL string, not {url!r}")
        self.url = url.rstrip("/")
        self.api_key = api_key
        self.timeout = timeout

    def _call(self, method: str, path: str, body: Any = None) -> Any:
        data = None if body is None else json.dumps(body, ensure_ascii=False).encode("utf-8")
        req = urllib.request.Request(self.url + path, data=data, method=method)
        req.add_header("Accept", "application/json")
        if data is not None:
            req.add_header("Content-Type", "application/json")
        if self.api_key:
            req.add_header("X-API-Key", self.api_key)
        try:
            with urllib.request.urlopen(req, timeout=self.timeout) as resp:
                return json.loads(resp.read().decode("utf-8"))
        except urllib.error.HTTPError as exc:
            raw = exc.read()
            try:
                err = json.loads(raw.decode("utf-8"))["error"]
                raise RemoteError(err["code"], err["message"], exc.code) from None
            except (ValueError, KeyError, TypeError):
                raise RemoteError(f"HTTP{exc.code}", raw[:200].decode("utf-8", "replace"), exc.code) from None
        except urllib.error.URLError as exc:
            raise LoopAgentError("E711", url=self.url, detail=str(exc.reason)) from None
        except OSError as exc:  # a timeout or a reset connection
            raise LoopAgentError("E711", url=self.url, detail=f"{type(exc).__name__}: {exc}") from None

    def ask(self, question: str, id: Optional[str] = None, session: Optional[str] = None,
            trace: bool = False, collection: Optional[str] = None) -> Answer:
        """Answer one question with evidence (POST /ask); errors raise :class:`RemoteError` with their code."""
        check_ask_args(question, id, session, collection)
        body: dict[str, Any] = {"question": question, "trace": bool(trace)}
        for k, v in (("id", id), ("session", session), ("collection", collection)):
            if v is not None:
                body[k] = v
        return answer_from_dict(self._call("POST", "/ask", body))

    def ask_batch(self, items: list[dict[str, Any]], trace: bool = False) -> list[dict[str, Any]]:
        """POST /ask/batch: one object per item, answers or ``status: "error"`` entries."""
        return self._call("POST", "/ask/batch", {"questions": items, "trace": trace})["answers"]

    def documents(self, collection: Optional[str] = None) -> list[dict[str, Any]]:
        from urllib.parse import quote
        return self._call("GET", "/documents" + (f"?collection={quote(collection)}" if collection else ""))["documents"]

    def feedback(self, trace_id: str, right: bool, expected: Optional[str] = None,
                 note: Optional[str] = None) -> dict[str, Any]:
        return self._call("POST", "/feedback", {"trace_id": trace_id, "verdict": "right" if right else "wrong",
                                                "expected": expected, "note": note})

    def trace(self, trace_id: str) -> dict[str, Any]:
        from urllib.parse import quote
        return self._call("GET", f"/trace/{quote(trace_id, safe='')}")

    def health(self) -> dict[str, Any]:
        return self._call("GET", "/health")
