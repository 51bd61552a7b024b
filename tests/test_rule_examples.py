"""Every example of every rule file runs as a test (one parametrized runner; rules are data)."""
import pytest

from pipeline.rules_cli import check_example, example_cases, lint

CASES = [pytest.param(kind, rule, ex, id=f"{rule['id']}:{str(ex['input'])[:14]}")
         for kind, rule, ex in example_cases() if kind != "dep_pattern"]  # dep patterns: tests/syntax


@pytest.mark.parametrize("kind,rule,example", CASES)
def test_rule_example(kind, rule, example):
    ok, got = check_example(kind, rule, example)
    assert ok, f"{rule['__file__']}:{example.get('__line__')} {rule['id']}: expected {example.get('expect')!r}, got {got!r}"


def test_rule_files_lint_clean():
    # W011 (a term jieba splits) is advice: adding those words would change tokenisation and answers
    assert [p for p in lint() if not p.startswith("W011")] == []


def test_every_template_and_question_type_has_examples():
    kinds = {(k, r["id"]) for k, r, _ in example_cases()}
    from pipeline.rules import RuleSet
    rs = RuleSet()
    for kind in ("template", "question_type"):
        for r in rs.get(kind):
            assert (kind, r["id"]) in kinds, f"{r['id']} has no examples"
