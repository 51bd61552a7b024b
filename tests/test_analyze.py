"""Question analysis pieces that need no store."""
import pytest

from pipeline.analyze import asked_clause


@pytest.mark.parametrize("question,clause", [
    ("小李在车间干活时摔伤了，单位不管不问，他自己最晚要在多长时间内提出工伤认定申请？",
     "他自己最晚要在多长时间内提出工伤认定申请"),
    ("女工小刘怀孕了，上班时间去做产前检查，这段时间算不算劳动时间？", "这段时间算不算劳动时间"),
    ("除了哪两种情形外，用人单位不得与劳动者约定由劳动者承担违约金？", "除了哪两种情形外"),
    ("老王（已退休）返聘回单位，还能签劳动合同吗？", "还能签劳动合同吗"),
    ("我在车间接触有毒物品，职业健康检查的费用应该由谁出？", "职业健康检查的费用应该由谁出"),
])
def test_asked_clause_is_the_clause_that_asks(question, clause):
    assert asked_clause(question) == clause


@pytest.mark.parametrize("question", ["试用期最长多久？", "用人单位应当提前通知。劳动者同意。"])
def test_no_asked_clause_for_one_clause_or_no_question_word(question):
    assert asked_clause(question) is None


def test_asked_category_counts_little_at_the_coverage_bar(example_kb):
    from pipeline.anchors import coverage
    from pipeline.orchestrator import _gate_query

    q = example_kb.orchestrator.analyzer.run("职工在哪些假期期间不计入年休假假期？")
    assert q.constraints["asked_category"] == ["假期"]
    gate = _gate_query(q)
    assert gate.weights["假期"] == pytest.approx(q.weights["假期"] * 0.3)
    assert gate.weights["年休假"] == q.weights["年休假"]  # the other words keep their weight
    text = "职工依法享受的探亲假、婚丧假、产假不计入年休假"  # names the leaves without the word 假期
    assert coverage(gate, text) > coverage(q, text)


def test_joined_terms_reward_the_question_phrase(example_kb):
    from pipeline.extract import joined_terms, phrase_bonus

    q = example_kb.orchestrator.analyzer.run("申请大型客车准驾车型的驾驶证，对年龄有什么要求？")
    assert "大型客车" in joined_terms(q)
    assert phrase_bonus(q, "申请大型客车准驾车型的") > phrase_bonus(q, "申请中型客车、大型货车准驾车型的")


def test_a_compound_split_by_an_object_counts_fully(example_kb):
    from pipeline.anchors import _parts_together, coverage

    assert _parts_together(["提出", "申请"], "提出工伤认定申请")
    assert not _parts_together(["提出", "申请"], "申请人可以提出")  # out of order
    assert not _parts_together(["提出", "申请"], "提出" + "的" * 9 + "申请")  # too far apart
    q = example_kb.orchestrator.analyzer.run("职工应当在多长时间内提出申请？")
    assert q.constraints["parts"]["提出申请"] == ["提出", "申请"]
    assert coverage(q, "在一年内提出工伤认定申请") > coverage(q, "在一年内提出意见，并申请")


def test_compact_tag_table_finds_every_word_and_only_those():
    from pipeline.tokenize import _TagTable, pos_tag

    table = _TagTable([("应当", "v"), ("较大", "a"), ("可以", "c"), ("阿", "e"), ("龥", "x")])
    assert [table.get(w) for w in ["阿", "可以", "应当", "较大", "龥"]] == ["e", "c", "v", "a", "x"]
    assert table.get("应") is None and table.get("应当当") is None and table.get("") is None
    assert len(table) == 5
    # jieba's own dictionary: verbs and adjectives keep their tags, nouns are the default
    assert (pos_tag("安排"), pos_tag("较大"), pos_tag("试用期")) == ("v", "a", "n")


def test_a_rare_jieba_fragment_weighs_like_an_unseen_one(kb_of):
    # 报给 is no dictionary word: jieba guessed it from the text, and one block holds it; it must not weigh
    # like a rare name (the rarer a real word, the more it weighs)
    kb = kb_of({"考勤.md": "# 考勤制度\n\n## 第一条\n\n每月的考勤表由部门经理报给行政部。\n\n"
                            "## 第二条\n\n考勤表应当在每月5日前提交行政部。\n"})
    assert kb.store.doc_freq(["报给"]) == {"报给": 1}
    w = kb.orchestrator.analyzer.run("部门经理要在每月几号前把考勤表报给行政部？").weights
    assert w["报给"] == 0.3
    assert w["部门经理"] > w["考勤表"] > 0.3


def test_an_unseen_two_character_guess_is_a_fragment_not_a_name(kb_of):
    kb = kb_of({"考勤.md": "# 考勤制度\n\n## 第一条\n\n经营者应当自领取营业执照之日起十五日内备案。\n"})
    w = kb.orchestrator.analyzer.run("营业执照拿到手后多长时间内要去备案？").weights
    assert w["手后"] == 0.3  # jieba's guess across 拿到手 / 后: no dictionary word, in no block
    assert w["营业执照"] > 0.3
