#!/usr/bin/env python
"""Benchmark the generator backends on a random-weight model with Qwen2.5-0.5B shapes.

Builds the model from Qwen2Config (nothing is downloaded), exports it to int4 ONNX,
then runs each backend in its own process so peak RSS is its own: tokens/s of
decoding, prefill time and per-answer latency for a prompt of --prompt tokens
and --new generated tokens, on --threads threads.

    nice python scripts/bench_generator.py --work /tmp/loopagent-bench
"""
from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

# Qwen2.5-0.5B-Instruct's shapes.
QWEN25_05B = dict(vocab_size=151936, hidden_size=896, intermediate_size=4864, num_hidden_layers=24,
                  num_attention_heads=14, num_key_value_heads=2, max_position_embeddings=32768,
                  rope_theta=1_000_000.0, rms_norm_eps=1e-6, tie_word_embeddings=True)
CHAT_TEMPLATE = ("{% for m in messages %}<|im_start|>{{ m['role'] }}\n{{ m['content'] }}<|im_end|>\n{% endfor %}"
                 "{% if add_generation_prompt %}<|im_start|>assistant\n{% endif %}")


def build(work: Path) -> dict:
    """The random fp32 checkpoint (work/fp32) and its int4 ONNX export (work/int4)."""
    from pipeline.generate.backends import go_offline
    go_offline()
    import torch
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers
    from transformers import PreTrainedTokenizerFast, Qwen2Config, Qwen2ForCausalLM

    from pipeline.generate.export import export_int4
    fp32, int4 = work / "fp32", work / "int4"
    info: dict = {}
    if not (fp32 / "config.json").is_file():
        tok = Tokenizer(models.BPE())
        tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
        tok.decoder = decoders.ByteLevel()
        tok.train_from_iterator(["试用期不得超过一个月。"] * 4, trainers.BpeTrainer(
            vocab_size=300, special_tokens=["<|endoftext|>", "<|im_start|>", "<|im_end|>"],
            initial_alphabet=pre_tokenizers.ByteLevel.alphabet()))
        fast = PreTrainedTokenizerFast(tokenizer_object=tok, eos_token="<|im_end|>", pad_token="<|endoftext|>")
        fast.chat_template = CHAT_TEMPLATE
        fast.save_pretrained(fp32)
        torch.manual_seed(0)
        model = Qwen2ForCausalLM(Qwen2Config(**QWEN25_05B, eos_token_id=2, pad_token_id=0)).eval()
        info["params"] = sum(p.numel() for p in model.parameters())
        model.save_pretrained(fp32)
        del model
    if not (int4 / "model.onnx").is_file():
        info["export"] = export_int4(fp32, int4)
    return info


def _cpu_s() -> float:
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime


def bench_one(backend: str, model_dir: str, threads: int, prompt: int, new: int, repeats: int) -> dict:
    """Run in a child process: load ``backend`` and time greedy generation of exactly ``new`` tokens."""
    from pipeline.generate.backends import load_backend
    t0 = time.perf_counter()
    b = load_backend(backend, model_dir, threads)
    load_s = time.perf_counter() - t0
    import torch
    from transformers import GenerationConfig
    vocab = QWEN25_05B["vocab_size"]
    g = torch.Generator().manual_seed(1)
    ids = torch.randint(10, vocab, (1, prompt), generator=g)
    mask = torch.ones_like(ids)

    def gen(n: int) -> tuple[float, float]:
        """(wall seconds, CPU seconds of this process) for one answer of ``n`` tokens."""
        cfg = GenerationConfig(max_new_tokens=n, min_new_tokens=n, do_sample=False, num_beams=1,
                               eos_token_id=2, pad_token_id=0)
        c, t = _cpu_s(), time.perf_counter()
        with torch.no_grad():  # not inference_mode: quanto tensors reject it
            out = b.model.generate(input_ids=ids, attention_mask=mask, generation_config=cfg)
        assert out.shape[1] == prompt + n
        return time.perf_counter() - t, _cpu_s() - c

    gen(new)  # warm-up
    load1 = os.getloadavg()[0]
    prefill = statistics.median(gen(1)[0] for _ in range(repeats))
    runs = [gen(new) for _ in range(repeats)]
    total = statistics.median(r[0] for r in runs)
    cpu = statistics.median(r[1] for r in runs)
    return {"backend": backend, "threads": threads, "prompt_tokens": prompt, "new_tokens": new,
            "load_s": round(load_s, 2), "prefill_ms": round(prefill * 1000, 1),
            "latency_ms": round(total * 1000, 1),
            "decode_tok_s": round((new - 1) / max(total - prefill, 1e-9), 2),
            "overall_tok_s": round(new / total, 2),
            # CPU seconds per answer barely move when other processes share the cores; on an idle
            # machine wall time is about cpu_s / threads.
            "cpu_s_per_answer": round(cpu, 2), "tok_per_cpu_s": round(new / cpu, 2),
            "loadavg_1m": round(load1, 2),
            "peak_rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1)}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--work", default="/tmp/loopagent-bench", help="where the random model and its export go")
    ap.add_argument("--backends", default="onnx-int4,torch-fp32,quanto-qint4")
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--prompt", type=int, default=256, help="prompt tokens (a 200-character context + instruction)")
    ap.add_argument("--new", type=int, default=64, help="generated tokens (the generator's max_new_tokens)")
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--one", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    work = Path(args.work)
    if args.one:
        model_dir = str(work / ("int4" if args.one == "onnx-int4" else "fp32"))
        print(json.dumps(bench_one(args.one, model_dir, args.threads, args.prompt, args.new, args.repeats)))
        return 0
    work.mkdir(parents=True, exist_ok=True)
    t0 = time.perf_counter()
    info = build(work)
    print(json.dumps({"build_s": round(time.perf_counter() - t0, 1), **info}), flush=True)
    env = dict(os.environ, OMP_NUM_THREADS=str(args.threads))
    for backend in args.backends.split(","):
        cmd = [sys.executable, __file__, "--work", str(work), "--threads", str(args.threads), "--prompt",
               str(args.prompt), "--new", str(args.new), "--repeats", str(args.repeats), "--one", backend]
        res = subprocess.run(cmd, capture_output=True, text=True, env=env)
        line = (res.stdout.strip().splitlines() or [""])[-1]
        print(line if res.returncode == 0 else json.dumps({"backend": backend, "error": res.stderr[-800:]}),
              flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
