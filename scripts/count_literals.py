#!/usr/bin/env python3
"""Counts the Chinese string literals in pipeline/ that can decide answers (issue: at most 60).

Counted: plain string constants, and f-strings that look like patterns (a CJK character and a regex
metacharacter in their literal parts: range conditions, heading shapes built around a numeral class).
Not counted: docstrings, other f-strings and the strings inside them (reasoning and messages), arguments of
reasons.append / LoopAgentError / message / logging calls, the values of ``reasons=`` and
``reasoning=`` keyword arguments (the reasoning an Answer or a match carries), arguments of ``Field(...)``
(a rule schema's hint shown to rule authors in pipeline/rules.py, or an API field's description in
pipeline/server/models.py: messages, never matched against text), arguments of ``reasons.extend`` /
``reasoning.extend`` (only on a list named reasons or reasoning), and dictionary keys of error tables.

Not scanned, because they cannot influence an answer (nothing the answering path imports imports them:
check with ``python -c "import sys, pipeline.kb, pipeline.server.app; print([m for m in sys.modules
if 'evaluate' in m or 'audit_cli' in m])"``, which prints []):
- pipeline/evaluate/: the scorer compares answers to gold answers after the fact (score.py), and the
  retrieval baselines (baselines.py) are the comparison systems of `loopagent eval`, not LoopAgent;
  only the `eval` command and scripts import the package.
- pipeline/audit_cli.py: the `audit` commands (verify, explain, replay, feedback, metrics, suggest)
  read audit logs and print; the server imports only its explain_lines, inside the handler that
  explains an answer already given.
usage: scripts/count_literals.py [--list]
"""
import ast
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CJK = re.compile(r"[\u4e00-\u9fff]")
PATTERN = re.compile(r"[\[\](|?*+\\^$]")
QUIET_CALLS = {"append", "LoopAgentError", "message", "warning", "info", "debug", "error", "print", "reason",
               "Field"}
QUIET_KEYWORDS = {"reasons", "reasoning"}
# paths (relative to pipeline/) that cannot influence an answer; the reasons are in the docstring
NOT_ANSWERING = ("evaluate/", "audit_cli.py")


def literals(path: Path) -> list[tuple[int, str]]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    skip: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and node.body:
            first = node.body[0]
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant):
                skip.add(id(first.value))
        if isinstance(node, ast.JoinedStr):
            skip.update(id(n) for n in ast.walk(node) if n is not node)
        if isinstance(node, ast.Call):
            f = node.func
            name = f.attr if isinstance(f, ast.Attribute) else getattr(f, "id", "")
            owner = f.value if isinstance(f, ast.Attribute) else None
            owner_name = owner.attr if isinstance(owner, ast.Attribute) else getattr(owner, "id", "")
            if name in QUIET_CALLS or (name == "extend" and owner_name in QUIET_KEYWORDS):
                for a in list(node.args) + [k.value for k in node.keywords]:
                    skip.update(id(n) for n in ast.walk(a))
            for k in node.keywords:
                if k.arg in QUIET_KEYWORDS:
                    skip.update(id(n) for n in ast.walk(k.value))
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.JoinedStr) and id(node) not in skip:
            text = "".join(v.value for v in node.values if isinstance(v, ast.Constant) and isinstance(v.value, str))
            if CJK.search(text) and PATTERN.search(text):  # an f-string pattern: it decides matches
                out.append((node.lineno, "f:" + text))
            continue
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in skip \
                and CJK.search(node.value):
            out.append((node.lineno, node.value))
    return sorted(out)


def main() -> int:
    total = 0
    show = "--list" in sys.argv
    for p in sorted((ROOT / "pipeline").rglob("*.py")):
        if p.name == "errors.py":  # the table of coded messages
            continue
        if str(p.relative_to(ROOT / "pipeline")).startswith(NOT_ANSWERING):
            continue
        found = literals(p)
        if found:
            total += len(found)
            print(f"{len(found):5d}  {p.relative_to(ROOT)}")
            if show:
                for line, s in found:
                    print(f"        {line}: {s[:60]!r}")
    print(f"Chinese string literals that may decide answers in pipeline/: {total} (target <= 60)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
