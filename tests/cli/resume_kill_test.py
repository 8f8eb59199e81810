#!/usr/bin/env python3
"""SIGKILL resume test of the real `arena` binary (registered with CTest as cli_resume_kill).

A small tournament (search and two random agents, chess and janggi, fixed seed, concurrency 2,
12 games, no board server) is run once uninterrupted. Then the same config is run in another
folder and killed with SIGKILL at POINTS kill points (24 by default) drawn from a seeded RNG,
each kill followed by `arena run CONFIG --resume DIR`. A point is one of:
  - time:     a random delay (50 ms to 1.2 s) after the process started (often while it loads,
              replays the log or rewrites games.pgn);
  - events:   once the log has grown by a random number (1 to 60) of lines;
  - game_end: right after the next game_end line appears (between games);
  - mid-write: after a random number of new lines, the very next growth of the log (polled as
              fast as Python can, so the kill often lands inside a write and leaves a torn line).
Whenever a resumed run completes before its kill point, its games.pgn and standings.json are
compared with the uninterrupted run's and a fresh folder starts the next round, until every
point was used; the last round is then resumed to completion and compared too. What legitimately
differs is normalised, and only that: the per-move latency in the PGN comments (wall-clock time,
which also changes where lines wrap) and the latency / timing fields of standings.json.

Usage: resume_kill_test.py ARENA WORKDIR [POINTS [SEED]]
"""
import json
import os
import random
import re
import shutil
import signal
import subprocess
import sys
import time

CONFIG = """\
agents:
  - {name: search, type: search, depth: 1, seed: 1}
  - {name: random-a, type: random, seed: 2}
  - {name: random-b, type: random, seed: 3}
tournament:
  games: [chess, janggi]
  format: round_robin
  games_per_pairing: 2
  concurrency: 2
  tick: 10ms
  move_deadline: 5s   # the search stops at its deadline: a short one would make its moves depend on speed
  openings: {janggi_setups: true}
  adjudication: {max_plies: 80}
  seed: 11
output: {dir: unused}
web: {port: 0}
"""
GAMES = 12
RUN_TIMEOUT = 60  # seconds for any one arena process


def fail(message):
    print("FAIL: " + message, file=sys.stderr)
    sys.exit(1)


def start(arena, config, args):
    return subprocess.Popen([arena, "run", config, "--quiet", "--web-port", "0"] + args,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)


def finish(proc, what):
    try:
        out, err = proc.communicate(timeout=RUN_TIMEOUT)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.communicate()
        fail(f"{what}: no exit within {RUN_TIMEOUT} s")
    return proc.returncode, out.decode(errors="replace"), err.decode(errors="replace")


def log_bytes(path):
    try:
        with open(path, "rb") as f:
            return f.read()
    except FileNotFoundError:
        return b""


def log_lines(path):
    return log_bytes(path).decode(errors="replace").splitlines()


class LogWatch:
    """The event log as the killer sees it: its size, and its complete lines (re-read only when
    the size changed)."""

    def __init__(self, path):
        self.path, self.size, self.text = path, -1, b""

    def poll(self):
        try:
            size = os.path.getsize(self.path)
        except FileNotFoundError:
            size = 0
        changed = size != self.size
        if changed:
            self.size, self.text = size, log_bytes(self.path)
        return changed

    def lines(self):
        return self.text.count(b"\n")

    def game_ends(self):
        return self.text.count(b'"type":"game_end"')


def draw_points(rng, count):
    """count kill points: (kind, parameter)."""
    points = []
    for _ in range(count):
        kind = rng.choice(["time", "events", "game_end", "mid-write"])
        if kind == "time":
            points.append((kind, rng.uniform(0.05, 1.2)))
        elif kind == "game_end":
            points.append((kind, 0))
        else:
            points.append((kind, rng.randint(1, 60)))
    return points


def next_growth(proc, path, size):
    """Spins on the log's size (nothing else, to be as close to the write as possible) until it
    grows past `size`; False when the process exits first."""
    while proc.poll() is None:
        try:
            if os.path.getsize(path) > size:
                return True
        except FileNotFoundError:
            pass
    return False


def kill_at(proc, watch, point):
    """Waits for the kill point and SIGKILLs the process; False when the run completed first."""
    kind, param = point
    began = time.monotonic()
    watch.poll()
    base_lines, base_ends = watch.lines(), watch.game_ends()
    while time.monotonic() - began < RUN_TIMEOUT:
        if proc.poll() is not None:
            return False
        watch.poll()
        if kind == "time":
            hit = time.monotonic() - began >= param
        elif kind == "events":
            hit = watch.lines() - base_lines >= param
        elif kind == "game_end":
            hit = watch.game_ends() > base_ends
        else:  # mid-write: armed after `param` lines, fires at the next growth
            hit = watch.lines() - base_lines >= param and next_growth(proc, watch.path, watch.size)
        if hit:
            proc.send_signal(signal.SIGKILL)
            proc.communicate(timeout=RUN_TIMEOUT)
            return True
        if kind == "time":
            time.sleep(0.005)
    proc.kill()
    fail(f"kill point {point}: neither reached nor completed within {RUN_TIMEOUT} s")


def normalise_pgn(text):
    # The latency at the start of each move comment is wall-clock time; with it goes line wrapping.
    text = re.sub(r"\{(\d+\.\d+)s", "{LATENCY", text)
    games = [g.strip() for g in re.split(r"\n\n(?=\[Event )", text.strip()) if g.strip()]
    out = []
    for g in games:
        head, _, moves = g.partition("\n\n")
        out.append(head + "\n\n" + " ".join(moves.split()))
    return out


TIMING = {"mean_latency_s", "latency_s", "mean_latency", "ttft_s", "time"}


def normalise_standings(path):
    with open(path) as f:
        data = json.load(f)

    def strip(v):
        if isinstance(v, dict):
            return {k: strip(x) for k, x in v.items() if k not in TIMING and "latency" not in k}
        if isinstance(v, list):
            return [strip(x) for x in v]
        return v

    return strip(data)


def results_of(folder):
    return normalise_pgn(open(os.path.join(folder, "games.pgn")).read()), normalise_standings(
        os.path.join(folder, "standings.json"))


def compare(reference, folder, what):
    """The completed run in `folder` equals the reference, and its log finished every game once."""
    ref_pgn, ref_standings = results_of(reference)
    got_pgn, got_standings = results_of(folder)
    if len(ref_pgn) != GAMES:
        fail(f"the reference has {len(ref_pgn)} games, expected {GAMES}")
    if len(got_pgn) != len(ref_pgn):
        fail(f"{what}: the resumed run has {len(got_pgn)} games, the reference {len(ref_pgn)}")
    for i, (a, b) in enumerate(zip(ref_pgn, got_pgn)):
        if a != b:
            fail(f"{what}: game {i + 1} differs:\n--- reference\n{a}\n--- resumed\n{b}")
    if ref_standings != got_standings:
        fail(f"{what}: standings differ:\n" + json.dumps(ref_standings, indent=1) + "\n" +
             json.dumps(got_standings, indent=1))
    ends, index_of = {}, {}
    for line in log_lines(os.path.join(folder, "events.jsonl")):
        try:
            e = json.loads(line)
        except ValueError:
            continue  # a torn line a later run cut off and went past
        if e.get("type") == "game_start":
            index_of[e["game"]] = e["index"]
        if e.get("type") == "game_end" and e.get("result") != "*":
            ends[index_of[e["game"]]] = ends.get(index_of[e["game"]], 0) + 1
    if sorted(ends) != list(range(GAMES)) or any(n != 1 for n in ends.values()):
        fail(f"{what}: games finished in the log: {ends}")
    stray = [n for n in os.listdir(folder) if n.endswith(".tmp")]
    if stray:
        fail(f"{what}: stray files after completion: {stray}")


def main():
    if len(sys.argv) not in (3, 4, 5):
        fail("usage: resume_kill_test.py ARENA WORKDIR [POINTS [SEED]]")
    arena, work = sys.argv[1], sys.argv[2]
    count = int(sys.argv[3]) if len(sys.argv) > 3 else 24
    seed = int(sys.argv[4]) if len(sys.argv) > 4 else 25
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    config = os.path.join(work, "kill.yaml")
    with open(config, "w") as f:
        f.write(CONFIG)
    began = time.monotonic()

    reference = os.path.join(work, "reference")
    code, out, err = finish(start(arena, config, ["--output", reference]), "the reference run")
    if code != 0:
        fail(f"the reference run exited {code}\n{out}\n{err}")
    print(f"reference run: {time.monotonic() - began:.1f} s")

    points = draw_points(random.Random(seed), count)
    rounds, kills, torn, fresh = 0, 0, 0, True
    folder = None
    for n, point in enumerate(points):
        if fresh:
            rounds += 1
            folder = os.path.join(work, f"killed-{rounds}")
        watch = LogWatch(os.path.join(folder, "events.jsonl"))
        while True:
            proc = start(arena, config, ["--output", folder] if fresh else ["--resume", folder])
            fresh = False
            if kill_at(proc, watch, point):
                break
            code, out, err = finish(proc, f"round {rounds}")
            if code != 0:
                fail(f"round {rounds}: the resumed run exited {code}\n{out}\n{err}")
            compare(reference, folder, f"round {rounds}")
            print(f"round {rounds} completed and equals the reference")
            rounds += 1
            folder = os.path.join(work, f"killed-{rounds}")
            watch = LogWatch(os.path.join(folder, "events.jsonl"))
            fresh = True
        kills += 1
        tail = log_bytes(watch.path)
        is_torn = bool(tail) and not tail.endswith(b"\n")
        torn += is_torn
        print(f"kill {n + 1}: {point[0]} {point[1]:.3g} -> log {len(tail)} bytes"
              f"{' (torn last line)' if is_torn else ''}")
    code, out, err = finish(start(arena, config, ["--resume", folder]), "the final resume")
    if code != 0:
        fail(f"the final resume exited {code}\n{out}\n{err}")
    compare(reference, folder, f"round {rounds}")
    print(f"ok: {kills} SIGKILLs (seed {seed}, {torn} torn lines), {rounds} rounds each equal to the "
          f"uninterrupted run: {time.monotonic() - began:.1f} s in all")


if __name__ == "__main__":
    main()
