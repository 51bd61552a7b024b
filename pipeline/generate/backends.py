"""Generator backends: int4 ONNX (CPU default), optimum-quanto qint4, torch fp32/bf16, OpenAI-compatible HTTP.

In-process backends read a local directory only: the loader sets HF_HUB_OFFLINE
and TRANSFORMERS_OFFLINE and passes ``local_files_only``, so nothing is ever
downloaded. torch, transformers and optimum are imported inside the loaders, so
the rest of LoopAgent works without the ``llm`` extra.
"""
from __future__ import annotations

import json
import os
import threading
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any, Callable, Optional

from ..errors import LoopAgentError
from .prompt import Messages, render

ONNX_FILE = "model.onnx"


class Backend:
    """A loaded model that turns chat messages into text; ``generate`` is serialised by a lock."""

    name: str = ""

    def __init__(self) -> None:
        self._lock = threading.Lock()

    def generate(self, messages: Messages, max_new_tokens: int) -> tuple[str, int]:
        """Greedy completion of ``messages``: (raw text, number of generated tokens)."""
        with self._lock:
            return self._generate(messages, max_new_tokens)

    def _generate(self, messages: Messages, max_new_tokens: int) -> tuple[str, int]:
        raise NotImplementedError


# --- in process (transformers / optimum) ----------------------------------------------

def go_offline() -> None:
    """Forbid every hub access in this process before transformers or huggingface_hub is imported."""
    os.environ["HF_HUB_OFFLINE"] = "1"
    os.environ["TRANSFORMERS_OFFLINE"] = "1"
    os.environ.setdefault("HF_HUB_DISABLE_TELEMETRY", "1")


def check_model_dir(model_dir: Optional[str]) -> Path:
    """The model directory as a Path; E401 when it is missing or has no config.json."""
    path = Path(model_dir or "")
    if not model_dir or not path.is_dir() or not (path / "config.json").is_file():
        raise LoopAgentError("E401", path=str(model_dir))
    return path


def check_onnx_dir(path: Path) -> None:
    """E403 unless ``path`` holds an exported model.onnx."""
    if not (path / ONNX_FILE).is_file():
        raise LoopAgentError("E403", path=str(path), needed=ONNX_FILE, backend="onnx-int4",
                             fix=f"Export it: `python scripts/export_int4.py SRC_CHECKPOINT {path}`, "
                                 "or choose backend torch-fp32 / quanto-qint4 for a transformers directory.")


def _require_llm() -> None:
    go_offline()
    try:
        import torch  # noqa: F401
        import transformers  # noqa: F401
    except ImportError as exc:
        raise LoopAgentError("E402", detail=f"cannot import {exc.name}") from exc


class _TransformersBackend(Backend):
    """Shared tokenisation and greedy decoding for models with a transformers ``generate``."""

    def __init__(self, path: Path, threads: int) -> None:
        super().__init__()
        from transformers import AutoTokenizer
        self.path = path
        self.name = path.name
        self.threads = threads
        self.tokenizer = AutoTokenizer.from_pretrained(str(path), local_files_only=True)
        self.model: Any = None

    def _generation_config(self, max_new_tokens: int) -> Any:
        from transformers import GenerationConfig
        eos: list[int] = []
        for source in (getattr(self.model, "generation_config", None), self.tokenizer):
            ids = getattr(source, "eos_token_id", None)
            for i in ids if isinstance(ids, (list, tuple)) else [ids]:
                if isinstance(i, int) and i not in eos:
                    eos.append(i)
        pad = self.tokenizer.pad_token_id
        if pad is None:
            pad = eos[0] if eos else 0
        # A fresh config: the model's own may ask for sampling (temperature, top_p).
        return GenerationConfig(max_new_tokens=max_new_tokens, do_sample=False, num_beams=1,
                                eos_token_id=eos or None, pad_token_id=pad)

    def _generate(self, messages: Messages, max_new_tokens: int) -> tuple[str, int]:
        import torch
        prompt = render(self.tokenizer, messages)
        enc = self.tokenizer(prompt, return_tensors="pt", add_special_tokens=False)
        config = self._generation_config(max_new_tokens)
        with torch.no_grad():  # not inference_mode: quanto tensors reject it
            out = self.model.generate(input_ids=enc["input_ids"], attention_mask=enc["attention_mask"],
                                      generation_config=config)
        new = out[0, enc["input_ids"].shape[1]:].tolist()
        stop = set(config.eos_token_id or []) | {config.pad_token_id}
        while new and new[-1] in stop:
            new.pop()
        return self.tokenizer.decode(new, skip_special_tokens=True), len(new)


class OnnxInt4Backend(_TransformersBackend):
    """An int4 ONNX model (MatMulNBits weight-only) run by onnxruntime through optimum; the CPU default."""

    def __init__(self, path: Path, threads: int) -> None:
        check_onnx_dir(path)
        super().__init__(path, threads)
        try:
            import onnxruntime as ort
            from optimum.onnxruntime import ORTModelForCausalLM
        except ImportError as exc:
            raise LoopAgentError("E402", detail=f"cannot import {exc.name}") from exc
        options = ort.SessionOptions()
        options.intra_op_num_threads = threads
        options.inter_op_num_threads = 1
        self.model = ORTModelForCausalLM.from_pretrained(
            str(path), provider="CPUExecutionProvider", session_options=options,
            use_cache=True, local_files_only=True)


class TorchBackend(_TransformersBackend):
    """A transformers checkpoint in torch, fp32 or bf16."""

    def __init__(self, path: Path, threads: int, dtype: str = "float32") -> None:
        super().__init__(path, threads)
        import torch
        from transformers import AutoModelForCausalLM
        torch.set_num_threads(threads)
        self.model = AutoModelForCausalLM.from_pretrained(
            str(path), dtype=getattr(torch, dtype), local_files_only=True).eval()


class QuantoBackend(_TransformersBackend):
    """A transformers checkpoint with its linear weights quantised to qint4 by optimum-quanto at load."""

    def __init__(self, path: Path, threads: int) -> None:
        super().__init__(path, threads)
        import torch
        from transformers import AutoModelForCausalLM
        try:
            from optimum.quanto import freeze, qint4, quantize
        except ImportError as exc:
            raise LoopAgentError("E402", detail=f"cannot import {exc.name} (optimum-quanto)") from exc
        torch.set_num_threads(threads)
        model = AutoModelForCausalLM.from_pretrained(str(path), dtype=torch.float32, local_files_only=True).eval()
        quantize(model, weights=qint4, exclude=["lm_head"])
        freeze(model)
        self.model = model


# --- OpenAI-compatible HTTP (llama.cpp server, vLLM, Ollama) -----------------------------

class HttpBackend(Backend):
    """POST /chat/completions to an OpenAI-compatible server with the standard library only."""

    def __init__(self, endpoint: str, model: str, timeout_s: float = 60.0, api_key: Optional[str] = None) -> None:
        super().__init__()
        self.url = endpoint.rstrip("/") + "/chat/completions"
        self.name = model
        self.timeout_s = timeout_s
        self.api_key = api_key

    def generate(self, messages: Messages, max_new_tokens: int) -> tuple[str, int]:
        # No lock: the server queues requests itself.
        return self._generate(messages, max_new_tokens)

    def _generate(self, messages: Messages, max_new_tokens: int) -> tuple[str, int]:
        body = json.dumps({"model": self.name, "messages": messages, "max_tokens": max_new_tokens,
                           "temperature": 0, "top_p": 1, "stream": False}, ensure_ascii=False).encode("utf-8")
        headers = {"Content-Type": "application/json"}
        if self.api_key:
            headers["Authorization"] = f"Bearer {self.api_key}"
        request = urllib.request.Request(self.url, data=body, headers=headers, method="POST")
        try:
            with urllib.request.urlopen(request, timeout=self.timeout_s) as response:
                data = json.loads(response.read().decode("utf-8"))
            text = data["choices"][0]["message"]["content"] or ""
        except urllib.error.HTTPError as exc:
            raise LoopAgentError("E404", url=self.url, model=self.name,
                                 detail=f"HTTP {exc.code} {exc.read()[:200].decode('utf-8', 'replace')}") from exc
        except (urllib.error.URLError, OSError, ValueError, KeyError, IndexError, TypeError) as exc:
            raise LoopAgentError("E404", url=self.url, model=self.name, detail=repr(exc)) from exc
        usage = data.get("usage") or {}
        return text, int(usage.get("completion_tokens") or 0)


# --- dispatch ----------------------------------------------------------------------------

def _in_process(factory: Callable[[Path, int], Backend], onnx: bool = False) -> Callable[..., Backend]:
    def load(model_dir: Optional[str], threads: int, **_: Any) -> Backend:
        path = check_model_dir(model_dir)
        if onnx:
            check_onnx_dir(path)
        elif not any(path.glob("*.safetensors")) and not any(path.glob("*.bin")):
            raise LoopAgentError("E403", path=str(path), needed="transformers weights (*.safetensors)",
                                 backend="torch/quanto", fix="Point model_dir at the original checkpoint, "
                                 "or use backend onnx-int4 for an exported directory.")
        _require_llm()
        return factory(path, threads)
    return load


def _http(model_dir: Optional[str], threads: int, endpoint: str = "", model_name: str = "",
          timeout_s: float = 60.0, api_key: Optional[str] = None, **_: Any) -> Backend:
    return HttpBackend(endpoint, model_name, timeout_s=timeout_s, api_key=api_key)


BACKENDS: dict[str, Callable[..., Backend]] = {
    "onnx-int4": _in_process(OnnxInt4Backend, onnx=True),
    "quanto-qint4": _in_process(QuantoBackend),
    "torch-fp32": _in_process(lambda p, t: TorchBackend(p, t, "float32")),
    "torch-bf16": _in_process(lambda p, t: TorchBackend(p, t, "bfloat16")),
    "http": _http,
}
IN_PROCESS = ("onnx-int4", "quanto-qint4", "torch-fp32", "torch-bf16")

_cache: dict[tuple, Backend] = {}
_cache_lock = threading.Lock()


def load_backend(backend: str, model_dir: Optional[str], threads: int, **options: Any) -> Backend:
    """The backend for these settings, loaded once per process and shared by every caller.

    An HTTP backend holds no model and is made anew for each caller.
    """
    if backend not in IN_PROCESS:
        return BACKENDS[backend](model_dir, threads, **options)
    key = (backend, str(Path(model_dir).resolve()) if model_dir else None, threads)
    with _cache_lock:
        loaded = _cache.get(key)
        if loaded is None:
            loaded = BACKENDS[backend](model_dir, threads, **options)
            _cache[key] = loaded
        return loaded
