"""Run-time word segmentation for the stage-2 parser, with character offsets.

The parser was trained on UD word boundaries. On the held-out UD test split jieba
agrees with them at word F1 0.795 (a user dictionary of the UD training words did
not beat that), a spacy_pkuseg model trained on the UD training words at 0.871, and
parsing is correspondingly better (models/parser/README.md). So ``pkuseg`` is the
default; ``jieba`` uses stage 1's tokenizer (project dictionaries). Every mode
returns words with offsets into the original sentence, so stage-1 and stage-2
tokens reconcile through character spans.
"""
from __future__ import annotations

import logging
import re
import threading
from pathlib import Path
from typing import Callable, Optional

from .. import cues
from ..config import shipped_dir
from ..errors import LoopAgentError, message

log = logging.getLogger("loopagent.syntax")

PARSER_DIR = shipped_dir("models") / "parser"  # the shipped default; Segmenter/Parser take parser_dir=
SEGMENTERS = ("pkuseg", "jieba")

Span = tuple[str, int, int]

# UD keeps numerals apart from classifiers, units and 满/不满/约 (满 10 年, 三 档); the
# segmenter sometimes glues them (满十, 10年, 三档). Split those, and only those.
_NUM = cues.chars("syntax.numerals")  # rules/pipeline_cues.yaml
_CLF = cues.chars("syntax.classifiers")
_GLUED = [
    re.compile(r"^(\d+(?:\.\d+)?)([^\d.%％]+)$"),                     # 10年
    re.compile(r"^([^\d]+?)(\d+(?:\.\d+)?)$"),                         # 满1
    re.compile(rf"^([{_NUM}]+)([{_CLF}])$"),                             # 三档, 一个
    re.compile(rf"^(满|不满|约|近|逾|共|计)([{_NUM}]+)$"),                 # 满十
]


def ud_split(word: str) -> list[str]:
    """Split a numeral glued to a classifier/unit or to 满/约 into UD-style words."""
    if len(word) < 2:
        return [word]
    for pat in _GLUED:
        m = pat.match(word)
        if m:
            return [g for g in m.groups() if g]
    return [word]


def _pkuseg_words(path: Path) -> list[str]:
    """Words the pkuseg segmenter must keep whole (legal function words, UD style)."""
    if not path.exists():
        return []
    return [l.split()[0] for l in path.read_text(encoding="utf-8").splitlines()
            if l.strip() and not l.startswith("#")]


class Segmenter:
    """Word segmentation by name (``pkuseg``, ``jieba``); thread-safe, built lazily.

    >>> Segmenter("jieba").spans("试用期不得超过六个月")[:2]
    [('试用期', 0, 3), ('不得超过', 3, 7)]
    """

    def __init__(self, name: str = "pkuseg", parser_dir: Optional[Path] = None) -> None:
        if name not in SEGMENTERS:
            raise LoopAgentError("E303", name="syntax.segmenter", value=name, why="unknown segmenter",
                                 allowed=", ".join(SEGMENTERS))
        self.name = name
        self.parser_dir = Path(parser_dir) if parser_dir else PARSER_DIR
        self._cut: Optional[Callable[[str], list[str]]] = None
        self._lock = threading.Lock()

    def _build(self) -> Callable[[str], list[str]]:
        if self.name == "jieba":
            from ..tokenize import cut  # stage 1's tokenizer (configured dictionaries): stages 1 and 2 agree
            return cut
        try:
            import spacy_pkuseg
        except ImportError as exc:  # keep stage 2 working, with the parser's accuracy reduced
            log.warning(message("W201", detail=str(exc)))
            self.name = "jieba"
            return self._build()
        pkuseg_dir = self.parser_dir / "pkuseg"
        if not pkuseg_dir.exists():
            raise LoopAgentError("E303", name="syntax.segmenter", value=self.name,
                                 why=f"no pkuseg model at {pkuseg_dir} (scripts/train_parser.py pkuseg)",
                                 allowed=", ".join(SEGMENTERS))
        # user_dict=None keeps pkuseg's own (non-UD) default dictionary out; ours goes in
        # through the preprocessor, which forces those words whole.
        seg = spacy_pkuseg.pkuseg(str(pkuseg_dir), user_dict=None)
        seg.preprocesser = spacy_pkuseg.Preprocesser(_pkuseg_words(self.parser_dir / "pkuseg_words.txt"))
        return lambda text: [p for w in seg.cut(text) for p in ud_split(w)]

    @property
    def loaded(self) -> bool:
        """Whether the segmenter's model is held in memory now."""
        return self._cut is not None

    def release(self) -> bool:
        """Drop the segmenter's model (pkuseg: about 40 MB); the next :meth:`spans` builds it again.
        Returns whether it was held."""
        with self._lock:
            held = self._cut is not None
            self._cut = None
        return held

    def words(self, text: str) -> list[str]:
        """The words of ``text`` (whitespace dropped)."""
        return [w for w, _, _ in self.spans(text)]

    def spans(self, text: str) -> list[Span]:
        """Words with their [start, end) character offsets in ``text``; whitespace is skipped."""
        if self._cut is None:
            with self._lock:
                if self._cut is None:
                    self._cut = self._build()
        out: list[Span] = []
        pos = 0
        for w in self._cut(text):
            w = w.strip()
            if not w:
                continue
            i = text.find(w, pos)
            if i < 0:  # a segmenter that normalised characters: keep going by length
                i = pos
            out.append((w, i, i + len(w)))
            pos = i + len(w)
        return out
