"""Stage 2's anchors ordered by the trained anchor ranker (pipeline.anchor_rank): its features, the order a tiny
hand-built model gives, the shipped model's load, and stage 2's own order when the ranker is off."""
import json
import math
from pathlib import Path

import pytest

from pipeline import KnowledgeBase
from pipeline.anchor_rank import NAMES, RANKER_WEIGHTS, AnchorRanker, anchor_features
from pipeline.orchestrator import AskSettings
from pipeline.types import Anchor, Block, Candidate, Query, Sentence
from pipeline.verify import TreeModel
from tests.conftest import load_script

ROOT = Path(__file__).resolve().parent.parent


def _anchor(i, text, score, cand_score, block_type="paragraph", e5=None, pattern=None):
    b = Block(block_id=f"b{i}", doc_id="d1", order=i, type=block_type, text=text + "其他内容。", section=[])
    c = Candidate(block=b, title="员工手册", source="hb.md", score=cand_score,
                  breakdown={} if e5 is None else {"e5": e5, "lexicon_rank": i})
    return Anchor(candidate=c, sentence=Sentence(text=text, start=0, end=len(text)), score=score, pattern=pattern)


def _query():
    q = Query(text="试用期最长几个月")
    q.weights = {"试用期": 0.6, "最长": 0.4}
    q.constraints["value_units"] = ["月"]
    return q


def test_features_of_each_anchor_relative_to_the_best():
    anchors = [_anchor(0, "劳动合同期限三个月以上的，可以约定试用期。", 0.9, 4.0, e5=0.91, pattern="p1"),
               _anchor(1, "试用期最长不得超过六个月。", 0.7, 2.0, block_type="list_item", e5=0.95)]
    cands = [a.candidate for a in anchors]
    f0, f1 = anchor_features(_query(), cands, anchors)
    assert set(f0) == set(NAMES)
    assert (f0["a_score"], f0["a_score_rel"], f0["a_rank"], f0["a_pattern"]) == (0.9, 0.0, 1.0, 1.0)
    assert (f1["a_score"], f1["a_score_rel"], f1["a_rank"], f1["a_pattern"]) == (0.7, -0.2, 0.5, 0.0)
    assert (f0["a_cand_score"], f1["a_cand_score"]) == (1.0, 0.5)
    assert (f0["a_cand_rank"], f1["a_cand_rank"]) == (0.0, round(math.log1p(1), 4))
    assert (f0["a_e5_block_rel"], f1["a_e5_block_rel"]) == (-0.04, 0.0)
    # 试用期 (0.6) in both; 最长 (0.4) only in the second
    assert (f0["a_cov"], f1["a_cov"], f0["a_cov_rel"]) == (0.6, 1.0, -0.4)
    # 三个月 is of the asked unit in the first, 六个月 in the second
    assert (f0["a_kind"], f1["a_kind"], f0["a_has_num"]) == (1.0, 1.0, 1.0)
    assert (f0["a_type_paragraph"], f1["a_type_list_item"], f1["a_type_paragraph"]) == (1.0, 1.0, 0.0)
    assert f1["a_chars"] == round(math.log1p(len("试用期最长不得超过六个月。")), 4)
    # no word of the question is in the title 员工手册: the share outside the title is the share itself
    assert (f0["a_cov_content"], f1["a_cov_content"], f0["a_cov_content_rel"]) == (0.6, 1.0, -0.4)
    assert (f0["a_q_duration"], f0["a_q_number"]) == (0.0, 0.0)  # the hand-built query has the default type


def test_words_of_the_document_s_title_do_not_count_for_the_sentence():
    # 试用期管理办法 asked by its name: 试用期 selects the document, 最长 says which sentence answers
    q = Query(text="试用期管理办法里试用期最长几个月", qtype="duration")
    q.weights = {"试用期": 0.5, "管理办法": 0.2, "最长": 0.3}
    intro, rule = (_anchor(0, "现将试用期管理办法印发给你们。", 0.9, 4.0), _anchor(1, "试用期最长六个月。", 0.7, 2.0))
    for a in (intro, rule):
        a.candidate.title = "试用期管理办法"
    f0, f1 = anchor_features(q, [intro.candidate, rule.candidate], [intro, rule])
    assert (f0["a_cov"], f1["a_cov"]) == (0.7, 0.8)  # by all words: nearly even
    assert (f0["a_cov_content"], f1["a_cov_content"], f0["a_cov_content_rel"]) == (0.0, 1.0, -1.0)
    assert (f0["a_q_duration"], f0["a_q_number"]) == (1.0, 0.0)


# one stump on a_cov: ≤ 0.7 → −1, else +1 (root mean 0); base 0
STUMP = {"kind": "trees", "features": list(NAMES), "base": 0.0, "threshold": 0.5, "monotone": [],
         "trees": [{"feature": [NAMES.index("a_cov"), -1, -1], "threshold": [0.7, 0, 0], "left": [1, 0, 0],
                    "right": [2, 0, 0], "value": [0.0, -1.0, 1.0]}]}


def test_the_ranker_orders_by_its_probability_and_keeps_stage_2_s_score():
    anchors = [_anchor(0, "劳动合同期限三个月以上的，可以约定试用期。", 0.9, 4.0),
               _anchor(1, "试用期最长不得超过六个月。", 0.7, 2.0)]
    cands = [a.candidate for a in anchors]
    out = AnchorRanker(TreeModel.from_dict(STUMP), weight=2.0).order(_query(), cands, anchors)
    assert [a.candidate.block.block_id for a in out] == ["b1", "b0"]
    p_hi, p_lo = 1 / (1 + math.exp(-1.0)), 1 / (1 + math.exp(1.0))
    assert (out[0].details["ranker"], out[0].details["stage2_score"]) == (round(p_hi, 4), 0.7)
    assert (out[0].score, out[1].score) == (round(2.0 * p_hi, 4), round(2.0 * p_lo, 4))


def test_a_lone_anchor_gets_its_probability_too():
    # the gate reads the anchor's score as the ranker's probability: a lone sentence (a small store, a narrow
    # collection) must not keep stage 2's score, which runs past 1
    ranker = AnchorRanker(TreeModel.from_dict(STUMP))
    one = [_anchor(0, "员工结婚的，享受婚假三天。", 1.4, 2.0)]
    assert ranker.order(_query(), [one[0].candidate], one) == one
    assert (one[0].score, one[0].details["stage2_score"]) == (round(1 / (1 + math.exp(1.0)), 4), 1.4)
    assert ranker.order(_query(), [], []) == []


def test_the_shipped_ranker_loads_with_its_manifest():
    assert AnchorRanker.load(RANKER_WEIGHTS) is not None
    manifest = json.loads((RANKER_WEIGHTS.parent / "manifest.json").read_text(encoding="utf-8"))
    assert manifest["features"] == list(NAMES)
    held = manifest["held_out"]
    assert held["ranker_first"] > held["stage2_first"]  # what it was shipped for, held out by documents
    assert AnchorRanker.load("") is None and AnchorRanker.load(ROOT / "no-such-weights.json") is None
    from pipeline.errors import LoopAgentError
    for bad in (0, -1.0, "2", True):
        with pytest.raises(LoopAgentError) as e:
            AskSettings(anchor_weight=bad)
        assert e.value.code == "E303" and "anchor_weight" in e.value.message


@pytest.fixture(scope="module")
def kbs(tmp_path_factory):
    d = tmp_path_factory.mktemp("ranker")
    doc = d / "handbook.md"
    doc.write_text("# 员工手册\n\n## 第一章 试用期\n\n劳动合同期限三个月以上的，可以约定试用期。"
                   "试用期最长不得超过六个月。试用期工资不得低于转正工资的百分之八十。\n\n"
                   "## 第二章 休假\n\n员工每年享有带薪年休假五天。\n", encoding="utf-8")
    on = KnowledgeBase(d / "on.sqlite", audit_log=None)
    on.ingest([doc])
    off = KnowledgeBase(d / "off.sqlite", audit_log=None, settings=AskSettings(anchor_ranker=""))
    off.ingest([doc])
    return on, off


def test_stage_2_anchors_carry_the_ranker_s_probability_only_when_it_is_on(kbs):
    on, off = kbs
    a_on = on.ask("试用期最多能约定几个月？", trace=True).to_dict()
    a_off = off.ask("试用期最多能约定几个月？", trace=True).to_dict()
    anchors_on = a_on["stages"]["syntax"]["anchors"]
    anchors_off = a_off["stages"]["syntax"]["anchors"]
    assert all("ranker" in x["details"] and "stage2_score" in x["details"] for x in anchors_on)
    assert not any("ranker" in x["details"] for x in anchors_off)
    probs = [x["details"]["ranker"] for x in anchors_on]
    assert probs == sorted(probs, reverse=True)
    assert a_on["value"]["number"] == a_off["value"]["number"] == 6




def test_narrowed_training_rows_recompute_what_is_relative_to_the_best():
    """scripts/train_anchor_ranker.py trains on each question's anchors and on draws of one to three of them, as a
    small store would show them: ranks, stage-1 ranks and scores, and the features relative to the best anchor are
    those of the draw."""
    pytest.importorskip("sklearn")
    train = load_script("train_anchor_ranker")
    base = dict.fromkeys(NAMES, 0.0)
    anchors = [dict(base, a_score=1.2, a_cov=1.0, a_cand_rank=0.0, a_cand_score=1.0, a_e5_block=0.95, gold=False),
               dict(base, a_score=0.9, a_cov=0.5, a_cand_rank=round(math.log1p(4), 4), a_cand_score=0.5,
                    a_e5_block=0.93, gold=True),
               dict(base, a_score=0.6, a_cov=0.25, a_cand_rank=round(math.log1p(7), 4), a_cand_score=0.25,
                    a_e5_block=0.90, gold=False)]
    draws = train.narrowed([{"set": "x", "id": "q1", "anchors": anchors}], copies=40, seed=1)
    assert len(draws) == 40 and all(1 <= len(d["anchors"]) <= 3 for d in draws)
    lone = next(d["anchors"][0] for d in draws if len(d["anchors"]) == 1 and d["anchors"][0]["gold"])
    assert (lone["a_rank"], lone["a_cand_rank"], lone["a_cand_score"]) == (1.0, 0.0, 1.0)
    assert (lone["a_score_rel"], lone["a_cov_rel"], lone["a_e5_block_rel"], lone["a_cov"]) == (0.0, 0.0, 0.0, 0.5)
    pair = next(d["anchors"] for d in draws if [a["a_score"] for a in d["anchors"]] == [0.9, 0.6])
    assert [a["a_rank"] for a in pair] == [1.0, 0.5]
    assert [a["a_cand_rank"] for a in pair] == [0.0, round(math.log1p(1), 4)]
    assert [a["a_cand_score"] for a in pair] == [1.0, 0.5]
    assert [a["a_score_rel"] for a in pair] == [0.0, -0.3] and [a["a_cov_rel"] for a in pair] == [0.0, -0.25]
    assert anchors[1]["a_rank"] == 0.0  # the question's own rows are left as they are


def test_a_small_store_answers_what_it_holds_and_refuses_what_it_does_not(kb_of):
    """Two provisions of a handbook: the one sentence stage 2 finds for a question about something else is no
    likelier for being alone (its probability is the ranker's, not "ahead of every other")."""
    kb = kb_of({"员工手册.md": "# 员工手册\n\n## 第三章 考勤\n\n第十条 员工迟到11至20分钟的，每次扣款30元。\n\n"
                               "第十一条 员工结婚的，享受婚假3天。\n"})
    a = kb.ask("员工结婚可以休几天婚假？")
    assert (a.status, a.value) == ("answered", {"kind": "duration", "number": 3, "unit": "日"})
    b = kb.ask("迟到15分钟扣多少钱？")
    assert (b.status, b.value) == ("answered", {"kind": "money", "number": 30, "unit": "元"})
    c = kb.ask("女职工生育享受多少天产假？", trace=True)
    assert c.status == "not_found"
    lone = c.to_dict()["stages"]["syntax"]["anchors"][0]
    assert lone["text"] == "员工结婚的，享受婚假3天。" and lone["details"]["ranker"] < 0.5



def test_a_document_s_fold_depends_on_its_path_alone():
    """The cross-fitted gate rows (scripts/gate_data.py --ranker-folds) pick each question's ranker by its document's
    fold, and scripts/train_anchor_ranker.py --fold-models trains fold K's model without those documents: both
    compute the fold from the path alone (the first 8 hex digits of its SHA-1, modulo the number of folds)."""
    doc_fold = load_script("train_gate").doc_fold
    assert [doc_fold(p) for p in ("other/合同/租赁合同.md", "docs/刑法/a.md", "s1:q1")] == [8, 0, 2]  # 9c153116, c95d8d32, 78574cc2
    assert doc_fold("other/合同/租赁合同.md", 3) == 0x9c153116 % 3 == 2
