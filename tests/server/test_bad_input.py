"""Bad input gets a 4xx with a coded message, never a stack trace, and the server keeps serving."""
from __future__ import annotations

import pytest

from tests.conftest import LABOUR_CONTRACT
from tests.server.conftest import make_app

PROBATION = "劳动合同期限一年以上不满三年的，试用期最长多久？"


@pytest.fixture(scope="module")
def small(tiny_db, tmp_path_factory):
    """An app whose uploads may be at most 4,000 bytes."""
    from fastapi.testclient import TestClient
    import shutil
    tmp = tmp_path_factory.mktemp("bad")
    db = tmp / "bad.sqlite"
    shutil.copy(tiny_db, db)
    with TestClient(make_app(db, tmp, max_upload_bytes=4000, max_batch=3)) as c:
        yield c


def upload(c, name, raw):
    return c.post("/documents", files={"file": (name, raw, "application/octet-stream")})


CASES = {
    "empty question": (lambda c: c.post("/ask", json={"question": ""}), 400, "E301"),
    "blank question": (lambda c: c.post("/ask", json={"question": " \u200b\t"}), 400, "E301"),
    "5,000-character question": (lambda c: c.post("/ask", json={"question": "年" * 5000}), 400, "E304"),
    "malformed JSON": (lambda c: c.post("/ask", content=b'{"question": "x"', headers={"Content-Type": "application/json"}),
                       400, "E701"),
    "question not a string": (lambda c: c.post("/ask", json={"question": 5}), 422, "E701"),
    "unknown field": (lambda c: c.post("/ask", json={"question": "x", "sql": "drop"}), 422, "E701"),
    "JSON array body": (lambda c: c.post("/ask", json=["x"]), 422, "E701"),
    "unknown trace id": (lambda c: c.get("/trace/0000000000000000"), 404, "E603"),
    "feedback on unknown trace": (lambda c: c.post("/feedback", json={"trace_id": "nope", "verdict": "right"}),
                                  404, "E603"),
    "feedback verdict": (lambda c: c.post("/feedback", json={"trace_id": "x", "verdict": "maybe"}), 422, "E701"),
    "unknown block id": (lambda c: c.get("/blocks/ffffffffffffffff"), 404, "E103"),
    "unknown document id": (lambda c: c.delete("/documents/ffffffffffffffff"), 404, "E705"),
    "unknown route": (lambda c: c.get("/admin"), 404, "E707"),
    "wrong method": (lambda c: c.get("/ask"), 405, "E707"),
    "batch too large": (lambda c: c.post("/ask/batch", json={"questions": [{"question": "x"}] * 4}), 413, "E709"),
    "oversized upload": (lambda c: upload(c, "big.md", "第一条 内容。\n".encode() * 1000), 413, "E704"),
    "oversized upload (by Content-Length)": (lambda c: upload(c, "big.md", b"x" * 200_000), 413, "E704"),
    "3 MB JSON body": (lambda c: c.post("/ask", content=b'{"question": "' + b"x" * 3_000_000 + b'"}',
                                         headers={"Content-Type": "application/json"}), 413, "E704"),
    "non-PDF named .pdf": (lambda c: upload(c, "规定.pdf", "第一条 这不是PDF。".encode()), 415, "E013"),
    "random bytes named .docx": (lambda c: upload(c, "a.docx", bytes(range(256)) * 4), 415, "E013"),
    "path traversal name": (lambda c: upload(c, "../../etc/规定.md", b"# x\n\xe7\xac\xac"), 400, "E706"),
    "Windows path traversal": (lambda c: upload(c, "..\\..\\规定.md", b"# t\n"), 400, "E706"),
    "hidden file name": (lambda c: upload(c, ".bashrc.md", b"# t\n"), 400, "E706"),
    "name over 240 bytes": (lambda c: upload(c, "规" * 90 + ".md", "# 规定\n第一条 内容。\n".encode()), 400, "E706"),
    "unsupported suffix": (lambda c: upload(c, "run.sh", b"echo hi\n"), 400, "E706"),
    "empty upload": (lambda c: upload(c, "empty.md", b""), 422, "E003"),
    "upload without a file": (lambda c: c.post("/documents", data={"collection": "x"}), 422, "E701"),
}


@pytest.mark.parametrize("case", list(CASES))
def test_bad_input_is_a_coded_4xx_and_the_server_keeps_serving(small, case):
    call, status, code = CASES[case]
    r = call(small)
    assert r.status_code == status, r.text
    body = r.json()
    assert body["error"]["code"] == code and body["error"]["message"]
    assert "Traceback" not in r.text and "/work/" not in r.text and "/tmp/" not in r.text
    assert small.post("/ask", json={"question": PROBATION}).json()["status"] == "answered"


def test_rejected_uploads_leave_nothing_behind(small, tmp_path):
    folder = small.app.state.service.uploads
    upload(small, "规定.pdf", "第一条 这不是PDF。".encode())
    upload(small, "../../x.md", b"# x\n")
    assert not folder.exists() or [p for p in folder.rglob("*") if p.is_file()] == []
    assert not (folder.parent.parent / "x.md").exists()
    assert [d["source"] for d in small.get("/documents").json()["documents"]] == [
        LABOUR_CONTRACT.name, "职工带薪年休假条例(2007-12-14).md"]
