"""A question that names a document by a run of its title (那份相互保密协定) is restricted to it."""
DOCS = {
    "合同/甲公司软件开发相互保密协定范本.md": "# 甲公司软件开发相互保密协定范本\n\n## 第五条\n\n合作终止后，乙方应于十个工作日内归还甲方提供的全部资料。\n",
    "合同/甲公司顾问委任合约书范本.md": "# 甲公司顾问委任合约书范本\n\n## 第五条\n\n委任终止后，顾问应于三十日内归还公司提供的全部资料。\n",
}


def test_a_run_of_a_title_names_that_document(kb_of):
    a = kb_of(DOCS).ask("按那份相互保密协定，终止后资料要在几个工作日内归还？")
    assert "文档限定：相互保密协定" in a.reasoning
    assert (a.status, a.value) == ("answered", {"kind": "duration", "number": 10, "unit": "工作日"})
    assert a.evidence[0].title == "甲公司软件开发相互保密协定范本"


def test_a_run_shorter_than_min_chars_names_none(kb_of):
    a = kb_of(DOCS).ask("按保密协定，终止后资料要在几个工作日内归还？")  # 保密协定: 4 characters
    assert not any(r.startswith("文档限定") for r in a.reasoning)
