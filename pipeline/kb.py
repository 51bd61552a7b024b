"""The library entry point: ``KnowledgeBase`` (ingest documents, ask questions)."""
from __future__ import annotations

import os
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable, Optional

from .audit import AuditLog
from .errors import LoopAgentError, message
from .fold import fold_document
from .ingest import iter_files, parse_file, read_bytes
from .ingest.base import content_hash
from .orchestrator import AskSettings, Orchestrator
from .rules import RuleSet
from .store import Store
from .types import Answer, Block

DEFAULT_DB = "loopagent.sqlite"


def default_db() -> str:
    """$LOOPAGENT_DB, else ./loopagent.sqlite."""
    return os.environ.get("LOOPAGENT_DB") or DEFAULT_DB


@dataclass
class IngestReport:
    """What one ingest call did; ``lines`` are coded messages for files that failed or warned."""

    added: int = 0
    updated: int = 0
    skipped: int = 0
    failed: int = 0
    removed: int = 0
    blocks: int = 0
    seconds: float = 0.0
    lines: list[str] = field(default_factory=list)
    maturity: dict[str, int] = field(default_factory=dict)  # source -> structural maturity 0-100 (PDFs)

    @property
    def ingested(self) -> int:
        return self.added + self.updated

    def summary(self) -> str:
        return (f"docs added {self.added}, updated {self.updated}, skipped {self.skipped}, failed {self.failed}"
                + (f", removed {self.removed}" if self.removed else "")
                + f"; blocks {self.blocks}; {self.seconds:.2f} s")


class KnowledgeBase:
    """Documents in a SQLite store plus the question-answering pipeline.

    >>> kb = KnowledgeBase("kb.sqlite")                       # doctest: +SKIP
    >>> kb.ingest(["examples/docs"]).summary()                # doctest: +SKIP
    >>> kb.ask("女职工怀孕不满4个月流产的，享受多少天产假？").to_dict()  # doctest: +SKIP

    ``ask`` is safe to call from several threads.
    """

    def __init__(self, db: str | Path | None = None, rules_dirs: Optional[list[Path]] = None,
                 audit_log: str | Path | None = None, settings: Optional[AskSettings] = None,
                 create: bool = True, generator: Any = None, semantic_model: Any = None) -> None:
        self.store = Store(db or default_db(), create=create)
        self.rules = RuleSet(rules_dirs)
        self.audit = AuditLog(audit_log)
        self.settings = settings or AskSettings()
        self.generator = generator  # pipeline.generate.Generator (or GeneratorSettings); None = templates only
        if generator is not None and not hasattr(generator, "run"):
            from .generate import Generator
            self.generator = Generator(generator)
        self.semantic = None  # optional embedding recall (off by default): a local model dir or an encoder
        if semantic_model is not None:
            from .semantic import SemanticRecall
            self.semantic = SemanticRecall(self.store, semantic_model)
        self._orch: Optional[Orchestrator] = None

    @property
    def orchestrator(self) -> Orchestrator:
        if self._orch is None:
            self._orch = Orchestrator(self.store, self.rules, self.audit, self.settings, generator=self.generator,
                                      semantic=self.semantic)
        return self._orch

    # --- ingest ----------------------------------------------------------------
    def ingest(self, paths: Iterable[str | Path], collection: str = "default", force: bool = False,
               password: Optional[str] = None) -> IngestReport:
        """Ingest files and directories (recursively); unchanged files are skipped, bad ones reported."""
        t0 = time.perf_counter()
        rep = IngestReport()
        for path, source in iter_files(list(paths)):
            try:
                raw = read_bytes(path) if path.is_file() else None  # read once: hash and parse
                if not force and raw is not None and self.store.document_hash(source) == content_hash(raw):
                    rep.skipped += 1
                    continue
                result = parse_file(path, source, password=password, raw=raw)
                fold_document(result.document)  # Traditional characters: matched as Simplified, quoted as written
                status = self.store.put_document(result.document, collection=collection)
                rep.blocks += len(result.document.blocks)
                rep.lines += result.warnings
                maturity = result.document.meta.get("maturity")
                if isinstance(maturity, dict) and "score" in maturity:
                    rep.maturity[source] = maturity["score"]
                if status == "added":
                    rep.added += 1
                else:
                    rep.updated += 1
            except LoopAgentError as exc:
                rep.failed += 1
                rep.lines.append(str(exc))
            except Exception as exc:  # a parser bug on one file must not abort the batch
                rep.failed += 1
                rep.lines.append(message("E005", path=str(path), detail=f"{type(exc).__name__}: {exc}"))
        if self._orch is not None:
            self._orch.analyzer.invalidate()
        rep.seconds = time.perf_counter() - t0
        return rep

    def remove(self, sources: Iterable[str]) -> int:
        """Delete documents by source name (as listed by ``documents()``); returns how many existed."""
        n = sum(1 for s in sources if self.store.remove(s))
        if self._orch is not None:
            self._orch.analyzer.invalidate()
        return n

    # --- questions -------------------------------------------------------------
    def ask(self, question: str, id: Optional[str] = None, session: Optional[str] = None,
            trace: bool = False, collection: Optional[str] = None) -> Answer:
        """Answer one question with evidence; ``status`` is not_found when nothing supports an answer.

        ``session`` links follow-up questions (they reuse the previous question's terms);
        ``collection`` restricts to documents ingested with that collection name (default:
        route by the rules in rules/collections.yaml).
        """
        if not question or not question.strip():
            raise LoopAgentError("E301")
        return self.orchestrator.ask(question.strip(), qid=id, session=session, trace=trace, collection=collection)

    # --- browsing --------------------------------------------------------------
    def documents(self, collection: Optional[str] = None) -> list[dict]:
        return self.store.documents(collection)

    def block(self, block_id: str) -> Block:
        b = self.store.block(block_id)
        if b is None:
            raise LoopAgentError("E103", block_id=block_id, db=str(self.store.path))
        return b

    def close(self) -> None:
        self.store.close()
