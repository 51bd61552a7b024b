"""Audit commands: `audit verify`, `explain TRACE_ID`, `replay`, `feedback TRACE_ID`, `metrics`.

They read the hash-chained log written by :mod:`pipeline.audit` and the feedback kept in
the store; `replay` re-asks recorded or listed questions with the current or a candidate
rule set and reports every answer that changed.
"""
from __future__ import annotations

import json
import re
import statistics
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Optional

from .audit import AuditLog, find_record, iter_records, log_files, verify
from .errors import LoopAgentError
from .config import shipped_dir

# --- explain ---------------------------------------------------------------------
STATUS_ZH = {"answered": "已作答", "not_found": "未找到有依据的答案", "ambiguous": "有分歧", "navigation": "导航"}


def version_state(store: Any, ev: dict[str, Any]) -> str:
    """现行 / 已被新版本取代 / 已删除: where the evidence's document version stands now."""
    doc_id, chash = ev.get("doc_id"), ev.get("content_hash")
    cur = store.document(doc_id) if doc_id else None
    if chash and cur and cur["content_hash"] == chash:
        return "现行版本"
    ver = store.document_version(doc_id, chash) if doc_id and chash else None
    if ver and ver.get("superseded_at"):
        when = time.strftime("%Y-%m-%d %H:%M", time.localtime(ver["superseded_at"]))
        return f"已被新版本取代（{when}，新版本 {str(ver['superseded_by'])[:12]}）"
    if cur is None:
        return "文件已从库中删除"
    return "版本未知（记录无内容哈希）" if not chash else "该版本已不在库中"


def explain_lines(rec: dict[str, Any], store: Any = None, rules_fp: Optional[str] = None) -> list[str]:
    """The recorded chain of one answer in plain Chinese (document, clause, rule, value, refusals)."""
    when = time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(rec.get("ts", 0)))
    out = [f"追溯编号：{rec.get('trace_id')}（{when}，LoopAgent {rec.get('tool_version')}）",
           f"问题：{rec.get('question')}"]
    if rec.get("session"):
        out.append(f"会话：{rec['session']}")
    out.append(f"结论：{STATUS_ZH.get(rec.get('status'), rec.get('status'))}")
    if rec.get("status") == "answered":
        out.append(f"答案：{rec.get('answer')}")
        out.append(f"值：{json.dumps(rec.get('value'), ensure_ascii=False)}")
        out.append(f"规则：{rec.get('method')}（置信度 {rec.get('confidence')}）")
    for i, ev in enumerate(rec.get("evidence") or [], 1):
        where = " > ".join(ev.get("section") or [])
        page = f" 第{ev['page']}页" if ev.get("page") else ""
        out.append(f"依据{i}：《{ev.get('title')}》{where}{page}，第 {ev.get('start')}–{ev.get('end')} 字：「{ev.get('text')}」")
        ver = f"文件 {ev.get('source')}，内容哈希 {str(ev.get('content_hash'))[:12]}"
        if ev.get("version_date"):
            ver += f"，版本日期 {ev['version_date']}"
        if store is not None:
            ver += f"；{version_state(store, ev)}"
        out.append(f"  {ver}（块 {ev.get('block_id')}）")
    if rec.get("reasoning"):
        out.append("推理过程：")
        out += [f"  · {r}" for r in rec["reasoning"]]
    if rec.get("rejected"):
        out.append("被否决的候选：")
        out += [f"  · {r.get('method')}：{r.get('why')}" for r in rec["rejected"]]
    fp = f"规则指纹：{rec.get('rules_fingerprint')}"
    if rules_fp:
        fp += "（与当前规则相同）" if rules_fp == rec.get("rules_fingerprint") else f"（当前规则为 {rules_fp}，已变更）"
    out.append(fp)
    if store is not None:
        cur = store.fingerprint()
        same = "与当前库相同" if cur == rec.get("store_fingerprint") else f"当前库为 {cur}，已变更"
        out.append(f"库指纹：{rec.get('store_fingerprint')}（{same}）")
    else:
        out.append(f"库指纹：{rec.get('store_fingerprint')}")
    return out


def _audit_file(args) -> Path:
    from .cli import _audit_path
    path = _audit_path(args.db, args.audit)
    if not path or not log_files(Path(path)):
        raise LoopAgentError("E601", path=path)
    return Path(path)


def _record(args, trace_id: str) -> dict[str, Any]:
    path = _audit_file(args)
    rec = find_record(path, trace_id)
    if rec is None:
        raise LoopAgentError("E603", trace_id=trace_id, path=str(path))
    return rec


def cmd_explain(args) -> int:
    from .kb import KnowledgeBase
    rec = _record(args, args.trace_id)
    if args.json:
        print(json.dumps(rec, ensure_ascii=False, indent=2))
        return 0
    from .cli import _config
    kb = KnowledgeBase(args.db, audit_log=None, create=False, config=_config(args))
    for line in explain_lines(rec, kb.store, kb.rules.fingerprint()[0]):
        print(line)
    return 0


def cmd_audit(args) -> int:
    path = _audit_file(args)
    rep = verify(path)
    for p in rep.problems:
        print(p)
    state = "intact" if rep.ok else f"{len(rep.problems)} problems"
    print(f"{rep.records} records in {rep.files} files: {state}")
    return 0 if rep.ok else 1


# --- replay ------------------------------------------------------------------------
@dataclass
class Change:
    """One replayed question whose answer differs (status or value)."""

    key: str
    question: str
    before: dict[str, Any]
    after: dict[str, Any]
    allowed: bool = False


@dataclass
class ReplayReport:
    total: int = 0
    unchanged: int = 0
    changes: list[Change] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    @property
    def blocking(self) -> list[Change]:
        return [c for c in self.changes if not c.allowed]


def _answer_key(a: dict[str, Any]) -> tuple:
    return a.get("status"), json.dumps(a.get("value"), ensure_ascii=False, sort_keys=True)


def _brief(a: dict[str, Any]) -> dict[str, Any]:
    return {"status": a.get("status"), "answer": a.get("answer"), "value": a.get("value"), "method": a.get("method"),
            "evidence": [{k: e.get(k) for k in ("source", "section", "block_id", "content_hash", "text")}
                         for e in a.get("evidence") or []]}


def candidate_dirs(rules: Optional[str]) -> Optional[list[Path]]:
    """Rule folders for ``--candidate DIR``: DIR/rules + DIR/dictionaries when DIR holds both, else DIR + the shipped dictionaries."""
    if not rules:
        return None
    d = Path(rules)
    if not d.is_dir():
        raise LoopAgentError("E001", path=str(d))
    if (d / "rules").is_dir():
        return [d / "rules", d / "dictionaries" if (d / "dictionaries").is_dir() else shipped_dir("dictionaries")]
    return [d, shipped_dir("dictionaries")]


def replay(db: str, items: list[dict[str, Any]], rules_dirs: Optional[list[Path]] = None,
           allow: frozenset = frozenset(), config: Any = None) -> ReplayReport:
    """Re-ask each item ({key, question, session?, collection?, before?}); items without ``before`` are
    first answered with the current rules. Reports every item whose status or value changed."""
    from .kb import KnowledgeBase
    after_kb = KnowledgeBase(db, rules_dirs=rules_dirs, audit_log=None, create=False, config=config)
    before_kb = None
    rep = ReplayReport()
    fp_now = after_kb.rules.fingerprint()[0]
    store_fp = after_kb.store.fingerprint()
    for it in items:
        rep.total += 1
        expect = it.get("expect")
        if expect:  # a spec line (an accepted suggestion): the fixed answer must stay fixed
            after = after_kb.ask(it["question"], session=it.get("session"), collection=it.get("collection")).to_dict()
            if expect in (after.get("answer") or "") + json.dumps(after.get("value"), ensure_ascii=False):
                rep.unchanged += 1
            else:
                rep.changes.append(Change(str(it["key"]), it["question"], {
                    "status": "expected", "answer": expect, "value": None, "method": None, "evidence": []},
                    _brief(after)))
            continue
        before = it.get("before")
        if before is None:
            if before_kb is None:
                before_kb = KnowledgeBase(db, audit_log=None, create=False)
            before = before_kb.ask(it["question"], session=it.get("session"),
                                   collection=it.get("collection")).to_dict()
        after = after_kb.ask(it["question"], session=it.get("session"), collection=it.get("collection")).to_dict()
        if _answer_key(before) == _answer_key(after):
            rep.unchanged += 1
            if it.get("before") is not None and before.get("rules_fingerprint") == fp_now \
                    and before.get("store_fingerprint") == store_fp:
                rep.notes.append(f"{it['key']}：在记录时的规则指纹 {fp_now} 与同一库版本下，答案相同")
            continue
        key = str(it["key"])
        allowed = key in allow or str(it.get("id")) in allow
        rep.changes.append(Change(key, it["question"], _brief(before), _brief(after), allowed))
    return rep


def replay_items(source: str, args) -> list[dict[str, Any]]:
    """Items to replay from a trace id, an audit log or a question file."""
    p = Path(source)
    if not p.exists():
        rec = _record(args, source)
        return [{"key": rec["trace_id"], "id": rec.get("id"), "question": rec["question"],
                 "collection": rec.get("collection"), "before": rec}]
    items = []
    first = None
    with open(p, encoding="utf-8") as f:
        for line in f:
            if line.strip():
                first = json.loads(line)
                break
    if not isinstance(first, dict):
        raise LoopAgentError("E604", path=source)
    if "hash" in first and "seq" in first:  # an audit log: replay its answer records, sessions in order
        for _, _, rec in iter_records(p):
            if rec.get("kind", "answer") == "answer" and rec.get("question"):
                items.append({"key": rec["trace_id"], "id": rec.get("id"), "question": rec["question"],
                              "session": rec.get("session"), "collection": rec.get("collection"), "before": rec})
        return items
    if "question" not in first:
        raise LoopAgentError("E604", path=source)
    with open(p, encoding="utf-8") as f:
        for i, line in enumerate(f, 1):
            if line.strip():
                row = json.loads(line)
                items.append({"key": str(row.get("id") or i), "id": row.get("id"), "question": row["question"],
                              "session": row.get("session"), "collection": row.get("collection"),
                              "expect": row.get("expect")})
    return items


def _allow_list(values: Optional[list[str]]) -> frozenset:
    out: set[str] = set()
    for v in values or []:
        p = Path(v)
        if p.is_file():
            out |= {ln.split("#")[0].strip() for ln in p.read_text(encoding="utf-8").splitlines() if ln.strip()}
        else:
            out.add(v)
    out.discard("")
    return frozenset(out)


def cmd_replay(args) -> int:
    items = replay_items(args.source, args)
    from .cli import _config
    overlay = _config(args) if (args.rules or args.dictionaries) else None  # --rules/--dictionaries: candidate overlays
    rep = replay(args.db, items, candidate_dirs(args.candidate), _allow_list(args.allow), config=overlay)
    if args.json:
        print(json.dumps({"total": rep.total, "unchanged": rep.unchanged,
                          "changed": [c.__dict__ for c in rep.changes]}, ensure_ascii=False, indent=2))
    else:
        for c in rep.changes:
            tag = "（允许）" if c.allowed else ""
            print(f"变化{tag} {c.key}：{c.question}")
            for label, a in (("之前", c.before), ("之后", c.after)):
                ev = a["evidence"][0] if a["evidence"] else None
                where = f"  依据：{ev['source']} {' > '.join(ev['section'] or [])}" if ev else ""
                print(f"  {label}：[{a['status']}] {a['answer'] or '—'}  {a['method'] or ''}{where}")
        for n in rep.notes[:20]:
            print(n)
        print(f"replayed {rep.total}: unchanged {rep.unchanged}, changed {len(rep.changes)} "
              f"({len(rep.blocking)} not in the allow-list)")
    return 1 if rep.blocking else 0


# --- feedback and metrics -----------------------------------------------------------
def cmd_feedback(args) -> int:
    from .cli import _audit_path
    from .kb import KnowledgeBase
    rec = _record(args, args.trace_id)
    verdict = "right" if args.right else "wrong"
    kb = KnowledgeBase(args.db, audit_log=_audit_path(args.db, args.audit), create=False)
    rid = kb.store.add_feedback(rec["trace_id"], verdict, args.expected, args.note)
    kb.audit.event("feedback", trace_id=rec["trace_id"], verdict=verdict, expected=args.expected, note=args.note)
    kb.audit.flush()
    print(f"feedback {rid}: {verdict} on {rec['trace_id']} ({rec['question']})")
    return 0


@dataclass(frozen=True)
class Metric:
    name: str
    value: Optional[float]
    threshold: float
    higher_is_better: bool
    n: int
    unit: str = ""

    @property
    def status(self) -> str:
        if self.value is None:
            return "n/a"
        ok = self.value >= self.threshold if self.higher_is_better else self.value <= self.threshold
        return "ok" if ok else "fail"

    def to_dict(self) -> dict[str, Any]:
        return {"name": self.name, "value": self.value, "threshold": self.threshold,
                "direction": ">=" if self.higher_is_better else "<=", "n": self.n, "unit": self.unit,
                "status": self.status}


def _share(hits: int, n: int) -> Optional[float]:
    return round(hits / n, 4) if n else None


def metrics(records: list[dict[str, Any]], feedback: list[dict[str, Any]]) -> list[Metric]:
    """Quality figures over answer records and feedback rows, each with its threshold."""
    answered = [r for r in records if r.get("status") == "answered"]
    verifiable = [r for r in answered if r.get("evidence") and all(
        e.get("doc_id") and (e.get("section") or e.get("page")) and e.get("content_hash") for e in r["evidence"])]
    clause = [r for r in answered if r.get("evidence") and all(e.get("clause") for e in r["evidence"])]
    seen_sessions: set[str] = set()
    follow = []
    for r in records:
        s = r.get("session")
        if s:
            if s in seen_sessions:
                follow.append(r)
            seen_sessions.add(s)
    open_q = [r for r in records if r.get("qtype") == "open"]
    verdicts: dict[str, str] = {}
    for f in feedback:  # the latest verdict on a trace counts
        verdicts[f["trace_id"]] = f["verdict"]
    to_live: list[float] = []
    seen_fp: set[str] = set()
    for r in sorted(records, key=lambda r: r.get("ts", 0)):
        fp = r.get("rules_fingerprint")
        if fp and fp not in seen_fp:
            if seen_fp and r.get("rules_changed_at"):
                to_live.append(max(0.0, r["ts"] - r["rules_changed_at"]))
            seen_fp.add(fp)
    n = len(records)
    return [
        Metric("verifiable_evidence", _share(len(verifiable), len(answered)), 0.99, True, len(answered)),
        Metric("traceable_to_clause", _share(len(clause), len(answered)), 0.90, True, len(answered)),
        Metric("follow_up_success", _share(sum(r.get("status") == "answered" for r in follow), len(follow)),
               0.70, True, len(follow)),
        Metric("open_routed_to_navigation", _share(sum(r.get("status") == "navigation" for r in open_q),
                                                   len(open_q)), 0.80, True, len(open_q)),
        Metric("not_found_rate", _share(sum(r.get("status") == "not_found" for r in records), n), 0.30, False, n),
        Metric("wrong_rate_feedback", _share(sum(v == "wrong" for v in verdicts.values()), len(verdicts)),
               0.02, False, len(verdicts)),
        Metric("rule_change_to_live_s", round(statistics.median(to_live), 3) if to_live else None, 2.0, False,
               len(to_live), "s"),
    ]


def cmd_metrics(args) -> int:
    from .kb import KnowledgeBase
    path = _audit_file(args)
    records = [r for _, _, r in iter_records(path) if r.get("kind", "answer") == "answer"]
    kb = KnowledgeBase(args.db, audit_log=None, create=False)
    ms = metrics(records, kb.store.feedback())
    if args.json:
        print(json.dumps([m.to_dict() for m in ms], ensure_ascii=False, indent=2))
    else:
        print(f"{'metric':28s} {'value':>8s} {'threshold':>10s} {'n':>6s}  status")
        for m in ms:
            v = "—" if m.value is None else f"{m.value:.3f}"
            d = ">=" if m.higher_is_better else "<="
            print(f"{m.name:28s} {v:>8s} {d + ' ' + str(m.threshold):>10s} {m.n:6d}  {m.status}")
    return 1 if any(m.status == "fail" for m in ms) and args.strict else 0


def add_subparsers(sub, db_arg) -> None:
    """Register audit, explain, replay, feedback and metrics on the `loopagent` parser."""
    def audit_arg(sp):
        sp.add_argument("--audit", help="audit log (default: <db>.audit.jsonl, $LOOPAGENT_AUDIT)")

    sp = sub.add_parser("audit", help="`audit verify`: check the audit log's hash chain")
    sp.add_argument("action", choices=["verify"])
    db_arg(sp)
    audit_arg(sp)
    sp.set_defaults(func=cmd_audit)

    sp = sub.add_parser("explain", help="explain a recorded answer by its trace id, in plain Chinese")
    sp.add_argument("trace_id")
    db_arg(sp)
    audit_arg(sp)
    sp.add_argument("--json", action="store_true", help="print the audit record")
    sp.set_defaults(func=cmd_explain)

    sp = sub.add_parser("replay", help="re-ask a trace id, an audit log or a question file; report changed answers")
    sp.add_argument("source", help="trace id, audit log (*.audit.jsonl) or JSONL of {id, question}")
    db_arg(sp)
    audit_arg(sp)
    sp.add_argument("--candidate", metavar="DIR", help="a candidate rule set replacing the one in force (a rules "
                    "folder, or a folder holding rules/ and dictionaries/); --rules/--dictionaries overlay instead")
    sp.add_argument("--allow", action="append", help="ids or trace ids allowed to change (or a file of them)")
    sp.add_argument("--json", action="store_true")
    sp.set_defaults(func=cmd_replay)

    sp = sub.add_parser("feedback", help="mark a recorded answer right or wrong")
    sp.add_argument("trace_id")
    g = sp.add_mutually_exclusive_group(required=True)
    g.add_argument("--right", "--correct", action="store_true", dest="right")
    g.add_argument("--wrong", action="store_true")
    sp.add_argument("--expected", help="the answer it should have given")
    sp.add_argument("--note")
    db_arg(sp)
    audit_arg(sp)
    sp.set_defaults(func=cmd_feedback)

    sp = sub.add_parser("metrics", help="quality metrics over the audit log and feedback, with thresholds")
    db_arg(sp)
    audit_arg(sp)
    sp.add_argument("--json", action="store_true")
    sp.add_argument("--strict", action="store_true", help="exit 1 when a metric fails its threshold")
    sp.set_defaults(func=cmd_metrics)


# --- rules suggest: candidates mined from answers marked wrong --------------------------------
_VALUE_NOUN = re.compile(r"(?:什么|哪些|哪个|哪种|哪类|多少|几)([\u4e00-\u9fff]{1,3}?)(?:[？?，。吗呢]|$)")


def known_words(rules: Any) -> set[str]:
    """Every word the lexicon tiers and synonym entries already know."""
    out: set[str] = set()
    for r in rules.get("lexicon"):
        out |= set(r.get("words") or [])
    for r in rules.get("synonyms"):
        out |= set(r.get("user") or []) | set(r.get("doc") or [])
    return out


def suggest(records: dict[str, dict[str, Any]], feedback: list[dict[str, Any]], rules: Any,
            store: Any) -> list[dict[str, Any]]:
    """Candidates for an expert from answers marked wrong: question words that no lexicon tier or
    synonym knows and no stored document uses, so recall cannot reach the wording the documents use
    (``kind: word``), and asked value nouns (什么证件 → 证件) no question type or template names
    (``kind: value_noun``). Each lists the traces it comes from; ids are stable for ``--accept``."""
    from .tokenize import cut, is_content_word
    known = known_words(rules)
    kinds_text = json.dumps([r for k in ("question_type", "template") for r in rules.get(k)], ensure_ascii=False,
                            default=str)
    wrong: dict[str, dict[str, Any]] = {}
    for f in feedback:
        if f["verdict"] == "wrong":
            wrong[f["trace_id"]] = f
        else:
            wrong.pop(f["trace_id"], None)
    found: dict[tuple[str, str], dict[str, Any]] = {}
    for trace_id, f in wrong.items():
        rec = records.get(trace_id)
        if rec is None:
            continue
        q = rec["question"]
        words = [w for w in cut(q) if len(w) >= 2 and is_content_word(w) and w not in known]
        df = store.doc_freq(words)
        cands = [("word", w) for w in words if not df.get(w.lower())]
        cands += [("value_noun", m.group(1)) for m in _VALUE_NOUN.finditer(q) if m.group(1) not in kinds_text]
        for kind, w in cands:
            s = found.setdefault((kind, w), {"id": f"{kind}:{w}", "kind": kind, "word": w, "traces": [],
                                             "questions": [], "expected": []})
            if trace_id not in s["traces"]:
                s["traces"].append(trace_id)
                s["questions"].append(q)
                s["expected"].append(f.get("expected"))
    return sorted(found.values(), key=lambda s: (-len(s["traces"]), s["id"]))


def accept(suggestion: dict[str, Any], doc_words: list[str], rules_dir: Path, specs: Path) -> list[str]:
    """Accept a ``word`` suggestion as a synonym (user word → the expert's document words) in
    ``rules_dir/synonyms_accepted.yaml``, and add one spec line per trace (question → expected) to
    ``specs``, which `loopagent replay SPECS` checks so a fixed answer stays fixed. Returns what was written."""
    written = []
    syn = rules_dir / "synonyms_accepted.yaml"
    if not syn.exists():
        syn.write_text("# Synonyms accepted from `loopagent rules suggest` (answers marked wrong).\n"
                       "kind: synonyms\nrules:\n", encoding="utf-8")
    rid = f"syn.accepted.{suggestion['word']}"
    if rid not in syn.read_text(encoding="utf-8"):
        entry = (f"  - {{id: {rid}, user: [{suggestion['word']}], doc: [{', '.join(doc_words)}], "
                 f"note: \"from traces {' '.join(suggestion['traces'])}\"}}\n")
        with open(syn, "a", encoding="utf-8") as f:
            f.write(entry)
        written.append(f"{syn}: {rid}")
    specs.parent.mkdir(parents=True, exist_ok=True)
    with open(specs, "a", encoding="utf-8") as f:
        for t, q, e in zip(suggestion["traces"], suggestion["questions"], suggestion["expected"]):
            f.write(json.dumps({"id": t, "question": q, "expect": e, "rule": rid}, ensure_ascii=False) + "\n")
            written.append(f"{specs}: {t}")
    return written


def cmd_suggest(args) -> int:
    from .kb import KnowledgeBase
    RULES_DIR = shipped_dir("rules")
    path = _audit_file(args)
    records = {r["trace_id"]: r for _, _, r in iter_records(path) if r.get("kind", "answer") == "answer"}
    kb = KnowledgeBase(args.db, audit_log=None, create=False)
    sugg = suggest(records, kb.store.feedback(), kb.rules, kb.store)
    if args.accept:
        chosen = next((s for s in sugg if s["id"] == args.accept), None)
        if chosen is None or chosen["kind"] != "word" or not args.doc:
            print(f"--accept needs a word suggestion id from the list and --doc WORD (got {args.accept!r})",
                  file=sys.stderr)
            return 2
        for line in accept(chosen, args.doc, Path(args.rules_dir or shipped_dir("dictionaries")),
                           Path(args.specs or RULES_DIR / "specs" / "feedback.jsonl")):
            print(f"wrote {line}")
        return 0
    if args.json:
        print(json.dumps(sugg, ensure_ascii=False, indent=2))
    else:
        for s in sugg:
            print(f"{s['id']:20s} {len(s['traces'])} wrong answers  e.g. {s['questions'][0]}")
        print(f"{len(sugg)} suggestions")
    return 0
