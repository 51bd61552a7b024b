"""Parse once and persist: the compact stored form, the plain-Python matcher, and the store round trip."""
import sqlite3
from pathlib import Path

import pytest

from pipeline.store import SCHEMA_VERSION, Store
from pipeline.syntax.depmatch import supported
from pipeline.syntax.parsed import FORMAT_U8, FORMAT_U16, Parsed, decode, encode, label_table, parse_key
from pipeline.syntax.parser import Parser
from pipeline.syntax.patterns import DEFAULT_FILE, PatternSet, compile_rule, load_patterns
from pipeline.text import split_sentences

ROOT = Path(__file__).resolve().parents[2]
LAW = ROOT / "examples" / "docs" / "劳动合同法(2012-12-28).md"


def _law_sentences(limit: int = 400) -> list[str]:
    text = LAW.read_text(encoding="utf-8")
    out = []
    for line in text.splitlines():
        for s in split_sentences(line.strip()):
            if 4 <= len(s.text) <= 200 and s.text not in out:
                out.append(s.text)
    return out[:limit]


def test_label_table_is_sorted_and_holds_upos_root_and_model_labels():
    labels = label_table({"labels": {"parser": ["nsubj", "obj"], "tagger": ["NOUN", "VV"]}})
    assert labels == tuple(sorted(labels))
    assert {"", "ROOT", "NUM", "nsubj", "obj", "VV"} <= set(labels)


def test_encode_decode_round_trip_is_six_bytes_a_token():
    p = Parsed(text="试用期 不得超过六个月", words=["试用期", "不得", "超过", "六", "个", "月"],
               offsets=[(0, 3), (4, 6), (6, 8), (8, 9), (9, 10), (10, 11)],
               tags=["NOUN", "AUX", "VERB", "NUM", "NOUN", "NOUN"], pos=["NOUN", "AUX", "VERB", "NUM", "NOUN", "NOUN"],
               deps=["nsubj", "aux", "ROOT", "nummod", "clf", "obj"], heads=[2, 2, 2, 4, 5, 2])
    labels = label_table({"labels": {"parser": ["nsubj", "aux", "nummod", "clf", "obj"]}})
    blob = encode(p, {x: i for i, x in enumerate(labels)})
    assert blob[0] == FORMAT_U8 and len(blob) == 1 + 6 * 6
    back = decode(p.text, blob, labels)
    assert back == p
    assert back.children[2] == [0, 1, 5] and back.children[4] == [3]


def test_long_sentences_use_two_byte_columns():
    n = 300
    text = "字" * n
    p = Parsed(text=text, words=["字"] * n, offsets=[(i, i + 1) for i in range(n)], tags=["NOUN"] * n,
               pos=["NOUN"] * n, deps=["dep"] * (n - 1) + ["ROOT"], heads=[n - 1] * n)
    labels = label_table({"labels": {"parser": ["dep"]}})
    blob = encode(p, {x: i for i, x in enumerate(labels)})
    assert blob[0] == FORMAT_U16 and len(blob) == 1 + 6 * n * 2
    assert decode(text, blob, labels) == p


def test_unknown_label_or_changed_words_are_not_stored():
    labels = label_table({})
    index = {x: i for i, x in enumerate(labels)}
    p = Parsed(text="甲乙", words=["甲", "乙"], offsets=[(0, 1), (1, 2)], tags=["NOUN", "NOUN"], pos=["NOUN", "NOUN"],
               deps=["weird", "ROOT"], heads=[1, 1])
    assert encode(p, index) is None
    p2 = Parsed(text="甲乙", words=["甲", "丙"], offsets=[(0, 1), (1, 2)], tags=["NOUN", "NOUN"], pos=["NOUN", "NOUN"],
                deps=["ROOT", "ROOT"], heads=[0, 1])
    assert encode(p2, index) is None
    assert decode("甲", b"\x09abc", labels) is None  # unknown format byte


def test_shipped_rules_are_matched_without_spacy():
    pats, _ = load_patterns(DEFAULT_FILE)
    assert all(supported(p.alternatives) for p in pats)
    assert PatternSet(pats).pure


def test_rule_outside_the_subset_uses_spacy_and_python_engine_refuses_it():
    rule = {"id": "t.lemma", "qtype": ["any"], "nodes": {"V": {"LEMMA": "超过"}}, "edges": []}
    pat = compile_rule(rule)
    assert not supported(pat.alternatives)
    assert not PatternSet([pat]).pure
    from pipeline.errors import LoopAgentError
    with pytest.raises(LoopAgentError) as e:
        PatternSet([pat], engine="python")
    assert e.value.code == "E303"


def test_python_matcher_finds_exactly_what_spacys_dependency_matcher_finds(parser):
    """The comparison suite: every shipped rule, on every sentence of a real statute and the rule examples."""
    pats, settings = load_patterns(DEFAULT_FILE)
    mt = int(settings.get("max_tokens", 80))
    py, sp = PatternSet(pats, max_tokens=mt, engine="python"), PatternSet(pats, max_tokens=mt, engine="spacy")
    texts = _law_sentences() + [str(ex["input"]) for p in pats for ex in p.examples]
    parsed = parser.parse_many(texts)
    total = 0
    for p in parsed:
        for qtype in (None, "duration", "who", "list", "exception", "count"):
            a, b = py.match(p, qtype), sp.match(p, qtype)
            assert sorted(map(repr, a)) == sorted(map(repr, b)), p.text
            total += len(a)
    assert total > 200  # the comparison saw many matches, not just empty lists


def test_parses_are_persisted_and_read_back_without_parsing(tmp_path):
    db = tmp_path / "kb.sqlite"
    texts = ["试用期不得超过六个月。", "国务院劳动行政部门负责全国劳动合同制度实施的监督管理。"]
    first = Parser()
    made = first.parse_many(texts, Store(db))  # outside a snapshot: written at once
    assert first.misses == 2 and first.stored_hits == 0
    store = Store(db)
    assert store.parse_count() == 2
    assert store.get_meta("parse_version") == first.version
    second = Parser()
    got = second.parse_many(texts, store)
    assert second.misses == 0 and second.stored_hits == 2
    assert second._nlp is None  # the model was never loaded
    assert got == made
    assert [(w, d, h) for w, d, h in zip(got[0].words, got[0].deps, got[0].heads)] == \
        [(w, d, h) for w, d, h in zip(made[0].words, made[0].deps, made[0].heads)]


def test_parses_made_inside_a_snapshot_are_written_in_batches_and_on_close(tmp_path, monkeypatch):
    import pipeline.store as store_mod
    db = tmp_path / "kb.sqlite"
    store = Store(db)
    p = Parser()
    with store.snapshot():
        p.parse_many(["用人单位应当依法缴纳社会保险费。"], store)
        assert store.conn().in_transaction
    assert store.parse_count() == 0 and len(store._parse_queue) == 1  # one row: waits for a batch
    monkeypatch.setattr(store_mod, "PARSE_BATCH", 2)
    with store.snapshot():
        p.parse_many(["劳动者有权依法参加和组织工会。"], store)
    assert store.parse_count() == 2 and not store._parse_queue  # the batch is full: written after the read
    with store.snapshot():
        p.parse_many(["工会代表职工的利益。"], store)
    store.close()
    assert Store(db).parse_count() == 3  # close writes what is queued


def test_another_model_version_replaces_the_stored_parses(tmp_path):
    store = Store(tmp_path / "kb.sqlite")
    p = Parser()
    p.parse_many(["用人单位应当依法缴纳社会保险费。"], store)
    key_old = parse_key(p.version, "用人单位应当依法缴纳社会保险费。")
    assert list(store.get_parses([key_old])) == [key_old]
    assert store.put_parses("another-model", [(b"k" * 16, b"\x01")]) == 1
    assert store.get_parses([key_old]) == {} and store.parse_count() == 1
    assert store.get_meta("parse_version") == "another-model"


def test_busy_store_keeps_parses_queued_and_answers_go_on(tmp_path):
    db = tmp_path / "kb.sqlite"
    store = Store(db)
    holder = sqlite3.connect(db, isolation_level=None)
    holder.execute("BEGIN IMMEDIATE")
    p = Parser()
    got = p.parse_many(["用人单位应当依法缴纳社会保险费。"], store)
    assert "".join(got[0].words) == "用人单位应当依法缴纳社会保险费。"  # parsed although the write could not happen
    assert store.parse_count() == 0
    holder.execute("ROLLBACK")
    assert store.flush_parses() == 1  # the queued row goes with the next write
    assert store.parse_count() == 1


def test_v2_store_is_upgraded_to_v3_in_place(tmp_path):
    db = tmp_path / "kb.sqlite"
    s = Store(db)
    c = s.conn()
    c.execute("DROP TABLE parses")
    c.execute("UPDATE meta SET value='2' WHERE key='schema_version'")
    s.close()
    s2 = Store(db)
    assert SCHEMA_VERSION == 3
    assert s2.get_meta("schema_version") == "3" and s2.parse_count() == 0


def test_orchestrator_answers_from_stored_parses_identically(tmp_path):
    from pipeline.kb import KnowledgeBase
    from pipeline.syntax.parser import Parser as P
    db = tmp_path / "kb.sqlite"
    kb = KnowledgeBase(db)
    kb.ingest([str(LAW)])
    kb.orchestrator.syntax.parser = P()  # a parser of its own: the process-wide one may hold these parses
    q = "劳动合同期限三个月以上不满一年的，试用期最长多久？"
    a1 = kb.ask(q, trace=True)
    kb.store.flush_parses()
    assert kb.store.parse_count() > 0
    kb2 = KnowledgeBase(db)
    kb2.orchestrator.syntax.parser = P()
    a2 = kb2.ask(q, trace=True)
    parser2 = kb2.orchestrator.syntax.parser
    assert parser2.stored_hits > 0 and parser2.misses == 0 and parser2._nlp is None
    assert (a2.status, a2.answer, a2.value, a2.method) == (a1.status, a1.answer, a1.value, a1.method)
    assert a1.status == "answered" and a1.value == {"kind": "duration", "number": 1, "unit": "月"}
    assert [(x["text"], x["pattern"]) for x in a2.trace["syntax"]["anchors"]] == \
        [(x["text"], x["pattern"]) for x in a1.trace["syntax"]["anchors"]]


def test_ingest_with_parse_fills_the_store_so_questions_parse_nothing(tmp_path):
    from pipeline.kb import KnowledgeBase
    from pipeline.syntax.parser import Parser as P
    plain = KnowledgeBase(tmp_path / "plain.sqlite", audit_log=None)
    plain.ingest([LAW])
    plain.orchestrator.syntax.parser = P()
    q = "劳动合同期限三个月以上不满一年的，试用期最长多久？"
    expected = plain.ask(q, trace=True)
    kb = KnowledgeBase(tmp_path / "kb.sqlite", audit_log=None)
    kb.orchestrator.syntax.parser = P()
    rep = kb.ingest([LAW], parse=True)
    assert rep.parsed == kb.store.parse_count() > 200 and "sentences parsed" in rep.summary()
    assert kb.fill_parses() == 0  # all stored already
    fresh = KnowledgeBase(tmp_path / "kb.sqlite", audit_log=None)
    fresh.orchestrator.syntax.parser = P()
    got = fresh.ask(q, trace=True)
    assert fresh.orchestrator.syntax.parser.misses == 0 and fresh.orchestrator.syntax.parser._nlp is None
    assert (got.status, got.value) == (expected.status, expected.value)
    assert [(x["text"], x["pattern"], x["score"]) for x in got.trace["syntax"]["anchors"]] == \
        [(x["text"], x["pattern"], x["score"]) for x in expected.trace["syntax"]["anchors"]]


def test_a_store_dropped_without_close_writes_its_queued_parses(tmp_path):
    import gc
    db = tmp_path / "kb.sqlite"
    store = Store(db)
    with store.snapshot():
        Parser().parse_many(["用人单位应当依法缴纳社会保险费。"], store)
    assert len(store._parse_queue) == 1
    del store
    gc.collect()
    assert Store(db).parse_count() == 1


def _parse_rows(db: Path) -> list[tuple]:
    with sqlite3.connect(db) as c:
        return sorted(c.execute("SELECT * FROM parses").fetchall())


def test_ingest_with_parse_releases_the_parser_and_a_later_ingest_reloads_it(tmp_path):
    """A process that parses only to fill the store gives spaCy's pipeline and pkuseg back after ingest
    (issue 17: peak RSS while answering); the next ingest loads them again and stores the same parses."""
    from pipeline.kb import KnowledgeBase
    from pipeline.syntax.parser import Parser as P
    other = ROOT / "examples" / "docs" / "女职工劳动保护特别规定(2012-04-28).md"
    kb = KnowledgeBase(tmp_path / "two.sqlite", audit_log=None)
    parser = kb.orchestrator.syntax.parser = P()
    first = kb.ingest([LAW], parse=True)
    assert first.parsed > 200
    assert (parser.loaded, parser._nlp, parser.segmenter._cut) == (False, None, None)
    second = kb.ingest([other], parse=True)  # loads both again, parses, releases them again
    assert second.parsed > 0 and parser.misses == first.parsed + second.parsed
    assert (parser.loaded, parser._nlp, parser.segmenter._cut) == (False, None, None)
    kb.close()
    one = KnowledgeBase(tmp_path / "one.sqlite", audit_log=None)
    held = one.orchestrator.syntax.parser = P()
    held.parse("用人单位应当依法缴纳社会保险费。")  # loaded before ingest: the KnowledgeBase leaves it loaded
    rep = one.ingest([LAW, other], parse=True)
    assert held.loaded and held._nlp is not None
    one.close()
    assert rep.parsed == first.parsed + second.parsed
    assert _parse_rows(tmp_path / "two.sqlite") == _parse_rows(tmp_path / "one.sqlite")


def test_a_released_parser_parses_exactly_as_before():
    p = Parser()
    sents = _law_sentences(20)
    before = [(x.words, x.offsets, x.tags, x.pos, x.deps, x.heads) for x in p.parse_docs(sents)]
    assert p.release() is True and p.loaded is False and p.release() is False
    after = [(x.words, x.offsets, x.tags, x.pos, x.deps, x.heads) for x in p.parse_docs(sents)]
    assert after == before and p.loaded is True


def test_spacy_is_imported_without_its_command_line_and_the_real_one_still_imports():
    import subprocess
    import sys
    code = (
        "import sys\n"
        "from pipeline.syntax.parser import Parser\n"
        "p = Parser().parse('用人单位应当依法缴纳社会保险费。')\n"
        "import spacy\n"
        "print(p.deps[-1], 'spacy.cli' in sys.modules, 'typer' in sys.modules, hasattr(spacy, 'cli'))\n"
        "import spacy.cli\n"
        "print(callable(spacy.cli.info), 'typer' in sys.modules, callable(spacy.info))\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, check=True)
    assert out.stdout.split("\n")[:2] == ["punct False False False", "True True True"]
