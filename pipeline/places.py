"""Jurisdiction: the place a document governs and the places a question names.

A local regulation's title starts with its place (上海市…条例, 郑州市…办法, 深圳经济特区…条例), and an
ingested folder may carry the province (河南/郑州市停车场建设管理条例.md). A question that names a place
(我在重庆交了五年失业保险…, 郑州的停车场…) asks about that place's rules:

- a document of another place cannot answer it (the gate refuses it and tries the next extraction);
- a document of no place (a national law, a company policy, a manual) still can;
- stage 1 ranks the named place's documents up and other places' documents down.

The place suffixes (省, 市, 自治区, …) are data: `place_suffixes` in rules/collections.yaml (the shipped file's
list is the default where no rule set is at hand); the national prefix is rules/pipeline_cues.yaml title.national_prefix.
"""
from __future__ import annotations

import re
import threading
from typing import Any, Iterable

from .cues import shipped_settings, text

DEFAULT_SUFFIXES: tuple[str, ...] = tuple(str(x) for x in shipped_settings("rules", "collections.yaml")["place_suffixes"])
_NATIONAL_PREFIX = text("title.national_prefix")


class Jurisdiction:
    """Which place each document governs, and which known places a text names."""

    def __init__(self, docs: Iterable[dict[str, Any]], suffixes: Iterable[str] = DEFAULT_SUFFIXES) -> None:
        alts = "|".join(sorted((re.escape(s) for s in suffixes), key=len, reverse=True))
        self._title_rx = re.compile(rf"^([\u4e00-\u9fff]{{2,7}}?)(?:{alts})")
        docs = list(docs)
        self.of_doc: dict[str, frozenset[str]] = {}
        vocab: set[str] = set()
        for d in docs:
            p = self._title_place(d.get("title") or "")
            if p:
                vocab.add(p)
        # a place inside another (杭州 in 浙江): a document of the inner place in a folder named after the outer
        self.within: dict[str, set[str]] = {}
        for d in docs:  # a folder named after a place (河南/郑州市…) adds that place
            own = self._title_place(d.get("title") or "")
            places = {own} - {None}
            folders = {part for part in re.split(r"[/\\]", d.get("source") or "")[:-1] if part in vocab}
            places |= folders
            if own:
                self.within.setdefault(own, set()).update(folders - {own})
            if places:
                self.of_doc[d["doc_id"]] = frozenset(places)
        self.vocab = frozenset(vocab)
        self._names = sorted(vocab, key=lambda n: (-len(n), n))

    def _title_place(self, title: str):
        m = self._title_rx.match(title.removeprefix(_NATIONAL_PREFIX))
        return m.group(1) if m else None

    def named(self, text: str) -> list[str]:
        """Known places ``text`` names in the order it names them; a longer name wins an overlap."""
        taken: list[tuple[int, int, str]] = []
        for name in self._names:  # longest first
            start = text.find(name)
            while start >= 0:
                end = start + len(name)
                if not any(a < end and start < b for a, b, _ in taken):
                    taken.append((start, end, name))
                start = text.find(name, end)
        return list(dict.fromkeys(name for _, _, name in sorted(taken)))

    def relation(self, doc_id: str, places: list[str]) -> str:
        """"same" (the document governs a named place), "other" (another place) or "none" (no place)."""
        mine = self.of_doc.get(doc_id)
        if not mine or not places:
            return "none"
        # 我住在杭州…: a regulation of 浙江, the province 杭州 lies in, governs there too
        named = set(places).union(*(self.within.get(p, ()) for p in places))
        return "same" if mine & named else "other"


def place_suffixes(rules: Any) -> tuple[str, ...]:
    """The place suffixes of the rules (rules/collections.yaml `place_suffixes`), else the defaults."""
    return tuple(str(x) for x in rules.settings("collection_route").get("place_suffixes") or DEFAULT_SUFFIXES)


_cache: dict[int, tuple[Any, Jurisdiction]] = {}
_lock = threading.Lock()


def jurisdiction(store: Any, suffixes: Iterable[str] = DEFAULT_SUFFIXES) -> Jurisdiction:
    """The store's jurisdiction index, rebuilt when the store's documents change."""
    key = (store.generation, tuple(suffixes))
    with _lock:
        hit = _cache.get(id(store))
        if hit and hit[0] == key:
            return hit[1]
    j = Jurisdiction(store.documents(), suffixes)
    with _lock:
        _cache[id(store)] = (key, j)
    return j
