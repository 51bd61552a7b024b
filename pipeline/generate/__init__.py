"""Fallback generation: distilled context, a small local model, and a grounding check.

Importing this package needs no ``llm`` extra; torch, transformers and optimum load
only when a :class:`Generator` first runs.
"""
from __future__ import annotations

from ..types import Distilled, GenResult, Piece
from .backends import BACKENDS, Backend, HttpBackend, load_backend
from .distill import distill
from .generator import Generator, GeneratorSettings
from .grounding import NOT_STATED, Check, check_grounding
from .prompt import build_messages, clean_answer

__all__ = [
    "BACKENDS", "Backend", "Check", "Distilled", "GenResult", "Generator", "GeneratorSettings",
    "HttpBackend", "NOT_STATED", "Piece", "build_messages", "check_grounding", "clean_answer",
    "distill", "load_backend",
]
