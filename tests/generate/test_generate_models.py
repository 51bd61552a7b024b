"""The whole fallback path on tiny Qwen2 models exported to int4 ONNX (needs the llm extra; slow)."""
from __future__ import annotations

import os
import threading

import pytest

from pipeline.generate import Generator, GeneratorSettings, check_grounding, distill

from .conftest import make_anchor, make_block

pytestmark = pytest.mark.slow

ARTICLE = ("同一用人单位与同一劳动者只能约定一次试用期。"
           "劳动合同期限三个月以上不满一年的，试用期不得超过一个月。"
           "以完成一定工作任务为期限的劳动合同，不得约定试用期。")
QUESTION = "劳动合同期限三个月以上不满一年的，试用期最长多久？"


@pytest.fixture(scope="module")
def distilled():
    block = make_block(ARTICLE, 1)
    return distill(make_anchor(block, "劳动合同期限三个月以上不满一年的，试用期不得超过一个月。"), [block])


def generator(model_dir, **kw) -> Generator:
    return Generator(GeneratorSettings(model_dir=str(model_dir), threads=1, **kw))


def test_export_quantises_every_weight_matmul_to_int4(tiny_models):
    import onnx
    ops = [n.op_type for n in onnx.load(str(tiny_models["random"] / "model.onnx")).graph.node]
    assert ops.count("MatMulNBits") == 2 * 7 + 1  # q, k, v, o, gate, up, down per layer + lm_head
    assert ops.count("GatherBlockQuantized") == 1  # the embedding table
    for name in ("tokenizer.json", "config.json", "chat_template.jinja"):
        assert (tiny_models["random"] / name).is_file()


def test_whole_path_on_a_random_model(tiny_models, distilled):
    gen = generator(tiny_models["random"], max_new_tokens=8)
    result = gen.run(QUESTION, distilled)
    assert result.model == "random-int4" and 0 <= result.tokens <= 8 and result.ms > 0
    assert result.grounded == check_grounding(result.text, distilled.text, QUESTION).grounded
    assert os.environ["HF_HUB_OFFLINE"] == "1" and os.environ["TRANSFORMERS_OFFLINE"] == "1"


def test_grounded_answer_is_accepted(tiny_models, distilled):
    result = generator(tiny_models["one_month"], max_new_tokens=1).run(QUESTION, distilled)
    assert (result.text, result.grounded, result.tokens) == ("一个月", True, 1)


def test_ungrounded_number_is_rejected(tiny_models, distilled):
    result = generator(tiny_models["nine"], max_new_tokens=3).run(QUESTION, distilled)
    assert result.raw == "999" and not result.grounded
    assert result.reason == "number 999 not in context"


def test_not_stated_is_not_grounded(tiny_models, distilled):
    result = generator(tiny_models["not_stated"], max_new_tokens=2).run(QUESTION, distilled)
    assert result.text.startswith("未提及") and not result.grounded
    assert result.reason == "not stated in context"


def test_loaded_once_and_shared_between_threads(tiny_models, distilled):
    first = generator(tiny_models["one_month"], max_new_tokens=1)
    second = generator(tiny_models["one_month"], max_new_tokens=1)
    assert first.load() is second.load()
    results, errors = [], []

    def ask():
        try:
            results.append(first.run(QUESTION, distilled).text)
        except Exception as exc:  # surfaced below
            errors.append(exc)

    threads = [threading.Thread(target=ask) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors and results == ["一个月"] * 4


@pytest.mark.parametrize("backend", ["torch-fp32", "torch-bf16", "quanto-qint4"])
def test_torch_backends_read_the_transformers_checkpoint(tiny_models, distilled, backend):
    if backend == "quanto-qint4":
        pytest.importorskip("optimum.quanto")
    result = generator(tiny_models["one_month-hf"], backend=backend, max_new_tokens=1).run(QUESTION, distilled)
    assert (result.text, result.grounded) == ("一个月", True)
