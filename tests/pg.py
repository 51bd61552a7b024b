"""A throwaway PostgreSQL cluster for tests and benchmarks: initdb into a temporary folder,
pg_ctl start on a free port of 127.0.0.1, torn down at the end. Nothing else is touched."""
from __future__ import annotations

import glob
import os
import shutil
import socket
import subprocess
import tempfile
import uuid
from pathlib import Path
from typing import Optional


def find_bin() -> Optional[Path]:
    """The folder holding initdb and pg_ctl ($PG_BIN, /usr/lib/postgresql/*/bin, or PATH), or None."""
    cands = [os.environ.get("PG_BIN")] + sorted(glob.glob("/usr/lib/postgresql/*/bin"), reverse=True)
    which = shutil.which("initdb")
    if which:
        cands.append(str(Path(which).parent))
    for c in cands:
        if c and (Path(c) / "initdb").exists() and (Path(c) / "pg_ctl").exists():
            return Path(c)
    return None


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Cluster:
    """``with Cluster() as c: c.url`` — a superuser ``postgres`` with trust auth on 127.0.0.1."""

    def __init__(self, bindir: Optional[Path] = None) -> None:
        self.bindir = bindir or find_bin()
        if self.bindir is None:
            raise RuntimeError("no PostgreSQL binaries (initdb, pg_ctl) found")
        self.dir = Path(tempfile.mkdtemp(prefix="loopagent_pg_"))
        self.port = _free_port()
        self.url = f"postgresql://postgres@127.0.0.1:{self.port}/postgres"

    def _run(self, *args: str) -> None:
        cmd = [str(self.bindir / args[0]), *args[1:]]
        if os.geteuid() == 0:  # initdb refuses root: run the cluster as the postgres user
            cmd = ["runuser", "-u", "postgres", "--"] + cmd
        subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)

    def start(self) -> "Cluster":
        if os.geteuid() == 0:
            shutil.chown(self.dir, "postgres", "postgres")
        data = self.dir / "data"
        self._run("initdb", "-D", str(data), "-A", "trust", "-U", "postgres", "-E", "UTF8", "--locale=C",
                  "--no-sync")
        opts = f"-p {self.port} -k {self.dir} -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=200"
        self._run("pg_ctl", "-D", str(data), "-o", opts, "-l", str(self.dir / "log"), "-w", "start")
        return self

    def stop(self) -> None:
        try:
            self._run("pg_ctl", "-D", str(self.dir / "data"), "-m", "immediate", "-w", "stop")
        finally:
            shutil.rmtree(self.dir, ignore_errors=True)

    def fresh_schema_url(self) -> str:
        """A URL whose search_path is a new, empty schema (one per test: cheaper than a database)."""
        import psycopg
        name = "t_" + uuid.uuid4().hex[:10]
        with psycopg.connect(self.url, autocommit=True) as c:
            c.execute(f"CREATE SCHEMA {name}")
        return f"{self.url}?options=-csearch_path%3D{name}"

    def __enter__(self) -> "Cluster":
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()
