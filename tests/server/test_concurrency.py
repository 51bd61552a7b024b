"""A question is answered while an upload is being ingested (the ingest holds no lock questions need)."""
from __future__ import annotations

import json
import threading
import urllib.request

from tests.conftest import EXAMPLES

PROBATION = "劳动合同期限一年以上不满三年的，试用期最长多久？"


def test_questions_are_answered_during_an_ingest(live):
    from pipeline.client import Client
    kb = live.app.state.service.kb
    parsing, release = threading.Event(), threading.Event()
    original = kb._worker.parse

    def slow_parse(*args, **kwargs):  # hold the ingest inside parsing until the question was answered
        parsing.set()
        assert release.wait(30)
        return original(*args, **kwargs)

    kb._worker.parse = slow_parse
    doc = EXAMPLES / "工伤保险条例(2010-12-20).md"
    boundary = "----loopagent"
    body = (f"--{boundary}\r\nContent-Disposition: form-data; name=\"file\"; filename=\"{doc.name}\"\r\n"
            "Content-Type: text/markdown\r\n\r\n").encode() + doc.read_bytes() + f"\r\n--{boundary}--\r\n".encode()
    result = {}

    def upload():
        req = urllib.request.Request(live.url + "/documents", data=body, method="POST", headers={
            "Content-Type": f"multipart/form-data; boundary={boundary}", "X-API-Key": live.key})
        with urllib.request.urlopen(req, timeout=60) as resp:
            result.update(status=resp.status, body=json.loads(resp.read()))

    t = threading.Thread(target=upload)
    t.start()
    try:
        assert parsing.wait(30)
        answer = Client(live.url, api_key=live.key, timeout=30).ask(PROBATION)
        assert answer.status == "answered" and answer.value == {"kind": "duration", "number": 2, "unit": "月"}
        assert not result  # the upload is still being ingested
    finally:
        release.set()
        t.join(60)
        kb._worker.parse = original
    assert result["status"] == 201 and result["body"]["status"] == "added" and result["body"]["source"] == doc.name
