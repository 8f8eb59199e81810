#!/usr/bin/env python3
"""The board server under many WebSocket watchers during a tournament (issue 25, registered with
CTest as load_board_watchers).

A tournament of random agents (fast ticks, many moves) runs twice with the board view: once
unwatched (the baseline), once with WATCHERS connections on /ws, a fifth of them slow readers
that never read (a 4 KiB receive buffer). Checked, for every well-behaved watcher: its messages'
seq has no gap, or it asked for a resync and got a snapshot; every game it follows gets each ply
exactly once and in order from the snapshot it started from, up to the game's last ply in
events.jsonl. The server's memory stays bounded (its peak within 128 MiB of the unwatched run's)
and the run finishes. Moves/s of both runs are printed (not asserted: speed is measured, not
tested).

Usage: board_watchers.py ARENA WORKDIR [--long]
"""
import json
import os
import shutil
import sys
import threading
import time
import urllib.parse

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import Process, WebSocket, check, free_port, run_main  # noqa: E402

CONFIG = """\
agents:
  - {{name: ra, type: random, seed: 1}}
  - {{name: rb, type: random, seed: 2}}
  - {{name: rc, type: random, seed: 3}}
  - {{name: rd, type: random, seed: 4}}
tournament:
  games: chess
  format: round_robin
  games_per_pairing: {games}
  concurrency: 4
  tick: {tick}
  adjudication:
    max_plies: {plies}
  seed: 5
web:
  port: {port}
"""


class Watcher:
    """A well-behaved watcher of the overview: reads everything, checks the order of moves."""

    def __init__(self, host, port):
        self.ws = WebSocket(host, port, timeout=60)
        self.plies = {}  # game -> last ply seen
        self.seq = 0
        self.resyncs = 0
        self.messages = 0
        self.error = None
        self.ended = False
        self.waiting_snapshot = False  # a resync was asked for: events wait for its snapshot

    def take_snapshot(self, snap):
        self.plies = {g["id"]: g["plies"] for g in snap["games"]}
        for g in snap["finished"]:
            self.plies[g["id"]] = g["plies"]

    def run(self):
        try:
            while not self.ended:
                msg = self.ws.recv()
                if msg is None:
                    self.error = "closed by the server"
                    return
                self.messages += 1
                if "seq" in msg:
                    if msg["seq"] != self.seq + 1:
                        self.resyncs += 1
                        self.ws.send({"type": "resync"})
                        self.seq = msg["seq"]
                        self.waiting_snapshot = True
                        continue
                    self.seq = msg["seq"]
                if msg["type"] == "snapshot":
                    self.waiting_snapshot = False
                    self.take_snapshot(msg["snapshot"])
                elif msg["type"] == "event" and not self.waiting_snapshot:
                    self.on_event(msg["event"])
        except (OSError, EOFError, ValueError) as e:
            self.error = f"{type(e).__name__}: {e}"
        finally:
            self.ws.close()

    def on_event(self, e):
        if e["type"] == "game_start":
            self.plies[e["game"]] = 0
        elif e["type"] == "move":
            last = self.plies.get(e["game"])
            if last is not None and e["ply"] != last + 1:
                raise ValueError(f"game {e['game']}: ply {e['ply']} after ply {last}")
            self.plies[e["game"]] = e["ply"]
        elif e["type"] == "tournament_end":
            self.ended = True


def final_plies(out_dir):
    plies, moves, start, end = {}, 0, None, None
    with open(os.path.join(out_dir, "events.jsonl")) as f:
        for line in f:
            e = json.loads(line)
            if e["type"] == "game_end":
                plies[e["game"]] = e["plies"]
            elif e["type"] == "move":
                moves += 1
            elif e["type"] == "tournament_start":
                start = e["time"]
            elif e["type"] == "tournament_end":
                end = e["time"]
    return plies, moves / (end - start)


def run(arena, work, name, watchers, slow, games, tick, plies):
    out = os.path.join(work, name)
    shutil.rmtree(out, ignore_errors=True)
    config = os.path.join(work, "watchers.yaml")
    with open(config, "w") as f:
        f.write(CONFIG.format(games=games, tick=tick, plies=plies, port=free_port()))
    proc = Process([arena, "run", config, "--output", out, "--quiet", "--linger", "2"],
                   os.path.join(work, name + ".log"), r"board view at (http://127\.0\.0\.1:[0-9]+)")
    url = urllib.parse.urlparse(proc.url)
    good = [Watcher(url.hostname, url.port) for _ in range(watchers)]
    bad = [WebSocket(url.hostname, url.port, rcvbuf=4096) for _ in range(slow)]
    threads = [threading.Thread(target=w.run, daemon=True) for w in good]
    for t in threads:
        t.start()
    peak = 0
    deadline = time.monotonic() + 300
    while proc.alive() and time.monotonic() < deadline:
        peak = max(peak, proc.rss_mib())
        time.sleep(0.1)
    # The slow readers stay connected to the end: the server must still shut down.
    for b in bad:
        b.close()
    for t in threads:
        t.join(timeout=10)
    try:
        proc.proc.wait(timeout=60)
    finally:
        proc.stop()
    check(proc.proc.returncode == 0, f"arena run exited with {proc.proc.returncode}:\n{proc.output()[-2000:]}")
    final, moves_per_s = final_plies(out)
    for i, w in enumerate(good):
        check(w.error is None, f"watcher {i}: {w.error}")
        check(w.ended, f"watcher {i} never saw tournament_end")
        for game, ply in w.plies.items():
            check(final.get(game) == ply, f"watcher {i}: game {game} at ply {ply}, the log ends it at {final.get(game)}")
    return peak, moves_per_s, sum(w.resyncs for w in good), sum(w.messages for w in good)


def main():
    arena, work = sys.argv[1], sys.argv[2]
    long_run = "--long" in sys.argv[3:]
    os.makedirs(work, exist_ok=True)
    watchers, slow = (160, 40) if long_run else (40, 10)
    # The long run's watchers are 160 Python threads, which parse fewer messages per second than
    # the server sends at a 20 ms tick: its slower tick keeps them well-behaved readers.
    shape = dict(games=4, tick="100ms", plies=120) if long_run else dict(games=2, tick="20ms", plies=60)
    base_peak, base_rate, _, _ = run(arena, work, "unwatched", 0, 0, **shape)
    peak, rate, resyncs, messages = run(arena, work, "watched", watchers, slow, **shape)
    print(f"{watchers} watchers + {slow} slow readers: {messages} messages read, {resyncs} resyncs; "
          f"server peak RSS {peak:.0f} MiB (unwatched {base_peak:.0f} MiB); "
          f"moves/s {rate:.1f} watched vs {base_rate:.1f} unwatched ({rate / base_rate:.2f}x)")
    check(peak - base_peak < 128, f"peak memory {peak:.0f} MiB watched vs {base_peak:.0f} MiB unwatched")
    print("board watchers: ok")


if __name__ == "__main__":
    run_main(main)
