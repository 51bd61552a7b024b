#!/usr/bin/env python3
"""Per-question dev report: question, gold, our answer, verdict. For rule maintainers tuning on the dev set.

usage: scripts/dev_report.py QUESTIONS.jsonl ANSWERS.jsonl [--only wrong|missed|ok]
"""
import json
import subprocess
import sys
from pathlib import Path


def main(argv):
    qpath, apath = argv[0], argv[1]
    only = argv[argv.index("--only") + 1] if "--only" in argv else None
    score = Path(qpath).resolve().parent.parent / "score.py"
    rows = subprocess.run([sys.executable, str(score), qpath, apath, "--rows"], capture_output=True, text=True).stdout
    verdict = {}
    for line in rows.splitlines():
        if line.startswith('{"id"'):
            r = json.loads(line)
            verdict[r["id"]] = r
    qs = {json.loads(l)["id"]: json.loads(l) for l in open(qpath, encoding="utf-8")}
    for line in open(apath, encoding="utf-8"):
        a = json.loads(line)
        q = qs[a["id"]]
        v = verdict.get(a["id"], {})
        tag = "OK " if v.get("correct") and v.get("evidence_ok") else ("WRONG" if v.get("wrong") else "miss")
        if only == "wrong" and tag != "WRONG" or only == "missed" and tag != "miss" or only == "ok" and tag != "OK ":
            continue
        print(f"[{tag}] {a['id']} {q['type']} {q['question']}")
        print(f"    gold: {q['must_include']} | {str(q['evidence'])[:90]}")
        print(f"    ours: {a['status']} {a['method']} | {a['answer'][:120]}")
        if a["evidence"]:
            print(f"    ev:   {a['evidence'][0]['source']} {a['evidence'][0]['section'][-1:] if a['evidence'][0]['section'] else ''} {a['evidence'][0]['text'][:80]}")


if __name__ == "__main__":
    main(sys.argv[1:])
