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
