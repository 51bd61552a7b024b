"""The dev-set scorer, kept identical in behaviour to the evaluation kit's score.py.

Copied from the project's evaluation kit (``../shared/eval/score.py``, standard
library only) so that ``loopagent eval`` and the tests run without ../shared;
tests/evaluate/test_score.py checks that both give the same rows and summary
whenever ../shared is present. Change nothing here without changing it there.

usage: python -m pipeline.evaluate.score QUESTIONS.jsonl ANSWERS.jsonl [--rows] [--json]
"""
# flake8: noqa
import json
import re
import sys
import unicodedata
from collections import Counter, defaultdict

DIGITS = {"零": 0, "〇": 0, "一": 1, "二": 2, "两": 2, "三": 3, "四": 4, "五": 5,
          "六": 6, "七": 7, "八": 8, "九": 9}
UNITS = {"十": 10, "百": 100, "千": 1000}
BIG = {"万": 10_000, "亿": 100_000_000}
CN_NUM = re.compile(r"[零〇一二两三四五六七八九十百千][零〇一二两三四五六七八九十百千万亿]*")


def cn_to_int(s):
    """Convert a Chinese numeral such as 二千五百 or 十五 to an int (None if not one)."""
    total, section, digit = 0, 0, None
    for ch in s:
        if ch in DIGITS:
            digit = DIGITS[ch]
        elif ch in UNITS:
            section += (digit if digit is not None else 1) * UNITS[ch]
            digit = None
        elif ch in BIG:
            section += digit or 0
            total += section * BIG[ch]
            section, digit = 0, None
        else:
            return None
    return total + section + (digit or 0)


def _numeral(m):
    word = m.group(0)
    # keep words where the numeral is part of a fixed term (一律, 一般, 统一 ...)
    if len(word) == 1 and word in "一" and m.end() < len(m.string) and m.string[m.end()] in "律般切些旦致并起同经样定直再方":
        return word
    value = cn_to_int(word)
    return str(value) if value is not None else word


def norm(text):
    text = unicodedata.normalize("NFKC", str(text or ""))
    text = "".join(ch for ch in text if unicodedata.category(ch) != "Cc")
    text = re.sub(r"\s+", "", text)
    text = CN_NUM.sub(_numeral, text)
    text = text.replace("天", "日").replace("个工作日", "工作日")
    text = re.sub(r"(\d),(\d{3})", r"\1\2", text)
    text = re.sub(r"(\d+(?:\.\d+)?)(万|亿)", _scale, text)
    return text


def _scale(m):
    value = float(m.group(1)) * BIG[m.group(2)]
    return str(int(value)) if value.is_integer() else str(value)


def render_value(value):
    if not isinstance(value, dict):
        return ""
    parts = []
    for key in ("number", "min", "max", "unit", "iso", "text"):
        if value.get(key) is not None:
            v = value[key]
            if isinstance(v, float) and v.is_integer():
                v = int(v)
            parts.append(str(v))
    if isinstance(value.get("items"), list):
        parts.extend(str(x) for x in value["items"])
    return "".join(parts)


def includes(answer_text, item):
    return any(norm(alt) in answer_text for alt in item.split("|") if alt)


YES = re.compile(r"^(是|可以|能|应当|应|需要|需|有|必须|会|属于|对)")
NO = re.compile(r"^(否|不|没有|无|禁止|不得|不能|不可以|不需要|无需|不属于)")


def polarity(ans):
    value = ans.get("value")
    if isinstance(value, dict) and value.get("kind") == "boolean":
        return bool(value.get("value"))
    text = norm(ans.get("answer", ""))
    if NO.match(text):
        return False
    if YES.match(text):
        return True
    head = text[:8]
    if re.search(r"不得|不能|不可|禁止|无需|不需要|不必|否", head):
        return False
    return None


def evidence_ok(q, ans):
    golds = q.get("evidence") or []
    if isinstance(golds, str):
        golds = [golds]
    texts = [norm(e.get("text", "")) for e in ans.get("evidence") or [] if isinstance(e, dict)]
    texts = [t for t in texts if t]
    if not golds:
        return True
    for gold in golds:
        g = norm(gold)
        hit = False
        for t in texts:
            if g in t or (len(t) >= 8 and t in g):
                hit = True
                break
            # a long shared run also counts (different sentence splitting)
            k = min(12, max(6, len(g) // 2))
            if any(g[i:i + k] in t for i in range(0, max(1, len(g) - k + 1), max(1, k // 2))):
                hit = True
                break
        if not hit:
            return False
    return True


def score(questions, answers):
    by_id = {a.get("id"): a for a in answers}
    rows = []
    for q in questions:
        a = by_id.get(q["id"], {"status": "missing", "answer": "", "evidence": []})
        answered = a.get("status") == "answered"
        text = norm(a.get("answer", "")) + norm(render_value(a.get("value")))
        if not q.get("answerable", True):
            correct = not answered
            ev = True
        else:
            ok_inc = all(includes(text, item) for item in q.get("must_include") or [])
            if q.get("type") == "yesno" and q.get("yes") is not None:
                ok_inc = ok_inc and polarity(a) == bool(q["yes"])
            correct = answered and ok_inc
            ev = evidence_ok(q, a) if correct else False
        wrong = answered and not correct
        rows.append({"id": q["id"], "type": q.get("type"), "paraphrase": bool(q.get("paraphrase")),
                     "answerable": q.get("answerable", True), "status": a.get("status"),
                     "correct": correct, "evidence_ok": ev, "wrong": wrong,
                     "ms": (a.get("timings_ms") or {}).get("total")})
    return rows


def summary(rows):
    n = len(rows)
    ans = [r for r in rows if r["answerable"]]
    unans = [r for r in rows if not r["answerable"]]
    correct = sum(r["correct"] for r in ans)
    grounded = sum(r["correct"] and r["evidence_ok"] for r in ans)
    wrong = sum(r["wrong"] for r in rows)
    per_type = defaultdict(lambda: [0, 0])
    for r in rows:
        per_type[r["type"]][0] += r["correct"] and r["evidence_ok"]
        per_type[r["type"]][1] += 1
    para = [r for r in ans if r["paraphrase"]]
    times = sorted(r["ms"] for r in rows if isinstance(r["ms"], (int, float)))
    pct = lambda p: times[min(len(times) - 1, int(p * len(times)))] if times else None
    return {
        "questions": n,
        "accuracy": round(grounded / max(1, len(ans)), 3),        # correct answer AND supporting evidence
        "answer_only_accuracy": round(correct / max(1, len(ans)), 3),
        "paraphrase_accuracy": round(sum(r["correct"] and r["evidence_ok"] for r in para) / max(1, len(para)), 3),
        "not_found_on_unanswerable": round(sum(r["correct"] for r in unans) / max(1, len(unans)), 3),
        "wrong_answer_rate": round(wrong / max(1, n), 3),
        "missing": sum(r["status"] == "missing" for r in rows),
        "per_type": {k: f"{v[0]}/{v[1]}" for k, v in sorted(per_type.items())},
        "reported_ms_p50": pct(0.5), "reported_ms_p95": pct(0.95),
    }


def main(argv):
    args = [a for a in argv if not a.startswith("--")]
    opts = dict(a[2:].split("=", 1) if "=" in a else (a[2:], "1") for a in argv if a.startswith("--"))
    load = lambda p: [json.loads(l) for l in open(p, encoding="utf-8") if l.strip()]
    questions, answers = load(args[0]), load(args[1])
    rows = score(questions, answers)
    s = summary(rows)
    if "rows" in opts:
        for r in rows:
            print(json.dumps(r, ensure_ascii=False))
    print(json.dumps(s, ensure_ascii=False, indent=None if "json" in opts else 1))
    ok = True
    if "min-accuracy" in opts and s["accuracy"] < float(opts["min-accuracy"]):
        ok = False
    if "max-wrong" in opts and s["wrong_answer_rate"] > float(opts["max-wrong"]):
        ok = False
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
