"""Hostile files and folders (issue 14): zip bombs, mutated PDFs, timeouts, deep HTML, random bytes,
same-named files, symlinks out of the root, concurrent store creation, coded store errors, freshness."""
import io
import os
import random
import sqlite3
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from pipeline import KnowledgeBase, LoopAgentError
from pipeline.cli import main
from pipeline.ingest import IngestLimits, parse_file
from pipeline.store import Store
from tests.conftest import LEAVE_DOCX, ROOT

PDFS = ROOT / "tests" / "data" / "pdf"
ARTICLE = "第一条 职工连续工作1年以上的，享受带薪年休假。\n"


def _docx_with(document_xml: bytes, extra: int = 0) -> bytes:
    """The example .docx with word/document.xml replaced (and ``extra`` tiny members added)."""
    src = zipfile.ZipFile(LEAVE_DOCX)
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as z:
        for item in src.infolist():
            z.writestr(item, document_xml if item.filename == "word/document.xml" else src.read(item))
        for i in range(extra):
            z.writestr(f"extra/item{i}.xml", b"<a/>")
    return buf.getvalue()


def _bomb_xml(mb: int) -> bytes:
    para = b"<w:p><w:r><w:t>" + "年休假".encode() * 10 + b"</w:t></w:r></w:p>"
    body = para * (mb * 2**20 // len(para))
    return (b'<?xml version="1.0" encoding="UTF-8" standalone="yes"?><w:document xmlns:w='
            b'"http://schemas.openxmlformats.org/wordprocessingml/2006/main"><w:body>' + body + b"</w:body></w:document>")


def test_docx_zip_bomb_refused_before_parsing(tmp_path):
    p = tmp_path / "bomb.docx"
    p.write_bytes(_docx_with(_bomb_xml(20)))
    assert p.stat().st_size < 400_000
    with pytest.raises(LoopAgentError) as e:
        parse_file(p)
    assert e.value.code == "E010"
    assert "word/document.xml: 20 MB from" in e.value.message and "max_zip_ratio" in e.value.message


def test_unpacked_size_and_member_limits(tmp_path):
    p = tmp_path / "big.docx"
    p.write_bytes(_docx_with(_bomb_xml(2)))
    with pytest.raises(LoopAgentError) as e:
        parse_file(p, limits=IngestLimits(max_unzipped_bytes=2**20, max_zip_ratio=10_000))
    assert e.value.code == "E010" and "max_unzipped_bytes" in e.value.message
    many = tmp_path / "many.docx"
    many.write_bytes(_docx_with(LEAVE_DOCX.read_bytes() and zipfile.ZipFile(LEAVE_DOCX).read("word/document.xml"),
                                extra=60))
    with pytest.raises(LoopAgentError) as e:
        parse_file(many, limits=IngestLimits(max_zip_members=50))
    assert e.value.code == "E010" and "max_zip_members" in e.value.message
    assert parse_file(many).document.blocks  # within the default limits it is an ordinary document


def test_xlsx_zip_bomb_refused(tmp_path):
    from openpyxl import Workbook
    wb = Workbook()
    wb.active.append(["类别", "天数"])
    buf = io.BytesIO()
    wb.save(buf)
    src = zipfile.ZipFile(buf)
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as z:
        for item in src.infolist():
            data = src.read(item)
            if item.filename == "xl/worksheets/sheet1.xml":
                data = data.replace(b"</sheetData>", b"<row/>" * 3_000_000 + b"</sheetData>")
            z.writestr(item, data)
    p = tmp_path / "bomb.xlsx"
    p.write_bytes(out.getvalue())
    with pytest.raises(LoopAgentError) as e:
        parse_file(p)
    assert e.value.code == "E010"


def test_content_decides_the_format(tmp_path):
    rnd = tmp_path / "random.html"
    rnd.write_bytes(random.Random(1).randbytes(4096))
    with pytest.raises(LoopAgentError) as e:
        parse_file(rnd)
    assert e.value.code == "E013" and "binary data" in e.value.message
    named_md = tmp_path / "really_a_docx.md"
    named_md.write_bytes(LEAVE_DOCX.read_bytes())
    assert parse_file(named_md).document.kind == "docx"


def test_deep_html_is_read_without_recursion_error(tmp_path):
    p = tmp_path / "deep.html"
    p.write_text("<html><body>" + "<div>" * 3000 + "<p>" + ARTICLE + "</p>" + "</div>" * 3000 + "</body></html>",
                 encoding="utf-8")
    r = parse_file(p)
    assert [b.text for b in r.document.blocks] == ["职工连续工作1年以上的，享受带薪年休假。"]
    assert [w[:4] for w in r.warnings] == ["W016"]


def test_long_block_is_cut_into_windows(tmp_path):
    p = tmp_path / "long.md"
    p.write_text("第一条 " + "职工享受年休假。" * 5000 + "\n", encoding="utf-8")
    r = parse_file(p, limits=IngestLimits(max_block_chars=10_000))
    assert [len(b.text) for b in r.document.blocks] == [10_000, 10_000, 10_000, 10_000]
    assert [b.order for b in r.document.blocks] == [0, 1, 2, 3]
    assert len({b.block_id for b in r.document.blocks}) == 4
    assert r.warnings[0].startswith("W013") and "40000 characters" in r.warnings[0]


def test_page_limit(tmp_path):
    with pytest.raises(LoopAgentError) as e:
        parse_file(PDFS / "structured_handbook.pdf", limits=IngestLimits(max_pages=1))
    assert e.value.code == "E011"


def test_overrunning_file_is_stopped_and_the_batch_goes_on(tmp_path, monkeypatch):
    import time

    import pipeline.ingest as ingest_pkg
    real = ingest_pkg.parse_file

    def slow_for_a(path, *args, **kwargs):  # the worker forks after this patch, so it parses this way
        if Path(path).name.startswith("a_slow"):
            time.sleep(30)  # a pathological file: far past any limit, whatever the machine's load
        return real(path, *args, **kwargs)

    monkeypatch.setattr(ingest_pkg, "parse_file", slow_for_a)
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "a_slow.pdf").write_bytes((PDFS / "structured_handbook.pdf").read_bytes())
    (docs / "b.md").write_text(ARTICLE, encoding="utf-8")
    kb = KnowledgeBase(tmp_path / "kb.sqlite", audit_log=None,
                       limits=IngestLimits(file_seconds=2.0, page_seconds=0.001))
    rep = kb.ingest([docs])
    assert (rep.added, rep.failed) == (1, 1)
    assert rep.lines[0].startswith("E012") and "a_slow.pdf" in rep.lines[0]
    assert [d["source"] for d in kb.documents()] == ["b.md"]
    kb.close()


def test_mutated_pdfs_never_escape_as_tracebacks(tmp_path):
    rng = random.Random(14)
    seeds = [(PDFS / n).read_bytes() for n in ("structured_handbook.pdf", "cid_glyphs.pdf", "scanned_text.pdf")]
    docs = tmp_path / "docs"
    docs.mkdir()
    for i in range(24):
        data = bytearray(seeds[i % len(seeds)])
        for _ in range(rng.randint(1, 40)):
            data[rng.randrange(len(data))] = rng.randrange(256)
        if i % 4 == 3:
            data = data[: rng.randrange(len(data))]
        (docs / f"m{i:02d}.pdf").write_bytes(bytes(data))
    kb = KnowledgeBase(tmp_path / "kb.sqlite", audit_log=None, limits=IngestLimits(file_seconds=20))
    rep = kb.ingest([docs])
    assert rep.added + rep.failed == 24
    assert all(line[:1] in "EW" and line[1:4].isdigit() for line in rep.lines)
    kb.close()


# --- identity -------------------------------------------------------------------------

def test_same_name_in_two_folders_keeps_both(tmp_path, capsys):
    for dept, days in (("hr", 5), ("finance", 7)):
        (tmp_path / dept).mkdir()
        (tmp_path / dept / "制度.md").write_text(f"第一条 {dept}职工年休假{days}天。\n", encoding="utf-8")
    db = str(tmp_path / "kb.sqlite")
    assert main(["ingest", str(tmp_path / "hr" / "制度.md"), str(tmp_path / "finance" / "制度.md"), "--db", db]) == 0
    cap = capsys.readouterr()
    assert "docs added 2, updated 0" in cap.out
    assert "W017" in cap.err and "stored as 'finance/制度.md'" in cap.err
    kb = KnowledgeBase(db, create=False)
    assert sorted(d["source"] for d in kb.documents()) == ["finance/制度.md", "制度.md"]
    # again, in another collection and in the other order: still nothing overwritten, nothing added
    rep = kb.ingest([tmp_path / "finance" / "制度.md", tmp_path / "hr" / "制度.md"], collection="other")
    assert (rep.added, rep.updated, rep.skipped) == (0, 0, 2)
    assert main(["docs", "--db", db]) == 0
    assert "finance/制度.md" in capsys.readouterr().out


def test_same_file_by_two_paths_is_one_source(tmp_path):
    (tmp_path / "docs" / "hr").mkdir(parents=True)
    (tmp_path / "docs" / "hr" / "制度.md").write_text(ARTICLE, encoding="utf-8")
    kb = KnowledgeBase(tmp_path / "kb.sqlite", audit_log=None)
    assert kb.ingest([tmp_path / "docs"]).added == 1
    rep = kb.ingest([tmp_path / "docs" / "hr"])
    assert (rep.added, rep.skipped) == (0, 1)
    assert [d["source"] for d in kb.documents()] == ["hr/制度.md"]


# --- symlinks ---------------------------------------------------------------------------

def test_symlink_out_of_the_root_is_skipped_with_a_line(tmp_path):
    outside = tmp_path / "secret.md"
    outside.write_text("第一条 机密。\n", encoding="utf-8")
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "ok.md").write_text(ARTICLE, encoding="utf-8")
    (docs / "x.md").symlink_to(outside)
    (docs / "broken.md").symlink_to(tmp_path / "nowhere.md")
    (docs / "loop.md").symlink_to(docs / "loop.md")
    (docs / "inside.md").symlink_to(docs / "ok.md")
    kb = KnowledgeBase(tmp_path / "kb.sqlite", audit_log=None)
    rep = kb.ingest([docs])
    assert sorted(line[:4] for line in rep.lines) == ["E015", "E016", "E016"]
    # a link inside the root is the same file as its target: one source (the first path met, sorted)
    assert [d["source"] for d in kb.documents()] == ["inside.md"]
    rep = kb.ingest([docs], follow_symlinks=True)
    assert sorted(line[:4] for line in rep.lines) == ["E016", "E016"]
    assert "x.md" in [d["source"] for d in kb.documents()]


def test_show_image_refuses_to_write_through_a_symlink(tmp_path, capsys):
    db = str(tmp_path / "kb.sqlite")
    assert main(["ingest", str(PDFS / "structured_handbook.pdf"), "--db", db]) == 0
    kb = KnowledgeBase(db, create=False)
    block = next(b for b in kb.store.doc_blocks(kb.documents()[0]["doc_id"]) if b.page_start)
    victim = tmp_path / "victim.txt"
    victim.write_text("keep me")
    link = tmp_path / "out.png"
    link.symlink_to(victim)
    assert main(["show", block.block_id, "--db", db, "--image", str(link)]) == 2
    assert "E017" in capsys.readouterr().err
    assert victim.read_text() == "keep me"
    assert main(["show", block.block_id, "--db", db, "--image", str(link), "--force"]) == 0
    assert victim.read_bytes()[:4] == b"\x89PNG"


# --- the store -------------------------------------------------------------------------------

def test_twenty_processes_create_one_store(tmp_path):
    db = tmp_path / "race.sqlite"
    code = ("import sys; from pipeline.store import Store; s = Store(sys.argv[1]); "
            "print(s.conn().execute(\"SELECT value FROM meta WHERE key='schema_version'\").fetchone()[0])")
    procs = [subprocess.Popen([sys.executable, "-c", code, str(db)], cwd=ROOT, stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE) for _ in range(20)]
    results = [(p.wait(timeout=120), p.stdout.read().decode().strip(), p.stderr.read().decode()) for p in procs]
    from pipeline.store import SCHEMA_VERSION
    assert [r[:2] for r in results] == [(0, str(SCHEMA_VERSION))] * 20, [r[2] for r in results if r[0]]


def test_locked_store_is_e106(tmp_path):
    db = tmp_path / "kb.sqlite"
    Store(db)
    holder = sqlite3.connect(db, isolation_level=None)
    holder.execute("BEGIN IMMEDIATE")
    doc = tmp_path / "a.md"
    doc.write_text(ARTICLE, encoding="utf-8")
    kb = KnowledgeBase(Store(db, busy_timeout=0.2).path, audit_log=None)
    kb.store = Store(db, busy_timeout=0.2)
    with pytest.raises(LoopAgentError) as e:
        kb.ingest([doc])
    assert e.value.code == "E106" and "waited 0.2 s" in e.value.message
    holder.execute("ROLLBACK")
    assert kb.ingest([doc]).added == 1


def test_directory_as_store_is_e109(tmp_path, capsys):
    assert main(["docs", "--db", str(tmp_path)]) == 2
    assert capsys.readouterr().err.startswith("E109")


def test_damaged_store_is_e108_and_check_finds_it(tmp_path, capsys):
    db = tmp_path / "kb.sqlite"
    kb = KnowledgeBase(db, audit_log=None)
    doc = tmp_path / "a.md"
    doc.write_text(ARTICLE * 200, encoding="utf-8")
    kb.ingest([doc])
    kb.close()
    assert main(["check", "--db", str(db)]) == 0
    assert capsys.readouterr().out.strip().endswith("ok")
    raw = bytearray(db.read_bytes())
    for off in range(4096 * 2, len(raw), 4096):  # every page after the schema pages: garbage
        raw[off:off + 64] = b"\xa5" * 64
    db.write_bytes(bytes(raw))
    for f in (Path(f"{db}-wal"), Path(f"{db}-shm")):
        if f.exists():
            f.unlink()
    rc = main(["ask", "职工连续工作多久享受带薪年休假？", "--db", str(db), "--audit", "-"])
    err = capsys.readouterr().err
    assert rc == 2 and err.startswith("E108") and "loopagent check" in err
    assert main(["check", "--db", str(db)]) in (1, 2)
    cap = capsys.readouterr()
    assert "E108" in cap.out + cap.err


@pytest.mark.skipif(os.geteuid() == 0, reason="root writes read-only files anyway")
def test_read_only_store_is_e107(tmp_path):
    db = tmp_path / "kb.sqlite"
    KnowledgeBase(db, audit_log=None).close()
    for f in tmp_path.iterdir():
        f.chmod(0o444)
    tmp_path.chmod(0o555)
    try:
        doc = ROOT / "examples" / "docs" / "劳动合同法(2012-12-28).md"
        with pytest.raises(LoopAgentError) as e:
            KnowledgeBase(db, audit_log=None).ingest([doc])
        assert e.value.code == "E107"
    finally:
        tmp_path.chmod(0o755)


# --- freshness --------------------------------------------------------------------------------

def test_long_running_kb_sees_another_writer(tmp_path):
    db = tmp_path / "kb.sqlite"
    reader = KnowledgeBase(db, audit_log=None)
    (tmp_path / "a.md").write_text(ARTICLE, encoding="utf-8")
    (tmp_path / "新办法.md").write_text("第一条 试用期员工不享受年休假。\n", encoding="utf-8")
    reader.ingest([tmp_path / "a.md"])
    reader.ask("职工连续工作多久以上享受带薪年休假？")  # the document-name cache is now filled
    gen = reader.store.generation
    KnowledgeBase(db, audit_log=None).ingest([tmp_path / "新办法.md"])  # another writer
    assert reader.store.generation != gen
    ans = reader.ask("《新办法》规定试用期员工享受年休假吗？")
    assert any("新办法" in r for r in ans.reasoning if r.startswith("文档限定"))


def test_one_answer_reads_one_snapshot(tmp_path):
    db = tmp_path / "kb.sqlite"
    store = Store(db)
    other = Store(db)
    (tmp_path / "a.md").write_text(ARTICLE, encoding="utf-8")
    with store.snapshot():
        before = store.stats()["blocks"]
        other.put_document(parse_file(tmp_path / "a.md").document)
        assert store.stats()["blocks"] == before == 0
    assert store.stats()["blocks"] == 1
