"""Fixtures for the generator tests: blocks to distill, and tiny Qwen2 models built on the spot.

The models are 2-layer Qwen2 networks with a byte-level BPE tokenizer trained
here, saved to a temporary directory and exported to int4 ONNX: no download.
"Parrot" variants have their final norm zeroed, so every logit is 0 and greedy
decoding always picks token 0; swapping a chosen token into id 0 makes the model
say exactly that token, which lets a test drive the whole fallback path to a
known output.
"""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from pipeline.types import Anchor, Block, Candidate, Sentence

CHAT_TEMPLATE = ("{% for message in messages %}<|im_start|>{{ message['role'] }}\n{{ message['content'] }}"
                 "<|im_end|>\n{% endfor %}{% if add_generation_prompt %}<|im_start|>assistant\n{% endif %}")
SPECIALS = ["<|endoftext|>", "<|im_start|>", "<|im_end|>"]
CORPUS = [
    "劳动合同期限三个月以上不满一年的，试用期不得超过一个月。",
    "用人单位应当在解除或者终止劳动合同时出具解除或者终止劳动合同的证明。",
    "资料：问题：要求：只根据上面的资料回答问题。",
] * 5 + ["未提及", "一个月"] * 60


def make_block(text: str, order: int, btype: str = "clause", section=("第二章", "第十九条"), **kw) -> Block:
    return Block(block_id=f"b{order}", doc_id="d1", type=btype, text=text, order=order,
                 section=list(section), **kw)


def make_anchor(block: Block, sentence_text: str) -> Anchor:
    start = block.text.index(sentence_text)
    sent = Sentence(text=sentence_text, start=start, end=start + len(sentence_text))
    return Anchor(candidate=Candidate(block=block, title="劳动合同法", source="law.md", score=1.0),
                  sentence=sent, score=1.0)


def _tokenizer_json() -> str:
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers
    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(vocab_size=500, special_tokens=[],
                                  initial_alphabet=pre_tokenizers.ByteLevel.alphabet())
    tok.train_from_iterator(CORPUS, trainer)
    tok.add_special_tokens(SPECIALS)  # after training, so id 0 is an ordinary token we may swap
    return tok.to_str()


def _swap_to_zero(tokenizer_json: str, text: str) -> str:
    """Give the single token that encodes ``text`` id 0 (and id 0's token its id)."""
    from tokenizers import Tokenizer
    enc = Tokenizer.from_str(tokenizer_json).encode(text)
    assert len(enc.ids) == 1, f"{text!r} is not one token: {enc.tokens}"
    data = json.loads(tokenizer_json)
    vocab = data["model"]["vocab"]
    target = enc.tokens[0]
    zero = next(t for t, i in vocab.items() if i == 0)
    vocab[zero], vocab[target] = vocab[target], 0
    return json.dumps(data, ensure_ascii=False)


def _save_model(out: Path, tokenizer_json: str, parrot: bool) -> Path:
    import torch
    from tokenizers import Tokenizer
    from transformers import PreTrainedTokenizerFast, Qwen2Config, Qwen2ForCausalLM
    fast = PreTrainedTokenizerFast(tokenizer_object=Tokenizer.from_str(tokenizer_json), eos_token="<|im_end|>",
                                   pad_token="<|endoftext|>")
    fast.chat_template = CHAT_TEMPLATE
    fast.save_pretrained(out)
    config = Qwen2Config(vocab_size=len(fast), hidden_size=64, intermediate_size=128, num_hidden_layers=2,
                         num_attention_heads=4, num_key_value_heads=2, max_position_embeddings=1024,
                         eos_token_id=fast.eos_token_id, pad_token_id=fast.pad_token_id,
                         tie_word_embeddings=True)
    torch.manual_seed(0)
    model = Qwen2ForCausalLM(config).eval()
    if parrot:
        with torch.no_grad():
            model.model.norm.weight.zero_()
    model.save_pretrained(out)
    return out


@pytest.fixture(scope="session")
def tiny_models(tmp_path_factory) -> dict[str, Path]:
    """Tiny Qwen2 checkpoints and their int4 ONNX exports: random, and parrots saying 未提及 / 9 / 一个月."""
    pytest.importorskip("torch")
    pytest.importorskip("transformers")
    pytest.importorskip("optimum.onnxruntime")
    pytest.importorskip("onnxruntime")
    from pipeline.generate.export import export_int4
    root = tmp_path_factory.mktemp("tiny-qwen2")
    base = _tokenizer_json()
    out: dict[str, Path] = {}
    variants = {"random": (base, False), "not_stated": (_swap_to_zero(base, "未提及"), True),
                "nine": (_swap_to_zero(base, "9"), True), "one_month": (_swap_to_zero(base, "一个月"), True)}
    for name, (tok_json, parrot) in variants.items():
        src = _save_model(root / f"{name}-hf", tok_json, parrot)
        out[f"{name}-hf"] = src
        export_int4(src, root / f"{name}-int4")
        out[name] = root / f"{name}-int4"
    return out
