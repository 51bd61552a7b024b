#!/usr/bin/env python3
"""Re-run the probe table of issue 14 (hostile input) and print time and peak RSS per case.

Every case runs in a fresh process (so its time and RSS are its own) on inputs generated here.
A case passes when it ends without a traceback, within 10 s and 500 MB, and does what the
issue asks (every batch line answered, nothing silently overwritten, no answer lost).

    python scripts/probe_hostile.py                       # the probe table
    python scripts/probe_hostile.py --baseline /tmp/main  # + cost of the limits on normal ingest,
                                                          #   against a checkout of main, same run
    python scripts/probe_hostile.py --only docx_bomb_50mb  # one case

The ingest-cost comparison ingests --docs (default ../shared/eval/dev/docs, else examples/docs)
into a fresh store with each code tree, alternating, --repeat times, and reports the medians.
"""
from __future__ import annotations

import argparse
import io
import json
import os
import random
import resource
import statistics
import subprocess
import sys
import tempfile
import time
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
PDFS = ROOT / "tests" / "data" / "pdf"
DOCX = ROOT / "examples" / "docs" / "企业职工带薪年休假实施办法.docx"
GOOD = "职工累计工作已满10年不满20年的，年休假几天？"
UNIT = "职工连续工作满十二个月以上的享受带薪年休假，单位应当安排职工休年休假，"
LIMIT_S, LIMIT_MB = 10.0, 500.0


# --- generated inputs --------------------------------------------------------------------

def _docx_bomb(mb: int, extra_parts: int = 0) -> bytes:
    para = b"<w:p><w:r><w:t>" + "年休假".encode() * 10 + b"</w:t></w:r></w:p>"
    body = para * (mb * 2**20 // len(para))
    xml = (b'<?xml version="1.0" encoding="UTF-8" standalone="yes"?><w:document xmlns:w='
           b'"http://schemas.openxmlformats.org/wordprocessingml/2006/main"><w:body>' + body + b"</w:body></w:document>")
    src = zipfile.ZipFile(DOCX)
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED, compresslevel=9) as z:
        for item in src.infolist():
            z.writestr(item, xml if item.filename == "word/document.xml" else src.read(item))
        for i in range(extra_parts):
            z.writestr(f"word/media/part{i}.xml", xml[: 2**20])
    return buf.getvalue()


def _xlsx_bomb(rows: int) -> bytes:
    from openpyxl import Workbook
    wb = Workbook()
    wb.active.append(["类别", "天数"])
    tmp = io.BytesIO()
    wb.save(tmp)
    src = zipfile.ZipFile(tmp)
    out = io.BytesIO()
    row = b'<row><c t="inlineStr"><is><t>' + "年休假".encode() * 20 + b"</t></is></c></row>"
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED, compresslevel=9) as z:
        for item in src.infolist():
            data = src.read(item)
            if item.filename == "xl/worksheets/sheet1.xml":
                data = data.replace(b"</sheetData>", row * rows + b"</sheetData>")
            z.writestr(item, data)
    return out.getvalue()


def _mutated_pdfs(d: Path, n: int, seed: int = 14) -> list[Path]:
    rng = random.Random(seed)
    seeds = [(PDFS / x).read_bytes() for x in ("structured_handbook.pdf", "cid_glyphs.pdf", "scanned_text.pdf")]
    out = []
    for i in range(n):
        data = bytearray(seeds[i % len(seeds)])
        for _ in range(rng.randint(1, 60)):
            data[rng.randrange(len(data))] = rng.randrange(256)
        if i % 5 == 4:
            data = data[: rng.randrange(1, len(data))]
        if i % 7 == 6:  # a duplicated chunk: broken xref offsets
            a = rng.randrange(len(data))
            data[a:a] = data[a:a + rng.randrange(1, 4096)]
        p = d / f"m{i:03d}.pdf"
        p.write_bytes(bytes(data))
        out.append(p)
    return out


# --- cases: each returns a dict of findings; a "fail" key says why it did not pass -----------

def _kb(d: Path, **kw):
    from pipeline import KnowledgeBase
    return KnowledgeBase(d / "kb.sqlite", audit_log=None, **kw)


def _ingest_one(d: Path, name: str, data: bytes) -> dict:
    p = d / "docs" / name
    p.parent.mkdir(exist_ok=True)
    p.write_bytes(data)
    kb = _kb(d)
    t = time.perf_counter()
    rep = kb.ingest([p.parent])
    op = time.perf_counter() - t
    kb.close()
    return {"op_s": round(op, 2), "input_kb": round(len(data) / 1024), "codes": sorted({x[:4] for x in rep.lines}),
            "blocks": rep.blocks, **({"fail": "ingested a bomb"} if rep.ingested else {})}


def case_docx_bomb_50mb(d):
    return _ingest_one(d, "bomb.docx", _docx_bomb(50))


def case_docx_bomb_many_parts(d):
    return _ingest_one(d, "bomb2.docx", _docx_bomb(20, extra_parts=40))


def case_xlsx_bomb(d):
    return _ingest_one(d, "bomb.xlsx", _xlsx_bomb(400_000))


def case_random_html(d):
    return _ingest_one(d, "random.html", random.Random(7).randbytes(200_000))


def case_deep_html(d):
    html = "<html><body>" + "<div>" * 1000 + "<p>第一条 职工享受年休假。</p>" + "</div>" * 1000 + "</body></html>"
    r = _ingest_one(d, "deep.html", html.encode())
    r.pop("fail", None)
    if r["blocks"] != 1:
        r["fail"] = "deep HTML lost its text"
    return r


def _long_paragraph(d: Path, chars: int) -> dict:
    p = d / "long.md"
    p.write_text("第一条 " + UNIT * (chars // len(UNIT)) + "\n\n第二条 职工累计工作已满1年不满10年的，年休假5天。\n",
                 encoding="utf-8")
    kb = _kb(d)
    t = time.perf_counter()
    kb.ingest([p])
    ingest_s = time.perf_counter() - t
    kb.ask("单位应当安排职工休什么？")  # load the models: the timed questions below are warm
    t = time.perf_counter()
    a1 = kb.ask("职工连续工作多久以上享受带薪年休假？")
    a2 = kb.ask("职工累计工作已满1年不满10年的，年休假几天？")
    ask_s = time.perf_counter() - t
    # op_s: the two questions that reach the paragraph (the 6 s / 26 s / 150+ s figures)
    return {"op_s": round(ask_s, 2), "ingest_s": round(ingest_s, 2), "statuses": [a1.status, a2.status]}


def case_long_paragraph_100k(d):
    return _long_paragraph(d, 100_000)


def case_long_paragraph_300k(d):
    return _long_paragraph(d, 300_000)


def case_long_paragraph_1m(d):
    return _long_paragraph(d, 1_000_000)


def _question(d: Path, q: str, limit: int | None) -> dict:
    from dataclasses import replace
    from pipeline import LoopAgentError
    from pipeline.config import Settings
    config = Settings.resolve(db=d / "kb.sqlite")
    kb = _kb(d, config=replace(config, max_question_chars=limit) if limit else config)
    (d / "a.md").write_text("第一条 职工累计工作已满10年不满20年的，年休假10天。\n", encoding="utf-8")
    kb.ingest([d / "a.md"])
    kb.ask(GOOD)
    t = time.perf_counter()
    try:
        status = kb.ask(q).status
    except LoopAgentError as exc:
        status = exc.code
    return {"op_s": round(time.perf_counter() - t, 2), "chars": len(q), "status": status}


def case_question_14k(d):
    return _question(d, (GOOD * 700)[:14_000], None)


def case_question_14k_limit_raised(d):
    return _question(d, (GOOD * 700)[:14_000], 20_000)


def case_nines_5000(d):
    return _question(d, "9" * 5000 + "年", None)


def case_nines_5000_limit_raised(d):
    return _question(d, "9" * 5000 + "年", 20_000)


def case_mutated_pdfs_210(d):
    from pipeline.ingest import IngestLimits, ParseWorker
    from pipeline import LoopAgentError
    files = _mutated_pdfs(d, 210)
    worker, limits = ParseWorker(), IngestLimits()
    worst, codes, tracebacks = 0.0, {}, 0
    for p in files:
        t = time.perf_counter()
        try:
            worker.parse(p, p.name, None, p.read_bytes(), limits)
            code = "ok"
        except LoopAgentError as exc:
            code = exc.code
        except Exception:  # noqa: BLE001 - what the probe counts
            tracebacks += 1
            code = "traceback"
        worst = max(worst, time.perf_counter() - t)
        codes[code] = codes.get(code, 0) + 1
    worker.close()
    out = {"op_s": round(worst, 2), "files": len(files), "codes": codes}
    if tracebacks:
        out["fail"] = f"{tracebacks} tracebacks"
    return out


def case_jsonl_bad_lines(d):
    kb = _kb(d)
    (d / "a.md").write_text("第一条 职工累计工作已满10年不满20年的，年休假10天。\n", encoding="utf-8")
    kb.ingest([d / "a.md"])
    kb.close()
    bad = ['{"id":"n","question":42}', '{"id":"l","question":["x"]}', '{"id":"d","question":{}}',
           '{"id":"b","question":true}', '{"id":"s","question":"年休假几天？","session":["x"]}',
           '{"id":"c","question":"年休假几天？","collection":["x"]}', '{"id":"e","question":""}',
           '{"id":"sur","question":"\\ud800年休假几天"}', '{"id":"long","question":"' + "年" * 9000 + '"}',
           '[1]', 'not json', '{"id":"nq"}']
    lines = []
    for i, b in enumerate(bad):
        lines += [json.dumps({"id": f"g{i}", "question": GOOD}, ensure_ascii=False), b]
    body = ("\n".join(lines) + "\n").encode() + b'{"id":"gbk","question":"' + "年休假".encode("gbk") + b'"}\n'
    (d / "q.jsonl").write_bytes(body)
    proc = subprocess.run([sys.executable, "-m", "pipeline.cli", "ask", "--jsonl", str(d / "q.jsonl"), "--db",
                           str(d / "kb.sqlite"), "--audit", str(d / "audit.jsonl")], cwd=ROOT, capture_output=True)
    out_lines = proc.stdout.decode().splitlines()
    n_in = len(lines) + 1
    answered = sum(1 for x in out_lines if json.loads(x)["status"] != "error")
    out = {"input_lines": n_in, "output_lines": len(out_lines), "answered": answered, "exit": proc.returncode}
    if len(out_lines) != n_in or b"Traceback" in proc.stderr:
        out["fail"] = "lines lost or traceback"
    return out


def case_gbk_argv_and_bad_audit(d):
    kb = _kb(d)
    (d / "a.md").write_text("第一条 职工累计工作已满10年不满20年的，年休假10天。\n", encoding="utf-8")
    kb.ingest([d / "a.md"])
    kb.close()
    env = {**os.environ, "LC_ALL": "C.UTF-8"}
    t = time.perf_counter()
    p1 = subprocess.run([sys.executable, "-m", "pipeline.cli", "ask", GOOD.encode("gbk"), "--db", str(d / "kb.sqlite"),
                         "--json", "--audit", str(d / "audit.jsonl")], cwd=ROOT, capture_output=True, env=env)
    t1 = time.perf_counter() - t
    (d / "blocker").write_text("x")
    t = time.perf_counter()
    p2 = subprocess.run([sys.executable, "-m", "pipeline.cli", "ask", GOOD, "--db", str(d / "kb.sqlite"), "--json",
                         "--audit", str(d / "blocker" / "a.jsonl")], cwd=ROOT, capture_output=True)
    out = {"op_s": round(max(t1, time.perf_counter() - t), 2), "gbk_exit": p1.returncode, "bad_audit_exit": p2.returncode,
           "bad_audit_answer": json.loads(p2.stdout or b"{}").get("answer"), "warning": p2.stderr.decode()[:4]}
    if b"Traceback" in p1.stderr + p2.stderr or not out["bad_audit_answer"]:
        out["fail"] = "traceback or lost answer"
    return out


def case_same_name_two_folders(d):
    for dept, days in (("hr", 5), ("finance", 7)):
        (d / dept).mkdir()
        (d / dept / "制度.md").write_text(f"第一条 {dept}职工年休假{days}天。\n", encoding="utf-8")
    kb = _kb(d)
    kb.ingest([d / "hr" / "制度.md", d / "finance" / "制度.md"])
    kb.ingest([d / "finance" / "制度.md"], collection="other")
    kb.ingest([d])  # the same files by a third route
    sources = sorted(x["source"] for x in kb.documents())
    out = {"sources": sources}
    if len(sources) != 2:
        out["fail"] = "overwritten or duplicated"
    return out


def case_race_120_creations(d):
    code = "import sys; from pipeline.store import Store; Store(sys.argv[1])"
    failures = 0
    for round_ in range(6):
        db = d / f"race{round_}.sqlite"
        procs = [subprocess.Popen([sys.executable, "-c", code, str(db)], cwd=ROOT, stderr=subprocess.PIPE)
                 for _ in range(20)]
        failures += sum(1 for p in procs if p.wait() != 0)
    out = {"attempts": 120, "failures": failures}
    if failures:
        out["fail"] = f"{failures} failed"
    return out


def case_store_problems(d):
    import sqlite3
    from pipeline import LoopAgentError
    from pipeline.store import Store
    got = {}
    db = d / "kb.sqlite"
    Store(db)
    holder = sqlite3.connect(db, isolation_level=None)
    holder.execute("BEGIN IMMEDIATE")
    (d / "t2.md").write_text("第一条 职工享受年休假。\n", encoding="utf-8")
    kb = _kb(d)
    kb.store = Store(db, busy_timeout=1)
    try:
        kb.ingest([d / "t2.md"])
        got["locked"] = "no error"
    except LoopAgentError as exc:
        got["locked"] = exc.code
    holder.execute("ROLLBACK")
    for name, target in (("directory", d), ("garbage", d / "garbage.sqlite")):
        if name == "garbage":
            target.write_bytes(random.Random(3).randbytes(8192))
        p = subprocess.run([sys.executable, "-m", "pipeline.cli", "docs", "--db", str(target)], cwd=ROOT,
                           capture_output=True)
        got[name] = p.stderr.decode()[:4] + (" TRACEBACK" if b"Traceback" in p.stderr else "")
    if any("TRACEBACK" in v or v == "no error" for v in got.values()):
        got["fail"] = "uncoded store error"
    return got


def case_symlinks(d):
    (d / "docs").mkdir()
    (d / "outside.md").write_text("第一条 机密。\n", encoding="utf-8")
    (d / "docs" / "x.md").symlink_to(d / "outside.md")
    (d / "docs" / "broken.md").symlink_to(d / "nowhere.md")
    (d / "docs" / "loop.md").symlink_to(d / "docs" / "loop.md")
    kb = _kb(d)
    rep = kb.ingest([d / "docs"])
    out = {"lines": sorted(x[:4] for x in rep.lines), "ingested": [x["source"] for x in kb.documents()]}
    if out["ingested"] or len(out["lines"]) != 3:
        out["fail"] = "followed a link out of the root or skipped one silently"
    return out


def case_terminal_injection(d):
    from pipeline.ingest import parse_file
    (d / "t.md").write_text("第一条 职工享受年休假。\n", encoding="utf-8")
    doc = parse_file(d / "t.md").document
    doc.title = "规定\x1b]0;pwned\x07\x1b[2J"
    _kb(d).store.put_document(doc)
    (d / "docs").mkdir()
    (d / "docs" / "x\nE005: forged.md").write_bytes(b" ")
    t = time.perf_counter()
    p1 = subprocess.run([sys.executable, "-m", "pipeline.cli", "docs", "--db", str(d / "kb.sqlite")], cwd=ROOT,
                        capture_output=True)
    t1 = time.perf_counter() - t
    t = time.perf_counter()
    p2 = subprocess.run([sys.executable, "-m", "pipeline.cli", "ingest", str(d / "docs"), "--db",
                         str(d / "kb2.sqlite")], cwd=ROOT, capture_output=True)
    out = {"op_s": round(max(t1, time.perf_counter() - t), 2), "escape_in_docs": b"\x1b" in p1.stdout,
           "forged_line": any(x.startswith(b"E005") for x in p2.stderr.splitlines())}
    if out["escape_in_docs"] or out["forged_line"]:
        out["fail"] = "terminal injection"
    return out


def case_stale_kb(d):
    from pipeline import KnowledgeBase
    (d / "a.md").write_text("第一条 职工连续工作1年以上的，享受带薪年休假。\n", encoding="utf-8")
    (d / "新办法.md").write_text("第一条 试用期员工不享受年休假。\n", encoding="utf-8")
    reader = _kb(d)
    reader.ingest([d / "a.md"])
    reader.ask("职工连续工作多久以上享受带薪年休假？")
    KnowledgeBase(d / "kb.sqlite", audit_log=None).ingest([d / "新办法.md"])
    ans = reader.ask("《新办法》规定试用期员工享受年休假吗？")
    seen = any("新办法" in r for r in ans.reasoning if r.startswith("文档限定"))
    return {"sees_other_writer": seen, **({} if seen else {"fail": "stale name cache"})}


def case_zero_width_question(d):
    (d / "a.md").write_text("第一条 职工累计工作已满10年不满20年的，年休假10天。\n", encoding="utf-8")
    kb = _kb(d)
    kb.ingest([d / "a.md"])
    t = time.perf_counter()
    a = kb.ask("职工累计工作已满10年不满20年的，年\u200b休假几天？")
    return {"op_s": round(time.perf_counter() - t, 2), "status": a.status, **({} if a.status == "answered" else {"fail": "zero-width space broke it"})}


CASES = {name[5:]: fn for name, fn in sorted(globals().items()) if name.startswith("case_")}


# --- driver ----------------------------------------------------------------------------------

def _peak_mb() -> float:
    own = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    kids = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    return max(own, kids) / 1024


def run_case(name: str) -> None:
    """Child side: run one case in a temp folder, print its JSON result line."""
    with tempfile.TemporaryDirectory() as tmp:
        t = time.perf_counter()
        try:
            res = CASES[name](Path(tmp))
        except Exception as exc:  # noqa: BLE001 - a traceback is what the probe counts
            import traceback
            res = {"fail": f"TRACEBACK {type(exc).__name__}: {exc}", "tb": traceback.format_exc()[-800:]}
        res["seconds"] = round(time.perf_counter() - t, 2)
        res["peak_mb"] = round(_peak_mb(), 1)
    print("RESULT " + json.dumps(res, ensure_ascii=False))


def probe(names: list[str]) -> int:
    bad = 0
    print("op_s: the timed operation (the ingest, the question, the CLI call; for the PDF batch the slowest file);"
          f" each must take <= {LIMIT_S:.0f} s, and the case's process <= {LIMIT_MB:.0f} MB")
    print(f"| case | op_s | case s | peak RSS MB | result | findings |\n|---|---|---|---|---|---|")
    for name in names:
        t = time.perf_counter()
        proc = subprocess.run([sys.executable, __file__, "--case", name], cwd=ROOT, capture_output=True, timeout=900)
        wall = time.perf_counter() - t
        line = next((x for x in proc.stdout.decode().splitlines() if x.startswith("RESULT ")), None)
        res = json.loads(line[7:]) if line else {"fail": f"no result (exit {proc.returncode}): "
                                                          f"{proc.stderr.decode()[-300:]}"}
        secs, mb = res.pop("seconds", round(wall, 2)), res.pop("peak_mb", None)
        fail = res.pop("fail", None)
        res.pop("tb", None)
        op = res.pop("op_s", None)  # cases without one (races, the 25-line batch) are many runs, not one input
        if not fail and op is not None and op > LIMIT_S:
            fail = f"over {LIMIT_S:.0f} s"
        if not fail and mb is not None and mb > LIMIT_MB:
            fail = f"over {LIMIT_MB:.0f} MB"
        bad += bool(fail)
        print(f"| {name} | {op if op is not None else '-'} | {secs} | {mb} | {'FAIL: ' + fail if fail else 'ok'} | "
              f"{json.dumps(res, ensure_ascii=False)[:300]} |", flush=True)
    return bad


def ingest_cost(baseline: Path, docs: Path, repeat: int) -> None:
    """Median ingest wall and CPU seconds (this process and its parse worker) of this tree and of
    ``baseline`` on ``docs``, each run into a fresh store, alternating. CPU time is the figure to
    trust on a shared machine; wall time moves with the neighbours' load."""
    code = ("import sys,time,resource; from pipeline import KnowledgeBase; kb=KnowledgeBase(sys.argv[1], audit_log=None);"
            "c=time.process_time(); t=time.perf_counter(); r=kb.ingest([sys.argv[2]]); w=time.perf_counter()-t;"
            "kb.close(); k=resource.getrusage(resource.RUSAGE_CHILDREN);"
            "print(w, time.process_time()-c+k.ru_utime+k.ru_stime, r.ingested, r.failed)")
    runs: dict[str, list[tuple[float, float]]] = {"this": [], "baseline": []}
    with tempfile.TemporaryDirectory() as tmp:
        for i in range(repeat):
            for label, tree in (("baseline", baseline), ("this", ROOT)):
                db = Path(tmp) / f"{label}{i}.sqlite"
                env = {**os.environ, "PYTHONPATH": str(tree)}
                out = subprocess.run([sys.executable, "-c", code, str(db), str(docs)], cwd=tmp, env=env,
                                     capture_output=True, check=True).stdout.decode().split()
                runs[label].append((float(out[0]), float(out[1])))
                print(f"  run {i + 1} {label}: wall {float(out[0]):.2f} s, cpu {float(out[1]):.2f} s "
                      f"({out[2]} docs, {out[3]} failed)", flush=True)
    for k, what in ((0, "wall"), (1, "cpu")):
        a = statistics.median(r[k] for r in runs["this"])
        b = statistics.median(r[k] for r in runs["baseline"])
        print(f"ingest of {docs} ({what}): this {a:.2f} s, baseline {b:.2f} s (medians of {repeat}); "
              f"cost of the limits {100 * (a - b) / b:+.1f}%")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--case", help=argparse.SUPPRESS)
    ap.add_argument("--only", help="comma-separated case names (default: all): " + ", ".join(CASES))
    ap.add_argument("--baseline", type=Path, help="a checkout of main, for the ingest-cost comparison")
    ap.add_argument("--docs", type=Path, help="documents for the ingest-cost comparison")
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    if args.case:
        run_case(args.case)
        return 0
    names = args.only.split(",") if args.only else list(CASES)
    bad = probe(names)
    if args.baseline:
        shared = ROOT.parent / "shared" / "eval" / "dev" / "docs"
        docs = args.docs or (shared if shared.exists() else ROOT / "examples" / "docs")
        ingest_cost(args.baseline, docs, args.repeat)
    print(f"{len(names) - bad} of {len(names)} cases pass")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
