"""Word segmentation shared by the store (FTS5 index) and the stages: jieba with the configured dictionaries.

One process-wide jieba Tokenizer, built lazily under a lock, with the ``*.txt`` user
dictionaries of the configured dictionary folders (jieba format: word [freq] [pos]).
:func:`configure` (called by :class:`~pipeline.rules.RuleSet` on every reload) switches
the files; when they or their modification times change the tokenizer is rebuilt on next
use, so a new user word takes effect without a restart. Before any ``configure`` the
shipped dictionaries apply. The tokenizer is per process (jieba's dictionary costs
about 50 MB), so knowledge bases in one process share the last configured dictionaries.
"""
from __future__ import annotations

import logging
import os
import re
import threading
from array import array
from math import log
from bisect import bisect_left
from functools import lru_cache
from pathlib import Path
from typing import Optional, Sequence

from . import cues
from . import cache

_log = logging.getLogger(__name__)
_lock = threading.RLock()
_tokenizer = None
_WORD = re.compile(r"[\w\u4e00-\u9fff]", re.U)
_files: Optional[tuple[tuple[str, int], ...]] = None   # (path, mtime) of the user dictionaries in effect
_stop_files: tuple[tuple[str, int], ...] = ()  # (path, mtime) of the stop-word files
_index_words: Optional[frozenset[str]] = None
_generation = 0


def _key(paths: Sequence[Path]) -> tuple[tuple[str, int], ...]:
    out = []
    for p in paths:
        try:
            out.append((str(p), Path(p).stat().st_mtime_ns))
        except OSError:
            continue
    return tuple(out)


def _default_files() -> tuple[list[Path], list[Path]]:
    from .config import Settings
    s = Settings.default()
    return s.user_dict_files(), s.stopword_files()


def configure(user_dicts: Sequence[Path], stopword_files: Sequence[Path] = ()) -> bool:
    """Use these jieba user dictionaries and stop-word files from now on.

    Returns True when they differ (files or modification times) from the ones in effect
    before; the tokenizer is then rebuilt on next use.
    """
    global _files, _stop_files, _tokenizer, _index_words, _generation
    key = _key(user_dicts)
    stops = _key(stopword_files)
    with _lock:
        if key == _files and stops == _stop_files:
            return False
        first = _files is None
        _files, _stop_files = key, stops
        _tokenizer = None
        _index_words = None
        _cut_cached.cache_clear()
        stopwords.cache_clear()
        _generation += 1
        return not first


def dictionary_files() -> tuple[list[str], list[str]]:
    """(user dictionaries, stop-word files) in effect, as :func:`configure` takes them (for worker processes)."""
    get_tokenizer()
    return [p for p, _ in _files or ()], [p for p, _ in _stop_files]


def generation() -> int:
    """Bumped whenever the dictionaries in effect change."""
    return _generation


def user_words(paths: Optional[Sequence[Path]] = None) -> list[str]:
    """The words (first field of each line) of jieba user dictionaries; comments start with #."""
    if paths is None:
        paths = [Path(p) for p, _ in (_files or _key(_default_files()[0]))]
    out = []
    for p in paths:
        try:
            text = Path(p).read_text(encoding="utf-8-sig")  # a BOM is no part of the first word (jieba strips it too)
        except OSError:
            continue
        out += [l.split()[0] for l in text.splitlines() if l.strip() and not l.lstrip().startswith("#")]
    return out


def get_tokenizer(dict_dir: Optional[Path] = None):
    """The shared jieba.Tokenizer with the user dictionaries loaded (thread-safe, rebuilt after a change).

    ``dict_dir`` (for old callers) configures the ``*.txt`` files of that folder first.
    """
    global _tokenizer, _index_words
    if dict_dir is not None:
        configure([p for p in sorted(Path(dict_dir).glob("*.txt")) if p.name != "stopwords.txt"],
                  [Path(dict_dir) / "stopwords.txt"])
    tok = _tokenizer
    if tok is not None:
        return tok
    with _lock:
        if _tokenizer is None:
            import jieba

            if _files is None:
                configure(*_default_files())
            jieba.setLogLevel(logging.WARNING)
            tok = jieba.Tokenizer()
            _initialize(tok)
            paths = [p for p, _ in _files or ()]
            words = set(user_words(paths))
            # the user words jieba alone would split: these are the ones that change the index
            _index_words = frozenset(w for w in words if tok.lcut(w, HMM=False) != [w])
            for f in paths:
                tok.load_userdict(f)
            _tokenizer = tok
    return _tokenizer


def _dict_path(tok) -> str:
    import jieba
    return tok.dictionary or os.path.join(os.path.dirname(jieba.__file__), "dict.txt")


class LazyFreq(dict):
    """jieba's prefix dictionary (word or prefix -> frequency), filled one first character at a time.

    A process that only answers questions looks up a few hundred words, all starting with the
    question's few dozen characters; building the full 500k-entry dict costs 0.3-1.2 s at start-up.
    The words are kept as one sorted string with offset and frequency arrays (read from the cache
    in about 20 ms); the entries of a first character become dict entries the first time any word
    starting with it is looked up, so every lookup sees exactly the value of the full dict. Writes
    (jieba's add_word for user dictionaries) load their character first.
    """

    def __init__(self, blob: str, starts: "array[int]", freqs: "array[int]", index: dict[str, tuple[int, int]]):
        super().__init__()
        self._blob, self._starts, self._freqs, self._all = blob, starts, freqs, index
        self._index = dict(index)  # first characters not loaded yet

    @classmethod
    def build(cls, freq: dict) -> "LazyFreq":
        words = sorted(freq)
        starts, pos = array("I"), 0
        index: dict[str, tuple[int, int]] = {}
        for i, w in enumerate(words):
            starts.append(pos)
            pos += len(w) + 1
            lo, _ = index.get(w[0], (i, i))
            index[w[0]] = (lo, i + 1)
        return cls("\n".join(words), starts, array("I", (freq[w] for w in words)), index)

    def state(self) -> tuple:
        """The base dictionary (as built, without later writes), marshal-able for the cache."""
        return (self._blob, self._starts.tobytes(), self._freqs.tobytes(), self._all)

    @classmethod
    def restore(cls, state: tuple) -> "LazyFreq":
        blob, starts, freqs, index = state
        a, f = array("I"), array("I")
        a.frombytes(starts)
        f.frombytes(freqs)
        return cls(blob, a, f, index)

    def _load(self, ch: str) -> None:
        lo, hi = self._index.pop(ch)
        end = self._starts[hi] - 1 if hi < len(self._starts) else len(self._blob)
        dict.update(self, zip(self._blob[self._starts[lo]:end].split("\n"), self._freqs[lo:hi]))

    def __contains__(self, k: object) -> bool:
        if isinstance(k, str) and k and k[0] in self._index:
            self._load(k[0])
        return dict.__contains__(self, k)

    def __getitem__(self, k: str) -> int:
        if k and k[0] in self._index:
            self._load(k[0])
        return dict.__getitem__(self, k)

    def get(self, k: str, default=None):
        if isinstance(k, str) and k and k[0] in self._index:
            self._load(k[0])
        return dict.get(self, k, default)

    def __setitem__(self, k: str, v: int) -> None:
        if k and k[0] in self._index:
            self._load(k[0])
        dict.__setitem__(self, k, v)

    def full(self) -> dict:
        """A plain dict of every entry (for bulk work such as ingest, where lookups dominate)."""
        for ch in list(self._index):
            self._load(ch)
        return dict(self)


def _initialize(tok) -> None:
    """Give ``tok`` jieba's prefix dictionary as a :class:`LazyFreq` from the loopagent cache
    (pipeline/cache.py), else build it as jieba does and cache it. Every lookup returns what jieba's
    own dictionary holds; only the start-up cost differs."""
    import jieba
    key = cache.file_key(_dict_path(tok)) + "-" + str(getattr(jieba, "__version__", ""))
    got = cache.load("jieba_lazy", key)
    if isinstance(got, tuple) and len(got) == 2 and isinstance(got[1], tuple):
        tok.FREQ, tok.total = LazyFreq.restore(got[1]), got[0]
        tok.initialized = True
        return
    tok.initialize()
    lazy = LazyFreq.build(tok.FREQ)
    cache.save("jieba_lazy", key, (tok.total, lazy.state()))


def full_dictionary() -> None:
    """Turn the shared tokenizer's prefix dictionary into a plain dict (before bulk tokenising: ingest)."""
    tok = get_tokenizer()
    with _lock:
        if isinstance(tok.FREQ, LazyFreq):
            tok.FREQ = tok.FREQ.full()


def index_words() -> frozenset[str]:
    """User-dictionary words that jieba without them would split (they decide how documents are indexed)."""
    get_tokenizer()
    return _index_words or frozenset()


def splits(word: str) -> list[str]:
    """How the current tokenizer segments ``word`` (one element when it is kept whole)."""
    return get_tokenizer().lcut(word, HMM=False)


@lru_cache(maxsize=4096)
def _cut_cached(text: str) -> tuple[str, ...]:
    return tuple(get_tokenizer().lcut(text, HMM=True))


def cut(text: str) -> list[str]:
    """Segment ``text`` into words (punctuation and spaces kept as tokens)."""
    return list(_cut_cached(text))


def index_tokens(text: str) -> str:
    """Space-joined search tokens of ``text`` for FTS5: words plus their sub-words, lower-cased.

    Exactly ``[w.lower() for w in tok.cut_for_search(text) if is_word(w)]`` of the shared jieba
    tokenizer (HMM on), computed by :class:`_SearchCutter` about three times faster.
    """
    tok = get_tokenizer()
    cutter = _cutter
    if cutter is None or cutter.tok is not tok or cutter.freq is not tok.FREQ:
        cutter = _new_cutter(tok)
    return " ".join(cutter.tokens(text))


def jieba_index_tokens(text: str) -> str:
    """:func:`index_tokens` through jieba's own ``cut_for_search`` (the reference the fast path must equal)."""
    return " ".join(w.lower() for w in get_tokenizer().cut_for_search(text) if _WORD.search(w))


_RUN_SYMBOLS = "+#&.%-"  # the characters of jieba's re_han_default runs that _WORD does not match
_RUN_SYMBOL = re.compile("[" + re.escape(_RUN_SYMBOLS) + "]")
# runs with any symbol of re_han_default (_ too) go to _block: jieba-rs cuts 2024-01-17 and a.b.cn otherwise
_RUN_SYMBOL_ANY = re.compile("[" + re.escape(_RUN_SYMBOLS + "_") + "]")
_NO_WORD = float("-inf")  # the best score from a position before any word from it is seen
# characters of runs a process segments in Python before it builds the jieba-rs mirror (0: never). The mirror
# costs about 1.3 s to build and saves about 2 µs a character, so it pays from about 600,000 characters (2 MB of
# Chinese text in one process): a question is a few dozen characters, the training corpus about 60 million
RUST_AFTER_CHARS = 600_000
SEARCH_CACHE_SIZE = 100_000  # segmented runs of CJK/Latin characters kept per process (emptied when full)
_cutter: Optional["_SearchCutter"] = None


def _new_cutter(tok) -> "_SearchCutter":
    global _cutter
    with _lock:
        if _cutter is None or _cutter.tok is not tok or _cutter.freq is not tok.FREQ:
            _cutter = _SearchCutter(tok)
        return _cutter


class _SearchCutter:
    """jieba's ``cut_for_search`` (HMM on) for one tokenizer, filtered and lower-cased as the index wants.

    The same steps as jieba 0.42 (``cut`` → ``__cut_DAG`` → ``get_DAG`` + ``calc``, then the 2- and
    3-grams of long words), with the same floating-point sums in the same order, so the words are
    identical; only the Python overhead differs: the word graph and the best route are computed in one
    backward pass over lists, one dictionary lookup per prefix, and each run of CJK/Latin characters
    (jieba's ``re_han_default`` block: a clause between punctuation marks) is segmented once per
    process and then read from a cache (section paths and stock phrases repeat). The shared tokenizer
    is never changed after it is built (other dictionaries build a new one), so the cache stays valid
    for its life. A :class:`LazyFreq` dictionary gets the entries of a run's first characters loaded
    before the run is cut, so plain ``dict`` lookups see what the full dictionary holds.
    """

    def __init__(self, tok) -> None:
        import jieba
        from jieba import finalseg

        self.tok = tok
        self.freq = tok.FREQ
        self.get = dict.get.__get__(tok.FREQ)  # the dict's own get, also on a LazyFreq (loaded first)
        self.lazy = isinstance(tok.FREQ, LazyFreq)
        self.re_han = jieba.re_han_default
        self.re_skip = jieba.re_skip_default
        self.hmm_cut = finalseg.cut
        self.cache: dict[str, list[str]] = {}
        self.hmm: dict[str, list[str]] = {}  # unknown runs of single characters -> the HMM's words
        # character -> (its frequency, log(frequency) - log(total)): every position of a run starts with one
        # lookup of its character, and a few thousand characters make up the text
        self.chars: dict[str, tuple[Optional[int], float]] = {}
        # jieba-rs with the same dictionary (rust_mirror), built once this process has segmented RUST_AFTER_CHARS
        # characters of runs here: building it costs about a second, segmenting in it a fifth of _block's time
        self.rust = None
        self.rust_after = RUST_AFTER_CHARS

    def tokens(self, text: str) -> list[str]:
        out: list[str] = []
        cache = self.cache
        get = cache.get
        # re.split with the one group of re_han_default alternates: [other, run, other, run, …, other];
        # a run is never empty and an "other" piece never starts a run (it would have been matched)
        for i, blk in enumerate(self.re_han.split(text)):
            if not blk:
                continue
            got = get(blk)  # runs and other pieces never share a text: one cache for both
            if got is None:
                if not i & 1:
                    got = self._other(blk)
                elif self.rust is not None and _RUN_SYMBOL_ANY.search(blk) is None:
                    got = self.rust.cut_for_search(blk, True)
                    if blk.lower() != blk:
                        got = [w.lower() for w in got]
                else:
                    got = self._block(blk)
                    if self.rust is None and self.rust_after > 0:
                        self.rust_after -= len(blk)
                        if self.rust_after <= 0:  # a bulk job (an ingest): segment the rest in Rust
                            self.rust = rust_mirror(self.tok)
                if len(cache) >= SEARCH_CACHE_SIZE:
                    cache.clear()
                cache[blk] = got
            out += got
        return out

    def _other(self, blk: str) -> list[str]:
        """Spaces and punctuation between runs: jieba yields whitespace (split by re_skip) and each other
        character alone; the index keeps those matching _WORD, lower-cased."""
        out: list[str] = []
        skip = self.re_skip
        for x in skip.split(blk):
            if skip.match(x):
                if _WORD.search(x):
                    out.append(x.lower())
            else:
                out += [c.lower() for c in x if _WORD.search(c)]
        return out

    def _block(self, s: str) -> list[str]:
        """The filtered, lower-cased search words of one ``re_han_default`` run."""
        if self.lazy:
            idx = self.freq._index
            # isdisjoint looks each character of the run up in the index; ``idx.keys() & set(s)`` would copy
            # the thousands of first characters not loaded yet into a new set for every run
            if idx and not idx.keys().isdisjoint(s):
                with _lock:
                    for ch in set(s):
                        if ch in idx:
                            self.freq._load(ch)
        get = self.get
        chars = self.chars
        char = chars.get
        ln = log
        logtotal = ln(self.tok.total)
        n = len(s)
        # calc(): route[k] = max over the DAG's ends x of (log freq(s[k:x+1]) - logtotal + route[x+1], x)
        score = [0.0] * (n + 1)
        end = list(range(n + 1))  # the end of the best word from k (k itself: a single character)
        alone = ln(1) - logtotal  # a character that starts no word counts with frequency 1
        for k in range(n - 1, -1, -1):
            c = s[k]
            got = char(c)
            if got is None:
                f = get(c)
                got = chars[c] = (f, ln(f) - logtotal if f else 0.0)
            f, lp = got
            if f is None:  # not even a prefix: the single character
                score[k] = alone + score[k + 1]
                continue
            if f:  # the character is a word: the first candidate (its sum as jieba's, lp being log(f) - logtotal)
                best = lp + score[k + 1]
                end[k] = k
            else:
                best = _NO_WORD  # below every score: the first word always takes it
            i = k + 1
            while i < n:
                f = get(s[k:i + 1])
                if f is None:
                    break
                if f:
                    sc = ln(f) - logtotal + score[i + 1]
                    if sc >= best:  # ties: the larger end, as max() over (score, x) picks
                        best = sc
                        end[k] = i
                i += 1
            score[k] = alone + score[k + 1] if best == _NO_WORD else best
        words: list[str] = []
        x = 0
        b0 = -1  # start of the run of single characters waiting in jieba's ``buf``
        while x < n:
            y = end[x] + 1
            if y - x == 1:
                if b0 < 0:
                    b0 = x
            else:
                if b0 >= 0:
                    self._flush(s[b0:x], words)
                    b0 = -1
                words.append(s[x:y])
            x = y
        if b0 >= 0:
            self._flush(s[b0:], words)
        out: list[str] = []
        add = out.append
        for w in words:  # cut_for_search: the dictionary's 2- and 3-grams of long words, then the word
            m = len(w)
            if m > 2:
                for j in range(m - 1):
                    g = w[j:j + 2]
                    if get(g):
                        add(g)
                if m > 3:
                    for j in range(m - 2):
                        g = w[j:j + 3]
                        if get(g):
                            add(g)
            add(w)
        # every character of a run is CJK, a Latin letter or digit, or one of +#&._%-: a word matches
        # _WORD (is kept) exactly when it has a character other than +#&.%-. Every word is a non-empty
        # slice of the run, so a run without those symbols and without capitals (most) keeps all as they are
        if _RUN_SYMBOL.search(s) is None and s.lower() == s:
            return out
        return [w.lower() for w in out if w.strip(_RUN_SYMBOLS)]

    def _flush(self, buf: str, words: list[str]) -> None:
        """jieba's handling of a run of single characters: the HMM for an unknown run, else one by one.

        The HMM's words depend on the run alone, and the same few thousand runs (names, numbers, rare
        characters) recur in many clauses, so each is cut once per process (a cache bounded like
        :attr:`cache`)."""
        if len(buf) == 1:
            words.append(buf)
        elif not self.get(buf):
            got = self.hmm.get(buf)
            if got is None:
                got = list(self.hmm_cut(buf))
                if len(self.hmm) >= SEARCH_CACHE_SIZE:
                    self.hmm.clear()
                self.hmm[buf] = got
            words += got
        else:
            words += buf


def rust_mirror(tok):
    """A jieba-rs tokenizer (the ``rjieba`` wheel) holding ``tok``'s dictionary and total, whose
    ``cut_for_search`` of a run without +#&._%- gives jieba's words; None when rjieba is not installed, a
    user word has frequency 0 (jieba's forced splits), or the probes segment differently.

    jieba sums every line's frequency into its total, a word added twice counted twice; jieba-rs keeps the
    sum of the words' last frequencies. A word of private-use characters (no text run ever holds one) takes
    the difference, so both divide by the same total and break near ties alike."""
    try:
        import rjieba
    except ImportError:
        return None
    try:
        from jieba import finalseg
        if getattr(finalseg, "Force_Split_Words", None):
            return None
        mirror = rjieba.Jieba.empty()
        last: dict[str, int] = {}
        with open(_dict_path(tok), "rb") as f:
            for raw in f:
                line = raw.strip().decode("utf-8")
                if not line:
                    continue
                word, freq = line.split(" ")[:2]
                last[word] = int(freq)
                mirror.add_word(word, int(freq), None)
        for word in user_words():  # with the frequency jieba gave each (suggested where the file names none)
            freq = int(tok.FREQ.get(word) or 0)
            if freq <= 0:
                return None
            last[word] = freq
            mirror.add_word(word, freq, None)
        gap = tok.total - sum(last.values())
        if gap < 0:
            return None
        if gap:
            mirror.add_word("\ue000\ue001", gap, None)
        cutter = _SearchCutter(tok)
        for probe in cues.words("tokenize.mirror_probes"):  # rules/pipeline_cues.yaml
            if mirror.cut_for_search(probe, True) != cutter._block(probe):
                _log.warning("jieba-rs segments %r differently from jieba: index tokens stay in Python", probe)
                return None
        return mirror
    except Exception as exc:  # the Python route always works
        _log.warning("jieba-rs mirror not built (%s): index tokens stay in Python", exc)
        return None


def is_word(token: str) -> bool:
    """True for a token with at least one letter, digit or CJK character."""
    return bool(_WORD.search(token))


@lru_cache(maxsize=1)
def stopwords() -> frozenset[str]:
    """Stop words from the stopwords.txt of the dictionary folders (comments with #)."""
    files = [Path(p) for p, _ in _stop_files] if _files is not None else _default_files()[1]
    out: set[str] = set()
    for path in files:
        if path.exists():
            out |= {l.strip() for l in path.read_text(encoding="utf-8").splitlines()
                    if l.strip() and not l.startswith("#")}
    return frozenset(out)


_pos_lock = threading.Lock()
_pos_table: Optional[dict] = None
_FUNCTION_CHARS = re.compile(cues.pattern("tokenize.function_chars"))  # rules/pipeline_cues.yaml
_CONTENT_TAGS = ("n", "nr", "ns", "nt", "nz", "vn", "eng", "nrt", "nrfg", "an", "j", "l", "i", "t", "s")


POS_CACHE = 8192  # words whose tag is kept (least recently used dropped)


def pos_tag(word: str) -> Optional[str]:
    """The dictionary part-of-speech tag of ``word`` (jieba's dictionary), None for unknown words."""
    return _pos_tag(word, _generation)


@lru_cache(maxsize=POS_CACHE)
def _pos_tag(word: str, generation: int) -> Optional[str]:
    """:func:`pos_tag` for the dictionaries of ``generation`` (user words count as nouns)."""
    tag = _tags().get(word)
    if tag is None:
        return "n" if get_tokenizer().FREQ.get(word) else None
    return tag


class _TagTable:
    """word -> tag for the non-noun words of jieba's dictionary (nouns are the default), kept compact.

    Built here rather than with jieba.posseg, whose full table costs about 95 MB; a plain dict of the
    231k non-noun words still costs about 36 MB, so the words are one sorted string searched by
    bisection (about 3 MB).
    """

    def __init__(self, pairs: list[tuple[str, str]]) -> None:
        pairs.sort()
        self._tag_names = sorted({t for _, t in pairs})
        code = {t: i for i, t in enumerate(self._tag_names)}
        self._blob = "\n".join(w for w, _ in pairs)
        self._starts = array("I")
        pos = 0
        for w, _ in pairs:
            self._starts.append(pos)
            pos += len(w) + 1
        self._codes = bytes(code[t] for _, t in pairs)

    def state(self) -> tuple:
        """What :meth:`restore` needs (marshal-able), for the on-disk cache."""
        return (self._tag_names, self._blob, self._starts.tobytes(), self._codes)

    @classmethod
    def restore(cls, state: tuple) -> "_TagTable":
        t = cls.__new__(cls)
        t._tag_names, t._blob, starts, t._codes = state
        t._starts = array("I")
        t._starts.frombytes(starts)
        return t

    def _word(self, i: int) -> str:
        end = self._starts[i + 1] - 1 if i + 1 < len(self._starts) else len(self._blob)
        return self._blob[self._starts[i]:end]

    def get(self, word: str) -> Optional[str]:
        i = bisect_left(range(len(self._starts)), word, key=self._word)
        if i < len(self._starts) and self._word(i) == word:
            return self._tag_names[self._codes[i]]
        return None

    def __len__(self) -> int:
        return len(self._starts)


def _tags() -> _TagTable:
    global _pos_table
    if _pos_table is None:
        with _pos_lock:
            if _pos_table is None:
                tok = get_tokenizer()
                key = cache.file_key(_dict_path(tok)) + f"-{array('I').itemsize}"
                state = cache.load("jieba_tags", key)
                if isinstance(state, tuple) and len(state) == 4:
                    _pos_table = _TagTable.restore(state)
                    return _pos_table
                pairs: dict[str, str] = {}
                with tok.get_dict_file() as f:
                    for raw in f:
                        parts = raw.decode("utf-8").split()
                        if len(parts) >= 3 and parts[2] != "n" and "\n" not in parts[0]:
                            pairs[parts[0]] = parts[2]  # a later line for the same word wins, as in a dict
                _pos_table = _TagTable(list(pairs.items()))
                cache.save("jieba_tags", key, _pos_table.state())
    return _pos_table


def is_content_word(word: str) -> bool:
    """Whether ``word`` names something (noun-like or unknown to the dictionary), not a function word.

    Unknown words that start with a modal (能休, 可领) are jieba fragments, not names.
    The part-of-speech table is loaded on first use (about 0.7 s, once per process).
    """
    if _FUNCTION_CHARS.search(word):
        return False  # 交了, 最多能, 有何, 被扣: jieba fragments around function characters
    tag = pos_tag(word)
    if tag is None:
        return True
    return tag.startswith(_CONTENT_TAGS)
