"""A small on-disk cache for data that is slow to rebuild at start-up (jieba's prefix dictionary, the POS table).

Entries are marshal blobs named after what they hold and a key of their inputs (file paths,
sizes, modification times, library versions), so a changed input never reads a stale entry.
The folder is $LOOPAGENT_CACHE_DIR, else $XDG_CACHE_HOME/loopagent, else ~/.cache/loopagent;
``LOOPAGENT_CACHE_DIR=off`` turns the cache off. Writes are atomic (temporary file, rename);
any failure to read or write only means rebuilding.
"""
from __future__ import annotations

import hashlib
import logging
import marshal
import os
import tempfile
from pathlib import Path
from typing import Any, Optional

log = logging.getLogger("loopagent")


def cache_dir() -> Optional[Path]:
    """The cache folder, or None when caching is off."""
    env = os.environ.get("LOOPAGENT_CACHE_DIR")
    if env is not None:
        return None if env.strip().lower() in ("", "off", "0", "none") else Path(env)
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "loopagent"


def file_key(*paths: Any) -> str:
    """A key of files' paths, sizes and modification times (missing files count as absent)."""
    h = hashlib.blake2b(digest_size=10)
    for p in paths:
        try:
            st = os.stat(p)
            h.update(f"{os.path.abspath(p)}\0{st.st_size}\0{st.st_mtime_ns}\n".encode())
        except OSError:
            h.update(f"{p}\0-\n".encode())
    return h.hexdigest()


def _path(name: str, key: str) -> Optional[Path]:
    d = cache_dir()
    return d / f"{name}-{key}.marshal" if d is not None else None


def load(name: str, key: str) -> Any:
    """The cached value, or None when absent or unreadable."""
    p = _path(name, key)
    if p is None:
        return None
    try:
        return marshal.loads(p.read_bytes())  # one read: marshal.load on a file reads in small pieces, 4x slower
    except (OSError, ValueError, EOFError, TypeError):
        return None


def save(name: str, key: str, value: Any) -> None:
    """Store ``value`` (marshal-able) under ``name``/``key``, replacing older entries of ``name``."""
    p = _path(name, key)
    if p is None:
        return
    try:
        p.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=p.parent, prefix=f".{name}-")
        with os.fdopen(fd, "wb") as f:
            f.write(marshal.dumps(value))
        os.replace(tmp, p)
        for old in p.parent.glob(f"{name}-*.marshal"):
            if old != p:
                old.unlink(missing_ok=True)
    except OSError as exc:
        log.debug("cache %s not written: %s", name, exc)
