#!/usr/bin/env python3
"""`arena serve` at 4x its capacity (issue 25, registered with CTest as load_serve_overload).

The server admits --max-num-seqs running plus --max-queue waiting requests. ROUNDS times, 4 x
that many streaming clients connect at once and each asks for a completion:
  - a quarter disconnect after their first chunk (the server must cancel and free the request),
  - a quarter never read their stream for a while (a 4 KiB receive buffer), then close,
  - the rest read to the end, and their time to first token (TTFT) is recorded.
Checked: every refusal is a 429 with Retry-After; every reading client that was admitted gets
its whole stream, ending in [DONE]; afterwards no request runs or waits and no KV block is in
use (/metrics); the server is alive (/health) and its memory after the last round is within
64 MiB of that after the first (no growth per round). Figures (refusals, their latency, TTFT of
the admitted ones, memory) are printed; none is asserted.

Usage: serve_overload.py ARENA WORKDIR [--long]
"""
import json
import os
import socket
import sys
import threading
import time
import urllib.parse

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import Failure, check, metrics, percentile, start_serve, synth_model, wait_for, http_get, run_main  # noqa: E402


def one_client(host, port, kind, max_tokens, result, start):
    body = json.dumps({"model": "tiny", "prompt": "Move list: e4 e5 Nf3", "max_tokens": max_tokens,
                       "stream": True, "temperature": 0})
    request = (f"POST /v1/completions HTTP/1.1\r\nHost: {host}:{port}\r\nContent-Type: application/json\r\n"
               f"Content-Length: {len(body)}\r\n\r\n{body}").encode()
    sock = socket.socket()
    if kind == "never_reads":
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    sock.settimeout(30)
    start.wait()
    t0 = time.monotonic()
    try:
        sock.connect((host, port))
        sock.sendall(request)
        if kind == "never_reads":
            time.sleep(2.0)
            result.update(kind=kind, status="held")
            return
        data = b""
        while b"\r\n\r\n" not in data:
            chunk = sock.recv(65536)
            if not chunk:
                raise Failure("closed before the response head")
            data += chunk
        head = data.split(b"\r\n\r\n", 1)[0].decode(errors="replace")
        status = int(head.split(" ", 2)[1])
        result.update(kind=kind, status=status, head=head, head_s=time.monotonic() - t0)
        if status != 200:
            return
        first = None
        while True:
            if b"data: " in data and first is None:
                first = time.monotonic() - t0
                result["ttft_s"] = first
                if kind == "disconnects":
                    return
            if b"data: [DONE]" in data:
                result["done"] = True
                return
            chunk = sock.recv(65536)
            if not chunk:
                result["done"] = False
                return
            data += chunk
    except (OSError, Failure) as e:
        result.update(kind=kind, status="error", error=str(e))
    finally:
        sock.close()


def run_round(host, port, clients, max_tokens):
    kinds = ["disconnects", "never_reads", "reads", "reads"]
    results = [{} for _ in range(clients)]
    start = threading.Event()
    threads = [threading.Thread(target=one_client, args=(host, port, kinds[i % 4], max_tokens, results[i], start))
               for i in range(clients)]
    for t in threads:
        t.start()
    start.set()
    for t in threads:
        t.join(timeout=60)
        check(not t.is_alive(), "a client thread did not end within 60 s")
    return results


def main():
    arena, work = sys.argv[1], sys.argv[2]
    long_run = "--long" in sys.argv[3:]
    os.makedirs(work, exist_ok=True)
    model = synth_model(arena, os.path.join(work, "tiny.gguf"))
    seqs, queue = 4, 4
    clients = 4 * (seqs + queue) * (4 if long_run else 1)
    rounds = 10 if long_run else 3
    max_tokens = 200 if long_run else 64
    server = start_serve(arena, model, os.path.join(work, "serve.log"), "--max-num-seqs", str(seqs),
                         "--max-queue", str(queue), "--kv-cache-mb", "16")
    try:
        url = urllib.parse.urlparse(server.url)
        rss, refused_s, ttft, statuses = [], [], [], {}
        for r in range(rounds):
            results = run_round(url.hostname, url.port, clients, max_tokens)
            for res in results:
                statuses[res.get("status")] = statuses.get(res.get("status"), 0) + 1
                check(res.get("status") in (200, 429, "held"), f"round {r}: unexpected answer {res}")
                if res.get("status") == 429:
                    check("retry-after:" in res["head"].lower(), f"a 429 without Retry-After: {res['head']}")
                    refused_s.append(res["head_s"])
                if res.get("status") == 200 and res["kind"] == "reads":
                    check(res.get("done"), f"round {r}: an admitted stream ended without [DONE]: {res}")
                    ttft.append(res["ttft_s"])
            # Every request ends (the never-reading ones are cancelled when their socket closes).
            wait_for(lambda: (m := metrics(server.url)) and m.get("arena:num_requests_running", 1) == 0
                     and m.get("arena:num_requests_waiting", 1) == 0, 30, f"round {r}: requests draining")
            m = metrics(server.url)
            check(m.get("arena:kv_cache_blocks_used") == 0,
                  f"round {r}: {m.get('arena:kv_cache_blocks_used')} KV blocks still in use after the load")
            check(server.alive(), "arena serve died")
            check(http_get(server.url + "/health")[0] == 200, "/health after the load")
            rss.append(server.rss_mib())
        m = metrics(server.url)
        check(statuses.get(429, 0) > 0, f"4x the capacity and no 429: {statuses}")
        check(rss[-1] - rss[0] < 64, f"memory grew from {rss[0]:.0f} MiB to {rss[-1]:.0f} MiB over {rounds} rounds")
        print(f"{rounds} rounds x {clients} clients (capacity {seqs} running + {queue} waiting), "
              f"max_tokens {max_tokens}: answers {statuses}")
        print(f"429 latency p50 {percentile(refused_s, 50) * 1e3:.1f} ms, p99 {percentile(refused_s, 99) * 1e3:.1f} ms; "
              f"TTFT of admitted readers p50 {percentile(ttft, 50) * 1e3:.1f} ms, p99 {percentile(ttft, 99) * 1e3:.1f} ms")
        print(f"server RSS after each round (MiB): {' '.join(f'{x:.0f}' for x in rss)}; "
              f"requests cancelled {m.get('arena:request_cancelled_total', 0):.0f}, "
              f"rejected {m.get('arena:request_rejected_total', 0):.0f}, "
              f"succeeded {m.get('arena:request_success_total', 0):.0f}")
    finally:
        server.stop()
    print("serve overload: ok")


if __name__ == "__main__":
    run_main(main)
