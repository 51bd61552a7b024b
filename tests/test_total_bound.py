"""A question asking a total (加起来, 一共) is answered by a bound on a total (总容量不得超过…, 累计不超过…), not only by
a sentence that states a total (rules/extract_cues.yaml says.total)."""


def test_a_bound_on_a_total_answers_a_total_question(kb_of):
    kb = kb_of({"录像机手册.md":
        "# 某型网络硬盘录像机用户手册\n\n## 5.2 循环覆盖与录像加锁\n\n"
        "1. 硬盘写满后，系统默认开启循环覆盖，自动删除最早的录像文件；\n"
        "2. 被加锁的录像文件不会被循环覆盖，但加锁录像总容量不得超过硬盘容量的 20%。\n"})
    a = kb.ask("加锁的录像加起来最多能占硬盘容量的多大比例？")
    assert a.status == "answered"
    assert a.value == {"kind": "number", "number": 20, "unit": "%"}
