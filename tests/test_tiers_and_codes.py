"""Language of manuals, contracts and company rules: a fault code's row in a table of codes, a count asked by its
classifier (几个车位), and tiers of a graded series (C类, 二类城市) that a sentence about other tiers does not answer."""
import pytest

from pipeline.orchestrator import AskSettings, other_tiers


def tried(kb, question: str) -> list[dict]:
    """The answer to ``question`` and every extraction the gate refused for it (trace), as dicts."""
    a = kb.ask(question, trace=True).to_dict()
    return [a] + a["stages"].get("extract", {}).get("rejected", [])

MANUAL = ("# 清泉QX-100净水器使用说明书\n\n## 6 故障处理\n\n"
          "当本机出现故障时，面板将显示故障代码，同时蜂鸣器鸣叫 3 声。\n\n"
          "| 代码 | 故障名称 | 可能原因 | 处理方法 |\n|---|---|---|---|\n"
          "| E1 | 进水缺水 | 自来水停水或进水阀未打开 | 检查自来水供应 |\n"
          "| E3 | 制水超时 | 连续制水超过 4 小时 | 检查管路，断电 10 秒后重新上电 |\n"
          "| E5 | 漏水保护 | 底盘积水 | 关闭进水阀，联系售后 |\n")

LEASE = ("# 某某大厦房屋租赁合同\n\n## 第五条 配套设施\n\n"
         "5.1 甲方负责提供中央空调，供冷时间为工作日 8:00—18:00。\n\n"
         "5.2 停车位：甲方同意在租赁期内为乙方提供地下月租车位 3 个，车位费为每个每月 600 元。\n")

TRAVEL = ("# 某某集团差旅费报销办法\n\n## 第十条 住宿费\n\n员工出差住宿费在下表标准内凭发票据实报销：\n\n"
          "| 人员类别 | 一类城市 | 二类城市 | 三类城市 |\n|---|---|---|---|\n"
          "| A 类 | 1200 | 900 | 700 |\n| C 类 | 600 | 450 | 380 |\n| D 类 | 500 | 380 | 320 |\n\n"
          "## 第十一条 特殊情况\n\n出差人员住宿于亲友家等不发生住宿费用的，按 D 类三类城市住宿标准的 30% 给予住宿补贴，"
          "即每天 96 元，不需提供住宿发票；\n\n"
          "（四）同一城市连续出差超过 15 天的，自第 16 天起住宿费按对应标准的 80% 执行。\n")


def test_a_fault_code_is_answered_by_its_row(kb_of):
    kb = kb_of({"清泉QX-100净水器使用说明书.md": MANUAL})
    a = kb.ask("我家清泉净水器屏幕上跳出 E3，还嘀嘀叫了三声，这是出了什么毛病？")
    assert (a.status, a.method) == ("answered", "strategy:code.meaning"), a.reasoning
    assert a.answer == "E3（故障名称）：制水超时"
    assert a.value == {"kind": "text", "text": "制水超时", "code": "E3"}
    # the evidence quotes the Markdown table's header and the row as the document writes them
    assert a.evidence[0].text == "|代码|故障名称|可能原因|处理方法|\n|E3|制水超时|连续制水超过 4 小时|检查管路，断电 10 秒后重新上电|"
    b = kb.ask("清泉净水器显示E7是什么故障？")  # no such code: no row, and no other row's sentence either
    assert b.status == "not_found", b.answer


def test_a_count_asked_by_its_classifier(kb_of):
    kb = kb_of({"某某大厦房屋租赁合同.md": LEASE, "某某集团差旅费报销办法.md": TRAVEL}, settings=AskSettings(gate_weights=""))
    a = kb.ask("某某大厦租赁合同里，甲方在租期内给乙方提供几个地下月租车位？")
    assert (a.status, a.method) == ("answered", "template:number.classifier"), a.reasoning
    assert "答案类型：quantity（规则 vk.quantity，疑问词后的单位「个」）" in a.reasoning
    assert (a.value["number"], a.value["unit"]) == (3, "个"), a.value


def test_other_tiers():
    assert other_tiers("C 类人员到二类城市出差的住宿费是多少", "按 D 类三类城市住宿标准的 30% 给予补贴") == \
        (["C类", "二类"], ["D类", "三类"])
    assert other_tiers("C 类人员到二类城市出差的住宿费是多少", "人员类别：C 类；一类城市：600；二类城市：450") is None
    assert other_tiers("三级医院的报销比例是多少", "在二级及以上医院就诊的，报销比例为70%") is None  # a range
    assert other_tiers("二等奖的奖金是多少", "一等奖奖金5000元") == (["二等"], ["一等"])
    assert other_tiers("住宿费是多少", "D 类人员每天 300 元") is None  # the question names no tier


RATES = ("# 某某集团住宿费标准\n\n## 第十条 住宿费\n\nD 类人员到三类城市出差的，住宿费每人每天 320 元。\n\n"
         "## 第十一条 其他\n\n出差期间的市内交通补助每人每天 80 元。\n")


LEAVE = ("# 某某公司请假管理制度\n\n## 第六条 审批权限\n\n请假按天数分级审批，审批人如下表。\n\n"
         "| 请假天数 | 审批人 |\n|---|---|\n| 3天以内（含3天） | 直接上级 |\n"
         "| 3天以上10天以内（含10天） | 直接上级、部门负责人 |\n| 10天以上 | 直接上级、部门负责人、总经理 |\n")


def test_a_tier_tables_row_is_the_one_whose_range_holds_the_figure(kb_of):
    from pipeline.extract import _range_key_rows
    from pipeline.numbers import find_quantities
    rows = [["3天以内（含3天）", "直接上级"], ["3天以上10天以内（含10天）", "直接上级、部门负责人"], ["10天以上", "总经理"]]
    assert _range_key_rows(find_quantities("一次请5天假"), rows) == [(rows[1], "3天以上10天以内（含10天）")]
    assert _range_key_rows(find_quantities("一次请12天假"), rows) == [(rows[2], "10天以上")]
    assert _range_key_rows(find_quantities("一次请5个月"), rows[:1]) == []  # outside every row's range
    assert _range_key_rows([], rows) == []
    kb = kb_of({"某某公司请假管理制度.md": LEAVE}, settings=AskSettings(gate_weights=""))
    got = tried(kb, "某某公司请假管理制度规定，请假5天的审批人是谁？")
    cell = [x for x in got if x.get("method") == "strategy:table.cell"]
    assert cell and cell[0]["answer"] == "请假天数3天以上10天以内（含10天）：直接上级、部门负责人", got


def test_a_tier_row_is_named_with_or_without_a_space(kb_of):
    kb = kb_of({"某某集团差旅费报销办法.md": TRAVEL}, settings=AskSettings(gate_weights=""))
    for q in ("某某集团差旅费报销办法中，C类人员到二类城市出差的住宿费报销标准是每人每天多少元？",
              "某某集团差旅费报销办法中，C 类人员到二类城市出差的住宿费报销标准是每人每天多少元？"):
        assert any(x.get("method") == "strategy:table.cell" and x.get("answer") == "C 类：450" for x in tried(kb, q)), q


ORDERING = ("# 某某LDO数据手册\n\n## 12 订购信息\n\n表 12-1 标准型号订购表\n\n| 订购型号 | 输出电压 | 封装 |\n|---|---|---|\n"
            "| XL-18S5 | 1.8V | SOT-23-5 |\n| XL-28S5 | 2.8V | SOT-23-5 |\n| XL-18D6 | 1.8V | DFN-6 |\n"
            "| XL-28D6 | 2.8V | DFN-6 |\n| XL-33D6 | 3.3V | DFN-6 |\n")


def test_the_row_that_holds_every_named_key_cell(kb_of):
    kb = kb_of({"某某LDO数据手册.md": ORDERING}, settings=AskSettings(gate_weights=""))
    got = tried(kb, "某某LDO输出2.8V、DFN-6封装的订购型号是什么？")
    cell = [x for x in got if x.get("method") == "strategy:table.cell"]
    assert cell and cell[0]["answer"] == "DFN-6：XL-28D6", got  # not every row holding 2.8V or DFN-6


def test_other_periods():
    from pipeline.orchestrator import other_periods
    money = {"kind": "money", "number": 46500, "unit": "元"}
    assert other_periods("我们每年固定要付的维保服务费是多少？", "服务费按季度支付，每季度46500元。", money) == (["年"], ["季度"])
    assert other_periods("我们每年固定要付的维保服务费是多少？", "本合同年度服务费为人民币186000元", money) is None
    assert other_periods("维保服务费是多少？", "服务费按季度支付，每季度46500元。", money) is None  # no period asked
    assert other_periods("每月租金多少？", "月租金为8000元，按季度支付", money) is None  # 月租金 states the month too
    assert other_periods("每年保养几次？", "每季度保养一次", {"kind": "duration", "number": 1, "unit": "季度"}) is None


MAINTENANCE = ("# 某某大厦空调维保合同\n\n## 第五条 服务费用\n\n5.1 本合同服务期为一年。\n\n"
               "5.2 服务费按季度支付，每季度 46500 元。\n")


@pytest.mark.parametrize("doc,asked,figure,why,own,value", [
    # a sentence about other tiers of the series (D类、三类) does not answer for the question's (C类、二类)
    (("某某集团住宿费标准.md", RATES), "某某集团住宿费标准中，C 类人员到二类城市出差的住宿费每人每天多少元？", "320",
     "的证据说的是D类、三类，问题问的是C类、二类", "某某集团住宿费标准中，D 类人员到三类城市出差的住宿费每人每天多少元？", 320),
    # an amount per another period (每季度) does not answer for the asked one (每年)
    (("某某大厦空调维保合同.md", MAINTENANCE), "某某大厦空调维保合同里，每年的维保服务费是多少？", "46500",
     "的金额是按季度计的，问题问的是按年", "某某大厦空调维保合同里，每季度的维保服务费是多少？", 46500),
])
def test_a_sentence_about_another_case_does_not_answer(kb_of, doc, asked, figure, why, own, value):
    kb = kb_of(dict([doc]), settings=AskSettings(gate_weights=""))
    a, *refused = tried(kb, asked)
    assert a["status"] == "not_found", a["answer"]
    refused = [r for r in refused if figure in r.get("answer", "")]
    assert refused and refused[0]["why"].endswith(why), refused
    b = kb.ask(own)  # its own case: answered
    assert (b.status, b.value["number"]) == ("answered", value), b.reasoning


CHIP = ("# 星河微 XH100 音频芯片数据手册\n\n## 9 功能描述\n\n### 9.1 地址选择\n\n"
        "SEL 引脚通过对地电阻选择器件的 7 位 I2C 地址，对应关系如下：\n\n"
        "| 对地电阻 | 7位地址 | 写地址 |\n|---|---|---|\n| 10kΩ | 0x2C | 0x58 |\n| 47kΩ | 0x2E | 0x5C |\n\n"
        "### 9.2 复位\n\n向寄存器 0x01 写入 0x80 可使芯片软复位。\n")


def test_a_code_asked_by_a_compound_noun_and_never_the_one_the_question_names(kb_of):
    """哪个寄存器 / 哪个从机地址: a code is asked (rules/value_kinds.yaml, a compound noun of vk.code); the answer is
    never an identifier the question itself names (SEL), nor the kind a lead sentence announces (…I2C 地址，…如下：)."""
    kb = kb_of({"星河微XH100数据手册.md": CHIP})
    a = kb.ask("让芯片软复位要写哪个寄存器？")
    assert (a.status, a.value) == ("answered", {"kind": "text", "text": "0x01"}), a.reasoning
    for b in tried(kb, "SEL脚接47k电阻时，主机要用哪个从机地址？"):
        assert (b.get("value") or {}).get("text") not in ("I2C", "SEL"), b


SUBSCRIPTION = ("# 某某云存储服务说明\n\n## 三、收费标准\n\n"
                "3.1 云存储服务按套餐收费。月度套餐为每月15元，保存最近7日的录像；"
                "年度套餐为每年168元，保存最近30日的录像。\n")


def test_after_an_amount_per_another_period_the_next_extraction_is_tried(kb_of):
    # 每月15元 is refused for a question asked per year; the sentence after it states the yearly amount
    kb = kb_of({"某某云存储服务说明.md": SUBSCRIPTION})
    a = kb.ask("某某云存储服务的录像每年要交多少元？")  # the monthly amount is the first extraction
    assert a.status == "answered", a.to_dict()
    assert (a.value or {}).get("number") == 168
    assert "年度套餐为每年168元" in a.evidence[0].text


def test_a_figure_with_a_unit_of_measure_is_no_code(kb_of):
    # 下单该填哪个型号: a code is asked; a parameter's default with a unit (默认波特率为1Mbps) is no model code
    doc = ("# 某某电调数据手册\n\n## 9.2 CAN总线\n\nCAN型号的默认波特率为1Mbps，可通过配置软件修改。\n")
    kb = kb_of({"某某电调数据手册.md": doc})
    for b in tried(kb, "走CAN总线的版本，下单该填哪个型号？"):
        assert b["method"] != "template:number.setting", b
