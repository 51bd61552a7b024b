"""Stage 2 on real statute blocks (劳动合同法): the answering sentence ranks first."""
import json
import time
from pathlib import Path

import pytest

from pipeline.errors import LoopAgentError
from pipeline.syntax.stage import SyntaxSettings, anchors_trace
from pipeline.types import Block, Candidate, Query

DATA = json.loads((Path(__file__).parents[1] / "data" / "syntax_labour_contract.json").read_text(encoding="utf-8"))


def _candidates():
    return [Candidate(block=Block(block_id=b["block_id"], doc_id="ldht", type="clause", text=b["text"], order=i),
                      title="中华人民共和国劳动合同法", source="劳动合同法.md", score=1.0)
            for i, b in enumerate(DATA["blocks"])]


@pytest.mark.parametrize("case", DATA["cases"], ids=[c["id"] for c in DATA["cases"]])
def test_answering_sentence_ranks_first(stage, case):
    anchors = stage.run(Query(**case["query"]), _candidates(), max_anchors=3)
    texts = [a.sentence.text for a in anchors]
    assert any(case["expect"] in t for t in texts[:case["within"]]), texts


def test_anchor_offsets_point_into_the_block(stage):
    case = DATA["cases"][0]
    for a in stage.run(Query(**case["query"]), _candidates()):
        assert a.candidate.block.text[a.sentence.start:a.sentence.end] == a.sentence.text
        assert {"lexical", "window", "prior", "pattern", "total"} <= set(a.details)


def test_pattern_id_reaches_the_trace(stage):
    case = next(c for c in DATA["cases"] if c["id"] == "date.effective")
    trace = anchors_trace(stage.run(Query(**case["query"]), _candidates()))
    assert trace["anchors"][0]["pattern"] == "date.effective"
    assert trace["anchors"][0]["block_id"] == "ldht-493"


def test_no_shared_term_gives_no_anchor(stage):
    assert stage.run(Query(text="火星", qtype="open", terms=["火星"]), _candidates()) == []


def test_long_sentence_uses_marked_fallback(stage):
    long = "，".join(["用人单位应当依法建立和完善劳动规章制度"] * 12) + "，试用期不得超过六个月。"
    cand = Candidate(block=Block(block_id="x", doc_id="d", type="clause", text=long, order=0),
                     title="t", source="s", score=1.0)
    anchors = stage.run(Query(text="试用期多久", qtype="duration", terms=["试用期"]), [cand])
    assert anchors[0].details["fallback"] == "pos_window" and anchors[0].pattern is None


def test_warm_call_is_fast(stage):
    case = DATA["cases"][2]
    q, cands = Query(**case["query"]), _candidates()
    stage.run(q, cands)
    t0 = time.perf_counter()
    for _ in range(5):
        stage.run(q, cands)
    assert (time.perf_counter() - t0) / 5 < 0.05  # budget 20 ms; generous for shared CI cores


def test_settings_are_validated():
    with pytest.raises(LoopAgentError) as err:
        SyntaxSettings(max_parse=0)
    assert err.value.code == "E303" and "syntax.max_parse" in str(err.value)
