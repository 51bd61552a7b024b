"""The HTTP API over a tiny store (劳动合同法 + 职工带薪年休假条例): answers, audit, documents, rules, metrics."""
from __future__ import annotations

import json

import pytest

from tests.conftest import EXAMPLES
from tests.server.conftest import copy_db, make_app, need

PROBATION = "劳动合同期限一年以上不满三年的，试用期最长多久？"
PROBATION_TEXT = "劳动合同期限一年以上不满三年的，试用期不得超过二个月；"
MATERNITY_MD = EXAMPLES / "女职工劳动保护特别规定(2012-04-28).md"


def test_ask_answers_with_value_and_evidence(client):
    r = client.post("/ask", json={"question": PROBATION, "id": "q1"})
    assert r.status_code == 200
    d = r.json()
    assert d["id"] == "q1" and d["status"] == "answered"
    assert d["value"] == {"kind": "duration", "number": 2, "unit": "月"}
    assert d["answer"] == PROBATION_TEXT
    ev = d["evidence"][0]
    assert (ev["source"], ev["section"], ev["text"]) == (
        "劳动合同法(2012-12-28).md", ["第二章 劳动合同的订立", "第十九条"], PROBATION_TEXT)
    block = client.get(f"/blocks/{ev['block_id']}").json()  # the offsets point at the sentence in its block
    assert block["text"][ev["start"]:ev["end"]] == PROBATION_TEXT
    assert block["title"] == "中华人民共和国劳动合同法" and block["section"] == ev["section"]
    assert "path" not in block["meta"]  # no server paths reach a client
    assert len(d["trace_id"]) == 16 and "stages" not in d


def test_answer_matches_the_library_and_the_model(client, tiny_db):
    """The HTTP answer is Answer.to_dict() (same keys and values as the library), and the Pydantic model
    documents exactly those keys."""
    from pipeline import KnowledgeBase
    from pipeline.server import models
    d = client.post("/ask", json={"question": PROBATION}).json()
    with KnowledgeBase(tiny_db, audit_log=None) as kb:
        lib = kb.ask(PROBATION).to_dict()
    skip = {"trace_id", "timings_ms"}
    assert {k: v for k, v in d.items() if k not in skip} == {k: v for k, v in lib.items() if k not in skip}
    assert set(models.Answer.model_fields) == set(lib) | {"stages", "navigation"}  # navigation: only on that status
    assert set(models.Evidence.model_fields) == set(lib["evidence"][0])
    assert models.Answer.model_validate(d).value.number == 2


def test_openapi_documents_every_answer_field(client):
    spec = client.get("/openapi.json").json()
    schemas = spec["components"]["schemas"]
    assert set(schemas["Answer"]["properties"]) == {
        "id", "question", "status", "answer", "value", "evidence", "method", "confidence", "reasoning",
        "trace_id", "timings_ms", "stages", "navigation"}
    assert {"number", "unit", "iso", "min", "max", "items", "value", "text"} <= set(schemas["Value"]["properties"])
    assert schemas["Value"]["properties"]["kind"]["enum"] == [
        "count", "number", "money", "duration", "date", "boolean", "range", "list", "text"]
    assert set(spec["paths"]) >= {"/ask", "/ask/batch", "/trace/{trace_id}", "/documents", "/documents/{doc_id}",
                                  "/blocks/{block_id}", "/blocks/{block_id}/image", "/feedback", "/rules/reload",
                                  "/rules/lint", "/health", "/metrics"}
    ok = spec["paths"]["/ask"]["post"]["responses"]["200"]["content"]["application/json"]["schema"]
    assert ok == {"$ref": "#/components/schemas/Answer"}


def test_trace_adds_the_stages(client):
    d = client.post("/ask", json={"question": PROBATION, "trace": True}).json()
    assert {"analyze", "prefilter", "syntax"} <= set(d["stages"])


def test_unanswerable_is_not_found(client):
    d = client.post("/ask", json={"question": "月球上的最低工资是多少？"}).json()
    assert (d["status"], d["answer"], d["evidence"], d["value"]) == ("not_found", "", [], None)


def test_batch_answers_valid_items_and_codes_the_rest(client):
    r = client.post("/ask/batch", json={"questions": [
        {"id": "a", "question": PROBATION}, {"id": "b", "question": 5}, {"id": "c"}, {"id": "d", "question": " "},
        "text", {"id": 7, "question": "劳动合同期限三个月以上不满一年的，试用期不得超过多久？"}]})
    assert r.status_code == 200
    out = r.json()["answers"]
    assert [(o["id"], o["status"]) for o in out] == [("a", "answered"), ("b", "error"), ("c", "error"),
                                                      ("d", "error"), (None, "error"), (7, "answered")]
    assert [o["error"]["code"] for o in out if o["status"] == "error"] == ["E305", "E701", "E301", "E701"]
    assert [o["line"] for o in out if o["status"] == "error"] == [2, 3, 4, 5]
    assert out[0]["value"] == {"kind": "duration", "number": 2, "unit": "月"}
    assert out[5]["value"] == {"kind": "duration", "number": 1, "unit": "月"}


def test_trace_record_and_feedback(client):
    d = client.post("/ask", json={"question": PROBATION}).json()
    t = client.get(f"/trace/{d['trace_id']}").json()
    assert t["record"]["question"] == PROBATION and t["record"]["value"] == d["value"]
    assert t["explain"][1] == f"问题：{PROBATION}" and t["explain"][2] == "结论：已作答"
    r = client.post("/feedback", json={"trace_id": d["trace_id"], "verdict": "wrong", "expected": "两个月"})
    assert r.status_code == 200 and r.json()["verdict"] == "wrong"
    rows = client.app.state.service.kb.store.feedback()
    assert (rows[-1]["trace_id"], rows[-1]["verdict"], rows[-1]["expected"]) == (d["trace_id"], "wrong", "两个月")


def test_documents_list(client):
    docs = client.get("/documents").json()["documents"]
    assert sorted(d["source"] for d in docs) == ["劳动合同法(2012-12-28).md", "职工带薪年休假条例(2007-12-14).md"]
    assert {d["title"] for d in docs} == {"中华人民共和国劳动合同法", "职工带薪年休假条例"}
    assert all("path" not in d["meta"] for d in docs)


def test_upload_ask_and_delete(tiny_db, tmp_path):
    """An uploaded statute is answered from, stored under a generated folder, and deleted with its file."""
    import shutil

    from fastapi.testclient import TestClient
    db = tmp_path / "w.sqlite"
    shutil.copy(tiny_db, db)
    with TestClient(make_app(db, tmp_path)) as c:
        raw = MATERNITY_MD.read_bytes()
        r = c.post("/documents", files={"file": (MATERNITY_MD.name, raw, "text/markdown")}, data={"collection": "hr"})
        assert r.status_code == 201, r.text
        up = r.json()
        assert (up["source"], up["status"], up["blocks"]) == (MATERNITY_MD.name, "added", 49)
        stored = list((tmp_path / "uploads").glob("*/*"))
        assert [p.name for p in stored] == [MATERNITY_MD.name] and len(stored[0].parent.name) == 16
        d = c.post("/ask", json={"question": "女职工生育享受多少天产假？"}).json()
        assert d["value"] == {"kind": "duration", "number": 98, "unit": "日"}
        assert d["evidence"][0]["source"] == MATERNITY_MD.name
        again = c.post("/documents", files={"file": (MATERNITY_MD.name, raw, "text/markdown")}).json()
        assert (again["status"], again["doc_id"]) == ("unchanged", up["doc_id"])
        r = c.delete(f"/documents/{up['doc_id']}")
        assert r.json() == {"doc_id": up["doc_id"], "source": MATERNITY_MD.name, "removed": True}
        assert list((tmp_path / "uploads").glob("*/*")) == []
        assert c.post("/ask", json={"question": "女职工生育享受多少天产假？"}).json()["status"] == "not_found"
        gone = c.delete(f"/documents/{up['doc_id']}")
        assert (gone.status_code, gone.json()["error"]["code"]) == (404, "E705")


def test_block_image_needs_a_pdf_block(client):
    d = client.post("/ask", json={"question": PROBATION}).json()
    r = client.get(f"/blocks/{d['evidence'][0]['block_id']}/image")
    assert (r.status_code, r.json()["error"]["code"]) == (404, "E009")


def test_block_image_of_a_pdf(tmp_path):
    """A PDF block's page crop comes back as a PNG."""
    from fastapi.testclient import TestClient
    pdfs = sorted((EXAMPLES.parent.parent / "tests" / "data" / "pdf").glob("*.pdf"))
    if not pdfs:
        pytest.skip("no test PDFs in tests/data/pdf")
    with TestClient(make_app(tmp_path / "p.sqlite", tmp_path)) as c:
        up = c.post("/documents", files={"file": (pdfs[0].name, pdfs[0].read_bytes(), "application/pdf")})
        assert up.status_code == 201, up.text
        store = c.app.state.service.kb.store
        block = next(b for b in store.doc_blocks(up.json()["doc_id"]) if b.page_start)
        r = c.get(f"/blocks/{block.block_id}/image")
        assert r.status_code == 200 and r.headers["content-type"] == "image/png"
        assert r.content[:8] == b"\x89PNG\r\n\x1a\n"


def test_rules_reload_and_lint(client):
    a = client.post("/rules/reload").json()
    b = client.post("/rules/reload").json()
    assert (a["changed"], a["errors"], b["version"]) == (True, [], a["version"] + 1)
    assert a["fingerprint"] == client.app.state.service.kb.rules.fingerprint()[0]
    lint = client.get("/rules/lint").json()
    assert lint["errors"] == []


def test_rule_reload_reaches_another_worker(tiny_db, tmp_path):
    """Two apps (as two workers) on one store: a reload in one makes the other re-read its rules on its
    next question, through the store's rules version."""
    from fastapi.testclient import TestClient
    db = copy_db(tiny_db, tmp_path)
    with TestClient(make_app(db, tmp_path / "a")) as a, TestClient(make_app(db, tmp_path / "b")) as b:
        b.post("/ask", json={"question": PROBATION})
        rules_b = b.app.state.service.kb.rules
        before = rules_b.version
        b.post("/ask", json={"question": PROBATION})
        assert rules_b.version == before  # nothing changed: no reload
        a.post("/rules/reload")
        b.post("/ask", json={"question": PROBATION})
        assert rules_b.version == before + 1


def test_health_and_metrics(client):
    svc = client.app.state.service
    assert client.get("/health").json() == {"status": "ok", "version": __import__("pipeline").__version__,
                                            "documents": 2, "blocks": svc.kb.store.stats()["blocks"],
                                            "worker": svc.worker, "rules_version": svc.rules_version}
    client.post("/ask", json={"question": PROBATION})
    client.post("/ask", json={"question": ""})
    text = client.get("/metrics").text
    assert 'loopagent_answers_total{status="answered"}' in text
    assert 'loopagent_errors_total{code="E301"}' in text
    assert 'loopagent_http_requests_total{method="POST",route="/ask",status="200"}' in text
    assert 'loopagent_http_request_duration_seconds_bucket{le="0.005",route="/ask"}' in text


def test_the_page_is_served(client):
    page = client.get("/")
    assert page.status_code == 200 and "答案正确" in page.text and "不准确" in page.text
    assert client.get("/static/app.js").status_code == 200


# --- security --------------------------------------------------------------------------------
def test_api_key(tiny_db, tmp_path):
    from fastapi.testclient import TestClient
    with TestClient(make_app(tiny_db, tmp_path, api_keys=("s3cret",))) as c:
        assert c.get("/health").status_code == 200  # no key needed
        for headers, why in (({}, "No API key"), ({"X-API-Key": "wrong"}, "not one this service accepts")):
            r = c.post("/ask", json={"question": PROBATION}, headers=headers)
            assert (r.status_code, r.json()["error"]["code"]) == (401, "E702") and why in r.json()["error"]["message"]
        assert c.get("/metrics").status_code == 401
        assert c.get("/documents", headers={"X-API-Key": "s3cret"}).status_code == 200
        assert c.get("/documents", headers={"Authorization": "Bearer s3cret"}).status_code == 200


def test_rate_limit_per_key(tiny_db, tmp_path):
    from fastapi.testclient import TestClient
    with TestClient(make_app(tiny_db, tmp_path, api_keys=("k1", "k2"), rate_limit=2)) as c:
        codes = [c.get("/documents", headers={"X-API-Key": "k1"}).status_code for _ in range(3)]
        assert codes == [200, 200, 429]
        r = c.get("/documents", headers={"X-API-Key": "k1"})
        assert r.json()["error"]["code"] == "E703" and int(r.headers["retry-after"]) >= 1
        assert c.get("/documents", headers={"X-API-Key": "k2"}).status_code == 200  # another key has its own


def test_cors_off_by_default_and_on_when_set(tiny_db, tmp_path):
    from fastapi.testclient import TestClient
    with TestClient(make_app(tiny_db, tmp_path / "off")) as c:
        r = c.get("/health", headers={"Origin": "https://evil.example"})
        assert "access-control-allow-origin" not in r.headers
    with TestClient(make_app(tiny_db, tmp_path / "on", cors_origins=("https://ok.example",))) as c:
        r = c.get("/health", headers={"Origin": "https://ok.example"})
        assert r.headers["access-control-allow-origin"] == "https://ok.example"


def test_internal_failure_is_a_coded_500_without_a_trace(tiny_db, tmp_path):
    from fastapi.testclient import TestClient
    with TestClient(make_app(tiny_db, tmp_path)) as c:
        def boom(*a, **k):
            raise RuntimeError("secret internal detail")
        c.app.state.service.kb.ask = boom
        r = c.post("/ask", json={"question": PROBATION})
        assert r.status_code == 500 and r.json()["error"]["code"] == "E708"
        assert "secret" not in r.text and "Traceback" not in r.text and "RuntimeError" not in r.text
        assert c.get("/health").status_code == 200


def test_settings_are_validated():
    need("fastapi")
    from pipeline.errors import LoopAgentError
    from pipeline.server import ServerSettings, create_app
    with pytest.raises(LoopAgentError, match="E303.*rate_limit"):
        ServerSettings(db="x.sqlite", rate_limit=-1)
    with pytest.raises(LoopAgentError, match="E303.*api_keys"):
        ServerSettings(db="x.sqlite", api_keys=("",))
    with pytest.raises(TypeError):
        create_app("x.sqlite")
    s = ServerSettings(db="x.sqlite", api_keys=("a",), rate_limit=5)
    assert ServerSettings.from_json(s.to_json()) == s


def test_serve_command_settings(monkeypatch):
    from pipeline.cli import build_parser
    from pipeline.server.cli import settings_from_args
    monkeypatch.setenv("LOOPAGENT_API_KEYS", "k1, k2")
    args = build_parser().parse_args(["serve", "--db", "kb.sqlite", "--port", "9000", "--workers", "3",
                                      "--rate-limit", "0", "--max-upload-mb", "1"])
    s = settings_from_args(args)
    assert (args.port, args.workers) == (9000, 3)
    assert (s.db, s.api_keys, s.rate_limit, s.max_upload_bytes, s.cors_origins) == (
        "kb.sqlite", ("k1", "k2"), 0, 2**20, ())
    assert json.loads(s.to_json())["db"] == "kb.sqlite"


def test_serve_without_the_server_extra_is_E710(monkeypatch, capsys):
    import sys

    from pipeline.cli import main
    monkeypatch.setitem(sys.modules, "uvicorn", None)  # as in an install without the server extra
    assert main(["serve", "--db", "kb.sqlite"]) == 2
    assert capsys.readouterr().err.startswith("E710: `loopagent serve` needs the `server` extra")


def test_rate_limiter_refills_and_forgets_idle_clients(monkeypatch):
    need("fastapi")
    from pipeline.server import app as server_app
    now = [1000.0]
    monkeypatch.setattr(server_app.time, "monotonic", lambda: now[0])
    monkeypatch.setattr(server_app, "MAX_BUCKETS", 2)
    lim = server_app.RateLimiter(60)  # one a second, bursts of 60
    assert [lim.take("a") for _ in range(60)] == [0.0] * 60
    assert lim.take("a") == pytest.approx(1.0)
    now[0] += 2.0
    assert lim.take("a") == 0.0  # refilled
    lim.take("b"), lim.take("c")
    now[0] += 120.0
    lim.take("d")  # over MAX_BUCKETS: refilled buckets are dropped
    assert set(lim._buckets) == {"d"}
    assert server_app.RateLimiter(0).take("x") == 0.0
    assert (server_app.http_status("E013"), server_app.http_status("E012"), server_app.http_status("E103"),
            server_app.http_status("E106"), server_app.http_status("E999")) == (415, 422, 404, 503, 400)


def test_document_history_lists_superseded_versions(tmp_path):
    """Uploading a changed file under the same name keeps the old version; history=true lists both."""
    from fastapi.testclient import TestClient
    with TestClient(make_app(tmp_path / "h.sqlite", tmp_path)) as c:
        name = "制度.md"
        first = c.post("/documents", files={"file": (name, "# 制度\n\n第一条 试用期为一个月。\n".encode(), "text/markdown")})
        second = c.post("/documents", files={"file": (name, "# 制度\n\n第一条 试用期为两个月。\n".encode(), "text/markdown")})
        assert (first.json()["status"], second.json()["status"]) == ("added", "updated")
        assert [d["source"] for d in c.get("/documents").json()["documents"]] == [name]
        hist = c.get("/documents?history=true").json()["documents"]
        assert [(d["source"], d["superseded_at"] is None) for d in hist] == [(name, False), (name, True)]
        assert hist[0]["superseded_by"] == hist[1]["content_hash"]


def test_service_over_postgresql(pg_url, tmp_path):
    """The same app over a PostgreSQL store: upload, answer, rules version in the store's meta."""
    from fastapi.testclient import TestClient
    with TestClient(make_app(pg_url, tmp_path)) as c:
        from tests.conftest import LABOUR_CONTRACT
        up = c.post("/documents", files={"file": (LABOUR_CONTRACT.name, LABOUR_CONTRACT.read_bytes(), "text/markdown")})
        assert up.status_code == 201 and up.json()["status"] == "added"
        d = c.post("/ask", json={"question": PROBATION}).json()
        assert (d["status"], d["value"], d["evidence"][0]["text"]) == (
            "answered", {"kind": "duration", "number": 2, "unit": "月"}, PROBATION_TEXT)
        assert c.post("/rules/reload").json()["version"] == 1
        assert c.get("/health").json()["rules_version"] == 1
        assert c.get(f"/trace/{d['trace_id']}").json()["record"]["question"] == PROBATION


def test_trace_values_that_json_cannot_write_are_written_as_text(client, monkeypatch):
    """A stage that puts a set or an object into its trace does not turn the answer into a 500."""
    from pipeline.types import Answer
    kb = client.app.state.service.kb
    monkeypatch.setattr(kb, "ask", lambda q, **k: Answer(question=q, status="not_found", trace={"terms": {"x"}}))
    d = client.post("/ask", json={"question": "年休假几天？", "trace": True})
    assert d.status_code == 200 and d.json()["stages"] == {"terms": "{'x'}"}


def test_warm_up_is_not_recorded(tiny_db, tmp_path):
    """The startup question loads the models but writes no audit record."""
    from fastapi.testclient import TestClient
    with TestClient(make_app(tiny_db, tmp_path, warm=True)) as c:
        orch = c.app.state.service.kb.orchestrator
        assert orch.syntax is None or orch.syntax.parser._nlp is not None  # the parser is loaded
        assert not (tmp_path / "audit.jsonl").exists()
        c.post("/ask", json={"question": PROBATION})
        c.app.state.service.kb.audit.flush()
        lines = (tmp_path / "audit.jsonl").read_text(encoding="utf-8").splitlines()
        assert [json.loads(ln)["question"] for ln in lines] == [PROBATION]


def test_open_question_gets_the_navigation_card_over_http(client, tiny_db):
    from pipeline import KnowledgeBase
    d = client.post("/ask", json={"question": "讲讲试用期的规定"}).json()
    with KnowledgeBase(tiny_db, audit_log=None) as kb:
        lib = kb.ask("讲讲试用期的规定").to_dict()
    assert d["status"] == lib["status"] == "navigation" and d["answer"] == ""
    assert d["navigation"] == lib["navigation"] and d["navigation"]
    for n in d["navigation"]:
        assert set(n) == {"doc_id", "title", "section", "block_id", "summary"}
        assert n["summary"].rstrip("…") in client.get(f"/blocks/{n['block_id']}").json()["text"]
