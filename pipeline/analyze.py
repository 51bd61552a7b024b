"""Query analysis: question type (YAML patterns), terms and weights, synonyms, document/article hints.

Needs: the question, the rules (question_type, synonyms) and the store (IDF, document names).
Adds: a :class:`~pipeline.types.Query`.
"""
from __future__ import annotations

import math
import re
import threading
from dataclasses import dataclass
from itertools import accumulate
from typing import Any, Optional

import regex

from . import cues
from . import specs  # noqa: F401  (registers the spec rule kind: rules/specs/*.yaml)
from .answer_kind import AnswerKindGrammar
from .fold import fold
from .numbers import CN_DIGITS as CN_NUMERALS, find_dates, find_quantities, spoken
from .rules import Field, RuleSet, register_schema
from .store import Store
from .text import strip_asides
from .places import jurisdiction, place_suffixes
from .tokenize import cut, get_tokenizer, is_content_word, is_word, pos_tag, stopwords
from .types import Query

register_schema("question_type", {
    "type": Field((str,), True, "one of count/number/money/duration/date/yesno/list/condition/exception/"
                               "definition/who/procedure/compare/open"),
    "priority": Field((int,), True, "higher is tried first"),
    "regex": Field((str,), True, "a Python `regex` pattern matched against the question"),
}, check=lambda r: _check_regex(r.get("regex", "")))

register_schema("collection_route", {
    "collection": Field((str,), True, "the collection name used at ingest (--collection NAME)"),
    "terms": Field((list,), True, "words that send a question to this collection"),
})

register_schema("synonyms", {
    "user": Field((list,), True, "words users say, e.g. [辞退, 开除]"),
    "doc": Field((list,), True, "words the documents use, e.g. [解除劳动合同]"),
    "weight": Field((float, int), False, "how much a document word counts for the user's word in the coverage of "
                                          "the question (0-1; default the file's `weight`): 1 where it says exactly "
                                          "the same (生效 / 施行)"),
}, check=lambda r: None if "weight" not in r or 0 < float(r["weight"]) <= 1
    else f"weight must be in (0, 1], got {r['weight']!r}")

QTYPES = ("count", "number", "money", "duration", "date", "yesno", "list", "condition", "exception",
          "definition", "who", "procedure", "compare", "open")

# Words that only say what is asked, never what it is about: rules/question_types.yaml `frame_words`.
FRAME_WORDS_SETTING = "frame_words"
_QUOTED = re.compile(r"[“\"「『]([^”\"」』]{2,30})[”\"」』]")
_BOOK = re.compile(r"《([^》]{2,60})》")
_IDENT = re.compile(r"(?<![A-Za-z0-9_])[A-Za-z]{1,8}[0-9][A-Za-z0-9]*(?![A-Za-z0-9_])")  # CH9141, X200, RS485
# cue patterns and words: rules/pipeline_cues.yaml (question.*), compiled once at import
VALIDITY = re.compile(cues.pattern("question.validity"))
EXPIRY = re.compile(cues.pattern("question.expiry"))  # 有效期到哪天: the named document's own term clause
BASIS = re.compile(cues.pattern("question.basis"))  # 依据哪部条例制定: the named document's enacting clause
_BASIS_KINDS = {str(k): str(v) for k, v in cues.table("basis.kind_suffix").items()}
_CODE_NAME = re.compile(cues.pattern("question.code_identifier"))  # Executors.newFixedThreadPool, wchnetSocketClose
_CODE_NUMBER = regex.compile(cues.pattern("question.code_number"))  # 错误码30606: the code is searched and must be cited
_ARTICLE = regex.compile(cues.pattern("question.article"))
# question words, quantities and fillers that jieba leaves as tokens (几个, 两年, 能休, 30个)
_NOT_A_TERM = re.compile(rf"^(几|多少|多久|多长|哪|怎|如何|是否|能否|可否)|^[{CN_NUMERALS}\d.]+[个名次年月日天周岁元万亿%]*$|"
                         r"^(个|个月|年|月|日|天|周|小时|分钟|工作日)(内|以内|之内|后|以后|之后|前|以前|之前)$")  # 多少/天内: a unit with its bound
_ASKED_ATTR = re.compile(cues.pattern("question.asked_attribute"))
_ASKED_PART = re.compile(cues.pattern("question.part_of_day_asked"))
_DEADLINE = re.compile(cues.pattern("question.deadline_asked"))
_YEAR = re.compile(cues.pattern("question.year"))
_TIME_ATTRS = cues.words("question.time_attributes")
# a clause that asks (几天/多少/算不算/能不能…), as opposed to one that tells the asker's situation
_ASKING = re.compile(cues.pattern("question.asking_clause"))
# 什么故障 / 哪个部门 / 哪些情形: the noun names the kind of thing asked for, which the answer need not repeat
_CATEGORY = re.compile(cues.pattern("question.category_noun"))
_KIND_NOUN = re.compile(cues.pattern("question.kind_noun"))  # 开工日期定在哪一天: 日期 names the kind of value only
CATEGORY_WEIGHT = 0.3
_TWO_HAN = re.compile(r"[\u4e00-\u9fff]{2}")
FRAGMENT_DF = 3  # a word outside the dictionary, not a name, in at most this many blocks: a jieba fragment
SITUATION_WEIGHT = 0.3  # words of the asker's situation that no document uses
_VALUE_ASK = re.compile(cues.pattern("question.value_ask"))
_ASKS_EACH = re.compile(cues.pattern("question.asks_each"))  # 分别/各自/有什么不同: one value does not answer
_CLAUSE = re.compile(r"[，,；;：:。？?！!]")
_INDEFINITE = re.compile(cues.pattern("question.indefinite"))
_FIGURE_ASK = re.compile(cues.pattern("question.figure_ask"))
_FIGURE_MODIFIER = re.compile(cues.pattern("question.figure_modifier"))
_WHO_ACT = re.compile(cues.pattern("question.who_act"))
_ANAPHORA = re.compile(cues.pattern("question.anaphora"))
_NATIONAL = cues.text("title.national_prefix")
_TITLE_KIND = re.compile("|".join(sorted(map(re.escape, cues.words("question.title_kind_words")), key=len, reverse=True)))
_RUN_MIN = int(cues.table("question.title_run_limits")["min_chars"])
_RUN_DOCS = int(cues.table("question.title_run_limits")["max_docs"])
_RUN_MAX = 24
_OPTIONAL_DE = cues.text("title.optional_particle")  # title runs match without it (…试点的暂行办法 = …试点暂行办法)
_NUMERAL_IN_BRACKETS = re.compile(cues.pattern("title.numeral_in_brackets"))  # 修正案（八） → 修正案八
_DOC_NUMBER = re.compile(cues.pattern("title.document_number"))  # 沪房规范〔2021〕6号
_RUN_TEXT = re.compile(r"[\u4e00-\u9fffA-Za-z0-9]+")  # one run of words, no punctuation or spaces


def _check_regex(pattern: str) -> Optional[str]:
    try:
        regex.compile(pattern)
    except regex.error as exc:
        return f"invalid regex ({exc})"
    return None


@dataclass
class _DocName:
    doc_id: str
    name: str
    version_date: Optional[str]


class QueryAnalyzer:
    """Stage 0: turn a question into a typed :class:`Query`."""

    def __init__(self, rules: RuleSet, store: Store) -> None:
        self.rules = rules
        self.store = store
        self.kinds = AnswerKindGrammar(rules)
        self._lock = threading.Lock()
        self._compiled_version = -1
        self._qtypes: list[tuple[dict, Any]] = []
        self._synonyms: list[tuple[list[str], list[str], Optional[float]]] = []
        self._core_verbs: set[str] = set()
        self._syn_weight = 0.6
        self._frame: frozenset[str] = frozenset()
        self._names_gen: Any = None
        self._names: list[_DocName] = []
        self._title_runs: dict[str, set[str]] = {}
        self._n_blocks = 1

    # --- compiled rules and store-derived data -----------------------------
    def _refresh(self) -> None:
        with self._lock:
            if self._compiled_version != self.rules.version:
                qt = sorted(self.rules.get("question_type"), key=lambda r: -r["priority"])
                self._qtypes = [(r, regex.compile(r["regex"])) for r in qt]
                self._synonyms = [([str(w) for w in r["user"]], [str(w) for w in r["doc"]],
                                   float(r["weight"]) if r.get("weight") is not None else None)
                                  for r in self.rules.get("synonyms")]
                self._syn_weight = float(self.rules.settings("synonyms").get("weight", 0.6))
                self._frame = frozenset(str(w) for w in self.rules.settings("question_type").get(FRAME_WORDS_SETTING) or ())
                # the core verbs are the lexicon's core_verb tier (rules/lexicon.yaml), not a list of our own
                self._core_verbs = {str(w) for r in self.rules.get("lexicon") if r["tier"] == "core_verb"
                                    for w in r["words"]}
                self._compiled_version = self.rules.version
            if self._names_gen != self.store.generation:
                self._load_names()

    def _load_names(self) -> None:
        names: list[_DocName] = []
        for d in self.store.documents():
            for n in doc_names(d["title"], d["source"]):
                names.append(_DocName(d["doc_id"], n, d.get("version_date")))
        names.sort(key=lambda x: -len(x.name))
        self._names = names
        self._title_runs = _title_runs(names)
        self._n_blocks = max(1, self.store.stats()["blocks"])
        self._names_gen = self.store.generation

    def invalidate(self) -> None:
        """Forget store-derived data (call after ingest)."""
        self._names_gen = None

    # --- analysis -----------------------------------------------------------
    def qtype(self, question: str, asked: Optional[str] = None) -> tuple[str, Optional[str]]:
        """The question type and the id of the rule that decided it (``asked``: the asking clause, if known)."""
        self._refresh()
        plain = strip_asides(question)
        asked = asked or asked_clause(question)
        # the clause that asks decides first (…受过刑事处罚的人员，…在多长期限内不准其出境 asks a duration,
        # not a fine); a compare question is one whatever clause asks
        for rule, rx in self._qtypes:
            if rule["type"] == "compare" and rx.search(plain):
                return rule["type"], rule["id"]
        for text in ([asked] if asked else []) + [plain]:
            for rule, rx in self._qtypes:
                if rx.search(text):
                    return rule["type"], rule["id"]
        return "open", None

    def route(self, question: str) -> tuple[Optional[str], Optional[str]]:
        """(collection, rule id) of the first collection route whose terms occur in the question."""
        for r in self.rules.get("collection_route"):
            if any(str(t) in question for t in r["terms"]):
                return r["collection"], r["id"]
        return None, None

    def run(self, question: str, previous: Optional[Query] = None, collection: Optional[str] = None,
            follows: bool = False) -> Query:
        """The question read as stage 1-3 need it; ``previous`` is the question before it in a session (or the
        ask before it in a question that asks twice: ``follows`` then reads it as a follow-up whatever its words)."""
        self._refresh()
        question = fold(question)  # 協定/終止 asked in Traditional characters match as Simplified
        q = Query(text=question)
        asked = asked_clause(question)
        q.constraints["asks"] = ask_count(question)
        if _ASKS_EACH.search(question):
            q.constraints["asks_each"] = True
        parts = joined_asks(question)
        figures = sum(1 for p in parts if _FIGURE_ASK.search(p) and not _FIGURE_MODIFIER.search(p))
        if figures > 1 and "、".join(parts) in question:
            # 病假最多几天、事假最多几天: a figure for each ask (asks joined by 、; a comma may join a clause that only
            # tells the situation: 还兼管着几个小区，最多能管几个)
            q.constraints["figure_asks"] = figures
        acts = [m.group("act") for p in parts for m in _WHO_ACT.finditer(p)]
        if len(acts) > 1:  # 由谁审批、向谁备案: the answer speaks of each act
            q.constraints["who_acts"] = acts
        # 几户人家共用的那种设施，…多少补助: a 几 that qualifies a noun tells the situation; it asks no kind of value
        joined = [self.kinds.infer(_FIGURE_MODIFIER.sub("", p)) for p in parts]
        if len({(k.kind if k else None) for k in joined}) > 1:
            # 多少钱、多大比例: two kinds of value, so one figure answers one ask; the units each kind's answer carries
            q.constraints["asks_joined"] = [list(k.units) for k in joined if k is not None and k.units]
        if asked:
            q.constraints["asked_clause"] = asked
        q.qtype, rule_id = self.qtype(question, asked)
        q.reasons.append(f"问题类型：{q.qtype}" + (f"（规则 {rule_id}）" if rule_id else "（默认）"))
        # the answer-kind grammar (rules/value_kinds.yaml): the noun or unit the interrogative attaches to
        ak = self.kinds.infer(question, asked)
        asks = [x for x in re.split(r"[？?]", question) if x.strip()]
        if ak is not None and len(asks) > 1 and len({k.kind for k in map(self.kinds.infer, asks) if k}) > 1:
            q.reasons.append("答案类型：问题的两问所问类型不同，不据此限定")  # 多少倍…？按什么天数…？
            ak = None
        if ak is not None:
            q.constraints["value_kind"] = ak.kind
            q.constraints["value_units"] = list(ak.units)
            if ak.how != "ask":  # 什么时候 / 多久 name a kind, not a word the evidence holds
                q.constraints["focus"] = ak.focus
            q.reasons.append(ak.reason())
            if ak.qtype != q.qtype and self.kinds.refines_type(rule_id, ak.kind):
                q.reasons.append(f"问题类型：{q.qtype} → {ak.qtype}（按答案类型）")
                q.qtype = ak.qtype

        # documents named in the question: 《…》 or a known title / short name
        doc_ids, named, by_run, of_name = self._doc_hints(question)
        # a run of a title (那份相互保密协定) names the document but stays in the question's terms: its words
        # are what the asker calls the subject (安全生产许可证 of 安全生产许可证条例)
        removed = [] if by_run else named
        if doc_ids:
            q.constraints["doc_ids"] = doc_ids
            # where each name stands: [start, end, the doc ids it names] (a comparison across documents splits by them)
            q.constraints["doc_spans"] = sorted([i, i + len(n), of_name.get(n, doc_ids)]
                                                for n in dict.fromkeys(named) if (i := question.find(n)) >= 0)
            q.doc_hint = named[0]
            q.reasons.append("文档限定：" + "、".join(dict.fromkeys(named)))
        places = jurisdiction(self.store, place_suffixes(self.rules)).named(question)
        if places:  # 我在重庆…: that place's rules answer, not another province's
            q.constraints["places"] = places
            q.reasons.append("地域限定：" + "、".join(places))
        self._apply_collection(q, collection)
        if q.qtype == "yesno" and VALIDITY.search(question):  # 《X》还有效吗: the answer is X's repeal elsewhere
            q.constraints["validity_of"] = _BOOK.findall(question) or ([q.doc_hint] if q.doc_hint else [])
        # the kind of law asked (行政法规 → titles ending 条例), if named; a question that asks more than its basis
        # is answered one ask at a time (the basis alone would leave the other ask unanswered)
        if doc_ids and q.constraints["asks"] == 1 and BASIS.search(question):
            kind = next((k for k in sorted(_BASIS_KINDS, key=len, reverse=True) if k in question), None)
            q.constraints["basis_of"] = _BASIS_KINDS[kind] if kind else ""
        if doc_ids and q.constraints["asks"] == 1 and EXPIRY.search(question):
            q.constraints["expiry_of"] = True
        years = _YEAR.findall(question)
        if years:
            q.constraints["years"] = years
        m = _ARTICLE.search(question)
        if m:
            q.article_hint = f"第{m.group(1)}条"
        attr = _ASKED_ATTR.search(question)
        attr = next(g for g in attr.groups() if g) if attr else None
        if attr and not (attr in _TIME_ATTRS and q.qtype in ("duration", "date")):
            # 对学历有什么要求: the evidence must speak of 学历 (在期限上有什么规定 asks for the deadline itself)
            q.constraints["asked_attribute"] = attr
        codes = [m.group(1) for m in _CODE_NUMBER.finditer(question)]
        if codes:  # a bare number is no search word (a figure), but a numeric code is, and it is what is asked
            q.constraints["codes"] = codes
            q.entities.extend(c for c in codes if c not in q.entities)
        idents = [m for m in _IDENT.findall(question) if len(m) >= 4] + _CODE_NAME.findall(question) + codes
        if idents:
            q.constraints["identifiers"] = idents  # model and product numbers: the answer's document must name them
        quoted = _QUOTED.findall(question)
        if quoted:
            q.entities.extend(quoted)
            q.constraints["quoted"] = quoted  # the asker's exact words: evidence must contain them
        from .extract import range_conditions  # one definition of what a condition is
        written = spoken(question)  # 罚了两千块: 两千元; 升到85度: 85℃ (as long as the question: offsets hold)
        ranges = range_conditions(written)
        q.constraints["ranges"] = [r[:4] + (list(r[4]),) for r in ranges]
        dates = find_dates(written)  # 2027年的12月5号: one day, not 2027 years, 12 months and a 5
        q.constraints["quantities"] = [x for x in find_quantities(written)
                                       if not any(a <= x["start"] < b for *_, (a, b) in ranges)
                                       and not any(d["start"] <= x["start"] < d["end"] for d in dates)] + \
            [d for d in dates if not any(a <= d["start"] < b for *_, (a, b) in ranges)]

        text_for_terms = question
        for n in removed:
            text_for_terms = text_for_terms.replace(n, " ")
        text_for_terms = _BOOK.sub(" ", text_for_terms)
        text_for_terms = _ASKED_PART.sub(" ", text_for_terms)  # 晚上几点: the part of the day belongs to the asked hour
        text_for_terms = _DEADLINE.sub(" ", text_for_terms)  # 最晚到哪天: the bound of the asked time, not 晚到
        text_for_terms = strip_asides(text_for_terms, " ")
        stop = stopwords()
        frame = self._frame
        terms: list[str] = []
        for tok in cut(text_for_terms):
            tok = tok.strip()
            if not tok or not is_word(tok) or tok in stop or tok in frame or _NOT_A_TERM.search(tok):
                continue
            if len(tok) == 1 and not re.fullmatch(r"[A-Za-z0-9]", tok):
                continue  # single characters are function words or units here
            if tok not in terms:
                terms.append(tok)
        for e in q.entities:
            if e not in terms:
                terms.append(e)
        q.terms = terms
        q.expansions, own_weights = self._expand(question, terms)
        if own_weights:  # entries that weigh their document words themselves (生效 / 施行: the same thing)
            q.constraints["synonym_term_weight"] = own_weights
        for user in q.expansions:  # a dictionary word jieba split (年假 → 年 / 假) is still a term
            if user not in terms and len(user) >= 2 and not any(user in t for t in terms) \
                    and not _ASKING.search(user) and user not in frame and user in text_for_terms:
                terms.append(user)
        q.weights, df = self._idf(terms, q.expansions)
        q.constraints["synonym_weight"] = self._syn_weight  # dictionaries/synonyms.yaml `weight`
        if asked and SITUATION_WEIGHT < 1:
            for t in q.weights:  # the asker's situation (一口气请个长假出去旅行，…) says less than what is asked
                if t not in asked and df.get(t.lower(), 0) == 0:
                    q.weights[t] = round(q.weights[t] * SITUATION_WEIGHT, 3)
        for e in q.entities:  # quoted terms are what the question is about…
            if df.get(e.lower(), 0) == 0 and len(e) > 4 and e in q.weights:
                del q.weights[e]  # …unless it is the asker's own phrase (“验收合格再付款”): its words count instead
                q.terms.remove(e)
                continue
            q.weights[e] = q.weights.get(e, 1.0) * 1.5
        for m in _CATEGORY.finditer(question):  # 属于哪种病害: the answer names a disease, it need not say 病害
            cat = next((t for t in q.weights if m.group(1).startswith(t) and t not in q.entities), None)
            if cat:  # the coverage bar counts it at CATEGORY_WEIGHT; selection still uses it fully
                q.constraints.setdefault("asked_category", []).append(cat)
        for m in _KIND_NOUN.finditer(question):  # 开工日期定在哪一天: 日期 only names the kind of value asked for
            if m.group(1) in q.weights and m.group(1) not in q.entities:  # the coverage bar leaves it out
                q.constraints.setdefault("asked_kind_noun", []).append(m.group(1))
        # zentra水泵 / XX系统: the class noun right after a named product is covered by that product's documents
        for name in ([q.doc_hint] if q.doc_hint and not _BOOK.search(question) else []):
            i = question.find(name)
            rest = question[i + len(name):] if i >= 0 else ""
            cls = next((t for t in q.weights if rest.startswith(t) and is_content_word(t)), None)
            if cls:
                q.constraints["named_class"] = cls
        # compound terms the documents may split (工会会员 → 会员): their parts earn partial credit
        tok = get_tokenizer()
        q.constraints["parts"] = {t: _parts(tok, t) for t in q.weights if len(t) >= 4}
        q.core_verb = next((t for t in terms if len(t) >= 2 and t in self._core_verbs), None)
        q.entities.extend(t for t in terms if len(t) >= 3 and t not in q.entities)

        if previous is not None and (follows or _ANAPHORA.search(question) or len(terms) <= 1):
            if q.qtype == "open":  # 难产的呢？ asks the same kind of thing as the question before
                q.qtype = previous.qtype
                q.reasons[0] = f"问题类型：{q.qtype}（承接上一问）"
            for t in previous.terms:
                if t not in q.weights:
                    q.terms.append(t)
                    q.weights[t] = previous.weights.get(t, 1.0) * 0.35  # the new words lead
            if not doc_ids and previous.constraints.get("doc_ids"):
                q.constraints["doc_ids"] = previous.constraints["doc_ids"]
                q.doc_hint = previous.doc_hint
            q.reasons.append("承接上一问：" + "、".join(previous.terms[:6]))
        q.reasons.append("关键词：" + "、".join(f"{t}({q.weights.get(t, 0):.1f})" for t in q.terms))
        if q.expansions:
            q.reasons.append("同义扩展：" + "；".join(f"{k}→{'/'.join(v)}" for k, v in q.expansions.items()))
        return q

    def _apply_collection(self, q: Query, collection: Optional[str]) -> None:
        """Restrict to a collection: the one asked for, else the one a route rule picks (if it exists)."""
        explicit = collection is not None
        how = None  # the route rule that picked the collection, if one did
        if not explicit:
            collection, rule_id = self.route(q.text)
            how = f"路由规则 {rule_id}"
        if collection is None:
            return
        ids = [d["doc_id"] for d in self.store.documents(collection)]
        if not ids:
            if explicit:  # an explicit collection that holds nothing: answer nothing rather than guess
                q.constraints["doc_ids"] = ["-"]
            return
        named = q.constraints.get("doc_ids")
        q.constraints["doc_ids"] = [d for d in named if d in ids] or ids if named else ids
        q.constraints["collection"] = collection
        q.reasons.append(f"文档集合：{collection}（{how or '指定'}）")

    def _doc_hints(self, question: str) -> tuple[list[str], list[str], bool, dict[str, list[str]]]:
        """Documents the question names, the names it uses, whether they come from a run of a title, and the
        documents each name names."""
        found: list[str] = []
        named: list[str] = []
        of_name: dict[str, list[str]] = {}
        spans: list[tuple[int, int, str]] = []
        for book in _BOOK.findall(question):
            for n in self._names:
                if n.name == book or n.name == _short(book):
                    found.append(n.doc_id)
                    named.append(book)
                    of_name.setdefault(book, []).append(n.doc_id)
        for n in self._names:  # longest names first; versions of one law share a name
            i = question.find(n.name)
            if i < 0 or any(a <= i < b and name != n.name for a, b, name in spans):
                continue
            found.append(n.doc_id)
            named.append(n.name)
            of_name.setdefault(n.name, []).append(n.doc_id)
            spans.append((i, i + len(n.name), n.name))
        if not found:  # 那份相互保密协定: a run of one title, ending in a kind word, names that document
            run, ids = self._title_run(question)
            if run:
                return ids, [run], True, {run: ids}
        return list(dict.fromkeys(found)), list(dict.fromkeys(named)), False, of_name

    def _title_run(self, question: str) -> tuple[Optional[str], list[str]]:
        """The longest run of the question that ends in a title kind word (协定, 制度, 说明…) and that the
        titles of at most ``max_docs`` documents hold (rules/pipeline_cues.yaml question.title_*)."""
        best: tuple[Optional[str], list[str]] = (None, [])
        bare = question.replace(_OPTIONAL_DE, "")  # 房产税试点暂行办法 names …征收房产税试点的暂行办法 too
        for m in _TITLE_KIND.finditer(bare):
            end = m.end()
            for start in range(max(0, end - _RUN_MAX), end - _RUN_MIN + 1):
                ids = self._title_runs.get(bare[start:end])
                if ids and (best[0] is None or end - start > len(best[0])):
                    best = (bare[start:end], sorted(ids))
                    break  # the longest run ending here
        if best[0] is None:
            return best
        # the run as the question writes it (with its 的)
        hit = re.search(f"{_OPTIONAL_DE}?".join(map(re.escape, best[0])), question)
        return (hit.group(0) if hit else best[0]), best[1]

    def _idf(self, terms: list[str], expansions: Optional[dict[str, list[str]]] = None
             ) -> tuple[dict[str, float], dict[str, int]]:
        """IDF weight per term from the store's FTS vocabulary (about 0.3 very common … 2.25 rare).

        A term the index has never seen cannot be matched as a token: it gets a low weight.
        """
        expansions = expansions or {}
        df = self.store.doc_freq(terms + [s for t in terms for s in expansions.get(t, [])])
        n = self._n_blocks
        out = {}
        for t in terms:
            d = df.get(t.lower(), 0) or max((df.get(s.lower(), 0) for s in expansions.get(t, [])), default=0)
            # 报给, 签了, 手后: characters jieba guessed together from the asker's wording (no dictionary word):
            # a fragment, not a name, when the store almost never holds it (two Han characters: never)
            guessed = d <= FRAGMENT_DF and not get_tokenizer().FREQ.get(t) and \
                (not is_content_word(t) or (d == 0 and _TWO_HAN.fullmatch(t) is not None))
            if d == 0 or guessed:
                # never seen in the store: a name or term the documents do not contain (上海市, 餐补)
                # weighs heavily, so evidence lacking it cannot reach the coverage bar; a jieba
                # fragment (能休) weighs little
                out[t] = 1.6 if is_content_word(t) and not guessed else 0.3
                continue
            idf = math.log(1 + (n - d + 0.5) / (d + 0.5))
            out[t] = round((min(idf, 8.0) / 4.0 + 0.25) * _pos_factor(t, self._core_verbs), 3)
        return out, df

    def _expand(self, question: str, terms: list[str]) -> tuple[dict[str, list[str]], dict[str, float]]:
        """(question term -> the document words its synonym entries give, term -> the weight its entry sets itself,
        the lowest where several entries give the same term)."""
        out: dict[str, list[str]] = {}
        weights: dict[str, float] = {}
        words = cut(question)
        owner = [i for i, w in enumerate(words) for _ in w]  # character -> the index of the word holding it
        starts = {0, *accumulate(map(len, words))}  # where each word begins (and the question ends)

        freq = get_tokenizer().FREQ

        def fragment(w: str) -> bool:
            """A word jieba guessed (刚入 of 刚入职, not in its dictionary) or a function word: an edge inside it is no
            word edge the user wrote."""
            return not is_content_word(w) or not freq.get(w)

        def aligned(u: str) -> bool:
            """Some occurrence of ``u`` in the question lies inside one word (工资总额 holds 工资), or begins and ends at
            word edges, or at an edge inside a jieba fragment (做产检 holds 产检, 刚入 / 职 holds 入职): 买房补贴 (买房 /
            补贴) does not hold the user word 房补, which straddles two dictionary words, nor 核定金额 定金."""
            if len(owner) != len(question):
                return True  # the words do not spell the question out (never expected): no edges to check
            i = question.find(u)
            while i >= 0:
                j = i + len(u)
                if owner[i] == owner[j - 1] or ((i in starts or fragment(words[owner[i]])) and
                                                (j in starts or fragment(words[owner[j - 1]]))):
                    return True
                i = question.find(u, i + 1)
            return False

        for users, docs, own in self._synonyms:
            for u in users:  # every user word of the entry that occurs (电脑 and 服务器 both → 电子设备)
                # a user word across two words counts where the question writes out a longer document word holding
                # it (劳动合同期限 holds 合同期, the entry's own document word); 核定金额 never holds 定金
                if u in question and (aligned(u) or any(u in d and d != u and d in question for d in docs)) and \
                        not any(u in v and u != v for v in users if v in question):
                    extra = [d for d in docs if d != u]
                    # key by the question term that holds the user word when that term is a jieba
                    # fragment (做产检 holds 产检), not when it is a word of its own (证券公司 ≠ 公司)
                    key = u if u in terms else next(
                        (t for t in terms if (u in t and not is_content_word(t)) or (t in u and len(t) >= 2)), u)
                    if extra:
                        out.setdefault(key, [])
                        out[key] += [d for d in extra if d not in out[key]]
                        if own is not None:
                            weights[key] = min(own, weights.get(key, own))
        return out, weights





def _asking_sentences(question: str) -> list[str]:
    """The sentences of the question that ask (最少几个人？要不要亮证？ → both)."""
    return [a for a in re.split(r"[？?]", strip_asides(question, "")) if a.strip() and _ASKING.search(a)]


def joined_asks(question: str) -> list[str]:
    """The asks joined by 、 in the asking clause (押金交多少钱、占月租多大比例 → both), or by the comma between its
    last two clauses (押金交多少钱，保证金占几成), or [] when it asks once."""
    asks = _asking_sentences(question)
    if len(asks) != 1:
        return []
    clauses = [c for c in _CLAUSE.split(asks[0]) if c.strip()]
    parts = [p for p in clauses[-1].split("、") if p.strip()]
    asking = [p for p in parts if _ASKING.search(p)]
    if len(parts) >= 2 and len(asking) >= 2:
        return asking
    # 押金交多少钱，保证金占几成: the last two clauses of the sentence ask one each (没说要交多少 asks nothing)
    last = [c for c in clauses[-2:] if _ASKING.search(c) and not _INDEFINITE.search(c)]
    return last if len(clauses) >= 2 and len(last) == 2 else []


def ask_count(question: str) -> int:
    """How many sentences of the question ask; at least 1."""
    return max(1, len(_asking_sentences(question)))


def asked_clause(question: str) -> Optional[str]:
    """The clause that asks, when the question first tells a situation in other clauses.

    租客搬走时押金被扣，房东迟迟不肯退还，租客最迟要在几天以内提出异议？ →
    租客最迟要在几天以内提出异议. None for a one-clause question or when no clause asks.
    """
    asks = _asking_sentences(question)
    several = len(asks) > 1
    if several:  # 最少得有几个人？要不要亮证？ / 有要求吗？最少几个人？: an ask for a value (the last one) is
        question = next((a for a in reversed(asks) if _VALUE_ASK.search(a)), asks[-1])  # the question, not 吗
    clauses = [c.strip() for c in _CLAUSE.split(strip_asides(question, "")) if c.strip()]
    if len(clauses) < 2:
        return clauses[0] if several and clauses else None
    asking = [c for c in clauses if _ASKING.search(c)]
    return asking[-1] if asking else None


def _parts(tok: Any, term: str) -> list[str]:
    """The words a compound term is made of (签订合同 → 签订, 合同), else its search sub-words."""
    subs = [p for p in tok.cut_for_search(term) if len(p) >= 2 and p != term]
    halves = next(([term[:i], term[i:]] for i in range(2, len(term) - 1)
                   if term[:i] in subs and term[i:] in subs), None)
    return halves or subs


def _pos_factor(term: str, core_verbs: set[str]) -> float:
    """Nouns name what a question is about; verbs and adverbs are often the asker's own wording."""
    tag = pos_tag(term)
    if tag is None or tag.startswith(("n", "vn", "eng", "j", "l", "i", "t", "s")) or term in core_verbs:
        return 1.0
    if tag.startswith("v"):
        return 0.6
    if tag.startswith("a"):
        return 0.7  # 较大, 紧急: adjectives often pick one of several graded provisions
    return 0.4


def _title_runs(names: list["_DocName"]) -> dict[str, set[str]]:
    """Every run of a document name that ends in a title kind word and is long enough, mapped to the
    documents whose names hold it; runs that too many documents share are left out (失业保险条例)."""
    runs: dict[str, set[str]] = {}
    for n in names:
        name = n.name.replace(_OPTIONAL_DE, "")  # the particle 的 is optional in a name: runs are kept without it
        for m in _TITLE_KIND.finditer(name):
            end = m.end()
            for start in range(max(0, end - _RUN_MAX), end - _RUN_MIN + 1):
                runs.setdefault(name[start:end], set()).add(n.doc_id)
    return {r: ids for r, ids in runs.items() if len(ids) <= _RUN_DOCS and _RUN_TEXT.fullmatch(r)}


def _short(title: str) -> str:
    return title.removeprefix(_NATIONAL)


def doc_names(title: str, source: str) -> list[str]:
    """Names a question may use for a document: title, title without 中华人民共和国, file stem."""
    names = [title, _short(title)]
    stem = re.sub(r"[（(]\d{4}-\d{2}-\d{2}[)）]$", "", source.rsplit("/", 1)[-1].rsplit(".", 1)[0])
    names.append(stem)
    # Latin tokens of a file name name a product or company (zentra_pump_guide_zh.pdf → zentra)
    names += [t for t in re.split(r"[_\-\s.]+", stem) if re.fullmatch(r"[A-Za-z][A-Za-z0-9]{3,}", t)
              and t.lower() not in _GENERIC_STEM_WORDS]
    # 刑法修正案（八） is also written 刑法修正案八; a document number (沪房规范〔2021〕6号) names its document
    names += [_NUMERAL_IN_BRACKETS.sub(r"\1", n) for n in names if _NUMERAL_IN_BRACKETS.search(n)]
    names += _DOC_NUMBER.findall(f"{title} {stem}")
    names += _PROMULGATED.findall(title)  # 关于印发《X》的通知 carries X: X names it
    # X省人大常委会Y规定 for X省人民代表大会常务委员会Y规定: the title with its long words in their short forms
    for n in list(names):
        short = n
        for long_form, abbr in _ABBREVIATIONS:
            short = short.replace(long_form, abbr)
        if short != n:
            names.append(short)
    return [n for n in dict.fromkeys(names) if n and len(n) >= 3]


_ABBREVIATIONS = sorted(((str(k), str(v)) for k, v in cues.table("docname.abbreviations").items()),
                        key=lambda kv: -len(kv[0]))


_PROMULGATED = re.compile(cues.pattern("docname.promulgated"))
_GENERIC_STEM_WORDS = {"manual", "guide", "protocol", "handbook", "employee", "operations", "final", "draft",
                       "copy", "version", "document", "report", "policy", "notice", "rules", "standard"}
