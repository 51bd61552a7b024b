#!/usr/bin/env python3
"""Self-supervised (question, sentence, label) pairs for the verifier and for stage-1/2 checks.

From the sentences of ../shared/eval/train/docs that carry a typed value (金额 money, 期限
duration, 比例 percent, 日期 date, 主体 agent), a cloze question replaces the value with its
interrogative (多少元 / 多长时间 / 什么比例 / 哪天 / 谁), keeps the clause around it, and adds
paraphrase noise: document words swapped for user words (dictionaries/synonyms.yaml, read in
reverse), dropped function words, a situational prefix (我们公司… / 我想问一下…).
Positives pair the question with its source sentence; negatives with another sentence of the same
document, a sentence of the same value kind elsewhere, and a random sentence of another document.

Deterministic for a seed. One JSON object per line:
{"pair_id", "qid", "question", "sentence", "label", "kind", "value", "negative", "source", "source_sentence_source"}

usage: scripts/make_verifier_data.py [OUT.jsonl] [--docs DIR] [--questions 1500] [--seed 13]
"""
from __future__ import annotations

import argparse
import json
import random
import re
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from pipeline.rules import RuleSet  # noqa: E402
from pipeline.text import split_sentences  # noqa: E402
from pipeline.tokenize import cut  # noqa: E402

_NUM = r"[0-9０-９.一二三四五六七八九十百千万两零〇]+"
# kind -> (value pattern, interrogatives it may become); the value must sit inside one clause
KINDS: dict[str, tuple[re.Pattern, list[str]]] = {
    "money": (re.compile(rf"{_NUM}(?:万元|亿元|元)(?:以上{_NUM}(?:万元|亿元|元)以下)?"), ["多少钱", "多少元"]),
    "percent": (re.compile(rf"百分之{_NUM}|千分之{_NUM}|{_NUM}[%％]"), ["什么比例", "百分之多少", "多少比例"]),
    "date": (re.compile(r"(?:[0-9]{4}年)?[0-9一二三四五六七八九十]{1,3}月[0-9一二三四五六七八九十]{1,3}日"),
             ["哪天", "什么时候", "哪一天"]),
    "duration": (re.compile(rf"{_NUM}(?:个工作日|个月|日|天|年|小时|周(?!岁))(?:内|以内|之内)?"), ["多长时间", "多久"]),
    "agent": (re.compile(r"(?<=由)[\u4e00-\u9fff]{2,16}(?:人民政府|主管部门|行政部门|委员会|人民法院|人民检察院|"
                         r"公安机关|机关|部门)"), ["谁", "哪个部门", "哪个机关"]),
}
_DATE_TAIL = re.compile(r"^[0-9一二三四五六七八九十]{1,3}日")  # 2024年5月: a date, not a duration
_CLAUSE = re.compile(r"[，,；;：:]")
_LABEL = re.compile(r"^(?:第[零〇一二三四五六七八九十百千\d]+条\s*|[（(][一二三四五六七八九十\d]+[)）]\s*|[一二三四五六七八九十]+、)+")
_SELF = re.compile(r"本(?:条例|办法|法|规定|细则|决定)")
_WH = re.compile(r"多少|几|吗|什么|哪")
PREFIXES = ["", "", "请问", "我想问一下，", "我们公司遇到个问题，", "咨询一下，", "如果是我们单位，", "麻烦问下，"]
DROPPABLE = ["应当", "依照本法", "依法", "按照规定", "有关", "的", "予以", "本条例规定的", "依照本条例"]


def find_value(sentence: str) -> list[tuple[str, re.Match]]:
    """Every (kind, match) of a typed value in the sentence, first kind wins on overlaps."""
    out: list[tuple[str, re.Match]] = []
    taken: list[tuple[int, int]] = []
    for kind, (rx, _) in KINDS.items():
        for m in rx.finditer(sentence):
            if kind == "duration" and (m.group().endswith(("月", "年")) and _DATE_TAIL.match(sentence[m.end():])):
                continue
            if kind == "duration" and re.match(r"[0-9]{4}年$", m.group()):
                continue  # a year, not a duration
            if any(m.start() < e and s < m.end() for s, e in taken):
                continue
            taken.append((m.start(), m.end()))
            out.append((kind, m))
    return out


_UNIT_WH = [("工作日", ["几个工作日", "多少个工作日"]), ("小时", ["几个小时", "多少小时"]), ("月", ["几个月", "多长时间"]),
            ("年", ["几年", "多少年"]), ("日", ["多少天", "几天"]), ("天", ["多少天", "几天"]), ("周", ["几周"])]


def interrogative(kind: str, value: str, rng: random.Random) -> str:
    """The interrogative that replaces ``value``; for durations it asks in the value's own unit (or 多久)."""
    if kind == "duration":
        for unit, whs in _UNIT_WH:
            if unit in value:
                return rng.choice(whs + ["多久"])
    return rng.choice(KINDS[kind][1])


def cloze(sentence: str, m: re.Match, wh: str) -> str:
    """The clause(s) around the value with the value replaced by ``wh``: at most the clause before and the
    value's own clause, so the question stays question-sized."""
    starts = [0] + [x.end() for x in _CLAUSE.finditer(sentence[: m.start()])]
    begin = starts[-2] if len(starts) >= 2 and m.start() - starts[-1] < 6 else starts[-1]
    tail = _CLAUSE.search(sentence, m.end())
    end = tail.start() if tail else len(sentence)
    q = sentence[begin:m.start()] + wh + sentence[m.end():end]
    return _LABEL.sub("", q.strip("。；;，, \n"))


def name_document(q: str, source: str) -> str:
    """本条例 / 本办法 in a question becomes the document's name: a user names what they ask about."""
    title = Path(source).stem.split("(")[0]
    return _SELF.sub(f"《{title}》", q, count=1)


def paraphrase(q: str, rng: random.Random, reverse_syn: list[tuple[str, str]]) -> tuple[str, list[str]]:
    """Noise: synonym swaps (document word → user word), dropped function words, a prefix."""
    noise = []
    words = cut(q)  # whole words only: 职工 inside 教职工 stays
    for doc_word, user_word in rng.sample(reverse_syn, k=min(len(reverse_syn), 40)):
        if doc_word in words and rng.random() < 0.7:
            words[words.index(doc_word)] = user_word
            noise.append(f"syn:{doc_word}->{user_word}")
    q = "".join(words)
    for w in DROPPABLE:
        if w in q and rng.random() < 0.5:
            q = q.replace(w, "", 1)
            noise.append(f"drop:{w}")
    prefix = rng.choice(PREFIXES)
    if prefix:
        noise.append(f"prefix:{prefix}")
    return prefix + q + "？", noise


def load_sentences(docs: Path, rng: random.Random, max_docs: int) -> list[dict]:
    """Sentences (8–160 characters) of the Markdown documents under ``docs``, with their source."""
    files = sorted(docs.rglob("*.md"))
    rng.shuffle(files)
    out = []
    for f in files[:max_docs]:
        text = f.read_text(encoding="utf-8", errors="ignore").split("<!-- INFO END -->", 1)[-1]
        for line in text.splitlines():
            line = line.strip().lstrip("#").strip()
            for s in split_sentences(line):
                t = s.text.strip()
                if 8 <= len(t) <= 160:
                    out.append({"text": t, "source": str(f.relative_to(docs))})
    return out


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("out", nargs="?", default="/tmp/verifier_data.jsonl")
    ap.add_argument("--docs", default=str(ROOT.parent / "shared" / "eval" / "train" / "docs"))
    ap.add_argument("--questions", type=int, default=1500, help="cloze questions (each gives 1 positive, 3 negatives)")
    ap.add_argument("--max-docs", type=int, default=600)
    ap.add_argument("--seed", type=int, default=13)
    args = ap.parse_args(argv)
    t0 = time.perf_counter()
    docs = Path(args.docs)
    if not docs.is_dir():
        print(f"no documents at {docs}", file=sys.stderr)
        return 2
    rng = random.Random(args.seed)
    rules = RuleSet()
    reverse_syn = sorted({(d, u) for r in rules.get("synonyms") for d in r["doc"] for u in r["user"]
                          if d != u and not _WH.search(u)})
    sentences = load_sentences(docs, rng, args.max_docs)
    by_doc: dict[str, list[int]] = {}
    by_kind: dict[str, list[int]] = {k: [] for k in KINDS}
    valued = []
    for i, s in enumerate(sentences):
        by_doc.setdefault(s["source"], []).append(i)
        found = find_value(s["text"])
        for kind in {k for k, _ in found}:
            by_kind[kind].append(i)
        if found:
            valued.append((i, found))
    rng.shuffle(valued)
    # balance the kinds: round-robin over kinds so durations do not crowd out dates and agents
    queues = {k: [(i, f) for i, f in valued if any(kk == k for kk, _ in f)] for k in KINDS}
    picked, used = [], set()
    while len(picked) < args.questions and any(queues.values()):
        for k in KINDS:
            while queues[k]:
                i, found = queues[k].pop()
                if i not in used:
                    used.add(i)
                    picked.append((i, next(m for kk, m in found if kk == k), k))
                    break
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    counts = {"questions": 0, "pairs": 0, "positives": 0, **{f"kind:{k}": 0 for k in KINDS}}
    with out.open("w", encoding="utf-8") as fh:
        for qn, (i, m, kind) in enumerate(picked):
            s = sentences[i]
            q = name_document(cloze(s["text"], m, interrogative(kind, m.group(), rng)), s["source"])
            q, noise = paraphrase(q, rng, reverse_syn)
            if len(q) < 6:
                continue
            qid = f"ss{args.seed}-{qn:05d}"
            negs = []
            same_doc = [j for j in by_doc[s["source"]] if j != i and sentences[j]["text"] != s["text"]]
            if same_doc:
                negs.append(("same_doc", rng.choice(same_doc)))
            same_kind = [j for j in rng.sample(by_kind[kind], k=min(50, len(by_kind[kind])))
                         if sentences[j]["text"] != s["text"] and j != i]
            if same_kind:
                negs.append(("same_kind", same_kind[0]))
            other = rng.randrange(len(sentences))
            if sentences[other]["source"] != s["source"]:
                negs.append(("other_doc", other))
            rows = [(1, i, None)] + [(0, j, why) for why, j in negs]
            for label, j, why in rows:
                fh.write(json.dumps({"pair_id": f"{qid}-{counts['pairs']}", "qid": qid, "question": q,
                                     "sentence": sentences[j]["text"], "label": label, "kind": kind,
                                     "value": m.group(), "negative": why, "noise": noise,
                                     "source": sentences[j]["source"], "question_source": s["source"]},
                                    ensure_ascii=False) + "\n")
                counts["pairs"] += 1
                counts["positives"] += label
            counts["questions"] += 1
            counts[f"kind:{kind}"] += 1
    counts["sentences"] = len(sentences)
    counts["seconds"] = round(time.perf_counter() - t0, 1)
    print(json.dumps({"out": str(out), **counts}, ensure_ascii=False))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
