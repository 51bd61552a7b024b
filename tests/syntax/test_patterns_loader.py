"""The dependency-pattern loader: bad rules name file:line rule-id and the fix."""
import pytest

from pipeline.errors import LoopAgentError
from pipeline.syntax.patterns import PatternSet, compile_rule, load_patterns

GOOD = """kind: dep_pattern
rules:
  - id: t.limit
    qtype: [duration]
    nodes:
      LIMIT: {ORTH: {IN: [超过]}}
      UNIT: {ORTH: {IN: [年]}}
    edges: ["LIMIT ~2 UNIT"]
"""


def _write(tmp_path, text):
    p = tmp_path / "dep.yaml"
    p.write_text(text, encoding="utf-8")
    return p


def test_tilde_two_searches_around_then_filters_by_distance(tmp_path, parser):
    pats, _ = load_patterns(_write(tmp_path, GOOD))
    assert [a[1]["REL_OP"] for a in pats[0].alternatives] == [">>", "<<", "$++", "$--"]
    assert pats[0].distance == [("LIMIT", "UNIT", 2)]
    ps = PatternSet(pats, parser.nlp.vocab)
    assert [r for r, _ in ps.match(parser.parse("竞业限制期限，不得超过二年。").doc)] == ["t.limit"]


@pytest.mark.parametrize("edit,needle", [
    (("edges: [\"LIMIT ~2 UNIT\"]", "edges: [\"LIMIT ~2 NOPE\"]"), "undefined node"),
    (("edges: [\"LIMIT ~2 UNIT\"]", "edges: [\"LIMIT ~3 UNIT\"]"), "unknown operator"),
    (("edges: [\"LIMIT ~2 UNIT\"]", "edges: []"), "not connected"),
    (("qtype: [duration]", "qtype: [durations]"), "unknown qtype"),
    (("    qtype: [duration]\n", ""), "missing key 'qtype'"),
])
def test_bad_rule_reports_file_line_and_id(tmp_path, edit, needle):
    path = _write(tmp_path, GOOD.replace(*edit))
    with pytest.raises(LoopAgentError) as err:
        load_patterns(path)
    assert err.value.code == "E201"
    assert f"{path}:3 t.limit" in str(err.value) and needle in str(err.value)


def test_spacy_rejects_unknown_attribute(tmp_path, parser):
    pats, _ = load_patterns(_write(tmp_path, GOOD.replace("ORTH: {IN: [年]}", "ORTHO: {IN: [年]}")))
    with pytest.raises(LoopAgentError) as err:
        PatternSet(pats, parser.nlp.vocab)
    assert "t.limit" in str(err.value) and "spaCy rejects" in str(err.value)


def test_yaml_syntax_error_is_e202(tmp_path):
    with pytest.raises(LoopAgentError) as err:
        load_patterns(_write(tmp_path, GOOD + "  - id: [broken\n"))
    assert err.value.code == "E202"


def test_long_sentences_skip_unbounded_rules(parser):
    rule = {"id": "t.far", "qtype": ["any"], "nodes": {"A": {"ORTH": "不得"}, "B": {"ORTH": "担保"}},
            "edges": ["A .* B"]}
    ps = PatternSet([compile_rule(rule)], parser.nlp.vocab, max_tokens=5)
    doc = parser.parse("用人单位不得要求劳动者提供担保。").doc
    assert ps.match(doc) == []
    ps_long = PatternSet([compile_rule(rule)], parser.nlp.vocab, max_tokens=80)
    assert [r for r, _ in ps_long.match(doc)] == ["t.far"]
