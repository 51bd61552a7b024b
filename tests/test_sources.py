"""Sources end to end on documents written here: kinds, versions in force, statute-vs-policy conflicts, navigation."""
import pytest

from pipeline import KnowledgeBase, LoopAgentError
from pipeline.rules import RuleSet
from pipeline.sources import compile_rules, parse_version, profile_document

STATUTE = """# 女职工劳动保护特别规定

2012年4月18日 国务院第200次常务会议通过

<!-- INFO END -->

第七条 女职工生育享受98天产假，其中产前可以休假15天；难产的，增加产假15天。

第八条 女职工产假期间的生育津贴，按照用人单位上年度职工月平均工资的标准由生育保险基金支付。
"""

HANDBOOK = """# 某某科技公司员工手册

## 第三章 假期

第一条 女职工生育享受产假90天。

第二条 职工每年享受带薪年休假7天。
"""

LEAVE_LAW = """# 职工带薪年休假条例

<!-- INFO END -->

第三条 职工连续工作满1年的，享受带薪年休假不少于5天。
"""

OLD = """# 上海市市级城市维护项目管理办法

## 第三章 资金

第十条 项目前期费用补助标准为每个项目3000元。

第十一条 项目验收应当在竣工后30日内完成。
"""

NEW = OLD.replace("3000元", "5000元")


def make_kb(tmp_path, files, kind=None):
    d = tmp_path / "docs"
    for name, text in files.items():
        p = d / name
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(text, encoding="utf-8")
    kb = KnowledgeBase(tmp_path / "kb.sqlite", audit_log=None)
    rep = kb.ingest([d], kind=kind)
    assert rep.failed == 0, rep.lines
    return kb


# --- kinds ------------------------------------------------------------------------------------------

def test_kinds_from_title_header_folder(tmp_path):
    kb = make_kb(tmp_path, {"行政法规/女职工劳动保护特别规定(2012-04-28).md": STATUTE,
                            "制度/员工手册.md": HANDBOOK,
                            "合同/门面房屋租赁合同范本_武汉.md": "# 门面房屋租赁合同范本\n\n第一条 租期一年。\n"})
    docs = {d["source"]: d["meta"]["source_profile"] for d in kb.store.documents()}
    assert docs["行政法规/女职工劳动保护特别规定(2012-04-28).md"]["doc_kind"] == "administrative_regulation"
    assert docs["行政法规/女职工劳动保护特别规定(2012-04-28).md"]["version"] == "2012-04-28"
    assert docs["制度/员工手册.md"] == {"doc_kind": "internal_policy", "kind_rule": "kind.internal.handbook",
                                      "instrument": "员工手册", "version": None, "date": None, "edition": None}
    assert docs["合同/门面房屋租赁合同范本_武汉.md"]["doc_kind"] == "contract"


def test_ingest_kind_overrides_the_rules(tmp_path):
    kb = make_kb(tmp_path, {"说明.md": "# 说明\n\n第一条 本说明自发布之日起施行。\n"}, kind="internal_policy")
    prof = kb.store.documents()[0]["meta"]["source_profile"]
    assert (prof["doc_kind"], prof["kind_rule"]) == ("internal_policy", "ingest --kind")
    assert kb.orchestrator.sources.profile(kb.store.documents()[0]["doc_id"]).kind == "internal_policy"


def test_ingest_unknown_kind_is_a_coded_error(tmp_path):
    kb = KnowledgeBase(tmp_path / "kb.sqlite", audit_log=None)
    with pytest.raises(LoopAgentError) as exc:
        kb.ingest([tmp_path], kind="law")
    assert exc.value.code == "E303" and "internal_policy" in str(exc.value)


def test_doc_kind_rule_without_pattern_is_rejected(tmp_path):
    (tmp_path / "k.yaml").write_text("kind: doc_kind\nrules:\n  - id: kind.bad\n    doc_kind: statute\n",
                                     encoding="utf-8")
    from pipeline.rules import load_rule_file
    with pytest.raises(LoopAgentError) as exc:
        load_rule_file(tmp_path / "k.yaml")
    assert exc.value.code == "E201" and "kind.bad" in str(exc.value) and "title" in str(exc.value)


# --- versions ---------------------------------------------------------------------------------------

def test_version_markers_without_metadata_dates():
    c = compile_rules(RuleSet())
    old = profile_document(c, "上海市市级城市维护项目管理办法_2020版_沪府规〔2020〕1号",
                           "政策/上海市市级城市维护项目管理办法_2020版_沪府规〔2020〕1号.md")
    new = profile_document(c, "上海市市级城市维护项目管理办法", "政策/上海市市级城市维护项目管理办法_2025修订版_沪府规〔2025〕1号.md")
    assert old.instrument == new.instrument == "上海市市级城市维护项目管理办法"
    assert (old.label, old.date, new.label, new.date) == ("2020版", (2020, 0, 0), "2025修订版", (2025, 0, 0))
    assert old.kind == new.kind == "local_regulation"
    v = parse_version(c.markers, "沁恒WCHNET协议栈库说明_版本1D")
    assert (v.name, v.label, v.edition) == ("沁恒WCHNET协议栈库说明", "版本1D", ((1, "D"),))


@pytest.fixture()
def versions_kb(tmp_path):
    # the newer version is ingested first: the version in force comes from the markers, not the order
    return make_kb(tmp_path, {"政策/上海市市级城市维护项目管理办法_2025修订版_沪府规〔2025〕1号.md": NEW,
                              "政策/上海市市级城市维护项目管理办法_2020版_沪府规〔2020〕1号.md": OLD})


def test_question_without_version_uses_the_version_in_force(versions_kb):
    a = versions_kb.ask("市级城市维护项目的前期费用补助标准是每个项目多少钱？")
    assert a.status == "answered", a.reasoning
    assert a.value == {"kind": "money", "number": 5000, "unit": "元"}
    ev = a.evidence[0].to_dict()
    assert (ev["doc_kind"], ev["version"]) == ("local_regulation", "2025修订版")
    assert "版本：《上海市市级城市维护项目管理办法》采用 2025修订版（现行版本（最新））；库中另有版本：2020版" in a.reasoning


@pytest.mark.parametrize("question", ["2020版的市级城市维护项目管理办法规定前期费用补助标准是每个项目多少钱？",
                                      "修订前的市级城市维护项目管理办法规定前期费用补助标准是每个项目多少钱？"])
def test_question_naming_a_version_uses_it(versions_kb, question):
    a = versions_kb.ask(question)
    assert a.status == "answered", a.reasoning
    assert a.value == {"kind": "money", "number": 3000, "unit": "元"}
    assert a.evidence[0].version == "2020版"
    assert any(r.startswith("版本：《上海市市级城市维护项目管理办法》采用 2020版") and "另有版本：2025修订版" in r
               for r in a.reasoning)


# --- conflicts --------------------------------------------------------------------------------------

def test_handbook_contradicting_a_statute_is_ambiguous(tmp_path):
    kb = make_kb(tmp_path, {"女职工劳动保护特别规定(2012-04-28).md": STATUTE, "制度/员工手册.md": HANDBOOK})
    a = kb.ask("女职工生育能休多少天产假？")
    assert a.status == "ambiguous", a.reasoning
    assert a.method == "conflict:sources"
    items = a.value["items"]
    assert [(i["doc_kind"], i["value"]) for i in items] == [
        ("administrative_regulation", {"kind": "duration", "number": 98, "unit": "日"}),
        ("internal_policy", {"kind": "duration", "number": 90, "unit": "日"})]
    assert [(e.doc_kind, e.text) for e in a.evidence] == [
        ("administrative_regulation", "女职工生育享受98天产假，其中产前可以休假15天；"),
        ("internal_policy", "女职工生育享受产假90天。")]
    assert any("内部制度不能取代法律规定" in r for r in a.reasoning)


def test_company_rule_above_a_statutory_floor_is_resolved_by_a_stated_rule(tmp_path):
    kb = make_kb(tmp_path, {"职工带薪年休假条例(2007-12-14).md": LEAVE_LAW, "制度/员工手册.md": HANDBOOK})
    a = kb.ask("职工每年享受带薪年休假多少天？")
    assert a.status == "answered", a.reasoning
    assert a.value == {"kind": "duration", "number": 7, "unit": "日"}
    assert [e.doc_kind for e in a.evidence] == ["internal_policy", "administrative_regulation"]
    assert any(r.startswith("来源冲突已按规则 conflict.statute_floor 处理") for r in a.reasoning)


COMPANY_RULE = """# 晨曦包装材料有限公司考勤与休假管理办法

第五条 女员工生育的，享受产假90日。
"""

PORT_RULE = """# 临港口岸服务条例

2021年5月8日临港市第十五届人民代表大会常务委员会第九次会议通过

<!-- INFO END -->

第九条 口岸查验单位应当在2小时内完成查验。
"""


def test_company_rule_outside_a_policy_folder_is_internal_and_never_overrides_a_statute(tmp_path):
    # a rule named after the company that issued it is the company's own, wherever it lies; so its 90日 is
    # checked against the statute's 98天 and both are shown (it was a 部门规章 once, and answered alone)
    kb = make_kb(tmp_path, {"女职工劳动保护特别规定(2012-04-28).md": STATUTE, "晨曦考勤与休假管理办法.md": COMPANY_RULE,
                            "临港口岸服务条例.md": PORT_RULE})
    kinds = {d["source"]: (d["meta"]["source_profile"]["doc_kind"], d["meta"]["source_profile"]["kind_rule"])
             for d in kb.store.documents()}
    assert kinds == {"女职工劳动保护特别规定(2012-04-28).md": ("administrative_regulation", "kind.administrative_regulation"),
                     "晨曦考勤与休假管理办法.md": ("internal_policy", "kind.internal.company"),
                     "临港口岸服务条例.md": ("local_regulation", "kind.local_regulation.adopted")}
    a = kb.ask("女员工生孩子能休多少天产假？")
    assert a.status == "ambiguous", a.reasoning
    assert [(i["doc_kind"], i["value"]["number"]) for i in a.value["items"]] == [
        ("administrative_regulation", 98), ("internal_policy", 90)]
    b = kb.ask("口岸查验单位应当在多长时间内完成查验？")
    assert b.status == "answered", b.reasoning
    assert (b.value, b.evidence[0].doc_kind) == ({"kind": "duration", "number": 2, "unit": "小时"}, "local_regulation")


# --- navigation ---------------------------------------------------------------------------------------

def test_open_question_gets_a_navigation_card(tmp_path):
    kb = make_kb(tmp_path, {"女职工劳动保护特别规定(2012-04-28).md": STATUTE})
    a = kb.ask("讲讲女职工产假的规定")
    d = a.to_dict()
    assert (d["status"], d["answer"], d["method"]) == ("navigation", "", "navigation:nav.open")
    nav = d["navigation"]
    assert [(n["section"], n["summary"]) for n in nav] == [
        (["第七条"], "女职工生育享受98天产假，其中产前可以休假15天；"),
        (["第八条"], "女职工产假期间的生育津贴，按照用人单位上年度职工月平均工资的标准由生育保险基金支付。")]
    for n in nav:
        assert set(n) == {"doc_id", "title", "section", "block_id", "summary"}
        assert kb.block(n["block_id"]).text.startswith(n["summary"].rstrip("…"))


def test_a_value_question_is_not_navigation(tmp_path):
    kb = make_kb(tmp_path, {"女职工劳动保护特别规定(2012-04-28).md": STATUTE})
    a = kb.ask("女职工生育有什么规定，享受多少天产假？")
    assert a.status == "answered" and a.value == {"kind": "duration", "number": 98, "unit": "日"}
    assert "navigation" not in a.to_dict()


def test_cli_ingest_kind_and_the_kind_beside_each_citation(tmp_path, capsys):
    from pipeline.cli import main
    d = tmp_path / "docs"
    d.mkdir()
    (d / "休假须知.md").write_text(HANDBOOK.replace("某某科技公司员工手册", "休假须知"), encoding="utf-8")
    db = str(tmp_path / "kb.sqlite")
    assert main(["ingest", str(d), "--db", db, "--kind", "internal_policy"]) == 0
    capsys.readouterr()
    assert main(["ask", "职工每年享受带薪年休假多少天？", "--db", db, "--audit", "-"]) == 0
    out = capsys.readouterr().out
    assert "  依据：休假须知（内部制度） 第三章 假期 > 第二条：职工每年享受带薪年休假7天。" in out
    assert main(["ask", "讲讲职工带薪年休假的规定", "--db", db, "--audit", "-"]) == 3
    out = capsys.readouterr().out
    assert out.startswith("相关章节（原文摘录）：\n  · 休假须知 第三章 假期 > 第二条：职工每年享受带薪年休假7天。\n")


def test_comparison_of_two_versions_is_templated(versions_kb):
    a = versions_kb.ask("市级城市维护项目管理办法规定的前期费用补助标准是每个项目多少钱？2020版和2025修订版有什么不同？")
    assert a.status == "answered" and a.method == "compare:versions", a.reasoning
    assert a.answer.startswith("2025修订版将2020版的3000元调整为5000元。")
    assert [(e.version, e.text) for e in a.evidence] == [("2020版", "项目前期费用补助标准为每个项目3000元。"),
                                                        ("2025修订版", "项目前期费用补助标准为每个项目5000元。")]
    assert "对比：2025修订版将2020版的3000元调整为5000元" in a.reasoning
    assert not [r for r in a.reasoning if r.startswith("版本：")]


MEDIATION = """# 人民调解法

<!-- INFO END -->

第八条 人民调解委员会由委员三至九人组成，设主任一人。
"""

BOARD_RULES = """# 某某科技公司员工手册

## 第五条

员工之间的纠纷先由工会组织人民调解，调解小组由职工代表组成。公司每年举办两次培训。年度考核分为四个等级。审核委员会中至少应有一名独立董事是会计专业人士。
"""


def test_a_policy_whose_article_only_shares_words_is_no_conflict(tmp_path):
    # the policy's article holds 人民调解, 委员会 and 组成, but its sentences around the figure (一名独立董事)
    # speak of something else: the statute's answer stands
    kb = make_kb(tmp_path, {"人民调解法(2010-08-28).md": MEDIATION, "制度/员工手册.md": BOARD_RULES})
    a = kb.ask("一个人民调解委员会由多少名委员组成？")
    assert a.status == "answered", a.reasoning
    assert a.evidence[0].text == "人民调解委员会由委员三至九人组成，设主任一人。"
    assert [e.doc_kind for e in a.evidence] == ["statute"]


def test_a_comparison_asking_each_version_for_a_day_compares_end_dates(tmp_path):
    # 分别到哪一天: stripped of its comparison words the question asks a date, and each version gives its own
    old = OLD + "\n## 第四章 附则\n\n第二十条 本办法自2020年2月1日起施行，有效期至2025年1月31日。\n"
    new = old.replace("3000元", "5000元").replace("自2020年2月1日", "自2025年2月1日").replace("至2025年1月31日", "至2030年1月31日")
    kb = make_kb(tmp_path, {"政策/上海市市级城市维护项目管理办法_2025修订版_沪府规〔2025〕1号.md": new,
                            "政策/上海市市级城市维护项目管理办法_2020版_沪府规〔2020〕1号.md": old})
    a = kb.ask("上海市市级城市维护项目管理办法2020版和2025修订版的有效期分别到哪一天？")
    assert a.status == "answered" and a.method == "compare:versions", a.reasoning
    assert [(e.version, e.text) for e in a.evidence] == [
        ("2020版", "本办法自2020年2月1日起施行，有效期至2025年1月31日。"),
        ("2025修订版", "本办法自2025年2月1日起施行，有效期至2030年1月31日。")]


def test_each_version_of_a_manual_is_asked_for_one_value(tmp_path):
    # 分别是多少 asks two values in all but one in each version: a number without its unit (波特率为57600)
    # answers each version's own question, as it would a question about that version alone
    manual = "# 某某芯片IAP使用说明\n\n## 串口下载\n\n将开发板连接电脑。选用串口默认波特率为{rate}，可在程序中更改不同波特率。\n"
    kb = make_kb(tmp_path, {"手册/某某芯片IAP使用说明_2022版.md": manual.format(rate="57600"),
                            "手册/某某芯片IAP使用说明_2025版.md": manual.format(rate="115200")})
    a = kb.ask("某某芯片IAP使用说明2022版和2025版里，串口下载的默认波特率分别是多少？")
    assert a.status == "answered" and a.method == "compare:versions", a.reasoning
    assert [(e.version, e.text) for e in a.evidence] == [
        ("2022版", "选用串口默认波特率为57600，可在程序中更改不同波特率。"),
        ("2025版", "选用串口默认波特率为115200，可在程序中更改不同波特率。")]
    assert a.answer.startswith("2025版将2022版的57600调整为115200。")


def _subsidy_compared(kb, question: str):
    """``question`` answered as a comparison of the two versions' 前期费用补助标准 (3000元 → 5000元)."""
    a = kb.ask(question)
    assert a.status == "answered" and a.method == "compare:versions", a.reasoning
    assert a.answer.startswith("2025修订版将2020版的3000元调整为5000元。")
    return a


def test_two_versions_named_by_year_are_compared_without_a_comparison_word(versions_kb):
    # no 分别 / 有什么不同: naming two years of one instrument asks each version for its figure
    a = _subsidy_compared(versions_kb, "按2020年的市级城市维护项目管理办法和2025年修订的办法，前期费用补助标准是每个项目多少钱？")
    assert "问题类型：money → compare（问题点名同一文件的两个年份版本）" in a.reasoning
    # one year only: that version answers alone
    a = versions_kb.ask("按2020年的市级城市维护项目管理办法，前期费用补助标准是每个项目多少钱？")
    assert (a.value["number"], a.evidence[0].version) == (3000, "2020版"), a.reasoning


REFERRING = """# 某某市养犬管理条例

<!-- INFO END -->

第十条 在本市禁止下列事项：
（一）携带犬只进入公园；
（二）在夜间放任犬只吠叫扰民；
（三）遗弃所养犬只。

第十一条 养犬人应当为犬只办理登记。登记证有效期为一年。

第二十条 城市管理部门负责审查认定养犬人是否存在本条例第十条第一项、第三项规定的行为，提出批评教育、警告或者罚款等处理意见。
"""


def test_an_answer_pointing_at_another_article_is_that_article_s_items(tmp_path):
    kb = make_kb(tmp_path, {"地方性法规/某某市养犬管理条例.md": REFERRING})
    a = kb.ask("城市管理部门审查认定的是养犬人的哪几种行为？")
    assert a.status == "answered", a.reasoning
    assert a.value == {"kind": "list", "items": ["（一）携带犬只进入公园；", "（三）遗弃所养犬只。"]}
    assert [e.text for e in a.evidence][-2:] == ["（一）携带犬只进入公园；", "（三）遗弃所养犬只。"]
    assert a.method == "strategy:reference.items"
    assert any("引用条款：锚点句指向本条例第十条第一项、第三项" in r for r in a.reasoning), a.reasoning


LICENCE = ("# 某某开放许可证\n\n{edition} {month}\n\n## 1. 授权\n\n每个贡献者授予你永久性的、免费的版权许可。"
           "本许可证的有效期为{years}年。\n")


def test_two_editions_named_by_number_are_compared(tmp_path):
    # 第一版与第二版 (an edition in Chinese numerals) / v1和v2: each edition answers, oldest first
    kb = make_kb(tmp_path, {
        "合同/某某开放许可证_第1版.txt": LICENCE.format(edition="第1版", month="2019年8月", years="五"),
        "合同/某某开放许可证_第2版.txt": LICENCE.format(edition="第2版", month="2020年1月", years="十")})
    for q in ("某某开放许可证的第一版与第二版规定的有效期分别是几年？",
              "某某开放许可证的v1与v2规定的有效期分别是几年？"):
        a = kb.ask(q)
        assert a.status == "answered" and a.method == "compare:versions", a.reasoning
        assert [(e.version, e.text) for e in a.evidence] == [
            ("第1版", "本许可证的有效期为五年。"), ("第2版", "本许可证的有效期为十年。")]
        assert "问题类型：duration → compare（问题点名同一文件的两个年份版本）" in a.reasoning


def test_versions_before_and_after_a_revision_are_compared(versions_kb):
    # 修订前…修订后…: the version before the one in force, and the one in force
    _subsidy_compared(versions_kb, "市级城市维护项目管理办法修订前与修订后，前期费用补助标准各是每个项目多少钱？")


def test_a_comparison_led_by_a_yes_no_asks_each_version_for_its_figure(versions_kb):
    # 有补助吗？…各是多少: the lead-in asks yes or no; each version's question asks the figure, and the words
    # about the versions themselves (原文, 说法) and the word asking for each (各是) count for neither version's provision
    a = _subsidy_compared(versions_kb, "市级城市维护项目管理办法里有前期费用补助吗？2020版原文和2025修订版的说法里，"
                                       "补助标准各是每个项目多少钱？")
    assert "版本对比：各版本的问题不计「原文、说法、各是」" in a.reasoning


RESERVOIR = "# 甲市水库保护条例\n\n第十二条 在水库保护范围内垂钓的，处八十元罚款。\n\n第十三条 本条例自2020年1月1日起施行。\n"
RIVER = "# 乙市河道管理办法\n\n第九条 在河道管理范围内垂钓的，处三十元以上一百五十元以下罚款。\n\n第十条 本办法自2018年3月1日起施行。\n"


def test_two_instruments_each_asked_for_a_value_are_answered_each_from_its_own(kb_of):
    # 甲条例和乙办法…分别: not versions of one instrument, each named by a name of its own: each document answers for
    # itself, both provisions are the evidence, and no version summary (调整为) is made
    kb = kb_of({"甲市水库保护条例.md": RESERVOIR, "乙市河道管理办法.md": RIVER})
    a = kb.ask("甲市水库保护条例和乙市河道管理办法，对垂钓分别罚款多少？")
    assert (a.status, a.method) == ("answered", "compare:documents"), a.reasoning
    assert sorted(e.text for e in a.evidence) == ["在水库保护范围内垂钓的，处八十元罚款。",
                                                  "在河道管理范围内垂钓的，处三十元以上一百五十元以下罚款。"]
    assert "调整为" not in a.answer
    assert any(r.startswith("跨文件对比：") for r in a.reasoning)


def test_each_instrument_asked_for_its_own_words(kb_of):
    # 甲条例规定的施行日和乙办法的罚款: words between a name and the next belong to that document's part only
    kb = kb_of({"甲市水库保护条例.md": RESERVOIR, "乙市河道管理办法.md": RIVER})
    q = kb.orchestrator.analyzer.run("甲市水库保护条例里保护范围内垂钓和乙市河道管理办法里管理范围内垂钓，分别罚款多少？")
    docs = [kb.store.document(d) for d in q.constraints["doc_ids"]]
    own = kb.orchestrator._own_words(q, docs)
    by_title = {d["title"]: own[d["doc_id"]] for d in docs}
    assert "保护" in by_title["乙市河道管理办法"] and "管理" in by_title["甲市水库保护条例"]
    assert "垂钓" not in by_title["甲市水库保护条例"] | by_title["乙市河道管理办法"]


def test_effective_dates_of_two_instruments_named_with_their_versions(kb_of):
    # 甲条例（2019年版）和乙办法（2018年修正）…各自的施行日期是哪天，哪部先生效: the bracket names a version, not words of
    # the first document's own; 日期 only names the kind of value; 生效 / 实施 say what 施行 says
    kb = kb_of({"甲市水库保护条例.md": RESERVOIR, "乙市河道管理办法.md": RIVER})
    a = kb.ask("甲市水库保护条例（2019年版）和乙市河道管理办法（2018年修正），哪部先生效？各自的施行日期是哪天？")
    assert (a.status, a.method) == ("answered", "compare:documents"), a.reasoning
    assert sorted(e.text for e in a.evidence) == ["本办法自2018年3月1日起施行。", "本条例自2020年1月1日起施行。"]
    q = kb.orchestrator.analyzer.run("乙市河道管理办法是哪天开始实施的？")
    assert q.constraints["synonym_term_weight"] == {"实施": 1.0}


def test_a_title_is_also_named_by_its_short_forms():
    from pipeline.analyze import doc_names
    names = doc_names("中华人民共和国各级人民代表大会常务委员会监督法", "docs/各级人民代表大会常务委员会监督法(2006-08-27).md")
    assert "各级人大常委会监督法" in names and "中华人民共和国各级人大常委会监督法" in names
    assert doc_names("某某公司章程", "某某公司章程.md") == ["某某公司章程"]  # nothing to shorten
