"""Fuzz target over ingest (issue 14): 1,200 mutated PDFs and .docx files through the watched parser.

Every case must end as a document or a coded LoopAgentError (no traceback), within the per-file
time limit (plus slack for the kill), and the parse worker's peak RSS must stay under 500 MB.
Slow (several minutes): ``pytest -m slow tests/test_fuzz_ingest.py``.
"""
import io
import random
import resource
import time
import zipfile

import pytest

from pipeline import LoopAgentError
from pipeline.ingest import IngestLimits, ParseWorker
from tests.conftest import LEAVE_DOCX, ROOT

PDFS = ROOT / "tests" / "data" / "pdf"
N_PDF, N_DOCX = 700, 500


def _mutate(data: bytes, rng: random.Random) -> bytes:
    b = bytearray(data)
    how = rng.randrange(4)
    if how == 0:  # byte flips
        for _ in range(rng.randint(1, 80)):
            b[rng.randrange(len(b))] = rng.randrange(256)
    elif how == 1:  # truncation
        b = b[: rng.randrange(1, len(b))]
    elif how == 2:  # a duplicated chunk shifts every offset after it
        a = rng.randrange(len(b))
        b[a:a] = b[a:a + rng.randrange(1, 8192)]
    else:  # a chunk removed
        a = rng.randrange(len(b))
        del b[a:a + rng.randrange(1, 2048)]
    return bytes(b)


def _docx_xml_mutant(rng: random.Random) -> bytes:
    """A valid zip whose document.xml is mutated: the parser, not the unzip, meets the damage."""
    src = zipfile.ZipFile(LEAVE_DOCX)
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as z:
        for item in src.infolist():
            data = src.read(item)
            if item.filename in ("word/document.xml", "word/styles.xml", "[Content_Types].xml") and rng.random() < 0.7:
                data = _mutate(data, rng)
            z.writestr(item, data)
    return out.getvalue()


@pytest.mark.slow
def test_fuzz_ingest(tmp_path):
    rng = random.Random(1414)
    pdf_seeds = [(PDFS / n).read_bytes() for n in ("structured_handbook.pdf", "cid_glyphs.pdf", "scanned_text.pdf",
                                                     "truncated.pdf")]
    docx_seed = LEAVE_DOCX.read_bytes()
    limits = IngestLimits(file_seconds=5, page_seconds=0.5)
    worker = ParseWorker()
    outcomes: dict[str, int] = {}
    slowest = 0.0
    for i in range(N_PDF + N_DOCX):
        if i < N_PDF:
            name, data = f"f{i}.pdf", _mutate(pdf_seeds[i % len(pdf_seeds)], rng)
        else:
            name = f"f{i}.docx"
            data = _mutate(docx_seed, rng) if i % 2 else _docx_xml_mutant(rng)
        path = tmp_path / name
        path.write_bytes(data)
        t = time.perf_counter()
        try:
            worker.parse(path, name, None, data, limits)
            outcome = "ok"
        except LoopAgentError as exc:
            outcome = exc.code
        slowest = max(slowest, time.perf_counter() - t)
        outcomes[outcome] = outcomes.get(outcome, 0) + 1
        path.unlink()
    worker.close()
    peak_mb = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    print(f"fuzz: {outcomes}, slowest file {slowest:.2f} s, worker peak RSS {peak_mb:.0f} MB")  # shown with -s
    assert sum(outcomes.values()) == N_PDF + N_DOCX == 1200
    assert set(outcomes) <= {"ok", "E003", "E005", "E006", "E007", "E008", "E010", "E011", "E012", "E013"}, outcomes
    assert outcomes.get("ok", 0) > 50  # the mutations leave many files readable: the parsers really ran
    assert slowest <= limits.file_seconds + 20 * limits.page_seconds + 3  # seeds have at most a few pages
    assert peak_mb < 500
