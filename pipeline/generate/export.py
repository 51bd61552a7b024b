"""Turn a local Qwen2 transformers directory into an int4 ONNX model directory (offline).

Two steps: optimum's ONNX export (text-generation with KV cache), then
onnxruntime's MatMulNBits weight-only int4 quantisation of every MatMul (block
size 32, symmetric; ``accuracy_level`` 4 lets the CPU kernel compute in int8),
and of the embedding table (GatherBlockQuantized), at opset 21 where int4 is a type.
The tokenizer, chat template and configs are copied, so the result is a
complete directory for the ``onnx-int4`` backend. ``scripts/export_int4.py`` is
the command line.
"""
from __future__ import annotations

import logging
import shutil
import tempfile
import time
from pathlib import Path
from typing import Any

from ..errors import LoopAgentError
from .backends import ONNX_FILE, check_model_dir, go_offline

# ONNX protobufs cannot exceed 2 GiB; larger models keep their weights in a side file.
_PROTO_LIMIT = 1_800_000_000


def export_int4(src: str | Path, out: str | Path, block_size: int = 32, accuracy_level: int = 4,
                quantize_embeddings: bool = True, opset: int = 21) -> dict[str, Any]:
    """Export ``src`` to int4 ONNX in ``out``; returns a summary (sizes, seconds, quantised nodes)."""
    src_path = check_model_dir(str(src))
    out_path = Path(out)
    if block_size < 16 or block_size & (block_size - 1):
        raise LoopAgentError("E303", name="block_size", value=block_size, why="not a power of two >= 16",
                             allowed="16, 32, 64, 128")
    go_offline()
    try:
        import onnx
        from onnxruntime.quantization import quant_utils
        from onnxruntime.quantization.matmul_nbits_quantizer import (DefaultWeightOnlyQuantConfig,
                                                                     MatMulNBitsQuantizer)
        from optimum.exporters.onnx import main_export
    except ImportError as exc:
        raise LoopAgentError("E402", detail=f"cannot import {exc.name}") from exc

    # The quantiser logs every node at INFO; keep its warnings only.
    logging.getLogger("onnxruntime.quantization.matmul_nbits_quantizer").setLevel(logging.WARNING)
    t0 = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="loopagent-export-") as tmp:
        fp32_dir = Path(tmp) / "fp32"
        main_export(str(src_path), output=str(fp32_dir), task="text-generation-with-past", opset=opset,
                    local_files_only=True, do_validation=False, device="cpu")
        t_export = time.perf_counter() - t0
        op_types: tuple[str, ...] = ("MatMul", "Gather") if quantize_embeddings else ("MatMul",)
        config = DefaultWeightOnlyQuantConfig(
            block_size=block_size, is_symmetric=True, accuracy_level=accuracy_level,
            quant_format=quant_utils.QuantFormat.QOperator, op_types_to_quantize=op_types,
            quant_axes=(("MatMul", 0), ("Gather", 1)))
        quantizer = MatMulNBitsQuantizer(str(fp32_dir / ONNX_FILE), algo_config=config)
        quantizer.process()

        out_path.mkdir(parents=True, exist_ok=True)
        for stale in out_path.glob(ONNX_FILE + "*"):
            stale.unlink()
        for item in fp32_dir.iterdir():
            if not item.name.startswith(ONNX_FILE):
                shutil.copy2(item, out_path / item.name)
        model = quantizer.model.model
        large = model.ByteSize() > _PROTO_LIMIT
        quantizer.model.save_model_to_file(str(out_path / ONNX_FILE), use_external_data_format=large)

    ops: dict[str, int] = {}
    for node in onnx.load(str(out_path / ONNX_FILE), load_external_data=False).graph.node:
        ops[node.op_type] = ops.get(node.op_type, 0) + 1
    size = sum(p.stat().st_size for p in out_path.glob(ONNX_FILE + "*"))
    return {"out": str(out_path), "onnx_bytes": size, "export_s": round(t_export, 1),
            "total_s": round(time.perf_counter() - t0, 1), "MatMulNBits": ops.get("MatMulNBits", 0),
            "GatherBlockQuantized": ops.get("GatherBlockQuantized", 0), "MatMul_left": ops.get("MatMul", 0)}
