"""`loopagent serve`: run the HTTP service with uvicorn (one or several worker processes)."""
from __future__ import annotations

import os
import sys

from ..errors import LoopAgentError
from .settings import ENV, ServerSettings, keys_from_env


def settings_from_args(args) -> ServerSettings:
    keys = tuple(args.api_key or ()) or keys_from_env()
    return ServerSettings(db=args.db, audit_log=args.audit, data_dir=args.data_dir, api_keys=keys,
                          cors_origins=tuple(args.cors_origin or ()), rate_limit=args.rate_limit,
                          max_upload_bytes=int(args.max_upload_mb * 2**20), max_pages=args.max_pages,
                          max_batch=args.max_batch, rules=tuple(args.rules or ()),
                          dictionaries=tuple(args.dictionaries or ()), embed=args.embed)


def cmd_serve(args) -> int:
    try:
        import uvicorn  # noqa: F401
        from .app import create_app  # noqa: F401  (fastapi, python-multipart, prometheus-client)
    except ImportError as exc:
        raise LoopAgentError("E710", detail=str(exc)) from exc
    settings = settings_from_args(args)
    if args.workers < 1:
        raise LoopAgentError("E303", name="--workers", value=args.workers, why="must be at least 1", allowed="1, 2, …")
    if not settings.api_keys and args.host not in ("127.0.0.1", "localhost", "::1"):
        print(f"warning: serving on {args.host} without an API key (--api-key or $LOOPAGENT_API_KEYS)",
              file=sys.stderr)
    os.environ[ENV] = settings.to_json()  # each worker process builds its app from these
    import uvicorn
    uvicorn.run("pipeline.server.app:create_app_from_env", factory=True, host=args.host, port=args.port,
                workers=args.workers, log_level=args.log_level, access_log=args.access_log)
    return 0


def add_subparser(sub, db_arg) -> None:
    """Register `serve` on the `loopagent` parser."""
    sp = sub.add_parser("serve", help="run the HTTP service (API, OpenAPI at /docs, the evidence page at /)")
    db_arg(sp)
    sp.add_argument("--host", default="127.0.0.1")
    sp.add_argument("--port", type=int, default=8000)
    sp.add_argument("--workers", type=int, default=1, help="worker processes sharing the store")
    sp.add_argument("--audit", help="audit log (default: <db>.audit.jsonl; '-' disables /trace and /feedback)")
    sp.add_argument("--data-dir", help="where uploads are stored (default: <db stem>.uploads beside the store)")
    sp.add_argument("--api-key", action="append", help="accept this key in X-API-Key (repeatable; default "
                    "$LOOPAGENT_API_KEYS, comma-separated; none: no key needed)")
    sp.add_argument("--cors-origin", action="append", help="allow this browser origin (CORS is off by default)")
    sp.add_argument("--rate-limit", type=int, default=600, help="requests per minute per key (0: off; default 600)")
    sp.add_argument("--max-upload-mb", type=float, default=50.0, help="largest upload (default 50 MB)")
    sp.add_argument("--max-pages", type=int, default=3000, help="largest PDF in pages (default 3000)")
    sp.add_argument("--max-batch", type=int, default=100, help="most questions in one POST /ask/batch")
    sp.add_argument("--embed", choices=["off", "static", "e5"], default=None, help="embeddings in stages 1-2")
    sp.add_argument("--log-level", default="info", choices=["critical", "error", "warning", "info", "debug"])
    sp.add_argument("--no-access-log", dest="access_log", action="store_false")
    sp.set_defaults(func=cmd_serve)
