"""Hostile input on the ask side (issue 14): every --jsonl line answered, questions checked at the
boundary, audit failures never lose the answer, document strings cleaned before the terminal."""
import json
import subprocess
import sys

import pytest

from pipeline import KnowledgeBase, LoopAgentError
from pipeline.cli import main
from pipeline.validate import clean_question, quote_path, terminal_safe
from tests.conftest import ANNUAL_LEAVE, EXAMPLES, ROOT

GOOD = "职工累计工作已满10年不满20年的，年休假几天？"


@pytest.fixture(scope="module")
def db(tmp_path_factory):
    path = tmp_path_factory.mktemp("hostile") / "kb.sqlite"
    assert main(["ingest", str(EXAMPLES), "--db", str(path)]) == 0
    return path


# every bad line type of the issue, each between good lines
BAD_LINES = [
    ('{"id": "n", "question": 42}', "E305"),
    ('{"id": "l", "question": ["年休假"]}', "E305"),
    ('{"id": "d", "question": {"q": "年休假"}}', "E305"),
    ('{"id": "b", "question": true}', "E305"),
    ('{"id": "s", "question": "年休假几天？", "session": ["x"]}', "E305"),
    ('{"id": "c", "question": "年休假几天？", "collection": ["x"]}', "E305"),
    ('{"id": "e", "question": ""}', "E301"),
    ('{"id": "w", "question": "\\u200b \\u0007"}', "E301"),
    ('{"id": "long", "question": "' + "年" * 600 + '"}', "E304"),
    ('{"id": "nq"}', "E302"),
    ('[1, 2]', "E302"),
    ('not json', "E302"),
]


def test_jsonl_every_line_answered_and_batch_goes_on(db, tmp_path, capsys):
    lines = [json.dumps({"id": "g0", "question": GOOD}, ensure_ascii=False)]
    for i, (bad, _) in enumerate(BAD_LINES):
        lines += [bad, json.dumps({"id": f"g{i + 1}", "question": GOOD}, ensure_ascii=False)]
    path = tmp_path / "q.jsonl"
    body = "\n".join(lines).encode("utf-8")
    # a lone surrogate and a line that is not UTF-8 at all
    body += b'\n{"id": "sur", "question": "\\ud800\xe5\xb9\xb4\xe4\xbc\x91\xe5\x81\x87\xe5\x87\xa0\xe5\xa4\xa9"}'
    body += b'\n{"id": "gbk", "question": "' + "年休假".encode("gbk") + b'"}\n'
    path.write_bytes(body)
    rc = main(["ask", "--jsonl", str(path), "--db", str(db), "--audit", "-"])
    out = [json.loads(x) for x in capsys.readouterr().out.splitlines()]
    assert len(out) == len(lines) + 2
    goods = [o for o in out if str(o["id"]).startswith("g") and o["id"] != "gbk"]
    assert [o["id"] for o in goods] == [f"g{i}" for i in range(len(BAD_LINES) + 1)]
    assert {o["answer"] for o in goods} == {"已满10年不满20年的，年休假10天；"}
    errors = {o["id"]: o["error"]["code"] for o in out if o["status"] == "error"}
    expected = {json.loads(b)["id"] if b.startswith("{") else None: c for b, c in BAD_LINES}
    expected[None] = "E302"
    expected["gbk"] = "E302"
    assert errors == expected
    sur = next(o for o in out if o["id"] == "sur")
    assert sur["status"] != "error" and sur["question"] == "\ufffd年休假几天"
    assert rc == 1  # the worst line was invalid input; every line was still answered


def test_jsonl_all_valid_exits_zero(db, tmp_path, capsys):
    path = tmp_path / "q.jsonl"
    path.write_text(json.dumps({"id": 7, "question": GOOD}, ensure_ascii=False) + "\n\n", encoding="utf-8")
    assert main(["ask", "--jsonl", str(path), "--db", str(db), "--audit", "-"]) == 0
    (o,) = [json.loads(x) for x in capsys.readouterr().out.splitlines()]
    assert (o["id"], o["answer"]) == (7, "已满10年不满20年的，年休假10天；")


def test_question_normalised_at_the_boundary():
    assert clean_question("年休假\u200b几天\u200d？\x1b[2J") == "年休假几天？ [2J"
    assert clean_question("ＡＢＣ１２３年") == "ABC123年"
    assert clean_question("\ud800年") == "\ufffd年"
    with pytest.raises(LoopAgentError) as e:
        clean_question("年" * 501)
    assert e.value.code == "E304"
    assert clean_question("年" * 20, max_chars=20) == "年" * 20


def test_zero_width_space_keeps_the_answer(db):
    kb = KnowledgeBase(db, create=False)
    assert kb.ask("职工累计工作已满10年不满20年的，年\u200b休假几天？").answer == "已满10年不满20年的，年休假10天；"


def test_length_limit_is_configurable(db):
    from dataclasses import replace
    from pipeline.config import Settings
    kb = KnowledgeBase(db, create=False, config=replace(Settings.resolve(db=db), max_question_chars=10))
    with pytest.raises(LoopAgentError) as e:
        kb.ask(GOOD)
    assert e.value.code == "E304" and "the limit is 10" in e.value.message


def test_unwritable_audit_keeps_the_answer(db, tmp_path, capsys):
    blocker = tmp_path / "file"
    blocker.write_text("x")
    rc = main(["ask", GOOD, "--db", str(db), "--json", "--audit", str(blocker / "audit.jsonl")])
    captured = capsys.readouterr()
    assert rc == 0
    assert json.loads(captured.out)["answer"] == "已满10年不满20年的，年休假10天；"
    assert captured.err.startswith("W015: Could not write the audit record")


def test_gbk_argv_question_is_answered_and_audited(db, tmp_path):
    """A GBK-encoded argument in a UTF-8 locale arrives with surrogate escapes: no crash, audit written."""
    audit = tmp_path / "a.jsonl"
    arg = "职工累计工作已满10年不满20年的，年休假几天？".encode("gbk")
    proc = subprocess.run([sys.executable, "-m", "pipeline.cli", "ask", arg, "--db", str(db), "--json",
                           "--audit", str(audit)], cwd=ROOT, capture_output=True,
                          env={"PATH": "/usr/bin:/bin", "LC_ALL": "C.UTF-8", "PYTHONIOENCODING": "utf-8"})
    assert proc.returncode == 3, proc.stderr.decode()  # a garbled question finds nothing, it does not crash
    assert json.loads(proc.stdout)["status"] == "not_found"
    assert json.loads(audit.read_text(encoding="utf-8"))["status"] == "not_found"


def test_terminal_safe_and_quoted_names():
    assert terminal_safe("标题\x1b]0;owned\x07\x1b[2J正文\n第二行") == "标题]0;owned[2J正文 第二行"
    assert quote_path("hr/制度.md") == "hr/制度.md"
    assert quote_path("a\nE005: forged.md") == '"a\\nE005: forged.md"'


def test_escape_sequence_title_never_reaches_the_terminal(tmp_path, capsys):
    """A document title with escape codes (as a PDF /Title can carry) is printed without them."""
    from pipeline.ingest import parse_file
    doc_path = tmp_path / "t.md"
    doc_path.write_text("第一条 职工连续工作1年以上的，享受带薪年休假。\n", encoding="utf-8")
    doc = parse_file(doc_path, "t.md").document
    doc.title = "规定\x1b]0;pwned\x07\x1b[2J"
    db = tmp_path / "kb.sqlite"
    KnowledgeBase(db).store.put_document(doc)
    assert main(["docs", "--db", str(db)]) == 0
    main(["ask", "职工连续工作多久以上享受带薪年休假？", "--db", str(db), "--audit", "-"])
    out = capsys.readouterr().out
    assert "规定]0;pwned[2J" in out
    assert "\x1b" not in out and "\x07" not in out


def test_file_name_cannot_forge_a_summary_line(tmp_path, capsys):
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "x\nE005: Cannot read all.md").write_bytes(b" ")  # blank: it gets a coded line naming it
    main(["ingest", str(docs), "--db", str(tmp_path / "kb.sqlite")])
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("E003")
