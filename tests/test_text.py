from pipeline.text import normalize, split_sentences


def texts(s):
    return [x.text for x in split_sentences(s)]


def test_split_at_semicolon_and_full_stop():
    s = "劳动合同期限三个月以上不满一年的，试用期不得超过一个月；劳动合同期限一年以上不满三年的，试用期不得超过二个月。"
    assert texts(s) == ["劳动合同期限三个月以上不满一年的，试用期不得超过一个月；",
                        "劳动合同期限一年以上不满三年的，试用期不得超过二个月。"]


def test_quotes_and_brackets_stay_intact():
    s = "本法所称“用人单位”，是指企业。其他组织（包括个体工商户。）适用本法。"
    assert texts(s) == ["本法所称“用人单位”，是指企业。", "其他组织（包括个体工商户。）适用本法。"]


def test_closing_quote_after_ender_stays_with_sentence():
    assert texts("他说：“不行。”然后离开。") == ["他说：“不行。”", "然后离开。"]


def test_offsets_index_the_block_text():
    s = "第一句。 第二句；第三句"
    for sent in split_sentences(s):
        assert s[sent.start:sent.end] == sent.text
    assert texts(s) == ["第一句。", "第二句；", "第三句"]


def test_normalize_keeps_chinese_punctuation_and_folds_fullwidth():
    assert normalize("（一）１２３ＡＢＣ，1,000元\x01⼊门") == "（一）123ABC，1,000元入门"


def test_split_is_cached_but_each_call_gets_its_own_list():
    from pipeline.text import _split, block_sentences
    from pipeline.types import Block
    s = "第一条 甲。乙；“丙。”丁"
    a, b = split_sentences(s), split_sentences(s)
    assert a == b == _split(s) and a is not b
    a.append(None)  # a caller's list is its own
    assert split_sentences(s) == b
    t = Block(block_id="x", doc_id="d", type="table", text="列：一\n\n列：二", order=0)
    assert [(x.text, x.start) for x in block_sentences(t)] == [("列：一", 0), ("列：二", 5)]
    assert block_sentences(t) is not block_sentences(t)


def test_close_figures_maps_spans_back_to_the_spaced_text():
    from pipeline.text import close_figures, span_back
    text = "满二年，自第三年起即享有 10 日之特别休假，报文段最大为 1460 字节"
    closed, where = close_figures(text)
    assert closed == "满二年，自第三年起即享有10日之特别休假，报文段最大为1460字节"
    i = closed.index("10日")
    assert text[slice(*span_back(where, (i, i + 3)))] == "10 日"
    assert close_figures("不得超过三十日") == ("不得超过三十日", ())  # nothing to close: the same text
    assert close_figures("Version 2 of the API") == ("Version 2 of the API", ())  # Latin words keep their spaces


def test_templates_and_conditions_read_figures_set_apart_by_spaces():
    from pipeline.extract import range_conditions
    sent = "乙方服务满六个月后，当年即享有 3 日之特别休假，满 2 年，自第三年起即享有 10 日之特别休假。"
    conds = range_conditions(sent)
    assert [(c[0], c[1]) for c in conds] == [("days", 180.0), ("days", 730.0)]
    assert sent[slice(*conds[1][4])] == "满 2 年"
