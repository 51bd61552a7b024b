"""哪几类 asks which items (a list); 几类 asks how many (a count)."""
from __future__ import annotations

import pytest


@pytest.mark.parametrize("question, qtype", [
    ("维修项目分成哪几类？", "list"),
    ("哪几项制度需要提交股东会审议？", "list"),
    ("维修项目分为几类？", "count"),
    ("一共规定了几项福利？", "count"),
])
def test_which_items_is_a_list_how_many_a_count(example_kb, question, qtype):
    q = example_kb.orchestrator.analyzer.run(question)
    assert q.qtype == qtype
