"""Training data conversion (fast) and a tiny end-to-end training run (slow)."""
from pathlib import Path

import pytest

from tests.conftest import load_script

ROOT = Path(__file__).resolve().parents[2]
TINY = ROOT / "tests" / "data" / "ud_tiny.conllu"
train_parser = load_script("train_parser")


def test_conllu_becomes_gold_words_without_spaces():
    import spacy

    sents = list(train_parser.read_conllu(TINY))
    assert len(sents) == 3
    doc = train_parser.to_doc(spacy.blank("zh").vocab, sents[0])
    assert [t.text for t in doc] == [s[0] for s in sents[0]]
    assert doc.text == "".join(s[0] for s in sents[0])  # no spaces between words
    assert sum(t.dep_ == "ROOT" for t in doc) == 1
    assert all(t.tag_ == t.pos_ for t in doc)  # UPOS in both


def test_ascii_punctuation_becomes_full_width(tmp_path):
    p = tmp_path / "x.conllu"
    p.write_text("1\t好\t好\tADJ\tJJ\t_\t0\troot\t_\t_\n2\t,\t,\tPUNCT\t,\t_\t1\tpunct\t_\t_\n\n", encoding="utf-8")
    assert [w for w, *_ in next(train_parser.read_conllu(p))] == ["好", "，"]


def test_segmentation_f1():
    assert train_parser.seg_f1([["劳动", "合同"]], [["劳动合同"]]) == 0.0
    assert train_parser.seg_f1([["劳动", "合同"]], [["劳动", "合同"]]) == 1.0


@pytest.mark.slow
def test_tiny_training_run_produces_a_loadable_parser(tmp_path):
    import spacy
    from spacy.cli.train import train
    from spacy.tokens import DocBin

    nlp = spacy.blank("zh")
    db = DocBin()
    for s in train_parser.read_conllu(TINY):
        db.add(train_parser.to_doc(nlp.vocab, s))
    db.to_disk(tmp_path / "tiny.spacy")
    train(train_parser.CONFIG, tmp_path / "out", overrides={
        "paths.train": str(tmp_path / "tiny.spacy"), "paths.dev": str(tmp_path / "tiny.spacy"),
        "training.max_steps": 20, "training.eval_frequency": 10})
    trained = spacy.load(tmp_path / "out" / "model-last")
    assert trained.pipe_names == ["tok2vec", "tagger", "parser"]
    assert "nsubj" in trained.get_pipe("parser").labels
