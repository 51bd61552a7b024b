"""Figures inside a calendar date are no lengths of time, and a question about an end date takes only an end."""
from pipeline.orchestrator import AskSettings

DOC = ("# 某镇老旧小区改造补贴实施办法\n\n## 一、补贴标准\n\n每个楼道每年补贴三千元。\n\n"
       "## 二、其他\n\n补贴资金按季度拨付。\n\n某镇人民政府2024年5月8日\n")


def test_the_year_and_day_of_a_signature_date_are_no_duration(kb_of):
    a = kb_of({"办法.md": DOC}).ask("某镇人民政府2024年5月8日发的这个办法，补贴要持续几年？")
    assert a.status == "not_found"
    assert not any("识别值：2024年" in r or "识别值：8日" in r for r in a.reasoning)


def test_an_issue_date_does_not_answer_when_something_ends(kb_of):
    kb = kb_of({"办法.md": DOC})
    for q in ("某镇人民政府的补贴实施办法管到哪天为止？", "某镇人民政府老旧小区改造补贴实施办法什么时候到期？"):
        a = kb.ask(q)  # the signature date 2024年5月8日 is when it was issued, not when it ends
        assert (a.status, a.value) == ("not_found", None)


def test_an_end_date_answers_when_something_ends(kb_of):
    doc = DOC.replace("补贴资金按季度拨付。", "补贴资金按季度拨付。本办法有效期至2026年6月30日。")
    # the coverage bar decides (72% ≥ 70%): the trained gate, more cautious, refuses it (probability 0.70 < 0.75)
    a = kb_of({"办法.md": doc}, settings=AskSettings(gate_weights="")).ask("某镇老旧小区改造补贴实施办法的有效期到哪天为止？")
    assert (a.status, a.value) == ("answered", {"kind": "date", "iso": "2026-06-30"})


def test_a_year_and_month_does_not_answer_which_day(kb_of):
    doc = "# 关于继续实施试点办法的通知\n\n经评估，2011年1月印发的试点办法需继续实施。\n\n某市人民政府\n\n2024年12月18日\n"
    kb = kb_of({"政策/关于继续实施试点办法的通知.md": doc})
    a = kb.ask("市政府是哪一天发文让试点办法继续实施的？")
    assert a.value != {"kind": "text", "text": "2011年1月"}  # date.month names no day
    month = next(t for t in kb.orchestrator.extractor.templates() if t.id == "date.month")
    assert month.not_asked.search("市政府是哪一天发文的？") and not month.not_asked.search("市政府是哪一年发文的？")


def test_a_date_something_starts_from_does_not_answer_a_deadline(kb_of):
    # 最迟哪天之前交: 2029年1月1日以后 is when a next claim may start, no deadline; 1月20日前 is one
    doc = ("# 某公司员工配镜补贴办法\n\n第六条 员工在2027年已报销配镜费用的，下一次可申请配镜报销的时间为2029年1月1日以后。\n\n"
           "第七条 报销申请应于配镜当年的12月25日前提交人力资源部。\n")
    kb = kb_of({"办法.md": doc}, settings=AskSettings(gate_weights=""))
    for a in [kb.ask("配镜报销申请最迟得在哪天之前交？", trace=True).to_dict()]:
        tried = [a] + a["stages"].get("extract", {}).get("rejected", [])
        assert not any((x.get("value") or {}).get("iso") == "2029-01-01" for x in tried), tried
    from pipeline.extract import CUES
    assert CUES.rx("ask.deadline").search("材料最晚哪一天要交？") and not CUES.rx("ask.deadline").search("哪天开始受理？")


def test_the_latest_time_is_an_upper_bound_and_the_latest_advance_a_lower_one():
    from pipeline.extract import _direction_conflict
    # 最晚多久内通知: a window; 静置4小时以上 is a minimum of another act, 3日内 a window
    assert _direction_conflict("冰箱坏了，最晚多久内得告诉搬家公司？", "冰箱运抵后应静置4小时以上再通电")
    assert not _direction_conflict("冰箱坏了，最晚多久内得告诉搬家公司？", "甲方应在验收之日起3日内书面通知乙方")
    # 最晚要提前多久取消: the least advance notice, which 至少提前24小时 states
    assert not _direction_conflict("约好的练车去不了，最晚要提前多久取消？", "乙方应至少提前24小时取消预约")
    assert _direction_conflict("约好的练车去不了，最晚要提前多久取消？", "每次取消不得超过2次")
