"""The HTTP service: ``create_app(ServerSettings(db=...))`` (FastAPI), run by `loopagent serve`.

Needs the ``server`` extra (fastapi, uvicorn, python-multipart, prometheus-client).
"""
from __future__ import annotations

from .settings import ServerSettings

__all__ = ["ServerSettings", "create_app", "create_app_from_env"]


def __getattr__(name: str):
    if name in ("create_app", "create_app_from_env"):
        from . import app
        return getattr(app, name)
    raise AttributeError(name)
