"""The LLM decision mode against a local OpenAI-compatible test server that replays a script of turns:
the real HTTP backend, action parsing, checks and grounding run; only the model's words are scripted."""
import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from pipeline import KnowledgeBase, LoopAgentError
from pipeline.decide import DecideSettings, parse_action
from pipeline.generate import GeneratorSettings
from pipeline.orchestrator import AskSettings

QUESTION = "女职工生育享受多少天产假？"


@pytest.fixture()
def scripted(example_kb):
    state = {"script": [], "requests": []}

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self):  # noqa: N802
            body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
            state["requests"].append(body["messages"])
            reply = state["script"].pop(0) if state["script"] else "{}"
            out = json.dumps({"choices": [{"message": {"role": "assistant", "content": reply}}],
                              "usage": {"completion_tokens": 5}}).encode("utf-8")
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(out)))
            self.end_headers()
            self.wfile.write(out)

        def log_message(self, *args):
            pass

    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    gen = GeneratorSettings(backend="http", endpoint=f"http://127.0.0.1:{httpd.server_address[1]}/v1",
                            model_name="tiny-qwen", timeout_s=10)
    kb = KnowledgeBase(example_kb.store.path, generator=gen, settings=AskSettings(decision=True))
    yield kb, state
    httpd.shutdown()


def _leave_block(example_kb):
    """The block of 女职工劳动保护特别规定 第七条 that states 98 days (found by its text, not hard-coded)."""
    doc = next(d for d in example_kb.store.documents() if "女职工劳动保护特别规定" in d["title"])
    return next(b for b in example_kb.store.doc_blocks(doc["doc_id"]) if "98天产假" in b.text)


def test_search_read_answer_is_accepted_with_the_read_block_as_evidence(scripted, example_kb):
    kb, state = scripted
    block = _leave_block(example_kb)
    state["script"] = ['{"action": "search", "query": "女职工 生育 产假 天数"}',
                       json.dumps({"action": "read", "block_id": block.block_id}),
                       json.dumps({"action": "answer", "answer": "女职工生育享受98天产假",
                                   "evidence_ids": [block.block_id]})]
    a = kb.ask(QUESTION, trace=True)
    assert (a.status, a.answer, a.method) == ("answered", "女职工生育享受98天产假", "decide:tiny-qwen")
    assert [e.block_id for e in a.evidence] == [block.block_id] and a.evidence[0].text == block.text
    assert [s["action"] for s in a.trace["decide"]] == ["search", "read", "answer"]
    assert a.trace["decide"][-1]["result"] == "采纳"
    assert len(state["requests"]) == 3


def test_repeated_search_unread_citation_and_invented_number_are_refused(scripted, example_kb):
    kb, state = scripted
    block = _leave_block(example_kb)
    state["script"] = ['{"action": "search", "query": "产假"}',
                       '{"action": "search", "query": "产 假"}',
                       json.dumps({"action": "answer", "answer": "98天", "evidence_ids": [block.block_id]}),
                       json.dumps({"action": "read", "block_id": block.block_id}),
                       json.dumps({"action": "answer", "answer": "女职工生育享受120天产假",
                                   "evidence_ids": [block.block_id]}),
                       json.dumps({"action": "answer", "answer": "98天", "evidence_ids": [block.block_id]})]
    a = kb.ask(QUESTION, trace=True)
    results = [s["result"] for s in a.trace["decide"]]
    assert results[1] == "拒绝：检索词「产 假」已检索过，不能重复检索"
    assert results[2] == f"拒绝：答案只能引用读过的块（未读：{block.block_id}）"
    assert results[4] == "拒绝：答案未通过依据检查（number 120 not in context）"
    assert (a.status, a.answer, results[5]) == ("answered", "98天", "采纳")


def test_invalid_json_is_asked_again_once_then_the_rules_path_answers(scripted):
    kb, state = scripted
    state["script"] = ["我觉得是98天", "还是98天吧"]
    a = kb.ask(QUESTION, trace=True)
    assert len(state["requests"]) == 2
    assert "输出不是有效的动作 JSON" in state["requests"][1][-1]["content"]
    assert a.status == "answered" and a.method.startswith("template:")
    assert a.value == {"kind": "duration", "number": 98, "unit": "日"}
    assert "决策模式：没有通过检查的答案，改用规则路径" in a.reasoning


def test_parse_action_and_settings():
    assert parse_action('好的 {"action": "read", "block_id": "b1"}') == {"action": "read", "block_id": "b1"}
    assert parse_action('{"action": "delete", "block_id": "b1"}') is None
    assert parse_action('{"action": "search", "query": "  "}') is None
    with pytest.raises(LoopAgentError) as exc:
        DecideSettings(max_turns=0)
    assert exc.value.code == "E303"
