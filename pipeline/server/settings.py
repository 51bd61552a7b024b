"""Settings of the HTTP service: a frozen dataclass, validated on construction."""
from __future__ import annotations

import json
import os
from dataclasses import asdict, dataclass, fields
from pathlib import Path
from typing import Any, Optional

from ..errors import LoopAgentError

ENV = "LOOPAGENT_SERVER_SETTINGS"  # JSON of ServerSettings: how `serve --workers N` hands them to each worker


@dataclass(frozen=True)
class ServerSettings:
    """What ``create_app`` serves and how it protects itself.

    ``db``: a SQLite file or a postgresql:// URL. ``audit_log``: None → beside the store, as the CLI
    (``"-"`` disables it, and with it /trace and /feedback). ``data_dir``: where uploads are stored
    (None → ``<db stem>.uploads`` beside a SQLite store, ``./loopagent-uploads`` for PostgreSQL).
    ``api_keys``: empty → no key needed. ``cors_origins``: empty → CORS off. ``rate_limit``: requests
    per minute per key (per client address without keys); 0 → off. ``warm``: load the parser at startup.
    """

    db: str
    audit_log: Optional[str] = None
    data_dir: Optional[str] = None
    api_keys: tuple[str, ...] = ()
    cors_origins: tuple[str, ...] = ()
    rate_limit: int = 600
    max_upload_bytes: int = 50 * 2**20
    max_pages: int = 3000
    max_batch: int = 100
    rules: tuple[str, ...] = ()
    dictionaries: tuple[str, ...] = ()
    embed: Optional[str] = None
    warm: bool = True  # answer one unrecorded question at startup (each worker): models load before any request

    def __post_init__(self) -> None:
        if not isinstance(self.db, str) or not self.db:
            raise LoopAgentError("E303", name="ServerSettings.db", value=self.db, why="must be a store path or URL",
                                 allowed="a SQLite file or postgresql://…")
        for name in ("rate_limit", "max_upload_bytes", "max_pages", "max_batch"):
            v = getattr(self, name)
            low = 0 if name == "rate_limit" else 1
            if not isinstance(v, int) or isinstance(v, bool) or v < low:
                raise LoopAgentError("E303", name=f"ServerSettings.{name}", value=v, why=f"must be an integer >= {low}",
                                     allowed=f"{low}, {low + 1}, …")
        for name in ("api_keys", "cors_origins", "rules", "dictionaries"):
            v = getattr(self, name)
            if not isinstance(v, tuple) or not all(isinstance(s, str) and s for s in v):
                raise LoopAgentError("E303", name=f"ServerSettings.{name}", value=v, why="must be a tuple of "
                                     "non-empty strings", allowed="e.g. ('key1',)")

    @property
    def is_postgres(self) -> bool:
        return self.db.startswith(("postgresql://", "postgres://"))

    def uploads_dir(self) -> Path:
        if self.data_dir:
            return Path(self.data_dir)
        if self.is_postgres:
            return Path("loopagent-uploads")
        return Path(self.db).with_suffix(".uploads")

    def to_json(self) -> str:
        return json.dumps(asdict(self), ensure_ascii=False)

    @classmethod
    def from_json(cls, text: str) -> "ServerSettings":
        data: dict[str, Any] = json.loads(text)
        names = {f.name for f in fields(cls)}
        tuples = {"api_keys", "cors_origins", "rules", "dictionaries"}
        return cls(**{k: tuple(v) if k in tuples else v for k, v in data.items() if k in names})

    @classmethod
    def from_env(cls) -> "ServerSettings":
        """The settings `serve` put in $LOOPAGENT_SERVER_SETTINGS (each uvicorn worker reads them)."""
        text = os.environ.get(ENV)
        if not text:
            raise LoopAgentError("E303", name=ENV, value=None, why="is not set",
                                 allowed="the JSON of ServerSettings (`loopagent serve` sets it)")
        return cls.from_json(text)


def keys_from_env() -> tuple[str, ...]:
    """API keys from $LOOPAGENT_API_KEYS (comma-separated)."""
    return tuple(k.strip() for k in os.environ.get("LOOPAGENT_API_KEYS", "").split(",") if k.strip())


