"""Where rules, dictionaries and the parser come from: one frozen :class:`Settings`, resolved once.

Order (first that is set wins, per part): ``--rules`` / ``--dictionaries`` flags, the
``LOOPAGENT_RULES`` / ``LOOPAGENT_DICTIONARIES`` environment variables (several folders
joined by ``os.pathsep``), a ``loopagent.toml`` beside the store, the shipped defaults.
A deployment folder *overlays* the shipped one: its rule files are read after the
shipped files and a rule with the same kind and id replaces the shipped rule.

The shipped folders are ``rules/``, ``dictionaries/`` and ``models/`` at the top of a
checkout, installed in a wheel as ``pipeline/_data/…`` (see setup.py); :func:`shipped_dir`
is the only code that knows either place.
"""
from __future__ import annotations

import os
import sys
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any, Mapping, Optional, Sequence

from .errors import LoopAgentError

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib

CONFIG_FILE = "loopagent.toml"
ENV_RULES = "LOOPAGENT_RULES"
ENV_DICTIONARIES = "LOOPAGENT_DICTIONARIES"
ENV_PARSER = "LOOPAGENT_PARSER"
ENV_RULES_CHECK = "LOOPAGENT_RULES_CHECK_INTERVAL"
RULE_SUFFIXES = (".yaml", ".yml")
STOPWORDS_FILE = "stopwords.txt"
_TOML_KEYS = {"rules": "folder(s) overlaid on the shipped rules/",
              "dictionaries": "folder(s) overlaid on the shipped dictionaries/",
              "parser": "the stage-2 parser folder (with zh_loopagent_parser/ and pkuseg/)",
              "max_question_chars": "longest question accepted",
              "rules_check_interval_s": "seconds between looks for edited rule files while answering (0: every answer)"}


def shipped_dir(name: str) -> Path:
    """The shipped ``rules``, ``dictionaries`` or ``models`` folder: inside the wheel, else the checkout's."""
    installed = resources.files("pipeline") / "_data" / name
    if installed.is_dir():
        return Path(str(installed))
    return Path(__file__).resolve().parent.parent / name


def rule_files(folder: Path) -> list[Path]:
    """The YAML rule files under ``folder`` (recursively, not into linked folders: what ``rglob`` lists), sorted.

    Asked before every answer (rules reload when a file changes), so it reads the folders with
    ``os.scandir`` (no ``stat`` of each file) rather than ``Path.rglob``.
    """
    if not folder.is_dir():
        return []
    out: list[Path] = []
    _scan_rule_files(Path(folder), out)
    return sorted(out)


def _scan_rule_files(folder: Path, out: list[Path]) -> None:
    try:
        with os.scandir(folder) as it:
            entries = list(it)
    except OSError:
        return
    for e in entries:
        try:
            is_dir = e.is_dir()
        except OSError:
            is_dir = False
        if is_dir:
            if not e.is_symlink():
                _scan_rule_files(folder / e.name, out)
        elif e.name.endswith(RULE_SUFFIXES):
            p = folder / e.name
            if p.suffix in RULE_SUFFIXES and e.is_file():
                out.append(p)


def _dirs(value: Any, base: Path, origin: str, part: str) -> tuple[Path, ...]:
    items = value if isinstance(value, (list, tuple)) else [value]
    out = []
    for item in items:
        if not isinstance(item, (str, os.PathLike)) or not str(item):
            raise LoopAgentError("E207", origin=origin, problem=f"{part} = {item!r} is not a folder path",
                                 fix=f"write {part} = \"FOLDER\" or a list of folders")
        p = Path(item).expanduser()
        out.append(p if p.is_absolute() else (base / p))
    return tuple(p.resolve() for p in out)


@dataclass(frozen=True)
class Settings:
    """Rules, dictionaries and parser folders in effect, and where each came from (immutable).

    ``rules_dirs[0]`` and ``dictionaries_dirs[0]`` are the shipped folders; later entries are
    overlays. Build it with :meth:`resolve` (flags, environment, loopagent.toml) or
    :meth:`default` (shipped only).
    """

    rules_dirs: tuple[Path, ...]
    dictionaries_dirs: tuple[Path, ...]
    parser_dir: Path
    max_question_chars: int = 500  # issue 14: a question, not pasted document text
    origins: Mapping[str, str] = field(default_factory=dict, compare=False, hash=False)
    # how often (seconds) answering looks for edited rule and dictionary files; 0: before every answer
    rules_check_interval_s: float = 1.0

    def __post_init__(self) -> None:
        for name in ("rules_dirs", "dictionaries_dirs"):
            dirs = getattr(self, name)
            if not isinstance(dirs, tuple) or not dirs:
                raise LoopAgentError("E303", name=name, value=dirs, why="must be a non-empty tuple of folders",
                                     allowed="(shipped folder, overlay folders...)")
        if not isinstance(self.max_question_chars, int) or self.max_question_chars < 1:
            raise LoopAgentError("E303", name="max_question_chars", value=self.max_question_chars,
                                 why="must be a positive integer", allowed="e.g. 2000")
        if isinstance(self.rules_check_interval_s, bool) or not isinstance(self.rules_check_interval_s, (int, float)) \
                or not self.rules_check_interval_s >= 0:
            raise LoopAgentError("E303", name="rules_check_interval_s", value=self.rules_check_interval_s,
                                 why="must be a number of seconds, 0 or more", allowed="e.g. 1.0, or 0 (every answer)")
        object.__setattr__(self, "origins", dict(self.origins))

    # --- construction ---------------------------------------------------------------
    @classmethod
    def default(cls) -> "Settings":
        """The shipped rules, dictionaries and parser, nothing overlaid."""
        return cls((shipped_dir("rules"),), (shipped_dir("dictionaries"),), shipped_dir("models") / "parser",
                   origins={"rules": "shipped", "dictionaries": "shipped", "parser": "shipped"})

    @classmethod
    def resolve(cls, rules: Optional[Sequence[str | Path]] = None,
                dictionaries: Optional[Sequence[str | Path]] = None, db: Optional[str | Path] = None,
                environ: Optional[Mapping[str, str]] = None) -> "Settings":
        """Flags > environment > ``loopagent.toml`` beside ``db`` > shipped; overlay folders must hold files.

        A folder that does not exist or has no rule/dictionary files raises E206.
        """
        env = os.environ if environ is None else environ
        base = cls.default()
        toml_path = Path(db).resolve().parent / CONFIG_FILE if db and str(db) != ":memory:" else None
        toml = _read_toml(toml_path) if toml_path and toml_path.is_file() else {}
        origins = dict(base.origins)
        cwd = Path.cwd()

        def pick(part: str, flag: Optional[Sequence[str | Path]], env_name: str) -> tuple[Path, ...]:
            if flag:
                origins[part] = f"--{part}"
                return _dirs(list(flag), cwd, f"--{part}", part)
            if env.get(env_name):
                origins[part] = f"${env_name}"
                return _dirs([d for d in env[env_name].split(os.pathsep) if d], cwd, f"${env_name}", part)
            if part in toml:
                origins[part] = str(toml_path)
                return _dirs(toml[part], toml_path.parent, str(toml_path), part)  # type: ignore[union-attr]
            return ()

        rule_overlays = pick("rules", rules, ENV_RULES)
        dict_overlays = pick("dictionaries", dictionaries, ENV_DICTIONARIES)
        for part, dirs in (("rules", rule_overlays), ("dictionaries", dict_overlays)):
            for d in dirs:
                _check_overlay(d, part, origins[part])
        parser_dir = base.parser_dir
        if env.get(ENV_PARSER):
            parser_dir, origins["parser"] = Path(env[ENV_PARSER]).resolve(), f"${ENV_PARSER}"
        elif "parser" in toml:
            parser_dir = _dirs(toml["parser"], toml_path.parent, str(toml_path), "parser")[0]  # type: ignore
            origins["parser"] = str(toml_path)
        max_chars = toml.get("max_question_chars", base.max_question_chars)
        if "max_question_chars" in toml:
            origins["max_question_chars"] = str(toml_path)
        interval = toml.get("rules_check_interval_s", base.rules_check_interval_s)
        if env.get(ENV_RULES_CHECK):
            try:
                interval = float(env[ENV_RULES_CHECK])
            except ValueError:
                interval = env[ENV_RULES_CHECK]  # refused by __post_init__ (E303)
        return cls(base.rules_dirs + tuple(d for d in rule_overlays if d not in base.rules_dirs),
                   base.dictionaries_dirs + tuple(d for d in dict_overlays if d not in base.dictionaries_dirs),
                   parser_dir, max_chars, origins, interval)

    # --- what the stages read ---------------------------------------------------------
    @property
    def rule_search_path(self) -> tuple[Path, ...]:
        """Folders the rule loader reads, in override order: shipped rules and dictionaries, then overlays."""
        return (self.rules_dirs[0], self.dictionaries_dirs[0], *self.rules_dirs[1:], *self.dictionaries_dirs[1:])

    def user_dict_files(self) -> list[Path]:
        """jieba user dictionaries: every ``*.txt`` of the dictionary folders except stop words."""
        return [p for d in self.dictionaries_dirs if d.is_dir()
                for p in sorted(d.glob("*.txt")) if p.name != STOPWORDS_FILE]

    def stopword_files(self) -> list[Path]:
        return [d / STOPWORDS_FILE for d in self.dictionaries_dirs if (d / STOPWORDS_FILE).is_file()]

    @property
    def parser_model(self) -> Path:
        return self.parser_dir / "zh_loopagent_parser"

    @property
    def pkuseg_dir(self) -> Path:
        return self.parser_dir / "pkuseg"

    @property
    def pkuseg_words(self) -> Path:
        return self.parser_dir / "pkuseg_words.txt"

    def describe(self) -> list[str]:
        """Human lines: each part, the folders in effect, and where it came from (``loopagent config``)."""
        lines = []
        for part, dirs in (("rules", self.rules_dirs), ("dictionaries", self.dictionaries_dirs)):
            lines.append(f"{part}: (from {self.origins.get(part, 'shipped')})")
            for i, d in enumerate(dirs):
                n = len(rule_files(d)) + (len(list(d.glob('*.txt'))) if part == "dictionaries" and d.is_dir() else 0)
                lines.append(f"  {'shipped' if i == 0 else 'overlay'}  {d}  ({n} files)")
        lines.append(f"parser: {self.parser_dir}  (from {self.origins.get('parser', 'shipped')})")
        lines.append(f"max_question_chars: {self.max_question_chars}  "
                     f"(from {self.origins.get('max_question_chars', 'default')})")
        return lines

    def to_dict(self) -> dict[str, Any]:
        return {"rules_dirs": [str(d) for d in self.rules_dirs],
                "dictionaries_dirs": [str(d) for d in self.dictionaries_dirs],
                "parser_dir": str(self.parser_dir), "max_question_chars": self.max_question_chars,
                "origins": dict(self.origins), "rules_check_interval_s": self.rules_check_interval_s}


def _check_overlay(folder: Path, part: str, origin: str) -> None:
    if not folder.is_dir():
        raise LoopAgentError("E206", part=part, path=str(folder), origin=origin, why="does not exist")
    has = rule_files(folder) or (part == "dictionaries" and list(folder.glob("*.txt")))
    if not has:
        kinds = "*.yaml rule files" if part == "rules" else "*.yaml or *.txt dictionary files"
        raise LoopAgentError("E206", part=part, path=str(folder), origin=origin, why=f"has no {kinds}")


def _read_toml(path: Path) -> dict[str, Any]:
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (tomllib.TOMLDecodeError, OSError, UnicodeDecodeError) as exc:
        raise LoopAgentError("E207", origin=str(path), problem=str(exc),
                             fix="fix the TOML syntax (https://toml.io)") from exc
    unknown = sorted(set(data) - set(_TOML_KEYS))
    if unknown:
        raise LoopAgentError("E207", origin=str(path), problem=f"unknown key(s) {', '.join(unknown)}",
                             fix="allowed keys: " + "; ".join(f"{k} ({v})" for k, v in _TOML_KEYS.items()))
    return data


def as_settings(value: Any) -> Settings:
    """``value`` if it is a :class:`Settings`, the default for None; TypeError otherwise."""
    if value is None:
        return Settings.default()
    if not isinstance(value, Settings):
        raise TypeError(f"settings must be pipeline.config.Settings, not {type(value).__name__}")
    return value
