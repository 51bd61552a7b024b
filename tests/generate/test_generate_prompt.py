"""The prompt (strict, instruction last), output cleaning, and settings validation: no model needed."""
from __future__ import annotations

import sys

import pytest

from pipeline.errors import LoopAgentError
from pipeline.generate import Generator, GeneratorSettings, build_messages, clean_answer
from pipeline.generate.backends import load_backend
from pipeline.generate.prompt import INSTRUCTION, render
from pipeline.types import Distilled


def test_instruction_is_last_and_strict():
    messages = build_messages("试用期最长多久？", "试用期不得超过一个月。")
    user = messages[-1]["content"]
    assert messages[-1]["role"] == "user" and user.endswith(INSTRUCTION)
    assert user.index("试用期不得超过一个月。") < user.index("试用期最长多久？") < user.index(INSTRUCTION)
    assert "只回答“未提及”" in INSTRUCTION and "只根据上面的资料" in INSTRUCTION and "不要前言" in INSTRUCTION


def test_render_uses_the_tokenizer_chat_template_or_a_plain_layout():
    class WithTemplate:
        chat_template = "x"

        def apply_chat_template(self, messages, tokenize, add_generation_prompt):
            assert tokenize is False and add_generation_prompt is True
            return "<templated>"

    class Plain:
        chat_template = None

    messages = build_messages("问？", "资料。")
    assert render(WithTemplate(), messages) == "<templated>"
    assert render(Plain(), messages).endswith("答案：")


@pytest.mark.parametrize("raw,clean", [
    ("不得超过一个月。", "不得超过一个月"),
    ("答案：不得超过一个月。\n因为第十九条规定……", "不得超过一个月"),
    ("根据上述资料，不得超过一个月。", "不得超过一个月"),
    ("\n\n“未提及”", "未提及"),
    ("<think>想一想</think>不得超过一个月", "不得超过一个月"),
    ("不得超过一个月<|im_end|>", "不得超过一个月"),
    ("", ""),
])
def test_clean_answer(raw, clean):
    assert clean_answer(raw) == clean


@pytest.mark.parametrize("kwargs,field", [
    ({"model_dir": "m", "backend": "gguf"}, "backend"),
    ({"model_dir": "m", "max_new_tokens": 0}, "max_new_tokens"),
    ({"model_dir": "m", "budget": 10}, "budget"),
    ({"model_dir": "m", "threads": 0}, "threads"),
    ({"model_dir": "m", "min_overlap": 1.5}, "min_overlap"),
    ({}, "model_dir"),
    ({"backend": "http", "model_name": "qwen"}, "endpoint"),
    ({"backend": "http", "endpoint": "http://127.0.0.1:1/v1"}, "model_name"),
])
def test_settings_are_validated(kwargs, field):
    with pytest.raises(LoopAgentError) as err:
        GeneratorSettings(**kwargs)
    assert err.value.code == "E303" and err.value.fields["name"] == field


def test_unknown_backend_lists_the_choices():
    with pytest.raises(LoopAgentError) as err:
        GeneratorSettings(model_dir="m", backend="gguf")
    assert "onnx-int4" in str(err.value) and "http" in str(err.value)


def test_missing_model_dir_is_E401(tmp_path):
    gen = Generator(GeneratorSettings(model_dir=str(tmp_path / "no-such-model")))
    with pytest.raises(LoopAgentError) as err:
        gen.run("试用期最长多久？", Distilled(text="试用期不得超过一个月。", pieces=[], anchor_block_id="b", budget=200))
    assert err.value.code == "E401" and err.value.fields["path"] == str(tmp_path / "no-such-model")


def test_dir_without_model_onnx_is_E403(tmp_path):
    (tmp_path / "config.json").write_text("{}")
    with pytest.raises(LoopAgentError) as err:
        Generator(GeneratorSettings(model_dir=str(tmp_path))).load()
    assert err.value.code == "E403" and "export_int4.py" in str(err.value)


def test_missing_llm_extra_is_E402(tmp_path, monkeypatch):
    (tmp_path / "config.json").write_text("{}")
    (tmp_path / "model.safetensors").write_bytes(b"")
    monkeypatch.setitem(sys.modules, "torch", None)  # import torch now raises ImportError
    with pytest.raises(LoopAgentError) as err:
        load_backend("torch-fp32", str(tmp_path), 1)
    assert err.value.code == "E402" and "torch" in str(err.value)


def test_importing_the_package_loads_no_model_library():
    import subprocess
    code = ("import sys, pipeline.generate; "
            "print([m for m in ('torch', 'transformers', 'optimum', 'onnxruntime') if m in sys.modules])")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"
