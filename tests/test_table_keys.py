"""Stage 3: table rows keyed by a number the question states (an indicator's blink count, a function's return
value), and the definition fallback that quotes a definition no definition template fits."""
from pipeline.orchestrator import AskSettings

MANUAL = """# 净水器 W3 使用手册

## 5 故障指示

开机自检时，面板指示灯按下表闪烁次数提示故障：

| 闪烁次数 | 故障类型 |
| --- | --- |
| 1 | 进水压力过低 |
| 2 | 滤芯到期 |
| 3 | 漏水保护 |
| 4 | 水温传感器开路 |

## 6 通信接口

函数 W3GetFwVer 的返回值对应下表：

| 返回值 | 固件版本 |
| --- | --- |
| 0 | V1.0 |
| 1 | V1.2 |
| 2 | V2.0 |
"""

RULES = """# 小区快递驿站管理规定

第一条 为规范驿站服务，制定本规定。

第二条 本规定所称代收点（以下简称驿站），是指受物业委托在小区内为居民集中暂存、代为签收快件的固定场所。

第三条 驿站应当在每日八时至二十时开放。
"""


def _settings():
    return AskSettings(gate_weights="")  # the rules gate: these answers do not depend on the trained model


def test_a_numeric_key_names_the_row(kb_of):
    kb = kb_of({"manual.md": MANUAL}, settings=_settings())
    a = kb.ask("W3净水器开机后指示灯连续闪了3次，是什么故障？")
    assert a.status == "answered", a.reasoning
    assert a.method == "strategy:table.cell"
    assert a.answer == "闪烁次数3：漏水保护"
    assert "（行：3；列：故障类型）" in " ".join(a.reasoning)
    assert a.value == {"kind": "text", "text": "漏水保护"}
    b = kb.ask("W3GetFwVer返回值为2时对应的固件版本是多少？")
    assert b.status == "answered", b.reasoning
    assert b.answer == "返回值2：V2.0"


def test_a_number_under_another_header_names_no_row(kb_of):
    kb = kb_of({"manual.md": MANUAL}, settings=_settings())
    # 3 is said of 天 (days), not of blinks or return values: no row is keyed by it
    a = kb.ask("W3净水器闲置3天后重新开机，是什么故障？")
    assert a.method != "strategy:table.cell"
    assert "漏水保护" not in a.answer


def test_definition_fallback_quotes_the_definition(kb_of):
    kb = kb_of({"rules.md": RULES}, settings=_settings())
    a = kb.ask("驿站是指什么样的场所？")
    assert a.status == "answered", a.reasoning
    assert "集中暂存" in a.answer
    assert a.evidence[0].text.startswith("本规定所称代收点")


def test_a_fallback_naming_an_unknown_strategy_is_refused(tmp_path):
    import pytest
    from pipeline.errors import LoopAgentError
    from pipeline.rules import load_rule_file
    p = tmp_path / "plans.yaml"
    p.write_text("kind: strategy_plan\nrules:\n  - {id: plan.x, qtype: definition, strategies: [definition], "
                 "fallback: [quote_everything]}\n", encoding="utf-8")
    with pytest.raises(LoopAgentError) as e:
        load_rule_file(p)
    assert "strategy 'quote_everything' is not registered" in str(e.value)


def test_only_the_definition_plan_falls_back_to_quoting(example_kb):
    ex = example_kb.orchestrator.extractor
    assert ex.fallback("definition") == ["sentence"]
    assert [q for q in ("duration", "money", "number", "date", "count", "list", "who", "yesno", "definition")
            if ex.fallback(q)] == ["definition"]


DERATING = """# 霖川 LC-40 电流传感器 规格书

## 7 热降额

LC-40 为40A量程，允许的最大连续电流随环境温度降低，测试条件为双层印制板。

| 环境温度 | 最大连续电流 |
| --- | --- |
| 25℃ | 40A |
| 70℃ | 32A |
| 110℃ | 25A |
| 125℃ | 16A |
"""


def test_the_key_under_the_column_the_question_names_is_the_row(kb_of):
    kb = kb_of({"规格书.md": DERATING}, settings=_settings())
    # 40A量程 names a cell too, but one in the column of what is asked (最大连续电流: the 25℃ row's value), so the
    # 110℃ row answers, from its other column (环境温度, which the question names, holds the key, not the value)
    a = kb.ask("40A量程的LC-40在110℃环境温度下最大连续电流是多少？")
    assert (a.status, a.method, a.answer) == ("answered", "strategy:table.cell", "110°C：25A"), a.reasoning
    assert a.value == {"kind": "number", "number": 25, "unit": "A"}
    # 25℃ is no key of a question that says 125℃: the figure is named whole
    b = kb.ask("LC-40在环境温度125℃时最大连续电流是多少？")
    assert (b.status, b.answer) == ("answered", "125°C：16A"), b.reasoning


def test_the_askers_own_figure_ranks_below_another_reading():
    from pipeline.extract import value_in_question
    from pipeline.types import Query
    q = Query(text="40A量程的LC-40在110℃下能过多少电流", constraints={"quantities": [
        {"number": 40, "unit": "A", "text": "40A", "start": 0, "end": 3}]})
    assert value_in_question(q, {"kind": "measure", "number": 40, "unit": "A"})
    assert not value_in_question(q, {"kind": "measure", "number": 25, "unit": "A"})
    assert not value_in_question(q, {"kind": "duration", "number": 40, "unit": "日"})  # another unit: another figure


MODELS = """# 青禾 QH 系列 暖风机 使用说明书

## 4 规格参数

| 项目 | QH-15 | QH-22 | QH-30 |
| --- | --- | --- | --- |
| 额定加热功率 | 1500W | 2200W | 3000W |
| 额定电流 | 6.8A | 10A | 13.6A |
| 净重 | 3.2千克 | 4.1千克 | 5.6千克 |
| 出风温度（环境20℃） | 45℃ | 52℃ | 58℃ |
"""


def test_a_model_column_and_part_of_a_row_label(kb_of):
    kb = kb_of({"说明书.md": MODELS}, settings=_settings())
    # QH-22 names its column whole; 出风温度 names the row 出风温度（环境20℃） only in part, the one row label that
    # shares it
    a = kb.ask("QH-22这款暖风机的出风温度有多高？")
    assert (a.status, a.method, a.answer) == ("answered", "strategy:table.cell", "出风温度（环境20°C）：52°C"), a.reasoning
    # the model's own digits (30 of QH-30) say nothing of the row (出风温度（环境20℃）)
    b = kb.ask("QH-30的加热功率是多少？")
    assert (b.status, b.answer) == ("answered", "额定加热功率：3000W"), b.reasoning
    # 额定功率 shares runs as long (额定) with 额定加热功率 and 额定电流: the label holding more of it in runs
    # (额定 and 功率) is the row
    c = kb.ask("大功率的QH-30，额定功率是多少瓦？")
    assert (c.status, c.answer) == ("answered", "额定加热功率：3000W"), c.reasoning


def test_no_model_named_gives_each_models_cell(kb_of):
    kb = kb_of({"说明书.md": MODELS}, settings=_settings())
    # one column per model and none named: each model's value, not the last column's as if it were the answer
    a = kb.ask("青禾暖风机的额定电流是多少？")
    assert (a.status, a.method) == ("answered", "strategy:table.cell"), a.reasoning
    assert a.value == {"kind": "list", "items": ["QH-15：6.8A", "QH-22：10A", "QH-30：13.6A"]}
    assert a.answer == "额定电流：QH-15：6.8A；QH-22：10A；QH-30：13.6A"


def test_a_value_under_the_named_model_names_no_row(kb_of):
    kb = kb_of({"说明书.md": MODELS}, settings=_settings())
    # 3000W is QH-30's own value (its column, which the question names): it names no row, 净重 does
    a = kb.ask("3000W那款QH-30的净重是多少？")
    assert (a.status, a.method, a.answer) == ("answered", "strategy:table.cell", "净重：5.6千克"), a.reasoning


def test_a_model_named_by_its_own_figure(kb_of):
    kb = kb_of({"说明书.md": MODELS}, settings=_settings())
    # 2200W is in QH-22's column alone: the asker means that model, and the row that says so joins the evidence
    a = kb.ask("2200W的那款暖风机出风温度有多高？")
    assert (a.status, a.method, a.answer) == ("answered", "strategy:table.cell", "出风温度（环境20°C）：52°C"), a.reasoning
    assert len(a.evidence) == 2 and "2200W" in a.evidence[0].text and "52°C" in a.evidence[1].text


def test_a_figure_column_needs_one_model_alone():
    from pipeline.extract import _figure_column
    header = ["项目", "QH-15", "QH-22", "QH-30"]
    rows = [["额定电压", "220V", "220V", "380V"], ["净重", "3.2千克", "4.1千克", "5.6千克"]]
    q = lambda n, u: {"number": n, "unit": u, "text": f"{n}{u}", "start": 0, "end": 3}  # noqa: E731
    assert _figure_column(header, rows, [q(380, "V")]) == ([3], ["380V"])
    assert _figure_column(header, rows, [q(220, "V")]) == ([], [])  # two models share it: it names none
    assert _figure_column(header, rows, [q(4.1, "公斤")]) == ([2], ["4.1千克"])  # 公斤 and 千克 are one unit
    assert _figure_column(["项目", "标准型", "加强型"], [["净重", "3千克", "4千克"]], [q(4, "千克")]) == ([], [])


FEES = """# 某某展会展台搭建合同

## 第四条 合同价款

合同总价由以下各项组成：

| 费用项目 | 金额（元） | 备注 |
| --- | --- | --- |
| 展台设计费 | 30,000 | 含效果图 |
| 木作及地台工程 | 120,000 | 含材料 |
| 灯光及电气工程 | 48,000 | 含灯具及配电箱 |
| 运输及仓储费 | 12,000 | 往返 |
"""


def test_a_row_named_in_the_askers_words_by_words_only_its_label_holds(kb_of):
    """灯光和电气这一块 names the row 灯光及电气工程: no key cell is written out whole, but 灯光 and 电气 are in that
    row's label and no other's (工程 is in two labels and decides nothing)."""
    from pipeline.extract import _row_by_words
    from pipeline.types import Query

    kb = kb_of({"展台搭建合同.md": FEES})
    a = kb.ask("某某展会展台的灯光和电气这一块是多少钱？")
    assert (a.status, a.method) == ("answered", "strategy:table.cell"), a.reasoning
    assert a.value == {"kind": "money", "number": 48000, "unit": "元"} and a.answer == "灯光及电气工程：48,000"
    rows = [["展台设计费", "30,000"], ["木作及地台工程", "120,000"], ["灯光及电气工程", "48,000"]]
    q = Query(text="工程这一块多少钱？", weights={"工程": 1.0, "一块": 0.9})
    assert _row_by_words(q, rows, "某某展会展台搭建合同", "第四条 合同价款") == []  # 工程: two rows hold it
    q = Query(text="地台多少钱？", weights={"地台": 1.0})
    assert _row_by_words(q, rows, "某某展会展台搭建合同", "") == [(rows[1], "木作及地台工程")]
    assert _row_by_words(q, rows, "某某地台搭建合同", "") == []  # the title's word names the table, not a row


EQUIPMENT = """# 某某厂房空调改造合同

## 第三条 设备清单

| 设备名称 | 规格 | 数量 | 质保期 |
| --- | --- | --- | --- |
| 多联机室外机 | 28 kW | 6台 | 5年 |
| 新风换气机 | 2000 m³/h | 12台 | 3年 |
"""


def test_the_cell_of_the_asked_unit_answers_a_count(kb_of):
    """几台 asks a count of machines: of the row's figures (28 kW, 6台, 5年) the one in 台 answers, not the last one."""
    kb = kb_of({"空调改造合同.md": EQUIPMENT})
    a = kb.ask("某某厂房空调改造一共要装几台室外机？")
    assert (a.status, a.method, a.answer) == ("answered", "strategy:table.cell", "多联机室外机：6台"), a.reasoning
