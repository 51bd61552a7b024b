"""Every example of rules/dep_patterns.yaml, run against the shipped parser (one runner)."""
import pytest

from pipeline.syntax.patterns import DEFAULT_FILE, PatternSet, load_patterns

PATTERNS, SETTINGS = load_patterns(DEFAULT_FILE)
CASES = [pytest.param(p, ex, id=f"{p.id}:{ex['expect']}:{ex['input'][:12]}") for p in PATTERNS for ex in p.examples]


@pytest.fixture(scope="module")
def pattern_set(parser):
    return PatternSet(PATTERNS, parser.nlp.vocab, max_tokens=SETTINGS.get("max_tokens", 80))


@pytest.mark.parametrize("pattern,example", CASES)
def test_pattern_example(parser, pattern_set, pattern, example):
    doc = parser.parse(example["input"]).doc
    got = "match" if any(rid == pattern.id for rid, _ in pattern_set.match(doc)) else "no_match"
    tree = " ".join(f"{t.text}/{t.pos_}/{t.dep_}<{t.head.i}" for t in doc)
    assert got == example["expect"], f"{pattern.file}:{pattern.line} {pattern.id}: {tree}"


def test_every_pattern_has_a_positive_and_a_negative_example():
    for p in PATTERNS:
        kinds = {ex["expect"] for ex in p.examples}
        assert kinds == {"match", "no_match"}, f"{p.file}:{p.line} {p.id} needs both kinds of example"


def test_stage_reads_dep_patterns_from_the_rule_set_with_overlays(parser, tmp_path):
    """An overlay folder adds a pattern and replaces a shipped one by id; a broken edit keeps both live."""
    import os
    import time

    from pipeline.config import Settings
    from pipeline.rules import RuleSet
    from pipeline.syntax.stage import SyntaxStage

    d = tmp_path / "overlay"
    d.mkdir()
    f = d / "dep_extra.yaml"
    f.write_text("kind: dep_pattern\nrules:\n"
                 "  - id: duration.limit\n    qtype: [duration]\n    nodes:\n      A: {ORTH: 试用期}\n"
                 "    examples:\n      - {input: 试用期不得超过六个月, expect: match}\n"
                 "  - id: overlay.only\n    qtype: [who]\n    nodes:\n      A: {ORTH: 负责}\n"
                 "    examples:\n      - {input: 由社会保险行政部门负责, expect: match}\n", encoding="utf-8")
    rules = RuleSet(settings=Settings.resolve(rules=[d], environ={}))
    stage = SyntaxStage(parser=parser, rules=rules)
    pats = stage.patterns.patterns
    assert len(pats) == len(PATTERNS) + 1
    assert pats["overlay.only"].qtypes == ("who",)
    assert pats["duration.limit"].node_names == ["A"]  # the overlay's version replaced the shipped one
    assert [rid for rid, _ in stage.patterns.match(parser.parse("试用期不得超过六个月").doc, "duration")
            if rid == "duration.limit"]
    f.write_text(f.read_text(encoding="utf-8").replace("qtype: [who]", "qtype: [ratoi]"), encoding="utf-8")
    os.utime(f, (time.time() + 5, time.time() + 5))
    rules.reload()
    assert "overlay.only" in stage.patterns.patterns and rules.error_lines()
