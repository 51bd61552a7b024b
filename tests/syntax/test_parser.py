"""The shipped parser: loads, parses statute text, keeps character offsets, caches."""
import pytest

from pipeline.errors import LoopAgentError
from pipeline.syntax.parser import BUILTIN_DIR, Parser
from pipeline.syntax.segment import Segmenter, ud_split


def test_shipped_model_is_small_and_present():
    size = sum(p.stat().st_size for p in BUILTIN_DIR.parent.rglob("*") if p.is_file())
    assert (BUILTIN_DIR / "meta.json").exists()
    assert size < 25_000_000


def test_statute_sentence_root_is_the_main_verb(parser):
    doc = parser.parse("竞业限制期限，不得超过二年。").doc
    root = [t for t in doc if t.dep_ == "ROOT"]
    assert [t.text for t in root] == ["超过"]
    assert {t.text: t.dep_ for t in doc}["不得"] == "aux"


def test_who_sentence_subject(parser):
    doc = parser.parse("国务院劳动行政部门负责全国劳动合同制度实施的监督管理。").doc
    root = next(t for t in doc if t.dep_ == "ROOT")
    assert root.text == "负责"
    assert [c.text for c in root.children if c.dep_ == "nsubj"] == ["部门"]


def test_offsets_index_the_original_sentence(parser):
    text = "本法自2008年1月1日起施行。"
    parsed = parser.parse(text)
    assert [text[s:e] for s, e in parsed.offsets] == [t.text for t in parsed.doc]


def test_offsets_survive_spaces():
    text = "用人单位 应当 依法缴纳社会保险费"
    spans = Segmenter("pkuseg").spans(text)
    assert all(text[s:e] == w for w, s, e in spans)
    assert " " not in "".join(w for w, _, _ in spans)


@pytest.mark.parametrize("word,parts", [("满十", ["满", "十"]), ("10年", ["10", "年"]), ("三档", ["三", "档"]),
                                        ("一般", ["一般"]), ("统一", ["统一"]), ("2008", ["2008"])])
def test_ud_split(word, parts):
    assert ud_split(word) == parts


def test_parse_cache_returns_the_same_object(parser):
    a = parser.parse("用人单位应当依法缴纳社会保险费。")
    hits = parser.hits
    assert parser.parse("用人单位应当依法缴纳社会保险费。") is a
    assert parser.hits == hits + 1


def test_missing_model_is_e204():
    with pytest.raises(LoopAgentError) as err:
        Parser(model="zh_core_web_nonexistent").nlp
    assert err.value.code == "E204"


def test_unknown_segmenter_is_e303():
    with pytest.raises(LoopAgentError) as err:
        Segmenter("thulac")
    assert err.value.code == "E303" and "pkuseg" in str(err.value)


def test_batched_parse_equals_single_parse():
    texts = ["竞业限制期限，不得超过二年。", "本法自2008年1月1日起施行。", "竞业限制期限，不得超过二年。"]
    batched = Parser().parse_many(texts)
    single = Parser()
    assert batched[0] is batched[2]
    for b in batched:
        s = single.parse(b.text)
        assert [(t.text, t.dep_, t.head.i) for t in b.doc] == [(t.text, t.dep_, t.head.i) for t in s.doc]
        assert b.offsets == s.offsets


def test_a_model_with_its_own_segmenter_is_used_as_is(tmp_path):
    """The zh_core_web_* switch: such a pipeline segments itself (here: jieba) and keeps offsets."""
    import spacy

    source = spacy.load(BUILTIN_DIR)
    nlp = spacy.blank("zh", config={"nlp": {"tokenizer": {"segmenter": "jieba"}}})
    for name in source.pipe_names:
        nlp.add_pipe(name, source=source)
    nlp.to_disk(tmp_path / "own")
    p = Parser(model=str(tmp_path / "own"))
    assert p.own_tokenizer
    text = "竞业限制期限，不得超过二年。"
    parsed = p.parse(text)
    assert [text[s:e] for s, e in parsed.offsets] == [t.text for t in parsed.doc]
    assert [x.text for x in p.parse_many([text])] == [text]


def test_parser_is_safe_across_threads():
    from concurrent.futures import ThreadPoolExecutor

    p = Parser()
    texts = ["竞业限制期限，不得超过二年。", "本法自2008年1月1日起施行。", "用人单位不得要求劳动者提供担保。"] * 4
    with ThreadPoolExecutor(4) as ex:
        got = list(ex.map(lambda t: p.parse(t).text, texts))
    assert got == texts and p.misses == 3
