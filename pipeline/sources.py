"""Sources: what kind of document answers, which version of an instrument, and what to do when sources disagree.

- **Kind (authority).** Every document gets a kind (statute … contract, manual, other) from the routing
  rules of rules/sources/doc_kinds.yaml over its title, source path and header, or from ``ingest --kind``.
- **Versions.** File names and titles carry version markers (``(2023-12-29)``, ``_2020版``, ``_第2版``,
  rules/sources/versions.yaml); what is left names the instrument, and documents with the same instrument
  name are versions of it. A question that names no version is answered from the version in force (the
  latest); one that names a year, an edition or 修订前 (rules/sources/version_cues.yaml) from that version.
- **Conflicts.** A grounded answer from a statute and one from an internal policy or contract that disagree
  make the answer ``ambiguous`` (each value, source and kind), unless a rule of rules/sources/conflicts.yaml
  resolves it and the reasoning says so. A company policy never silently overrides a statute.
- **Navigation.** An open question (讲讲 / 介绍一下 / 有哪些规定, rules/sources/navigation.yaml) gets the
  relevant sections with block ids and one-line summaries taken from the text.

The orchestrator calls :class:`Sources` at a few points; everything about sources lives here.
"""
from __future__ import annotations

import re
import threading
from dataclasses import dataclass, field, replace
from typing import Any, Callable, Optional

import regex

from . import cues
from .fold import fold
from .numbers import cn_number
from .rules import Field, RuleSet, register_regex, register_schema, register_vocabulary
from .text import split_sentences
from .types import Answer, Candidate, Evidence, Query

DOC_KINDS: tuple[str, ...] = ("statute", "administrative_regulation", "departmental_rule", "local_regulation",
                              "policy_notice", "internal_policy", "contract", "manual", "other")
# how reasoning and the command line name each kind: rules/pipeline_cues.yaml sources.kind_labels
KIND_LABELS: dict[str, str] = {str(k): str(v) for k, v in cues.table("sources.kind_labels").items()}
_NATIONAL = cues.text("title.national_prefix")
_PLACE_PREFIX = re.compile(cues.pattern("sources.place_prefix"))
_VERSION_SUFFIX = cues.text("sources.version_suffix")
_VERSION_REASONS = {str(k): str(v) for k, v in cues.table("sources.version_reasons").items()}
# the two sides a conflict check compares: binding law and what a company or the parties wrote
LAW_KINDS = frozenset({"statute", "administrative_regulation", "departmental_rule", "local_regulation"})
PRIVATE_KINDS = frozenset({"internal_policy", "contract"})
# values that can be compared as figures (a text answer from two sources is not a conflict we can tell)
COMPARABLE = frozenset({"count", "number", "money", "duration", "range"})
META_KEY = "source_profile"  # Document.meta key written at ingest


def _one_pattern(rule: dict) -> Optional[str]:
    return None if any(rule.get(k) for k in ("title", "source", "header")) else \
        "a doc_kind rule needs at least one of 'title', 'source', 'header'"


register_schema("doc_kind", {
    "doc_kind": Field((str,), True, f"one of {', '.join(DOC_KINDS)}"),
    "title": Field((str,), False, "a regex over the title (and the file name), version markers removed"),
    "source": Field((str,), False, "a regex over the source path"),
    "header": Field((str,), False, "a regex over the header lines before <!-- INFO END -->")}, _one_pattern)
register_vocabulary("doc_kind", "doc_kind", DOC_KINDS)
register_regex("doc_kind", title=None, source=None, header=None)

register_schema("version_marker", {
    "regex": Field((str,), True, "a regex anchored at the end ($) with groups year/month/day/num"),
    "label": Field((str,), False, "'{text}' (the marker as written) or a format of the groups")})
register_regex("version_marker", regex=None)

VERSION_PICKS = ("year", "edition", "previous", "latest")
register_schema("version_cue", {
    "picks": Field((str,), True, f"one of {', '.join(VERSION_PICKS)}"),
    "regex": Field((str,), True, "a regex over the question")})
register_vocabulary("version_cue", "picks", VERSION_PICKS)
register_regex("version_cue", regex=None)

RELATIONS = ("lower_ge", "lower_le")
register_schema("conflict_rule", {
    "higher": Field((list,), True, "document kinds of the higher-ranking source"),
    "lower": Field((list,), True, "document kinds of the lower-ranking source"),
    "cue": Field((str,), False, "a regex the higher source's evidence must match"),
    "relation": Field((str,), True, f"one of {', '.join(RELATIONS)}"),
    "resolve": Field((str,), True, "lower or higher: whose value answers"),
    "reason": Field((str,), True, "the sentence written into the reasoning ({higher}, {lower})")})
register_vocabulary("conflict_rule", "higher", DOC_KINDS)
register_vocabulary("conflict_rule", "lower", DOC_KINDS)
register_vocabulary("conflict_rule", "relation", RELATIONS)
register_vocabulary("conflict_rule", "resolve", ("lower", "higher"))
register_regex("conflict_rule", cue=None)

register_schema("navigation_cue", {
    "regex": Field((str,), True, "a regex over the question"),
    "unless": Field((str,), False, "a regex: the question asks for a value, not a tour")})
register_regex("navigation_cue", regex=None, unless=None)


# --- pure functions over compiled rules -------------------------------------------------------------------

@dataclass(frozen=True)
class Version:
    """What a name says about its version: the instrument name left, a label, a date and an edition."""

    name: str
    label: Optional[str] = None
    date: Optional[tuple[int, int, int]] = None   # (year, month or 0, day or 0)
    edition: Optional[tuple[tuple[int, str], ...]] = None
    rules: tuple[str, ...] = ()


def parse_version(markers: list[tuple[dict, Any]], name: str) -> Version:
    """Strip version markers from the end of ``name`` one after another. The first marker written as a
    version (a ``label`` rule, or a full date) gives the label; its date, else any marker's year, dates the
    version; the first edition number is the edition."""
    found: list[tuple[dict, dict, str]] = []
    rest = name.strip()
    for _ in range(6):
        for rule, rx in markers:
            m = rx.search(rest)
            if not m or m.start() == 0:
                continue
            g = {k: v for k, v in m.groupdict().items() if v}
            found.append((rule, g, m.group(0).strip(" _-")))
            rest = rest[:m.start()].rstrip(" _-")
            break
        else:
            break
    labelled = next(((r, g, t) for r, g, t in found if r.get("label") or "day" in g), None)
    dated = labelled if labelled and "year" in labelled[1] else next(((r, g, t) for r, g, t in found if "year" in g),
                                                                       None)
    date = (int(dated[1]["year"]), int(dated[1].get("month") or 0), int(dated[1].get("day") or 0)) if dated else None
    label = None
    if labelled:
        label = labelled[2] if labelled[0].get("label") else "{:04d}-{:02d}-{:02d}".format(*date)
    nums = next(([v for k, v in g.items() if k.startswith("num")] for _, g, _ in found
                 if any(k.startswith("num") for k in g)), None)
    return Version(name=rest, label=label, date=date, edition=_edition(nums[0]) if nums else None,
                   rules=tuple(r["id"] for r, _, _ in found))


def _edition(num: str) -> tuple[tuple[int, str], ...]:
    """1.3.0 → ((1,''),(3,''),(0,'')); 1D → ((1,'D'),): comparable whatever the mix of digits and letters."""
    out = []
    for part in re.split(r"[.\-_]", num):
        m = re.match(r"(\d*)(.*)", part)
        out.append((int(m.group(1)) if m.group(1) else -1, m.group(2).upper()))
    return tuple(out)


_LATIN_RUN = re.compile(r"[a-z0-9]{2,}")
_HAN_RUN = re.compile(r"[\u4e00-\u9fff]{2,}")


def _named_by_parts(inst: str, title: str, qk: str) -> bool:
    """A product manual named by its parts (CH32V30x的IAP…使用说明 for 沁恒CH32V30x_IAP使用说明): every Latin run
    of its title (not a bare number: a version) is in the question's key, and so is the last run of Chinese of
    the instrument's key (the kind of document: 使用说明, 用户手册); only for names with a Latin run (a statute's
    name is matched whole)."""
    latin = [x for x in _LATIN_RUN.findall(fold(title).lower()) if not x.isdigit()]
    han = _HAN_RUN.findall(inst)
    if not latin or not han or sum(len(x) for x in latin) < 4:
        return False
    return all(x in qk for x in latin) and han[-1] in qk


def instrument_key(name: str) -> str:
    """The name two versions of one instrument share: Simplified, no 中华人民共和国, no spacing or brackets."""
    k = fold(name)
    k = re.sub(r"^[（(][^）)]{1,8}[）)]", "", k)  # （上位法）…
    k = k.removeprefix(_NATIONAL)
    return re.sub(r"[\s_\-—·.,，、（）()《》〈〉<>\[\]【】]+", "", k).lower()


def classify(rules: list[tuple[dict, dict]], names: list[str], source: str, header: str) -> tuple[str, Optional[str]]:
    """(kind, rule id) of the first doc_kind rule one of whose patterns matches; ('other', None) if none."""
    for rule, rx in rules:
        if "title" in rx and any(rx["title"].search(n) for n in names if n):
            return rule["doc_kind"], rule["id"]
        if "source" in rx and rx["source"].search(source):
            return rule["doc_kind"], rule["id"]
        if "header" in rx and header and rx["header"].search(header):
            return rule["doc_kind"], rule["id"]
    return "other", None


def version_cue(cues: list[tuple[dict, Any]], question: str) -> Optional[tuple[str, Optional[str], str]]:
    """(picks, value, rule id) of the first version cue in the question, or None."""
    for rule, rx in cues:
        m = rx.search(question)
        if m:
            return _cue_hit(rule, m)
    return None


def _cue_hit(rule: dict, m: Any) -> tuple[str, Optional[str], str]:
    """(picks, value, rule id) of one match of a version cue: the year, or the edition's number."""
    g = {k: v for k, v in m.groupdict().items() if v}
    value = g.get("year") or next((v for k, v in g.items() if k.startswith("num")), None)
    return rule["picks"], value, rule["id"]


def version_cues(cues: list[tuple[dict, Any]], question: str) -> list[tuple[str, Optional[str], str]]:
    """(picks, value, rule id) of every version cue the question holds (第1版和第2版: two editions)."""
    return [_cue_hit(rule, m) for rule, rx in cues for m in rx.finditer(question)]


def _same_edition(value: str, label: Optional[str]) -> bool:
    """Whether an edition the question names (1, 一, 1C, 1.4) is the one a version's label gives (第1版, 版本1C):
    the label's own edition token, not any digit inside it."""
    if not label:
        return False
    tokens = re.findall(r"[0-9]+(?:\.[0-9]+)*[A-Za-z]*", label)
    n = cn_number(value) if not re.search(r"[0-9A-Za-z]", value) else None
    want = str(int(n)) if n is not None else value
    return any(t.lower() == want.lower() for t in tokens)


def is_navigation(cues: list[tuple[dict, Any, Any]], question: str) -> Optional[str]:
    """The id of the navigation cue that makes ``question`` open, or None."""
    for rule, rx, unless in cues:
        if rx.search(question) and not (unless is not None and unless.search(question)):
            return rule["id"]
    return None


def figure(value: Optional[dict]) -> Optional[tuple]:
    """A comparable form of a value: (kind, number, unit) or (range, min, max, unit); None if not a figure."""
    v = value or {}
    if v.get("kind") not in COMPARABLE:
        return None
    if v["kind"] == "range":
        return ("range", v.get("min"), v.get("max"), v.get("unit"))
    if v.get("number") is None:
        return None
    return ("q", float(v["number"]), v.get("unit"))


def resolve_conflict(rules: list[tuple[dict, Any]], higher: dict, lower: dict) -> Optional[dict]:
    """The first conflict rule that resolves ``higher`` vs ``lower`` ({kind, text, value}), or None."""
    hf, lf = figure(higher.get("value")), figure(lower.get("value"))
    if not hf or not lf or hf[0] != "q" or lf[0] != "q" or hf[2] != lf[2]:
        return None  # only two figures in one unit can be ordered
    for rule, cue in rules:
        if higher["kind"] not in rule["higher"] or lower["kind"] not in rule["lower"]:
            continue
        if cue is not None and not cue.search(higher.get("text", "")):
            continue
        if (rule["relation"] == "lower_ge" and lf[1] >= hf[1]) or (rule["relation"] == "lower_le" and lf[1] <= hf[1]):
            return rule
    return None


# --- document profiles ---------------------------------------------------------------------------------------

@dataclass
class Profile:
    """What the store knows of one document as a source."""

    doc_id: str
    title: str
    kind: str
    kind_rule: Optional[str]
    instrument: str
    label: Optional[str]
    date: Optional[tuple[int, int, int]]
    edition: Optional[tuple]

    @property
    def versioned(self) -> bool:
        return self.date is not None or self.edition is not None

    def version_text(self) -> Optional[str]:
        if self.label:
            return self.label
        if self.date:
            return "-".join(f"{x:02d}" if i else f"{x:04d}" for i, x in enumerate(self.date) if x or not i)
        return None

    def to_dict(self) -> dict[str, Any]:
        return {"doc_kind": self.kind, "kind_rule": self.kind_rule, "instrument": self.instrument,
                "version": self.version_text(), "date": list(self.date) if self.date else None,
                "edition": [list(e) for e in self.edition] if self.edition else None}


def _iso_tuple(iso: Optional[str]) -> Optional[tuple[int, int, int]]:
    m = re.match(r"(\d{4})(?:-(\d{2}))?(?:-(\d{2}))?", iso or "")
    return (int(m.group(1)), int(m.group(2) or 0), int(m.group(3) or 0)) if m else None


@dataclass
class _Compiled:
    kinds: list[tuple[dict, dict]] = field(default_factory=list)
    markers: list[tuple[dict, Any]] = field(default_factory=list)
    cues: list[tuple[dict, Any]] = field(default_factory=list)
    conflicts: list[tuple[dict, Any]] = field(default_factory=list)
    navigation: list[tuple[dict, Any, Any]] = field(default_factory=list)


def compile_rules(rules: RuleSet) -> _Compiled:
    """The source rules of ``rules`` compiled (file order kept: the first matching rule decides)."""
    c = _Compiled()
    for r in rules.get("doc_kind"):
        c.kinds.append((r, {k: regex.compile(r[k]) for k in ("title", "source", "header") if r.get(k)}))
    c.markers = [(r, regex.compile(r["regex"])) for r in rules.get("version_marker")]
    c.cues = [(r, regex.compile(r["regex"])) for r in rules.get("version_cue")]
    c.conflicts = [(r, regex.compile(r["cue"]) if r.get("cue") else None) for r in rules.get("conflict_rule")]
    c.navigation = [(r, regex.compile(r["regex"]), regex.compile(r["unless"]) if r.get("unless") else None)
                    for r in rules.get("navigation_cue")]
    return c


def profile_document(compiled: _Compiled, title: str, source: str, header: str = "",
                     version_date: Optional[str] = None, kind: Optional[str] = None, doc_id: str = "") -> Profile:
    """The source profile of a document from its title, source path and header (``kind``: an override)."""
    stem = source.rsplit("/", 1)[-1]
    stem = stem.rsplit(".", 1)[0] if "." in stem else stem
    by_stem = parse_version(compiled.markers, stem)
    by_title = parse_version(compiled.markers, title)
    names = [fold(by_title.name), fold(by_stem.name)]
    rule = "ingest --kind"
    if kind is None:
        kind, rule = classify(compiled.kinds, names, source, header)
    date = _iso_tuple(version_date) or by_stem.date or by_title.date
    label = by_stem.label or by_title.label or (version_date if version_date else None)
    return Profile(doc_id=doc_id, title=title, kind=kind, kind_rule=rule, instrument=instrument_key(by_stem.name),
                   label=label, date=date, edition=by_stem.edition or by_title.edition)


def annotate_document(doc: Any, rules: RuleSet, kind: Optional[str] = None,
                      compiled: Optional[_Compiled] = None) -> Profile:
    """At ingest: write the document's kind, instrument and version into ``doc.meta`` (``kind`` overrides).

    ``compiled`` is :func:`compile_rules` of ``rules`` when the caller annotates many documents."""
    if kind is not None and kind not in DOC_KINDS:
        from .errors import LoopAgentError
        raise LoopAgentError("E303", name="kind", value=kind, why="not a document kind", allowed=", ".join(DOC_KINDS))
    p = profile_document(compiled or compile_rules(rules), doc.title, doc.source, "\n".join(doc.meta.get("header") or []),
                         doc.version_date, kind, doc.doc_id)
    doc.meta[META_KEY] = p.to_dict()
    return p


# --- the stage ----------------------------------------------------------------------------------------------

class Sources:
    """Kinds, versions, conflicts and navigation cards over one store; thread-safe, rebuilt when it changes."""

    def __init__(self, store: Any, rules: RuleSet) -> None:
        self.store = store
        self.rules = rules
        self._lock = threading.Lock()
        self._rules_version = -1
        self._compiled = _Compiled()
        self._gen: Any = None
        self._profiles: dict[str, Profile] = {}
        self._groups: dict[str, list[str]] = {}   # instrument -> doc ids, oldest first (orderable groups only)
        self._unordered: dict[str, list[str]] = {}  # instrument -> doc ids whose order no marker tells

    # --- compiled rules and store-derived data --------------------------------
    def compiled(self) -> _Compiled:
        with self._lock:
            if self._rules_version != self.rules.version:
                self._compiled = compile_rules(self.rules)
                self._rules_version = self.rules.version
                self._gen = None
            return self._compiled

    def _refresh(self) -> None:
        compiled = self.compiled()
        gen = self.store.generation
        with self._lock:
            if self._gen == gen:
                return
            profiles = {}
            for d in self.store.documents():
                stored = (d.get("meta") or {}).get(META_KEY) or {}
                override = stored.get("doc_kind") if stored.get("kind_rule") == "ingest --kind" else None
                profiles[d["doc_id"]] = profile_document(
                    compiled, d["title"], d["source"], "\n".join((d.get("meta") or {}).get("header") or []),
                    d.get("version_date"), override, d["doc_id"])
            by_inst: dict[str, list[Profile]] = {}
            for p in profiles.values():
                if p.versioned and len(p.instrument) >= 2:
                    by_inst.setdefault(p.instrument, []).append(p)
            groups, unordered = {}, {}
            for inst, ps in by_inst.items():
                if len(ps) < 2:
                    continue
                key = _order_key(ps)
                if key is None:
                    unordered[inst] = [p.doc_id for p in ps]
                else:
                    groups[inst] = [p.doc_id for p in sorted(ps, key=key)]
            self._profiles, self._groups, self._unordered, self._gen = profiles, groups, unordered, gen

    def profile(self, doc_id: str) -> Optional[Profile]:
        self._refresh()
        return self._profiles.get(doc_id)

    def versions_of(self, doc_id: str) -> list[str]:
        """The doc ids of every version of ``doc_id``'s instrument, oldest first ([] when it has no other)."""
        self._refresh()
        p = self._profiles.get(doc_id)
        return self._groups.get(p.instrument, []) if p else []

    def order_key(self, doc: dict) -> tuple:
        """Sort key of a document among its versions (date, then edition); for the comparison path."""
        p = self.profile(doc["doc_id"])
        return (p.date or (0, 0, 0), p.edition or ()) if p else ((0, 0, 0), ())

    # --- versions -------------------------------------------------------------
    def scope(self, query: Query) -> None:
        """Choose the version of every versioned instrument the question may be answered from.

        The question's named documents keep only the chosen version; versions not chosen are
        recorded in ``query.constraints['version_excluded']`` (their blocks are dropped from stage 1).
        A comparison naming several versions reads each of them and is left alone.
        """
        self._refresh()
        if not self._groups:
            return
        named = list(query.constraints.get("doc_ids") or [])
        if query.qtype != "compare":
            pair = self._versions_by_year(query.text, named, query.constraints.get("years") or []) or \
                self._versions_by_cue(query.text, named)
            if pair:  # 按1999年版的某条例与2011年修订版 / 第1版和第2版 / 修订前…修订后…: each version answers
                query.reasons.append(f"问题类型：{query.qtype} → compare（问题点名同一文件的两个年份版本）")
                query.qtype = "compare"
                query.constraints["doc_ids"] = named = pair
        if query.qtype == "compare" and len(named) < 2:
            # 2020版和2025修订版的市级城市维护项目管理办法…有什么不同: the instrument named without its place
            mentioned = self._mentioned(query.text)
            if len(mentioned) == 1:
                members = self._groups[mentioned[0]]
                query.constraints["doc_ids"] = named = list(dict.fromkeys(named + members))
                query.reasons.append(f"版本对比：《{_plain_title(self._profiles[members[-1]].title)}》的 "
                                     + "、".join(_ban(self._profiles[m].version_text() or "?") for m in members))
        if query.qtype == "compare" and len(named) >= 2:
            return
        cue = version_cue(self.compiled().cues, query.text)
        excluded: list[str] = []
        chosen_by: dict[str, str] = {}
        for inst, members in self._groups.items():
            hit = [m for m in members if m in named]
            if named and not hit:
                continue  # the question names other documents: this instrument is not asked about
            chosen, how = self._choose(members, cue)
            excluded += [m for m in members if m != chosen]
            chosen_by[chosen] = how
            if hit:
                named = [d for d in named if d not in members] + [chosen]
                query.reasons.append(self._version_line(chosen, members, how))
        if named:
            query.constraints["doc_ids"] = named
        if excluded:
            query.constraints["version_excluded"] = excluded
            query.constraints["version_chosen"] = chosen_by

    def _versions_by_year(self, question: str, named: list[str], years: list[str]) -> list[str]:
        """Two or more versions of one instrument the question names by year (1999年版的…与2011年修订版…), oldest
        first; [] when it names fewer than two years or they are not versions of one instrument."""
        wanted = sorted({int(y) for y in years})
        if len(wanted) < 2:
            return []
        insts = [i for i, members in self._groups.items() if any(m in named for m in members)]
        for inst in insts or self._mentioned(question):
            hits = []
            for y in wanted:
                m = next((m for m in self._groups[inst] if (self._profiles[m].date and self._profiles[m].date[0] == y)
                          or (self._profiles[m].label and str(y) in self._profiles[m].label)), None)
                if m and m not in hits:
                    hits.append(m)
            if len(hits) >= 2:
                return [m for m in self._groups[inst] if m in hits]
        return []

    def version_spans(self, question: str) -> list[tuple[int, int]]:
        """Where the question names a version (2020版, 第二版, v2, 修订前): a word inside one speaks of the versions,
        not of what each version is asked."""
        return [m.span() for _, rx in self.compiled().cues for m in rx.finditer(question)]

    def _versions_by_cue(self, question: str, named: list[str]) -> list[str]:
        """Two versions of one instrument the question names by edition (第1版和第2版, 1C版…1D版, v1和v2) or as the
        versions before and after a revision (修订前…修订后…), oldest first; [] otherwise."""
        found = version_cues(self.compiled().cues, question)
        picks = {p for p, _, _ in found}
        editions = [v for p, v, _ in found if p == "edition" and v]
        if len(set(editions)) < 2 and not {"previous", "latest"} <= picks:
            return []
        insts = [i for i, members in self._groups.items() if any(m in named for m in members)]
        for inst in insts or self._mentioned(question):
            members = self._groups[inst]
            if len(set(editions)) >= 2:
                hits = [m for m in members if any(_same_edition(v, self._profiles[m].label) for v in editions)]
            else:
                hits = members[-2:]
            if len(hits) >= 2:
                return hits
        return []

    def _mentioned(self, question: str) -> list[str]:
        """The versioned instruments whose name (or name without its place, 上海市…) the question holds."""
        qk = instrument_key(question)
        out = []
        for inst in self._groups:
            bare = _PLACE_PREFIX.sub("", inst)
            title = self._profiles[self._groups[inst][-1]].title
            if inst in qk or (len(bare) >= 4 and bare in qk) or _named_by_parts(inst, title, qk):
                out.append(inst)
        return out

    def _choose(self, members: list[str], cue: Optional[tuple[str, Optional[str], str]]) -> tuple[str, str]:
        """(doc id, how it was chosen) among versions ordered oldest first."""
        latest = members[-1]
        if cue is None or cue[0] == "latest":
            return latest, _VERSION_REASONS["latest"] + (f"，规则 {cue[2]}" if cue else "")
        picks, value, rid = cue
        if picks == "previous":
            return members[-2], f"问题指明修订前的版本（规则 {rid}）"
        if picks == "year" and value:
            year = int(value)
            for m in reversed(members):
                p = self._profiles[m]
                if (p.date and p.date[0] == year) or (p.label and value in p.label):
                    return m, f"问题指明 {value} 年的版本（规则 {rid}）"
            older = [m for m in members if self._profiles[m].date and self._profiles[m].date[0] <= year]
            if older:
                return older[-1], f"问题指明 {value} 年：采用当年有效的版本（规则 {rid}）"
        if picks == "edition" and value:
            for m in reversed(members):
                p = self._profiles[m]
                if p.label and (_same_edition(value, p.label) or value.lower() in p.label.lower()):
                    return m, f"问题指明版本 {value}（规则 {rid}）"
        return latest, f"问题所指版本（{value}）不在库中，采用现行版本（规则 {rid}）"

    def _version_line(self, chosen: str, members: list[str], how: str) -> str:
        p = self._profiles[chosen]
        others = [self._profiles[m].version_text() or self._profiles[m].title for m in members if m != chosen]
        return f"版本：《{_plain_title(p.title)}》采用 {_ban(p.version_text() or '?')}（{how}）；库中另有版本：{'、'.join(others)}"

    def filter(self, query: Query, cands: list[Candidate]) -> list[Candidate]:
        """Stage-1 candidates without the blocks of versions the question is not answered from."""
        excluded = set(query.constraints.get("version_excluded") or [])
        if not excluded:
            return cands
        return [c for c in cands if c.block.doc_id not in excluded]

    # --- the answer ---------------------------------------------------------------
    def annotate(self, answer: Answer, query: Query) -> None:
        """Kind and version on every evidence; the reasoning says which version answered and that others exist."""
        self._refresh()
        said = set()
        for ev in answer.evidence:
            p = self._profiles.get(ev.doc_id)
            if p is None:
                continue
            ev.doc_kind, ev.version = p.kind, p.version_text()
            group = self._groups.get(p.instrument)
            if group and ev.doc_id not in said and answer.status in ("answered", "ambiguous") \
                    and answer.method != "compare:versions" \
                    and not any(r.startswith("版本：") and _plain_title(p.title) in r for r in answer.reasoning):
                how = (query.constraints.get("version_chosen") or {}).get(ev.doc_id) or \
                    _VERSION_REASONS["latest" if group[-1] == ev.doc_id else "asked"]
                answer.reasoning.append(self._version_line(ev.doc_id, group, how))
            said.add(ev.doc_id)
        kinds = list(dict.fromkeys(f"《{_plain_title(e.title)}》{KIND_LABELS.get(e.doc_kind or '', '')}"
                                   + (f"，{_ban(e.version)}" if e.version else "") for e in answer.evidence))
        if kinds and answer.status in ("answered", "ambiguous"):
            answer.reasoning.append("来源：" + "；".join(kinds))

    # --- conflicts ----------------------------------------------------------------
    def conflict(self, query: Query, found: Any, answer: Answer,
                 rerun: Callable[[Query, list[str]], Any], evidence: Callable[[Any], list[Evidence]],
                 min_coverage: float = 0.7) -> Answer:
        """Check an answered figure against the other side (law vs internal policy/contract).

        ``rerun(query, doc_ids)`` answers the question (its constraints name those documents) at the usual bar;
        ``evidence(found)`` turns a Found into evidence objects. Returns ``answer`` (unchanged, or with
        a note or the other source's evidence) or a new ``ambiguous`` answer. The other source counts only
        when it covers the question by ``min_coverage`` itself (not by the situational allowance) and meets
        the question's figures (工作满十年的职工) as well as the first answer does.
        """
        self._refresh()
        if answer.status != "answered" or found is None or figure(found.value) is None:
            return answer
        main = self._profiles.get(found.anchor.candidate.block.doc_id)
        if main is None:
            return answer
        other_kinds = PRIVATE_KINDS if main.kind in LAW_KINDS else LAW_KINDS if main.kind in PRIVATE_KINDS else None
        if other_kinds is None:
            return answer
        excluded = set(query.constraints.get("version_excluded") or [])
        ids = [d for d, p in self._profiles.items() if p.kind in other_kinds and d not in excluded]
        if not ids:
            return answer
        sub = replace(query, reasons=[], rejected=[], constraints={**query.constraints, "doc_ids": ids},
                      article_hint=None if main.kind in LAW_KINDS else query.article_hint)
        alt = rerun(sub, ids)
        if alt is None or alt.anchor.candidate.block.doc_id not in ids or figure(alt.value) is None \
                or alt.coverage < min_coverage or _situation(query, alt) < min(1, _situation(query, found)) \
                or _own_coverage(query, alt) < min(min_coverage, _own_coverage(query, found)):
            return answer  # (its own sentences must speak of the question: a long article's other words do not)
        other = self._profiles[alt.anchor.candidate.block.doc_id]
        if figure(alt.value) == figure(found.value):
            answer.reasoning.append(f"来源核对：{KIND_LABELS[other.kind]}《{_plain_title(other.title)}》规定一致（{alt.answer}）")
            return answer
        law, law_p, private, private_p = (found, main, alt, other) if main.kind in LAW_KINDS else \
            (alt, other, found, main)
        side = lambda f, p: {"kind": p.kind, "value": f.value,
                             "text": "".join(s.text for _, s, _, _ in f.evidence)}  # noqa: E731
        rule = resolve_conflict(self.compiled().conflicts, side(law, law_p), side(private, private_p))
        if rule is not None:
            winner = private if rule["resolve"] == "lower" else law
            reason = rule["reason"].format(higher=law.answer, lower=private.answer)
            if winner is found:
                answer.evidence += [e for e in evidence(alt) if e.block_id not in {x.block_id for x in answer.evidence}]
                answer.reasoning.append(f"来源冲突已按规则 {rule['id']} 处理：{reason}")
                return answer
            return Answer(question=answer.question, status="answered", answer=alt.answer, value=alt.value,
                          evidence=evidence(alt) + answer.evidence, method=alt.method,
                          confidence=answer.confidence, reasoning=answer.reasoning + [
                              f"来源冲突已按规则 {rule['id']} 处理：{reason}"])
        items, ev, lines = [], [], []
        for f, p in ((law, law_p), (private, private_p)):
            items.append({"answer": f.answer, "value": f.value, "doc_id": p.doc_id, "title": p.title,
                          "doc_kind": p.kind, "version": p.version_text()})
            ev += evidence(f)
            lines.append(f"{KIND_LABELS[p.kind]}《{_plain_title(p.title)}》：{f.answer}")
        return Answer(question=answer.question, status="ambiguous", answer="；".join(lines),
                      value={"kind": "list", "items": items}, evidence=ev, method="conflict:sources",
                      confidence=min(answer.confidence, 0.5), reasoning=answer.reasoning + [
                          "来源冲突：法律法规与内部制度/合同的规定不一致，没有规则可以裁决，分别列出（内部制度不能取代法律规定）"]
                      + [f"冲突方：{x}" for x in lines])

    # --- comparison of versions ----------------------------------------------------
    def comparison(self, found_list: list[tuple[dict, Any]]) -> Optional[str]:
        """The templated comparison of a figure across versions (oldest first): 2023-12-29版将2年调整为1年;
        None unless every version gave a figure."""
        from .extract import render_value  # one rendering of values
        if len(found_list) < 2 or any(f is None or figure(f.value) is None for _, f in found_list):
            return None
        (old_doc, old), (new_doc, new) = found_list[0], found_list[-1]
        label = lambda d: (self.profile(d["doc_id"]).version_text() if self.profile(d["doc_id"]) else None) \
            or d.get("version_date") or "?"  # noqa: E731
        if figure(old.value) == figure(new.value):
            return f"{_ban(label(old_doc))}与{_ban(label(new_doc))}规定一致：{render_value(new.value)}"
        return f"{_ban(label(new_doc))}将{_ban(label(old_doc))}的{render_value(old.value)}调整为{render_value(new.value)}"

    # --- navigation -----------------------------------------------------------------
    def navigation_rule(self, question: str) -> Optional[str]:
        return is_navigation(self.compiled().navigation, question)

    def navigation(self, query: Query, cands: list[Candidate], rule_id: str, limit: int = 8) -> Answer:
        """A navigation card: the sections of the best candidates, with block ids and their first sentences."""
        from .anchors import coverage  # the same weighted share of the question's words as the answer gate
        self._refresh()
        bar = float(self.rules.settings("navigation_cue").get("min_coverage", 0.5))
        # the cue's own words (讲讲, 规定) say the question is open, not what it is about
        cue_text = "".join(m.group(0) for _, rx, _ in self.compiled().navigation for m in rx.finditer(query.text))
        weights = {t: w for t, w in query.weights.items() if t not in cue_text}
        topic = replace(query, weights=weights or query.weights)
        cands = [c for c in self.filter(query, cands)
                 if coverage(topic, c.block.text, f"{c.title}\n{' '.join(c.block.section)}", context_weight=1.0) >= bar]
        if not cands:
            return Answer(question=query.text, status="not_found",
                          reasoning=[f"问题类型：开放（导航，规则 {rule_id}）",
                                     f"粗筛：没有覆盖问题关键词 {bar:.0%} 以上的章节（{'、'.join(weights) or '无关键词'}）"])
        top = cands[0].score
        seen: dict[tuple, dict] = {}
        for c in cands:
            if c.score < 0.3 * top or len(seen) >= limit:
                continue
            key = (c.block.doc_id, tuple(c.block.section), c.block.clause)
            if key in seen:
                continue
            sents = split_sentences(c.block.text)
            first = (sents[0].text if sents else c.block.text).strip()
            summary = first if len(first) <= 80 else first[:79] + "…"
            seen[key] = {"doc_id": c.block.doc_id, "title": c.title, "section": list(c.block.section),
                         "block_id": c.block.block_id, "summary": summary, "_order": c.block.order}
        items = sorted(seen.values(), key=lambda x: (x["doc_id"] != cands[0].block.doc_id, x["doc_id"], x["_order"]))
        for x in items:
            del x["_order"]
        return Answer(question=query.text, status="navigation", method=f"navigation:{rule_id}",
                      confidence=0.0, navigation=items,
                      reasoning=[f"问题类型：开放（导航，规则 {rule_id}）",
                                 f"粗筛：{len(cands)} 个候选块，列出 {len(items)} 个相关章节（标题与首句，原文摘录）"])


def _order_key(ps: list[Profile]) -> Optional[Callable[[Profile], tuple]]:
    """How to order versions: by date when every one has a date, by edition when every one has one."""
    if all(p.date for p in ps):
        return lambda p: (p.date, p.edition or ())
    if all(p.edition for p in ps):
        return lambda p: p.edition
    return None


def _own_coverage(query: Query, found: Any) -> float:
    """How much of the question the evidence sentences themselves cover (their article and title not counted)."""
    from .anchors import coverage
    return coverage(query, "".join(s.text for _, s, _, _ in found.evidence))


def _situation(query: Query, found: Any) -> int:
    """How the evidence meets the figures of the asked situation: 1 inside, 0 silent, -1 outside."""
    from .extract import condition_match  # one definition of what meeting a condition is
    quantities = query.constraints.get("quantities") or []
    if not quantities:
        return 1
    text = "".join(s.text for _, s, _, _ in found.evidence)
    c = condition_match(quantities, text, query.constraints.get("ranges"))
    return 1 if c > 0 else -1 if c < 0 else 0


def _ban(label: str) -> str:
    """A version label as a name: 2016-03-16 → 2016-03-16版, 2020版 stays."""
    return label if label.endswith(_VERSION_SUFFIX) else f"{label}{_VERSION_SUFFIX}"


def _plain_title(title: str) -> str:
    return re.sub(r"[_\s]+$", "", title)


def check_example(kind: str, rule: dict, inp: Any, expect: Any, rules: RuleSet) -> tuple[bool, Any]:
    """Run one example of a source rule against the whole rule set of its kind (rules_cli's checker).

    The rule under test must be the one that decides (``expect: null``: it must not decide).
    """
    c = compile_rules(rules)
    if kind == "doc_kind":
        source = inp.get("source", "")
        names = [fold(parse_version(c.markers, inp.get("title", "")).name)]
        stem = source.rsplit("/", 1)[-1]
        names.append(fold(parse_version(c.markers, stem.rsplit(".", 1)[0] if "." in stem else stem).name))
        got, rid = classify(c.kinds, names, source, inp.get("header", ""))
        got = got if rid == rule["id"] else None
        return got == expect, (got, rid)
    if kind == "version_marker":
        v = parse_version(c.markers, inp)
        got = {"name": v.name, "label": v.label}
        return got == expect and rule["id"] in v.rules, {**got, "rules": list(v.rules)}
    if kind == "version_cue":
        cue = version_cue(c.cues, inp)
        got = [cue[0], cue[1]] if cue and cue[2] == rule["id"] else None
        return got == expect, cue
    if kind == "conflict_rule":
        hit = resolve_conflict(c.conflicts, inp["higher"], inp["lower"])
        got = hit["resolve"] if hit is not None and hit["id"] == rule["id"] else None
        return got == expect, (hit or {}).get("id")
    if kind == "navigation_cue":
        got = is_navigation(c.navigation, inp) == rule["id"]
        return got == expect, got
    return False, f"no example checker for rule kind {kind!r}"
