"""pipeline.client.Client against a live server: the same ask() as KnowledgeBase, coded remote errors."""
from __future__ import annotations

import pytest

from pipeline.errors import LoopAgentError

PROBATION = "劳动合同期限一年以上不满三年的，试用期最长多久？"


def test_client_ask_returns_the_library_answer(live, tiny_db):
    from pipeline import KnowledgeBase
    from pipeline.client import Client
    from pipeline.types import Answer
    remote = Client(live.url, api_key=live.key).ask(PROBATION, id="r1")
    with KnowledgeBase(tiny_db, audit_log=None) as kb:
        local = kb.ask(PROBATION, id="r1")
    assert isinstance(remote, Answer)
    skip = {"trace_id", "timings_ms"}
    assert {k: v for k, v in remote.to_dict().items() if k not in skip} == \
        {k: v for k, v in local.to_dict().items() if k not in skip}
    assert remote.evidence[0].section == ["第二章 劳动合同的订立", "第十九条"]
    traced = Client(live.url, api_key=live.key).ask(PROBATION, trace=True)
    assert "prefilter" in traced.trace


def test_client_batch_feedback_documents_and_trace(live):
    from pipeline.client import Client
    c = Client(live.url, api_key=live.key)
    out = c.ask_batch([{"id": 1, "question": PROBATION}, {"id": 2, "question": ""}])
    assert [(o["id"], o["status"]) for o in out] == [(1, "answered"), (2, "error")]
    assert out[1]["error"]["code"] == "E301"
    fb = c.feedback(out[0]["trace_id"], right=True)
    assert fb["verdict"] == "right"
    assert c.trace(out[0]["trace_id"])["record"]["question"] == PROBATION
    assert sorted(d["title"] for d in c.documents()) == ["中华人民共和国劳动合同法", "职工带薪年休假条例"]
    assert c.health()["documents"] == 2


def test_client_errors_are_coded(live):
    from pipeline.client import Client, RemoteError
    with pytest.raises(RemoteError) as e:
        Client(live.url, api_key=live.key).ask("")
    assert (e.value.code, e.value.status) == ("E301", 400)
    with pytest.raises(RemoteError) as e:
        Client(live.url, api_key="wrong").ask(PROBATION)
    assert (e.value.code, e.value.status) == ("E702", 401)
    with pytest.raises(TypeError):
        Client(live.url).ask(5)
    from tests.server.conftest import free_port
    with pytest.raises(LoopAgentError, match="E711"):
        Client(f"http://127.0.0.1:{free_port()}", timeout=2).ask(PROBATION)
