"""`loopagent serve --workers 2` on one store: a rule reload sent to one worker reaches the other."""
from __future__ import annotations

import http.client
import json
import subprocess
import sys
import time

from tests.conftest import ROOT
from tests.server.conftest import free_port, need


def health(port: int) -> dict:
    c = http.client.HTTPConnection("127.0.0.1", port, timeout=10)  # a fresh connection: any worker may take it
    try:
        c.request("GET", "/health")
        return json.loads(c.getresponse().read())
    finally:
        c.close()


def test_reload_reaches_every_worker(tiny_db, tmp_path):
    need("uvicorn")
    import shutil
    db = tmp_path / "w.sqlite"
    shutil.copy(tiny_db, db)
    port = free_port()
    proc = subprocess.Popen([sys.executable, "-m", "pipeline.cli", "serve", "--db", str(db), "--port", str(port),
                             "--workers", "2", "--no-access-log", "--log-level", "warning", "--rate-limit", "0"],
                            cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        deadline = time.time() + 90
        seen: dict[str, int] = {}
        while len(seen) < 2:  # both workers up (each fresh connection goes to whichever accepts it)
            assert time.time() < deadline and proc.poll() is None, "the workers did not both answer"
            try:
                h = health(port)
                seen[h["worker"]] = h["rules_version"]
            except OSError:
                time.sleep(0.3)
        assert set(seen.values()) == {0}  # a fresh copy of the tiny store: never reloaded
        c = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
        c.request("POST", "/rules/reload")
        reloaded = json.loads(c.getresponse().read())
        assert reloaded["version"] == 1 and reloaded["errors"] == []
        after: dict[str, int] = {}
        while len(after) < 2:
            assert time.time() < deadline, f"only workers {after} answered after the reload"
            h = health(port)
            after[h["worker"]] = h["rules_version"]
        assert set(after) == set(seen) and set(after.values()) == {1}
    finally:
        proc.terminate()
        try:
            proc.wait(20)
        except subprocess.TimeoutExpired:
            proc.kill()
