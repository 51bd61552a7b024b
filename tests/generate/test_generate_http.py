"""The OpenAI-compatible HTTP backend against a tiny stdlib server on 127.0.0.1 (no llm extra needed)."""
from __future__ import annotations

import json
import socket
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from pipeline.errors import LoopAgentError
from pipeline.generate import Generator, GeneratorSettings
from pipeline.types import Distilled

CONTEXT = Distilled(text="劳动合同期限三个月以上不满一年的，试用期不得超过一个月；", pieces=[],
                    anchor_block_id="b1", budget=200)


@pytest.fixture
def server():
    """A chat-completions server answering from ``state['reply']`` and recording the requests."""
    state = {"reply": "不得超过一个月。", "status": 200, "requests": []}

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self):  # noqa: N802 (http.server's naming)
            body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
            state["requests"].append({"path": self.path, "body": body, "auth": self.headers.get("Authorization")})
            payload = {"choices": [{"message": {"role": "assistant", "content": state["reply"]}}],
                       "usage": {"completion_tokens": 7}} if state["status"] == 200 else {"error": "boom"}
            data = json.dumps(payload, ensure_ascii=False).encode("utf-8")
            self.send_response(state["status"])
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def log_message(self, *args):
            pass

    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    state["endpoint"] = f"http://127.0.0.1:{httpd.server_address[1]}/v1"
    yield state
    httpd.shutdown()
    httpd.server_close()


def make(endpoint: str, **kw) -> Generator:
    return Generator(GeneratorSettings(backend="http", endpoint=endpoint, model_name="qwen2.5-0.5b-instruct",
                                       timeout_s=5, **kw))


def test_grounded_answer_over_http(server):
    result = make(server["endpoint"], max_new_tokens=32, api_key="k").run("试用期最长多久？", CONTEXT)
    assert (result.text, result.grounded, result.tokens, result.model) == ("不得超过一个月", True, 7,
                                                                           "qwen2.5-0.5b-instruct")
    request = server["requests"][0]
    assert request["path"] == "/v1/chat/completions" and request["auth"] == "Bearer k"
    body = request["body"]
    assert body["temperature"] == 0 and body["max_tokens"] == 32 and body["stream"] is False
    assert body["model"] == "qwen2.5-0.5b-instruct" and CONTEXT.text in body["messages"][-1]["content"]


def test_ungrounded_and_not_stated_replies_are_rejected(server):
    gen = make(server["endpoint"])
    server["reply"] = "试用期不得超过两个月。"
    r = gen.run("试用期最长多久？", CONTEXT)
    assert not r.grounded and r.reason == "number 2 not in context"
    server["reply"] = "未提及"
    r = gen.run("试用期最长多久？", CONTEXT)
    assert not r.grounded and r.text == "未提及"


def test_server_error_is_E404(server):
    server["status"] = 500
    with pytest.raises(LoopAgentError) as err:
        make(server["endpoint"]).run("试用期最长多久？", CONTEXT)
    assert err.value.code == "E404" and "HTTP 500" in str(err.value)


def test_nothing_listening_is_E404():
    with socket.socket() as s:  # a loopback port that was free a moment ago
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    with pytest.raises(LoopAgentError) as err:
        make(f"http://127.0.0.1:{port}/v1").run("试用期最长多久？", CONTEXT)
    assert err.value.code == "E404"
