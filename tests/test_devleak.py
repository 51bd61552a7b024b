"""Dev fitting stays under the protocol's limits: dev questions' own wording in pipeline/, rules/ or
dictionaries/ at most 3, their gold evidence at most 5 (needs ../shared; skipped without it)."""
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SHARED = ROOT.parent / "shared" / "eval" / "dev" / "questions.jsonl"


@pytest.mark.shared
@pytest.mark.skipif(not SHARED.exists(), reason="needs ../shared/eval/dev")
def test_dev_wording_and_evidence_stay_out_of_code_and_rules():
    out = subprocess.run([sys.executable, str(ROOT / "scripts" / "devleak.py")], capture_output=True, text=True)
    assert out.returncode == 0, out.stdout + out.stderr
    line = out.stdout.strip().splitlines()[-1]
    wording = int(line.split("dictionaries: ")[1].split(";")[0])
    evidence = int(line.split("there: ")[1].split(" ")[0])
    assert wording <= 3 and evidence <= 5
