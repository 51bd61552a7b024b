"""Traditional documents are matched as Simplified and quoted as written."""
from pipeline import KnowledgeBase
from pipeline.fold import fold, is_traditional

TRAD = """# 相互保密協定

第一條 本協定所稱機密資訊，指雙方於合作期間提供之技術資料。

第二條 合作終止後，乙方應於十個工作日內返還全部資料。
"""


def test_fold_is_one_character_for_one():
    assert fold("協定終止後返還資料") == "协定终止后返还资料"
    assert len(fold(TRAD)) == len(TRAD)
    assert fold("著作权法") == "著作权法"  # 著 is an ordinary Simplified character too


def test_only_traditional_text_counts_as_traditional():
    assert is_traditional(TRAD)
    assert not is_traditional("合作终止后，乙方应于十个工作日内返还全部资料。")


def test_a_traditional_contract_answers_a_simplified_question(tmp_path):
    d = tmp_path / "docs"
    d.mkdir()
    (d / "保密協定.md").write_text(TRAD, encoding="utf-8")
    kb = KnowledgeBase(tmp_path / "kb.sqlite")
    kb.ingest([d])
    a = kb.ask("合作终止后乙方应在几个工作日内返还资料？")
    assert a.status == "answered", a.reasoning
    assert a.value == {"kind": "duration", "number": 10, "unit": "工作日"}
    assert a.evidence[0].text == "第二條 合作終止後，乙方應於十個工作日內返還全部資料。"  # quoted as written
    assert a.answer == "第二條 合作終止後，乙方應於十個工作日內返還全部資料。"  # the answer quotes it as written too


def test_is_traditional_counts_as_the_character_loop_did():
    import random

    from pipeline.fold import MIN_COUNT, MIN_SHARE, _table

    table = _table()

    def by_loop(text):
        cjk = trad = 0
        for c in text:
            if "\u4e00" <= c <= "\u9fff":
                cjk += 1
                trad += ord(c) in table
        return trad >= MIN_COUNT and trad >= MIN_SHARE * cjk

    rnd = random.Random(5)
    folded = [chr(k) for k in sorted(table)]  # some lie outside U+4E00-U+9FFF: never counted
    alphabet = folded[:300] + [chr(rnd.randint(0x4E00, 0x9FFF)) for _ in range(2000)] + list("ab ，。\u3400\U00020000")
    texts = ["".join(rnd.choice(alphabet) for _ in range(rnd.randint(0, 120))) for _ in range(3000)]
    assert [is_traditional(t) for t in texts] == [by_loop(t) for t in texts]
    assert any(by_loop(t) for t in texts) and not all(by_loop(t) for t in texts)
    assert not is_traditional("\u3473" * 10)  # a folded character outside the counted range
