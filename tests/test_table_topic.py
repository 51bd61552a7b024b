"""Stage 2 in a table: what most rows hold is the table's topic, and a row is chosen by what sets it apart
(pipeline/anchors.table_topic; the parser's stage weighs its sentences the same way)."""
from pipeline.anchors import coverage, lexical_anchors, table_topic
from pipeline.text import block_sentences
from pipeline.types import Block, Candidate, Query

ROWS = ["项目：住房补贴；标准：800元/月；适用：外地员工",
        "项目：夜间值守津贴；标准：60元/次；适用：夜间在岗人员",
        "项目：通勤补贴；标准：300元/月；适用：全体人员",
        "项目：餐费补贴；标准：20元/日；适用：按出勤天数计发"]


def _query() -> Query:
    return Query(text="夜间值守的员工每次有多少补贴？", qtype="money",
                 terms=["夜间", "员工", "补贴"], weights={"夜间": 2.0, "员工": 1.5, "补贴": 1.7})


def _block(btype: str, rows: list[str]) -> Block:
    return Block(block_id="b1", doc_id="d1", type=btype, text="\n".join(rows), order=0)


def test_what_most_rows_hold_is_the_topic():
    q = _query()
    assert [s.text for s in block_sentences(_block("table", ROWS))] == ROWS
    assert table_topic(q, _block("table", ROWS)) == frozenset({"补贴"})  # three rows of four
    # a synonym counts as the word: 津贴 for 补贴 makes it every row's
    q.expansions["补贴"] = ["津贴"]
    assert table_topic(q, _block("table", ROWS)) == frozenset({"补贴"})
    q.expansions.clear()
    assert table_topic(q, _block("paragraph", ROWS)) == frozenset()  # prose: every sentence keeps its words
    assert table_topic(q, _block("table", ROWS[:2])) == frozenset()  # two rows: too few to tell a topic


def test_the_row_that_sets_itself_apart_comes_first():
    q = _query()
    context = "\n".join(ROWS)
    # as plain words: 补贴 + 员工 (row 1) outweigh 夜间 (row 2)
    assert round(coverage(q, ROWS[0], context), 4) == round((1.7 + 1.5 + 0.4 * 2.0) / 5.2, 4)
    assert round(coverage(q, ROWS[1], context), 4) == round((2.0 + 0.4 * 1.5 + 0.4 * 1.7) / 5.2, 4)
    # 补贴 the topic: context wherever it is; 夜间 decides
    topic = frozenset({"补贴"})
    assert round(coverage(q, ROWS[0], context, topic=topic), 4) == round((1.5 + 0.4 * 2.0 + 0.4 * 1.7) / 5.2, 4)
    assert round(coverage(q, ROWS[1], context, topic=topic), 4) == round((2.0 + 0.4 * 1.5 + 0.4 * 1.7) / 5.2, 4)
    cand = Candidate(block=_block("table", ROWS), title="员工福利管理办法", source="福利.md", score=1.0)
    anchors = lexical_anchors(q, [cand])
    assert anchors[0].sentence.text == ROWS[1]
    # the same rows as a paragraph's sentences: no topic, the plain order
    prose = ["住房补贴每月800元，发给外地员工。", "夜间值守津贴每次60元，发给夜间在岗人员。",
             "通勤补贴每月300元，发给全体人员。", "餐费补贴每日20元，按出勤天数计发。"]
    para = Candidate(block=_block("paragraph", prose), title="员工福利管理办法", source="福利.md", score=1.0)
    assert lexical_anchors(q, [para])[0].sentence.text == prose[0]
