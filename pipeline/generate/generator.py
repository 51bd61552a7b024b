"""The fallback generator: a small local model phrases an answer from a distilled context, then is checked.

Used only when stage 2 found an anchor and no template fired. The model is loaded
lazily, once per process, and shared between threads; decoding is greedy. A
result is ``grounded`` only when every number, code and date in the answer is in
the context; 未提及 is never grounded.
"""
from __future__ import annotations

import os
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Optional

from ..errors import LoopAgentError
from ..types import Anchor, Block, Distilled, GenResult
from .backends import BACKENDS, IN_PROCESS, Backend, load_backend
from .distill import MIN_BUDGET, distill
from .grounding import check_grounding
from .prompt import build_messages, clean_answer


def _default_threads() -> int:
    return max(1, min(2, os.cpu_count() or 1))


@dataclass(frozen=True)
class GeneratorSettings:
    """How to load and run the generator; validated on construction.

    ``model_dir`` is a local directory (an int4 ONNX export for ``onnx-int4``, a
    transformers checkpoint for the others); ``endpoint`` and ``model_name`` are
    for ``http`` (e.g. ``http://127.0.0.1:8080/v1``).
    """

    model_dir: Optional[str] = None
    backend: str = "onnx-int4"
    max_new_tokens: int = 64
    budget: int = 200
    threads: int = _default_threads()
    min_overlap: float = 0.5
    endpoint: Optional[str] = None
    model_name: Optional[str] = None
    timeout_s: float = 60.0
    api_key: Optional[str] = None

    def __post_init__(self) -> None:
        if self.backend not in BACKENDS:
            self._bad("backend", self.backend, "unknown backend", ", ".join(BACKENDS))
        if not isinstance(self.max_new_tokens, int) or not 1 <= self.max_new_tokens <= 1024:
            self._bad("max_new_tokens", self.max_new_tokens, "out of range", "an integer 1..1024")
        if not isinstance(self.budget, int) or self.budget < MIN_BUDGET:
            self._bad("budget", self.budget, "too small to hold a sentence", f"an integer >= {MIN_BUDGET}")
        if not isinstance(self.threads, int) or self.threads < 1:
            self._bad("threads", self.threads, "must be positive", "an integer >= 1")
        if not 0.0 <= self.min_overlap <= 1.0:
            self._bad("min_overlap", self.min_overlap, "not a share", "a number 0..1")
        if self.timeout_s <= 0:
            self._bad("timeout_s", self.timeout_s, "must be positive", "seconds > 0")
        if self.backend == "http":
            if not self.endpoint or not self.endpoint.startswith(("http://", "https://")):
                self._bad("endpoint", self.endpoint, "backend http needs the server's base URL",
                          "e.g. http://127.0.0.1:8080/v1")
            if not self.model_name:
                self._bad("model_name", self.model_name, "backend http needs the served model's name",
                          "the name the server lists at /v1/models")
        elif not self.model_dir:
            self._bad("model_dir", self.model_dir, f"backend {self.backend} needs a local model directory",
                      "a path made by scripts/export_int4.py or a transformers checkpoint")

    @staticmethod
    def _bad(name: str, value: object, why: str, allowed: str) -> None:
        raise LoopAgentError("E303", name=name, value=value, why=why, allowed=allowed)


class Generator:
    """Phrases an answer from a distilled context with a local model and checks it against the context.

    >>> gen = Generator(GeneratorSettings(model_dir="models/qwen2.5-0.5b-int4"))
    >>> r = gen.run("试用期不得超过多久？", distill(anchor, neighbours))
    >>> r.grounded, r.text
    (True, '不得超过一个月')
    """

    def __init__(self, settings: GeneratorSettings) -> None:
        self.settings = settings
        self._backend: Optional[Backend] = None
        self._lock = threading.Lock()
        self.load_ms = 0.0

    @property
    def model_name(self) -> str:
        """The name for ``method`` (``generator:<model name>``): the model directory's name or the served name."""
        s = self.settings
        if s.model_name:
            return s.model_name
        return Path(s.model_dir).name if s.model_dir else s.backend

    def load(self) -> Backend:
        """Load the model now (otherwise the first ``run`` does); E401/E402/E403 say what is missing."""
        if self._backend is None:
            with self._lock:
                if self._backend is None:
                    s = self.settings
                    t0 = time.perf_counter()
                    options = {} if s.backend in IN_PROCESS else {
                        "endpoint": s.endpoint, "model_name": s.model_name,
                        "timeout_s": s.timeout_s, "api_key": s.api_key}
                    self._backend = load_backend(s.backend, s.model_dir, s.threads, **options)
                    self.load_ms = (time.perf_counter() - t0) * 1000
        return self._backend

    def distill(self, anchor: Anchor, neighbours: list[Block]) -> Distilled:
        """:func:`distill` with this generator's budget."""
        return distill(anchor, neighbours, budget=self.settings.budget)

    def run(self, question: str, distilled: Distilled) -> GenResult:
        """Generate an answer to ``question`` from ``distilled`` and check its grounding."""
        backend = self.load()
        t0 = time.perf_counter()
        raw, tokens = backend.generate(build_messages(question, distilled.text), self.settings.max_new_tokens)
        text = clean_answer(raw)
        check = check_grounding(text, distilled.text, question, self.settings.min_overlap)
        ms = (time.perf_counter() - t0) * 1000
        return GenResult(text=text, grounded=check.grounded, reason=check.reason, tokens=tokens,
                         ms=ms, model=self.model_name, raw=raw)
