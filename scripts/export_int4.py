#!/usr/bin/env python
"""Turn a local Qwen2.5-0.5B/1.5B-Instruct (or any Qwen2) directory into an int4 ONNX model directory.

Offline: reads SRC only, downloads nothing. The result is what the generator's
default backend (``onnx-int4``) loads.

    python scripts/export_int4.py ~/models/Qwen2.5-0.5B-Instruct models/qwen2.5-0.5b-instruct-int4
"""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from pipeline.errors import LoopAgentError  # noqa: E402
from pipeline.generate.export import export_int4  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("src", help="local transformers directory (config.json, weights, tokenizer)")
    ap.add_argument("out", help="output directory for model.onnx, tokenizer and configs")
    ap.add_argument("--block-size", type=int, default=32, help="int4 quantisation block (default 32)")
    ap.add_argument("--accuracy-level", type=int, default=4, choices=(0, 1, 2, 3, 4),
                    help="MatMulNBits compute type: 4 = int8 activations (fastest on CPU), 0 = fp32")
    ap.add_argument("--keep-embeddings", action="store_true", help="leave the embedding table in fp32")
    ap.add_argument("--opset", type=int, default=21, help="ONNX opset (21 has the int4 type)")
    args = ap.parse_args(argv)
    try:
        summary = export_int4(args.src, args.out, block_size=args.block_size, accuracy_level=args.accuracy_level,
                              quantize_embeddings=not args.keep_embeddings, opset=args.opset)
    except LoopAgentError as exc:
        print(exc, file=sys.stderr)
        return 2
    print(json.dumps(summary, ensure_ascii=False, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
