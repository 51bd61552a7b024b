"""A table comes with the heading or lead-in of its section (stage 1), so that a row keyed by the question's
number (闪3下 → 闪烁次数 3) can answer even though the rows repeat none of the question's words."""
from pathlib import Path

MANUAL = ("# XC-20 电机控制器用户手册\n\n"
          "## 安装\n\n控制器应安装在通风良好的位置，周围留出不少于10厘米的散热空间。\n\n"
          "## 状态灯说明\n\n控制器通过状态灯的闪烁次数提示故障，如下表所示。\n\n"
          "| 闪烁次数 | 故障类型 |\n|---|---|\n| 1 | 电源欠压 |\n| 2 | 电机过流 |\n| 3 | 温度过高 |\n| 4 | 通信中断 |\n\n"
          "## 维护\n\n每运行500小时应清理一次控制器的散热风扇。\n")


def _scored(kb_of, files: dict[str, str], question: str):
    """The store of ``files``, its orchestrator, and stage 1's scored candidates for ``question``."""
    kb = kb_of(files)
    orch = kb.orchestrator
    return kb, orch, orch.prefilter.score(orch.analyzer.run(question))[0]


def test_the_table_follows_its_lead_in_and_its_row_answers(kb_of):
    kb, orch, scored = _scored(kb_of, {"XC-20电机控制器用户手册.md": MANUAL}, "我的XC-20控制器状态灯一直闪3下，是出了什么故障？")
    # as in a long manual, where the table's rows rank below the cut: the lead-in (a PDF's table text has
    # none of it) brings the table back, right after it
    without = [c for c in scored if c.block.type != "table"]
    cands = orch.prefilter._with_items(without)
    assert len(cands) == len(without) + 1
    lead = next(i for i, c in enumerate(cands) if c.block.type == "paragraph" and "如下表所示" in c.block.text)
    assert cands[lead + 1].block.type == "table" and cands[lead + 1].breakdown["table_of"] == cands[lead].block.block_id
    assert cands[lead + 1].block.table_rows[2] == ["3", "温度过高"]
    assert cands[lead + 1].score == round(cands[lead].score - 0.001, 4)  # the next block: just below its lead-in
    a = kb.ask("我的XC-20控制器状态灯一直闪3下，是出了什么故障？", trace=True)
    found = [x for x in a.to_dict()["stages"]["extract"].get("rejected", []) + [a.to_dict()]
             if x.get("method") == "strategy:table.cell"]
    assert found and found[0]["answer"] == "闪烁次数3：温度过高", a.reasoning


def test_a_table_of_another_section_does_not_come_with_a_paragraph(kb_of):
    _, orch, scored = _scored(kb_of, {"XC-20电机控制器用户手册.md": MANUAL}, "XC-20控制器的散热风扇多久清理一次？")
    kept = [c for c in scored if c.block.section != ["状态灯说明"]]
    assert [c.block.block_id for c in orch.prefilter._with_items(kept)] == [c.block.block_id for c in kept]


def test_a_table_rows_evidence_is_printed_as_the_document_prints_it(kb_of):
    from pipeline.orchestrator import printed_rows
    rows = [["1", "电源欠压"], ["2", "电机过流"], ["3", "温度过高"], ["11", "风扇堵转"]]
    assert printed_rows(rows, "闪烁次数：2；故障类型：电机过流。") == "1 电源欠压 2 电机过流 3 温度过高"
    assert printed_rows(rows, "闪烁次数：11；故障类型：风扇堵转。") == "3 温度过高 11 风扇堵转"  # not row 1's "1"
    assert printed_rows([["7", "7", "V4.1"], ["8", "8", "V4.2"]], "返回值：8；版本：V4.2。") == "7 V4.1 8 V4.2"
    assert printed_rows(rows, "另一张表的行") is None
    # a Markdown table prints its header and each row as a line of cells between pipes: those lines, as written
    assert printed_rows(rows, "闪烁次数：2；故障类型：电机过流。", ["闪烁次数", "故障类型"], pipes=True) == \
        "|闪烁次数|故障类型|\n|2|电机过流|"
    assert printed_rows(rows, "闪烁次数：11；故障类型：风扇堵转。", None, pipes=True) == "|11|风扇堵转|"
    from pipeline.orchestrator import AskSettings
    kb = kb_of({"XC-20电机控制器用户手册.md": MANUAL}, settings=AskSettings(gate_weights=""))
    a = kb.ask("我的XC-20控制器状态灯一直闪3下，是出了什么故障？")
    assert a.status == "answered" and a.value == {"kind": "text", "text": "温度过高"}, a.reasoning
    rows = [e for e in a.evidence if kb.block(e.block_id).type == "table"]
    assert [e.text for e in rows] == ["|闪烁次数|故障类型|\n|3|温度过高|"]  # a .md source: its own lines
    # the offsets still locate the rendered row in the block
    assert kb.block(rows[0].block_id).text[rows[0].start:rows[0].end].startswith("闪烁次数：3；故障类型：温度过高")


AWARDS = ("# 某某学院奖学金办法\n\n## 第三条 等级与金额\n\n奖学金的等级、金额和名额比例如下表。\n\n"
          "| 等级 | 金额 | 名额比例 |\n|---|---|---|\n| 一等奖 | 1200元 | 3% |\n| 二等奖 | 800元 | 8% |\n"
          "| 三等奖 | 300元 | 12% |\n")


def test_a_row_asked_for_two_named_columns_gives_both_cells(kb_of):
    from pipeline.orchestrator import AskSettings
    kb = kb_of({"某某学院奖学金办法.md": AWARDS}, settings=AskSettings(gate_weights=""))
    a = kb.ask("某某学院二等奖的金额和名额比例分别是多少？")
    assert a.method == "strategy:table.cell", a.reasoning
    assert a.answer == "二等奖：金额：800元；名额比例：8%"
    assert a.value == {"kind": "list", "items": ["金额：800元", "名额比例：8%"]}
    b = kb.ask("某某学院三等奖的金额是多少？")  # one named column: its cell, typed
    assert (b.method, b.value) == ("strategy:table.cell", {"kind": "money", "number": 300, "unit": "元"})


SIZES = ("# 某某标志管理办法\n\n## 第九条\n\n标志牌的规格定为如下三种，各单位酌情选用：\n\n"
         "甲、长120厘米，宽80厘米。\n\n乙、长90厘米，宽60厘米。\n\n丙、长60厘米，宽40厘米。\n\n"
         "## 第十条\n\n标志牌应当悬挂在醒目位置。\n")


def test_items_opened_by_a_marker_follow_their_lead_whatever_their_block_type(kb_of):
    _, orch, scored = _scored(kb_of, {"某某标志管理办法.md": SIZES}, "某某标志牌长90厘米的那种宽多少？")
    lead = next(c for c in scored if c.block.text.endswith("酌情选用："))
    items = [c for c in orch.prefilter._with_items([lead]) if c is not lead]
    assert [c.block.text for c in items] == ["甲、长120厘米，宽80厘米。", "乙、长90厘米，宽60厘米。", "丙、长60厘米，宽40厘米。"]
    assert all(c.breakdown["item_of"] == lead.block.block_id for c in items)


def test_a_spec_example_marked_as_a_gate_refusal_checks_the_rules_and_the_refusal():
    import yaml
    from pipeline.specs import check_spec
    rule = next(r for r in yaml.safe_load((Path(__file__).resolve().parent.parent / "rules" / "specs" / "contracts.yaml")
                                          .read_text(encoding="utf-8"))["rules"] if r["id"] == "spec.contract.deposits")
    marked = {"input": "质量保证金是多少？", "expect": {"status": "answered", "value": {"number": 5, "unit": "%"},
                                                      "evidence": "质量保证金", "gate": "refuses"}}
    ok, got = check_spec(rule, marked)
    assert ok and got["shipped_gate"] == "not_found" and got["value"] == {"kind": "number", "number": 5, "unit": "%"}
    # an answer the shipped gate accepts: the marker is stale, the example fails
    accepted = {"input": "我们租这批设备，履约保证金要交合同总价的多少？",
                "expect": {"status": "answered", "value": {"number": 10}, "gate": "refuses"}}
    ok, got = check_spec(rule, accepted)
    assert not ok and got["shipped_gate"] == "answered" and got["status"] == "answered"
