"""Scanned pages: OCR with tesseract (chi_sim) when installed, else the W004 warning."""
import os
from pathlib import Path

import pytest

from pipeline.ingest import parse_file
from pipeline.ingest.pdf import PdfSettings, ocr_available, parse_pdf

SCAN = Path(__file__).resolve().parent.parent / "data" / "pdf" / "scanned_text.pdf"


@pytest.mark.skipif(not ocr_available() and not os.environ.get("LOOPAGENT_REQUIRE_OCR"),
                    reason="tesseract with chi_sim is not installed")
def test_scanned_page_is_recognised():
    assert ocr_available(), "CI installs tesseract-ocr and tesseract-ocr-chi-sim (.ci/run); OCR must run there"
    res = parse_file(SCAN)
    blocks = [(b.type, b.clause, b.text, b.page_start) for b in res.document.blocks]
    assert blocks == [("clause", "第一条", "员工迟到的，每次扣款30元。", 1),
                      ("clause", "第二条", "员工结婚的，享受婚假3天。", 1)]
    assert res.warnings[0].startswith("W009")
    assert res.document.meta["flagged_pages"] == [{"page": 1, "reason": "ocr", "lines": 2}]
    assert res.document.blocks[0].bbox is not None


def test_without_ocr_the_page_is_flagged():
    res = parse_pdf(SCAN, SCAN.read_bytes(), SCAN.name, settings=PdfSettings(ocr=False))
    assert res.document.blocks == []
    assert res.warnings == [f"W004: Page 1 of {SCAN} has no text layer (scanned?). "
                            "Install tesseract with chi_sim to OCR it."]
    assert res.document.meta["flagged_pages"] == [{"page": 1, "reason": "no_text"}]
