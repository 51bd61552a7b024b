"""Giving memory back to the system after the large, occasional allocations of a first process.

A process answering over a store that has no stored parses or vectors yet (the "first process")
parses sentences with spaCy and embeds passages with e5 as questions reach them. Both leave memory
behind that the process does not need between batches:

- glibc keeps freed heap memory (spaCy's and the e5 engine's scratch) in its arenas; :func:`trim`
  asks it to return the free pages (``malloc_trim``; a no-op on other C libraries);
- the e5 model file is mapped read-only, and embedding passages touches most of its token table
  (about 40 MB more than questions alone). :func:`drop_file_pages` unmaps those pages from the process
  (``madvise(MADV_DONTNEED)``): they stay in the page cache, clean and shared, and the next use maps
  them again as minor page faults (no disk read while the cache holds them).

Both are measured in docs/benchmarks.md ("peak RSS answering"); neither changes a computed value.
"""
from __future__ import annotations

import ctypes
import ctypes.util
import logging
import os
import threading
from typing import Any, Optional

log = logging.getLogger(__name__)

_MADV_DONTNEED = 4
_lock = threading.Lock()
_libc: Any = None
_libc_tried = False


def _c() -> Any:
    global _libc, _libc_tried
    if not _libc_tried:
        with _lock:
            if not _libc_tried:
                try:
                    lib = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6", use_errno=True)
                    lib.madvise.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int]
                    lib.madvise.restype = ctypes.c_int
                    _libc = lib
                except (OSError, AttributeError):
                    _libc = None
                _libc_tried = True
    return _libc


def trim() -> bool:
    """Return the C heap's free pages to the system (glibc ``malloc_trim(0)``); False where unavailable."""
    lib = _c()
    fn = getattr(lib, "malloc_trim", None) if lib is not None else None
    if fn is None:
        return False
    try:
        fn(0)
    except Exception:  # pragma: no cover - a foreign libc
        return False
    return True


def read_only_mappings(path: str) -> list[tuple[int, int]]:
    """The [start, end) address ranges at which this process maps ``path`` read-only (from /proc/self/maps)."""
    real = os.path.realpath(path)
    out = []
    try:
        with open("/proc/self/maps", encoding="utf-8", errors="replace") as fh:
            for line in fh:
                parts = line.split(None, 5)
                if len(parts) < 6 or parts[5].strip() != real:
                    continue
                perms = parts[1]
                if "w" in perms:  # a writable mapping may hold the only copy of its pages: never drop those
                    continue
                lo, hi = (int(x, 16) for x in parts[0].split("-"))
                out.append((lo, hi))
    except OSError:
        return []
    return out


def drop_file_pages(path: Optional[str]) -> int:
    """Unmap the resident pages of the read-only mappings of the file ``path`` from this process; they stay
    in the page cache and are mapped again on their next use. Returns the bytes of address space advised
    (0 where nothing is mapped, the file is mapped writable, or madvise is unavailable)."""
    if not path:
        return 0
    lib = _c()
    if lib is None or not hasattr(lib, "madvise"):
        return 0
    done = 0
    for lo, hi in read_only_mappings(path):
        if lib.madvise(ctypes.c_void_p(lo), ctypes.c_size_t(hi - lo), _MADV_DONTNEED) == 0:
            done += hi - lo
        else:  # pragma: no cover - a kernel that refuses: leave the pages
            log.debug("madvise(%s) failed: errno %d", path, ctypes.get_errno())
    return done
