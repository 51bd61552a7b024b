"""The rule loader: file:line rule-id errors, and hot reload that keeps the last good rules."""
import os
import time

import pytest

from pipeline.errors import LoopAgentError
from pipeline.rules import RuleSet, load_rule_file
import pipeline.extract  # noqa: F401  (registers the template kind)

GOOD = """kind: template
rules:
  - id: t.one
    types: [duration]
    priority: 10
    builder: duration
    regex: "(?P<num>NUM)(?P<unit>DUR_UNIT)"
"""


def test_unknown_key_names_file_line_and_rule(tmp_path):
    p = tmp_path / "t.yaml"
    p.write_text(GOOD + "    colour: red\n", encoding="utf-8")
    with pytest.raises(LoopAgentError) as e:
        load_rule_file(p)
    assert e.value.code == "E201"
    assert f"{p}:3 t.one: unknown key 'colour'" in str(e.value)


def test_bad_builder_and_regex(tmp_path):
    p = tmp_path / "t.yaml"
    p.write_text(GOOD.replace("builder: duration", "builder: nope"), encoding="utf-8")
    with pytest.raises(LoopAgentError) as e:
        load_rule_file(p)
    assert "builder 'nope' is unknown" in str(e.value)
    p.write_text(GOOD.replace('(?P<num>NUM)', '(?P<num>NUM'), encoding="utf-8")
    with pytest.raises(LoopAgentError) as e:
        load_rule_file(p)
    assert "invalid regex" in str(e.value)


def test_yaml_syntax_error(tmp_path):
    p = tmp_path / "t.yaml"
    p.write_text("kind: template\nrules: [\n", encoding="utf-8")
    with pytest.raises(LoopAgentError) as e:
        load_rule_file(p)
    assert e.value.code == "E202"


def test_hot_reload_keeps_last_good_rules(tmp_path):
    p = tmp_path / "t.yaml"
    p.write_text(GOOD, encoding="utf-8")
    rs = RuleSet([tmp_path])
    assert [r["id"] for r in rs.get("template")] == ["t.one"]
    p.write_text(GOOD.replace("priority: 10", "priority: [broken"), encoding="utf-8")
    os.utime(p, (time.time() + 5, time.time() + 5))
    rs.reload()
    assert [r["id"] for r in rs.get("template")] == ["t.one"]
    assert rs.error_lines() and "E202" in rs.error_lines()[0]
    p.write_text(GOOD.replace("t.one", "t.two"), encoding="utf-8")
    os.utime(p, (time.time() + 10, time.time() + 10))
    assert rs.reload() is True
    assert [r["id"] for r in rs.get("template")] == ["t.two"]
    assert rs.errors == {}


def test_maybe_reload_looks_at_most_once_per_interval_and_interval_zero_looks_every_time(tmp_path):
    p = tmp_path / "t.yaml"
    p.write_text(GOOD, encoding="utf-8")
    rs = RuleSet([tmp_path])
    rs.check_interval = 3600.0  # looked at just now (construction): the edit waits for the interval
    p.write_text(GOOD.replace("t.one", "t.two"), encoding="utf-8")
    os.utime(p, (time.time() + 5, time.time() + 5))
    assert rs.maybe_reload() is False
    assert [r["id"] for r in rs.get("template")] == ["t.one"]
    assert rs.reload() is True  # an explicit reload always looks
    assert [r["id"] for r in rs.get("template")] == ["t.two"]
    rs.check_interval = 0.0
    p.write_text(GOOD.replace("t.one", "t.three"), encoding="utf-8")
    os.utime(p, (time.time() + 10, time.time() + 10))
    assert rs.maybe_reload() is True
    assert [r["id"] for r in rs.get("template")] == ["t.three"]


def test_check_interval_comes_from_settings_environment_and_is_validated(tmp_path):
    from pipeline.config import ENV_RULES_CHECK, Settings
    assert Settings.default().rules_check_interval_s == 1.0
    s = Settings.resolve(environ={ENV_RULES_CHECK: "0"})
    assert s.rules_check_interval_s == 0.0
    assert RuleSet(settings=s).check_interval == 0.0
    for bad in ("soon", "-1"):
        with pytest.raises(LoopAgentError) as e:
            Settings.resolve(environ={ENV_RULES_CHECK: bad})
        assert e.value.code == "E303"
