"""Counts asked with a classifier (几项, 几个公约): the number before the classifier and the counted noun."""
DOC = ("# 某协会章程\n\n## 第三条\n\n本会遵循公开、公平、公正、诚信、自律五项基本原则。\n\n"
       "## 第九条\n\n理事会由理事长、副理事长和理事组成，第三项职责由秘书处承担。\n")


def test_the_counted_noun_named_before_the_classifier(kb_of):
    a = kb_of({"章程.md": DOC}).ask("这个协会的章程定了一套基本原则，一共是几项？")
    assert (a.status, a.value) == ("answered", {"kind": "number", "number": 5, "unit": "项"})
    assert a.method == "strategy:number.count_of"


def test_an_ordinal_is_no_count(kb_of):
    a = kb_of({"章程.md": DOC}).ask("理事会的职责一共有几项？")
    assert a.status == "not_found"
