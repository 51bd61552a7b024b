"""A question that names a document by a run of its title (那份相互保密协定) is restricted to it."""
import pytest

DOCS = {
    "合同/甲公司软件开发相互保密协定范本.md": "# 甲公司软件开发相互保密协定范本\n\n## 第五条\n\n合作终止后，乙方应于十个工作日内归还甲方提供的全部资料。\n",
    "合同/甲公司顾问委任合约书范本.md": "# 甲公司顾问委任合约书范本\n\n## 第五条\n\n委任终止后，顾问应于三十日内归还公司提供的全部资料。\n",
}


def test_a_run_shorter_than_min_chars_names_none(kb_of):
    a = kb_of(DOCS).ask("按保密协定，终止后资料要在几个工作日内归还？")  # 保密协定: 4 characters
    assert not any(r.startswith("文档限定") for r in a.reasoning)


NOTICE = {
    # a notice about another document holds the run as written (…房产税试点暂行办法…); the document itself has
    # the particle (…房产税试点的暂行办法): a run names both, the particle aside
    "政策/某市关于延长房产税试点暂行办法有效期的通知.md":
        "# 某市人民政府关于延长房产税试点暂行办法有效期的通知\n\n经评估，《某市开展对部分个人住房征收房产税试点的暂行办法》继续实施，"
        "有效期延长至2030年12月31日。\n",
    "政策/某市开展对部分个人住房征收房产税试点的暂行办法.md":
        "# 某市开展对部分个人住房征收房产税试点的暂行办法\n\n## 五、适用税率\n\n适用税率暂定为0.6%。\n",
}


@pytest.mark.parametrize("docs, question, run, value, title", [
    (DOCS, "按那份相互保密协定，终止后资料要在几个工作日内归还？", "相互保密协定",
     {"kind": "duration", "number": 10, "unit": "工作日"}, "甲公司软件开发相互保密协定范本"),
    # the title writes the particle (…试点的暂行办法), the question leaves it out
    (NOTICE, "某市的房产税试点暂行办法，适用税率暂定是多少？", "房产税试点暂行办法",
     {"kind": "number", "number": 0.6, "unit": "%"}, "某市开展对部分个人住房征收房产税试点的暂行办法"),
])
def test_a_run_of_a_title_names_that_document(kb_of, docs, question, run, value, title):
    a = kb_of(docs).ask(question)
    assert f"文档限定：{run}" in a.reasoning
    assert (a.status, a.value) == ("answered", value)
    assert a.evidence[0].title == title


def test_the_run_is_quoted_as_the_question_writes_it(kb_of):
    a = kb_of(NOTICE).ask("某市征收房产税试点的暂行办法里，适用税率暂定是多少？")
    assert "文档限定：征收房产税试点的暂行办法" in a.reasoning


def test_names_without_brackets_and_document_numbers():
    from pipeline.analyze import doc_names
    assert doc_names("中华人民共和国刑法修正案（八）", "刑法/刑法修正案（八）.md") == [
        "中华人民共和国刑法修正案（八）", "刑法修正案（八）", "中华人民共和国刑法修正案八", "刑法修正案八"]
    assert doc_names("关于进一步加强物业管理的若干意见", "政策/关于进一步加强物业管理的若干意见_某房规〔2021〕6号.md")[-1] \
        == "某房规〔2021〕6号"
    assert doc_names("劳动合同法", "社会法/劳动合同法(2012-12-28).md") == ["劳动合同法"]
