"""The generator fallback inside ask(): only when no template fired, only from a covering anchor,
and only grounded output becomes an answer. The model is a local OpenAI-compatible test server,
so the real prompt and grounding code run without the llm extra."""
import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from pipeline import KnowledgeBase
from pipeline.generate import GeneratorSettings

OPEN_QUESTION = "女职工生育享受产假的规定是怎样的"  # not 讲讲…: that asks for a navigation card (tests/test_sources.py)


@pytest.fixture()
def served(example_kb):
    state = {"reply": "", "requests": 0}

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self):  # noqa: N802
            self.rfile.read(int(self.headers["Content-Length"]))
            state["requests"] += 1
            body = json.dumps({"choices": [{"message": {"role": "assistant", "content": state["reply"]}}],
                               "usage": {"completion_tokens": 9}}).encode("utf-8")
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args):
            pass

    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    settings = GeneratorSettings(backend="http", endpoint=f"http://127.0.0.1:{httpd.server_address[1]}/v1",
                                 model_name="tiny-qwen", timeout_s=10)
    kb = KnowledgeBase(example_kb.store.path, generator=settings)
    yield kb, state
    httpd.shutdown()


def test_grounded_generation_answers(served):
    kb, state = served
    state["reply"] = "女职工生育享受98天产假。"
    a = kb.ask(OPEN_QUESTION, trace=True)
    assert a.status == "answered"
    assert a.method == "generator:tiny-qwen"
    assert a.answer == "女职工生育享受98天产假"
    assert a.evidence[0].section[-1] == "第七条"
    assert a.trace["generate"]["grounded"] is True
    assert len(a.trace["generate"]["distilled"]) <= 200
    assert a.timings_ms["generate"] > 0


@pytest.mark.parametrize("reply", ["女职工生育享受120天产假。", "未提及"])
def test_ungrounded_or_unstated_output_is_not_found(served, reply):
    kb, state = served
    state["reply"] = reply
    a = kb.ask(OPEN_QUESTION)
    assert a.status == "not_found" and a.evidence == []
    assert any("依据检查" in r for r in a.reasoning)


def test_generator_is_not_asked_when_a_template_fires(served):
    kb, state = served
    state["reply"] = "不会用到"
    a = kb.ask("女职工生育享受多少天产假？")
    assert a.method.startswith("template:") and state["requests"] == 0


def test_generator_not_asked_without_a_covering_anchor(served):
    kb, state = served
    a = kb.ask("讲讲上海市的户籍政策")
    assert a.status == "not_found" and state["requests"] == 0
