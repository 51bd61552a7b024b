#!/usr/bin/env python3
"""Load test of `loopagent serve` on loopback: N concurrent clients × M questions, zero errors required.

Builds a store from examples/docs in a temporary folder (or uses --db), starts `loopagent serve` on a free
127.0.0.1 port, asks the 20 questions below once serially (the reference answers), then lets --clients
threads each ask --per-client questions over one keep-alive connection. An error is a non-200 response,
a failed connection, or an answer whose status or value differs from the serial reference (answers must
not change under concurrency). Prints p50/p95/p99/max latency and throughput; exits 1 on any error.

    python scripts/load_test.py                       # 50 clients × 20 questions, 1 worker
    python scripts/load_test.py --workers 2 --markdown
Loopback only, bounded in count and time (--deadline seconds), and it stops the server it started.
"""
from __future__ import annotations

import argparse
import http.client
import json
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
QUESTIONS = [
    "劳动合同期限一年以上不满三年的，试用期最长多久？",
    "职工累计工作已满10年不满20年的，每年年休假几天？",
    "用人单位违反规定不办理住房公积金缴存登记，逾期不办理的，罚款多少？",
    "女职工生育享受多少天产假？",
    "2024年上海市的月最低工资标准是多少元？",
    "劳动合同期限三个月以上不满一年的，试用期最长多久？",
    "职工累计工作已满1年不满10年的，年休假几天？",
    "职工累计工作已满20年的，年休假几天？",
    "女职工怀孕不满4个月流产的，享受多少天产假？",
    "难产的，增加多少天产假？",
    "生育多胞胎的，每多生育1个婴儿增加多少天产假？",
    "同一用人单位与同一劳动者只能约定几次试用期？",
    "住房公积金的月缴存额上限是多少？",
    "职工个人缴存的住房公积金缴存比例不得低于多少？",
    "工伤职工停工留薪期一般不超过多少个月？",
    "一级伤残的一次性伤残补助金为多少个月的本人工资？",
    "工伤认定申请应当在事故伤害发生之日起多少日内提出？",
    "劳动者提前多少日以书面形式通知用人单位可以解除劳动合同？",
    "用人单位自用工之日起超过一个月不满一年未与劳动者订立书面劳动合同的，应当向劳动者每月支付几倍的工资？",
    "经济补偿按劳动者在本单位工作的年限，每满一年支付多少个月工资？",
]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def post(conn: http.client.HTTPConnection, question: str) -> tuple[int, dict]:
    body = json.dumps({"question": question}, ensure_ascii=False).encode("utf-8")
    conn.request("POST", "/ask", body=body, headers={"Content-Type": "application/json"})
    resp = conn.getresponse()
    data = resp.read()
    return resp.status, json.loads(data) if data else {}


def key(answer: dict) -> str:
    return json.dumps([answer.get("status"), answer.get("value")], ensure_ascii=False, sort_keys=True)


def percentile(xs: list[float], p: float) -> float:
    xs = sorted(xs)
    return xs[min(len(xs) - 1, max(0, int(round(p / 100 * len(xs) + 0.5)) - 1))]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--db", help="an existing store (default: examples/docs ingested into a temporary one)")
    ap.add_argument("--clients", type=int, default=50)
    ap.add_argument("--per-client", type=int, default=20)
    ap.add_argument("--workers", type=int, default=1, help="`serve --workers`")
    ap.add_argument("--deadline", type=float, default=900.0, help="give up after this many seconds")
    ap.add_argument("--markdown", action="store_true", help="print a table row for docs/benchmarks.md")
    args = ap.parse_args()
    tmp = Path(tempfile.mkdtemp(prefix="loopagent-load-"))
    py = sys.executable
    db = args.db
    if db is None:
        db = str(tmp / "examples.sqlite")
        subprocess.run([py, "-m", "pipeline.cli", "ingest", str(ROOT / "examples" / "docs"), "--db", db],
                       check=True, cwd=ROOT, stdout=subprocess.DEVNULL)
    port = free_port()
    server = subprocess.Popen([py, "-m", "pipeline.cli", "serve", "--db", db, "--port", str(port),
                               "--workers", str(args.workers), "--rate-limit", "0", "--no-access-log",
                               "--log-level", "warning", "--audit", str(tmp / "load.audit.jsonl"),
                               "--data-dir", str(tmp / "uploads")], cwd=ROOT)
    try:
        deadline = time.time() + 120
        while True:
            try:
                c = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
                c.request("GET", "/health")
                if c.getresponse().status == 200:
                    break
            except OSError:
                pass
            if time.time() > deadline or server.poll() is not None:
                print("the server did not start", file=sys.stderr)
                return 1
            time.sleep(0.3)
        # the reference answers, asked serially (each worker loads its parser on its first questions)
        ref: dict[str, str] = {}
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
        for _ in range(max(1, args.workers)):
            for q in QUESTIONS:
                status, ans = post(conn, q)
                if status != 200:
                    print(f"reference question failed ({status}): {q} {ans}", file=sys.stderr)
                    return 1
                ref.setdefault(q, key(ans))
        conn.close()

        lat: list[float] = []
        errors: list[str] = []
        statuses: dict[str, int] = {}
        lock = threading.Lock()
        stop_at = time.time() + args.deadline

        def client(i: int) -> None:
            c = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
            for j in range(args.per_client):
                if time.time() > stop_at:
                    with lock:
                        errors.append(f"client {i}: deadline reached")
                    return
                q = QUESTIONS[(i + j) % len(QUESTIONS)]
                t0 = time.perf_counter()
                try:
                    status, ans = post(c, q)
                except (OSError, http.client.HTTPException, ValueError) as exc:
                    with lock:
                        errors.append(f"client {i}: {type(exc).__name__}: {exc}")
                    c.close()
                    c = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
                    continue
                dt = time.perf_counter() - t0
                with lock:
                    lat.append(dt)
                    if status != 200:
                        errors.append(f"client {i}: HTTP {status} {ans.get('error')}")
                    elif key(ans) != ref[q]:
                        errors.append(f"client {i}: answer changed under load for {q}: {key(ans)} vs {ref[q]}")
                    else:
                        statuses[ans["status"]] = statuses.get(ans["status"], 0) + 1
            c.close()

        threads = [threading.Thread(target=client, args=(i,)) for i in range(args.clients)]
        t0 = time.perf_counter()
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        wall = time.perf_counter() - t0
    finally:
        server.terminate()
        try:
            server.wait(20)
        except subprocess.TimeoutExpired:
            server.kill()
    n = args.clients * args.per_client
    p50, p95, p99 = (percentile(lat, p) * 1000 for p in (50, 95, 99)) if lat else (0, 0, 0)
    print(f"{args.clients} clients × {args.per_client} questions = {n} requests, {args.workers} worker(s), "
          f"{os.cpu_count()} CPUs: {len(lat)} answered in {wall:.1f} s ({len(lat) / wall:.1f} req/s); "
          f"latency p50 {p50:.0f} ms, p95 {p95:.0f} ms, p99 {p99:.0f} ms, max {max(lat) * 1000:.0f} ms, "
          f"mean {statistics.mean(lat) * 1000:.0f} ms; statuses {statuses}; errors {len(errors)}")
    for e in errors[:10]:
        print("  " + e)
    if args.markdown:
        print(f"| {args.workers} | {args.clients} × {args.per_client} | {len(errors)} | {len(lat) / wall:.1f} | "
              f"{p50:.0f} | {p95:.0f} | {p99:.0f} | {max(lat) * 1000:.0f} |")
    return 1 if errors or len(lat) != n else 0


if __name__ == "__main__":
    sys.exit(main())
