#!/usr/bin/env python3
"""`arena serve`'s access flags end to end (docs/security.md; registered with CTest as
load_serve_access): --allowed-host and the API key from ARENA_API_KEY, on the real binary.

Checked: a Host naming the server or an allowed name is served, another gets 421; /v1 without
the key gets 401 with WWW-Authenticate: Bearer, with a wrong key 401, with the key 200; /health
needs no key; the key appears nowhere in the server's output.

Usage: serve_access.py ARENA WORKDIR
"""
import os
import socket
import sys
import urllib.parse

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import check, run_main, start_serve, synth_model  # noqa: E402

KEY = "sk-load-test-7f3a9c"


def get(host, port, path, headers):
    """Status and head of a GET with exactly these headers (Host included)."""
    with socket.create_connection((host, port), timeout=10) as s:
        lines = [f"GET {path} HTTP/1.1"] + [f"{k}: {v}" for k, v in headers.items()] + ["Connection: close"]
        s.sendall(("\r\n".join(lines) + "\r\n\r\n").encode())
        data = b""
        while chunk := s.recv(65536):
            data += chunk
    head = data.split(b"\r\n\r\n", 1)[0].decode(errors="replace")
    return int(head.split(" ", 2)[1]), head.lower()


def main():
    arena, work = sys.argv[1], sys.argv[2]
    os.makedirs(work, exist_ok=True)
    model = synth_model(arena, os.path.join(work, "tiny.gguf"))
    os.environ["ARENA_API_KEY"] = KEY
    server = start_serve(arena, model, os.path.join(work, "serve.log"), "--allowed-host", "arena.test",
                         "--kv-cache-mb", "16")
    try:
        url = urllib.parse.urlparse(server.url)
        own = f"{url.hostname}:{url.port}"
        for host, status in ((own, 200), ("localhost", 200), ("arena.test", 200), ("evil.test", 421)):
            got, _ = get(url.hostname, url.port, "/health", {"Host": host})
            check(got == status, f"/health with Host {host}: {got}, expected {status}")
        got, head = get(url.hostname, url.port, "/v1/models", {"Host": own})
        check(got == 401 and "www-authenticate: bearer" in head, f"/v1/models without the key: {got}\n{head}")
        got, _ = get(url.hostname, url.port, "/v1/models", {"Host": own, "Authorization": "Bearer wrong"})
        check(got == 401, f"/v1/models with a wrong key: {got}")
        got, _ = get(url.hostname, url.port, "/v1/models", {"Host": own, "Authorization": f"Bearer {KEY}"})
        check(got == 200, f"/v1/models with the key: {got}")
    finally:
        server.stop()
    check(KEY not in server.output(), "the API key appears in the server's output")
    print("serve access: ok")


if __name__ == "__main__":
    run_main(main)
