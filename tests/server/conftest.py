"""Fixtures of the HTTP service tests: a tiny store from two example statutes, apps over it, a live server."""
from __future__ import annotations

import os
import socket
import threading
import time

import pytest

from tests.conftest import ANNUAL_LEAVE, LABOUR_CONTRACT


def need(module: str) -> None:
    """Skip without the server packages, except in CI (.ci/run installs them: there it is a failure)."""
    try:
        __import__(module)
    except ImportError as exc:
        why = f"{module} is not installed (pip install -e '.[server,test]'): {exc}"
        pytest.fail(why) if os.environ.get("CI") == "true" else pytest.skip(why)


@pytest.fixture(scope="session")
def tiny_db(tmp_path_factory):
    """A store holding 劳动合同法 and 职工带薪年休假条例 (ingested once; tests that write use their own)."""
    from pipeline import KnowledgeBase
    db = tmp_path_factory.mktemp("srv") / "tiny.sqlite"
    with KnowledgeBase(db, audit_log=None) as kb:
        rep = kb.ingest([LABOUR_CONTRACT, ANNUAL_LEAVE])
        assert rep.added == 2, rep.lines
    return db


def copy_db(db, folder):
    """A writable copy of a store (the session's tiny store stays as ingested)."""
    import shutil
    folder.mkdir(parents=True, exist_ok=True)
    return shutil.copy(db, folder / "copy.sqlite")


def make_app(db, tmp_path, **kw):
    need("fastapi")
    need("python_multipart")
    from pipeline.server import ServerSettings, create_app
    kw.setdefault("audit_log", str(tmp_path / "audit.jsonl"))
    kw.setdefault("warm", False)  # the warm-up question is tested once (test_warm_up_is_not_recorded)
    kw.setdefault("data_dir", str(tmp_path / "uploads"))
    return create_app(ServerSettings(db=str(db), **kw))


@pytest.fixture(scope="module")
def client(tiny_db, tmp_path_factory):
    """A TestClient of an app over the tiny store (no key, default limits)."""
    need("fastapi")
    from fastapi.testclient import TestClient
    tmp = tmp_path_factory.mktemp("app")
    app = make_app(copy_db(tiny_db, tmp), tmp)
    with TestClient(app) as c:
        yield c


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class LiveServer:
    """uvicorn serving an app in a thread on a free loopback port."""

    def __init__(self, app) -> None:
        import uvicorn
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=self.port, log_level="warning"))
        self.thread = threading.Thread(target=self.server.run, daemon=True)

    def __enter__(self) -> "LiveServer":
        self.thread.start()
        deadline = time.time() + 30
        while not self.server.started:
            if time.time() > deadline or not self.thread.is_alive():
                raise RuntimeError("uvicorn did not start")
            time.sleep(0.05)
        return self

    def __exit__(self, *exc) -> None:
        self.server.should_exit = True
        self.thread.join(10)


@pytest.fixture(scope="module")
def live(tiny_db, tmp_path_factory):
    """A live server over a copy of the tiny store, with an API key (``live.key``)."""
    need("uvicorn")
    import shutil
    tmp = tmp_path_factory.mktemp("live")
    db = tmp / "live.sqlite"
    shutil.copy(tiny_db, db)
    app = make_app(db, tmp, api_keys=("test-key",))
    with LiveServer(app) as srv:
        srv.key = "test-key"
        srv.app = app
        yield srv
