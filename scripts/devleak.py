#!/usr/bin/env python3
"""Dev-fitting check: counts the dev questions whose own wording (6-character runs that occur in no
dev document) or whose gold evidence (its first 24 characters) appears in pipeline/, rules/ or
dictionaries/, and says where. Same counting as the evaluation kit's devleak.py.

usage: scripts/devleak.py [--eval ../shared/eval] [--where]   (exit 1 when over 3 wording / 5 evidence)
"""
import argparse
import json
import re
import sys
import unicodedata
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
WORDING_MAX, EVIDENCE_MAX = 3, 5


def norm(s: str) -> str:
    return re.sub(r"\s+", "", unicodedata.normalize("NFKC", s))


def sources(root: Path) -> list[tuple[str, int, str]]:
    """(file, line number, normalised line) for every line of the checked folders."""
    out = []
    for d in ("pipeline", "rules", "dictionaries"):
        for p in sorted((root / d).rglob("*")):
            if p.is_file() and p.suffix in (".py", ".yaml", ".yml", ".txt", ".json"):
                for i, line in enumerate(p.read_text(encoding="utf-8", errors="ignore").splitlines(), 1):
                    out.append((str(p.relative_to(root)), i, norm(line)))
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--eval", default=str(ROOT.parent / "shared" / "eval"))
    ap.add_argument("--where", action="store_true", help="print file:line of each hit")
    args = ap.parse_args()
    ev = Path(args.eval)
    if not (ev / "dev" / "questions.jsonl").exists():
        print(f"dev set not found under {ev} (needs ../shared)", file=sys.stderr)
        return 2
    docs = "\n".join(norm(p.read_text(encoding="utf-8", errors="ignore")) for p in (ev / "dev" / "docs").rglob("*.md"))
    lines = sources(ROOT)
    src = "\n".join(t for _, _, t in lines)
    wording, evidence = [], []
    for line in open(ev / "dev" / "questions.jsonl", encoding="utf-8"):
        q = json.loads(line)
        t = norm(q["question"])
        runs = {t[i:i + 6] for i in range(len(t) - 5)}
        runs = {r for r in runs if re.fullmatch(r"[\u4e00-\u9fff0-9A-Za-z]{6}", r) and r not in docs}
        hit = sorted(r for r in runs if r in src)
        if hit:
            wording.append(q["id"])
            if args.where:
                where = sorted({f"{f}:{n}" for r in hit for f, n, x in lines if r in x})
                print(f"wording  {q['id']} {hit[:3]} {where[:4]}")
        golds = q.get("evidence") or []
        golds = [golds] if isinstance(golds, str) else golds
        for g in golds:
            g = norm(g)
            if len(g) >= 12 and g[:24] in src:
                evidence.append(q["id"])
                if args.where:
                    where = sorted({f"{f}:{n}" for f, n, x in lines if g[:24] in x})
                    print(f"evidence {q['id']} {g[:24]} {where[:4]}")
                break
    print(f"dev questions with their own wording in pipeline/rules/dictionaries: {len(wording)}; "
          f"with gold evidence there: {len(evidence)} (limits {WORDING_MAX} and {EVIDENCE_MAX})")
    return 0 if len(wording) <= WORDING_MAX and len(evidence) <= EVIDENCE_MAX else 1


if __name__ == "__main__":
    sys.exit(main())
