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
