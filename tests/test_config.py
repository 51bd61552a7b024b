"""Settings resolution (flags > env > loopagent.toml > shipped), overlays, loud failures, dictionary reload."""
import json
import logging
import os
import time

import pytest

from pipeline import KnowledgeBase, LoopAgentError, tokenize
from pipeline.cli import _cited_sentence, main
from pipeline.config import ENV_RULES_CHECK, Settings, shipped_dir
from pipeline.rules import RuleSet, load_rule_file
from pipeline.rules_cli import lint, run_rule_tests

QTYPE_OVERLAY = """kind: question_type
rules:
  - id: qtype.compare
    type: compare
    priority: 100
    regex: "(有什么|有何|有哪些)(不同|区别|变化|差异)|修订前后|新旧|前后对比|相比.{0,6}(变化|不同)|版本.{0,4}(不同|区别)|对比|两版比较"
    examples:
      - {input: "两版比较", expect: compare}
  - id: qtype.overlay_yesno
    type: yesno
    priority: 200
    regex: "特别测试"
    examples:
      - {input: "特别测试一下", expect: yesno}
"""


@pytest.fixture(autouse=True)
def _restore_tokenizer():
    yield
    s = Settings.default()
    tokenize.configure(s.user_dict_files(), s.stopword_files())


def _overlay(tmp_path, name="overlay", text=QTYPE_OVERLAY, file="question_types.yaml"):
    d = tmp_path / name
    d.mkdir(exist_ok=True)
    (d / file).write_text(text, encoding="utf-8")
    return d


def _bump(path, seconds):
    os.utime(path, (time.time() + seconds, time.time() + seconds))


# --- where settings come from ---------------------------------------------------------------
def test_resolution_order_flag_env_toml_shipped(tmp_path):
    toml_dir, env_dir, flag_dir = (_overlay(tmp_path, n) for n in ("from_toml", "from_env", "from_flag"))
    db = tmp_path / "kb.sqlite"
    assert Settings.resolve(db=db, environ={}).rules_dirs == (shipped_dir("rules"),)
    (tmp_path / "loopagent.toml").write_text('rules = "from_toml"\nmax_question_chars = 300\n', encoding="utf-8")
    s = Settings.resolve(db=db, environ={})
    assert s.rules_dirs == (shipped_dir("rules"), toml_dir.resolve())
    assert s.origins["rules"] == str(tmp_path / "loopagent.toml") and s.max_question_chars == 300
    s = Settings.resolve(db=db, environ={"LOOPAGENT_RULES": str(env_dir)})
    assert s.rules_dirs[1:] == (env_dir.resolve(),) and s.origins["rules"] == "$LOOPAGENT_RULES"
    s = Settings.resolve(rules=[flag_dir], db=db, environ={"LOOPAGENT_RULES": str(env_dir)})
    assert s.rules_dirs[1:] == (flag_dir.resolve(),) and s.origins["rules"] == "--rules"
    assert s.dictionaries_dirs == (shipped_dir("dictionaries"),) and s.origins["dictionaries"] == "shipped"


def test_settings_are_frozen_and_validated(tmp_path):
    s = Settings.default()
    with pytest.raises(AttributeError):
        s.max_question_chars = 5  # type: ignore[misc]
    with pytest.raises(LoopAgentError) as e:
        Settings(s.rules_dirs, s.dictionaries_dirs, s.parser_dir, max_question_chars=0)
    assert e.value.code == "E303"
    (tmp_path / "loopagent.toml").write_text('rulez = "x"\n', encoding="utf-8")
    with pytest.raises(LoopAgentError) as e:
        Settings.resolve(db=tmp_path / "kb.sqlite", environ={})
    assert e.value.code == "E207" and "rulez" in str(e.value)


def test_missing_or_empty_rules_folder_is_E206_exit_2(tmp_path, capsys):
    with pytest.raises(LoopAgentError) as e:
        Settings.resolve(rules=[tmp_path / "nope"], environ={})
    assert e.value.code == "E206" and "does not exist" in str(e.value)
    (tmp_path / "empty").mkdir()
    for cmd in (["rules", "lint"], ["rules", "test"], ["ask", "年休假几天？", "--db", str(tmp_path / "x.sqlite")]):
        assert main(cmd + ["--rules", str(tmp_path / "empty")]) == 2
        err = capsys.readouterr().err
        assert err.startswith("E206:") and "has no *.yaml rule files" in err


def test_no_rule_files_at_all_is_E205(tmp_path):
    empty = tmp_path / "empty"
    empty.mkdir()
    s = Settings((empty,), (empty,), shipped_dir("models") / "parser")
    with pytest.raises(LoopAgentError) as e:
        RuleSet(settings=s)
    assert e.value.code == "E205"
    with pytest.raises(LoopAgentError) as e:
        lint(s)
    assert e.value.code == "E205"


def test_config_command_says_where_each_part_came_from(tmp_path, capsys):
    d = _overlay(tmp_path)
    assert main(["config", "--rules", str(d), "--db", str(tmp_path / "kb.sqlite")]) == 0
    out = capsys.readouterr().out
    assert "rules: (from --rules)" in out
    assert f"overlay  {d.resolve()}  (1 files)" in out
    assert f"shipped  {shipped_dir('rules')}" in out
    assert "dictionaries: (from shipped)" in out


# --- overlays ---------------------------------------------------------------------------------
def test_overlay_rule_replaces_the_shipped_rule_with_its_id(tmp_path):
    shipped = RuleSet().get("question_type")
    rs = RuleSet(settings=Settings.resolve(rules=[_overlay(tmp_path)], environ={}))
    merged = rs.get("question_type")
    assert len(merged) == len(shipped) + 1
    i = [r["id"] for r in shipped].index("qtype.compare")
    assert merged[i]["regex"].endswith("|对比|两版比较") and merged[i]["__file__"].startswith(str(tmp_path))
    assert merged[-1]["id"] == "qtype.overlay_yesno"


def test_rules_test_runs_the_overlay_against_the_merged_rules(tmp_path):
    base = run_rule_tests(Settings.default())
    s = Settings.resolve(rules=[_overlay(tmp_path)], environ={})
    rep = run_rule_tests(s)
    assert rep.failures == [] and rep.unchecked == []
    # the overlay's compare rule replaced the shipped one with one of 1 example, and added a rule of 1 example
    shipped = next(r for r in RuleSet().get("question_type") if r["id"] == "qtype.compare")
    assert rep.passed == base.passed - len(shipped["examples"]) + 2
    bad = _overlay(tmp_path, "bad", QTYPE_OVERLAY.replace("expect: yesno", "expect: money"))
    rep = run_rule_tests(Settings.resolve(rules=[bad], environ={}))
    assert len(rep.failures) == 1
    assert str(bad / "question_types.yaml") in rep.failures[0] and "qtype.overlay_yesno" in rep.failures[0]


def test_a_kind_without_checker_is_reported_not_passed(tmp_path):
    from pipeline.rules import CHECKS, SCHEMAS, register_schema
    register_schema("demo_kind", {})
    try:
        d = _overlay(tmp_path, text="kind: demo_kind\nrules:\n  - id: d.one\n    examples:\n      - {input: x, expect: y}\n",
                     file="demo.yaml")
        rep = run_rule_tests(Settings.resolve(rules=[d], environ={}))
        assert not rep.ok
        assert rep.unchecked == [f"W012: {d / 'demo.yaml'}: rule kind 'demo_kind' has 1 examples but no example "
                                 "checker; they are not run. Add a checker to pipeline/rules_cli.py CHECKERS."]
    finally:
        SCHEMAS.pop("demo_kind", None)
        CHECKS.pop("demo_kind", None)


# --- lint: typos and regex positions -----------------------------------------------------------
def test_unknown_type_and_example_key_are_lint_errors(tmp_path):
    d = _overlay(tmp_path, text=QTYPE_OVERLAY.replace("type: yesno", "type: ratoi"))
    problems = lint(Settings.resolve(rules=[d], environ={}), warnings=False)
    f = d / "question_types.yaml"
    assert problems == [f"E201: {f}:9 qtype.overlay_yesno: unknown type 'ratoi'. use one of "
                        "count, number, money, duration, date, yesno, list, condition, exception, definition, who, "
                        "procedure, compare, open, multihop, table, code"]
    d2 = _overlay(tmp_path, "d2", QTYPE_OVERLAY.replace("{input: \"特别测试一下\", expect: yesno}",
                                                        "{input: \"特别测试一下\", expcet: yesno}"))
    problems = lint(Settings.resolve(rules=[d2], environ={}), warnings=False)
    assert len(problems) == 1 and "unknown example key(s) 'expcet'" in problems[0]
    assert f"{d2 / 'question_types.yaml'}:14 qtype.overlay_yesno" in problems[0]


def test_regex_error_is_reported_at_its_position_in_the_rules_own_text(tmp_path):
    text = ("kind: template\nrules:\n  - id: t.broken\n    types: [duration]\n    priority: 1\n    builder: duration\n"
            "    regex: \"(?P<num>NUM))(?P<unit>DUR_UNIT)\"\n    examples:\n      - {input: 三日, expect: {number: 3}}\n")
    d = _overlay(tmp_path, text=text, file="templates.yaml")
    with pytest.raises(LoopAgentError) as e:
        load_rule_file(d / "templates.yaml")
    assert e.value.code == "E208"
    own = "(?P<num>NUM)"
    assert e.value.fields["pos"] == len(own)  # the second ')' in the rule's text, not in the expanded pattern
    assert e.value.fields["detail"] == "unbalanced parenthesis"
    assert str(e.value).startswith(f"E208: {d / 'templates.yaml'}:3 t.broken: invalid regex at position 12 ")
    assert str(e.value).endswith(f"regex: {own})(?P<unit>DUR_UNIT)\n  " + " " * (len("regex: ") + len(own)) + "^")


# --- a broken overlay in a running process ---------------------------------------------------------
def test_broken_overlay_keeps_previous_rules_live(tmp_path):
    d = _overlay(tmp_path)
    f = d / "question_types.yaml"
    rs = RuleSet(settings=Settings.resolve(rules=[d], environ={}))
    assert rs.get("question_type")[-1]["regex"] == "特别测试"
    f.write_text(QTYPE_OVERLAY.replace("type: yesno", "type: ratoi").replace("特别测试", "改过的"), encoding="utf-8")
    _bump(f, 5)
    rs.reload()
    assert rs.get("question_type")[-1]["regex"] == "特别测试"
    assert rs.error_lines() == [f"E201: {f}:9 qtype.overlay_yesno: unknown type 'ratoi'. use one of count, number, "
                                "money, duration, date, yesno, list, condition, exception, definition, who, procedure, "
                                "compare, open, multihop, table, code"]


# --- user dictionaries: hot reload, re-index, split terms ---------------------------------------------
DOC = "# 办法\n\n第一条 申请人身安全保护令的，人民法院应当在七十二小时内作出裁定。\n"


def test_new_user_word_is_live_asks_for_reindex_and_reindex_applies_it(tmp_path, caplog):
    dicts = tmp_path / "dicts"
    dicts.mkdir()
    words = dicts / "extra.txt"
    words.write_text("某某词语 5 n\n", encoding="utf-8")
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "办法.md").write_text(DOC, encoding="utf-8")
    with KnowledgeBase(tmp_path / "kb.sqlite", audit_log=None,  # interval 0: the next answer looks at the files
                       config=Settings.resolve(dictionaries=[dicts], environ={ENV_RULES_CHECK: "0"})) as kb:
        assert kb.ingest([docs]).added == 1
        assert tokenize.cut("人身安全保护令")[0] == "人身安全"
        assert kb.store.doc_freq(["人身安全保护令"]) == {"人身安全保护令": 0}
        words.write_text("某某词语 5 n\n人身安全保护令 10 n\n", encoding="utf-8")
        _bump(words, 5)
        with caplog.at_level(logging.WARNING, logger="loopagent"):
            kb.ask("人身安全保护令多久作出裁定？")
        assert tokenize.cut("人身安全保护令") == ["人身安全保护令"]   # live without a restart
        assert kb.stale_index_words() == ["人身安全保护令"]
        assert any(r.getMessage().startswith("W010") and "loopagent reindex --db" in r.getMessage()
                   for r in caplog.records)
        assert kb.reindex() == kb.store.stats()["blocks"]
        assert kb.store.doc_freq(["人身安全保护令"]) == {"人身安全保护令": 1}
        assert kb.stale_index_words() == []


def test_lint_warns_for_terms_jieba_splits_unless_a_user_dictionary_has_them(tmp_path):
    lex = ("kind: lexicon\nrules:\n  - id: lex.demo\n    tier: business_noun\n    weight: 2.0\n    trigger: any\n"
           "    words: [人身安全保护令, 试用期]\n    examples:\n      - {input: 试用期, expect: [试用期]}\n")
    d = _overlay(tmp_path, text=lex, file="lexicon_extra.yaml")
    mine = [p for p in lint(Settings.resolve(rules=[d], environ={})) if "lex.demo" in p]
    assert mine == [f"W011: {d / 'lexicon_extra.yaml'}:3 lex.demo: jieba splits the term '人身安全保护令' "
                    "(人身安全 / 保护 / 令) and no user dictionary has it; add a line `人身安全保护令 10 n` to a "
                    "dictionaries/*.txt file so it is matched as one word."]
    dicts = tmp_path / "dicts"
    dicts.mkdir()
    (dicts / "extra.txt").write_text("人身安全保护令 10 n\n", encoding="utf-8")
    assert [p for p in lint(Settings.resolve(rules=[d], dictionaries=[dicts], environ={})) if "lex.demo" in p] == []


# --- library hygiene ---------------------------------------------------------------------------------
def test_knowledge_base_is_a_context_manager_and_checks_argument_types(tmp_path):
    with KnowledgeBase(tmp_path / "kb.sqlite", audit_log=None) as kb:
        with pytest.raises(TypeError, match="question must be str, not int"):
            kb.ask(123)  # type: ignore[arg-type]
        with pytest.raises(TypeError, match="paths must be file or folder paths, got int"):
            kb.ingest([1])  # type: ignore[list-item]
        with pytest.raises(TypeError, match="block_id must be str"):
            kb.block(None)  # type: ignore[arg-type]
        with pytest.raises(LoopAgentError) as e:
            kb.ask("年" * 2001)
        assert e.value.code == "E304"
        assert kb.store.conn() is not None
    assert getattr(kb.store._local, "conn", None) is None  # closed on exit
    with pytest.raises(TypeError, match="db must be a path"):
        KnowledgeBase(42)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="settings must be AskSettings or pipeline.config.Settings"):
        KnowledgeBase(tmp_path / "kb.sqlite", settings={"min_coverage": 0.5})  # type: ignore[arg-type]


def test_version_flag(capsys):
    import pipeline
    with pytest.raises(SystemExit) as e:
        main(["--version"])
    assert e.value.code == 0
    assert capsys.readouterr().out == f"loopagent {pipeline.__version__}\n"


def test_human_answer_starts_with_the_value_and_names_block_and_trace(example_kb, tmp_path, capsys):
    db = str(example_kb.store.path)
    audit = tmp_path / "a.jsonl"
    assert main(["ask", "劳动合同期限一年以上不满三年的，试用期最长多久？", "--db", db, "--audit", str(audit)]) == 0
    out = capsys.readouterr().out.splitlines()
    row = json.loads(audit.read_text(encoding="utf-8"))
    assert out[0] == "2个月    [duration]"
    assert out[1] == "  原文：劳动合同期限一年以上不满三年的，试用期不得超过二个月；"
    block = row["evidence"][0]["block_id"]
    assert f"        block {block}  (loopagent show {block})" in out
    assert f"  trace：{row['trace_id']}" in out
    # show --image highlights what the answer cited: read back from the audit log
    assert _cited_sentence(db, str(audit), block, None) == "劳动合同期限一年以上不满三年的，试用期不得超过二个月；"
    assert _cited_sentence(db, str(audit), block, "no-such-trace") is None


def test_ask_lint_and_test_exit_2_with_E205_when_the_shipped_rules_are_missing(tmp_path, monkeypatch, capsys):
    import pipeline.config as config
    empty = tmp_path / "site-packages-without-data"
    empty.mkdir()
    monkeypatch.setattr(config, "shipped_dir", lambda name: empty / name)  # a wheel built without its data
    from pipeline.store import Store
    db = tmp_path / "kb.sqlite"
    Store(db).close()
    for cmd in (["rules", "lint"], ["rules", "test"], ["ask", "年休假几天？", "--db", str(db)]):
        assert main(cmd) == 2
        assert capsys.readouterr().err.startswith("E205: No rule files at ")


def test_wrong_generator_or_semantic_model_type_is_a_type_error(tmp_path):
    with pytest.raises(TypeError, match="generator must be a GeneratorSettings"):
        KnowledgeBase(tmp_path / "kb.sqlite", generator=5)
    with pytest.raises(TypeError, match="semantic_model must be a model folder"):
        KnowledgeBase(tmp_path / "kb.sqlite", semantic_model=5)
