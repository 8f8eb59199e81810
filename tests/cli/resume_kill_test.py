#!/usr/bin/env python3
"""SIGKILL resume test of the real `arena` binary (registered with CTest as cli_resume_kill).

A small tournament (search and two random agents, chess and janggi, fixed seed, concurrency 2,
12 games, no board server) is run once uninterrupted. Then the same config is run in another
folder and killed with SIGKILL at several points, each time resumed with `arena run CONFIG
--resume DIR`:
  1. during a move: as soon as the first move events are in the log;
  2. between games: right after a game_end line appears;
  3. mid-write: the moment events.jsonl grows (polled as fast as Python can), which leaves a torn
     last line when the kill lands inside a write;
and finally resumed until it completes. games.pgn and standings.json must then equal the
uninterrupted run's game for game. What legitimately differs is normalised, and only that: the
per-move latency in the PGN comments (wall-clock time, which also changes where lines wrap) and
the latency / timing fields of standings.json.

Usage: resume_kill_test.py ARENA WORKDIR
"""
import json
import os
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


def log_lines(path):
    try:
        with open(path, "rb") as f:
            return f.read().decode(errors="replace").splitlines()
    except FileNotFoundError:
        return []


def kill_when(proc, events, condition, what):
    """Polls the event log until condition(events, size) holds, then SIGKILLs the process."""
    deadline = time.monotonic() + RUN_TIMEOUT
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            return False  # it finished before the kill point
        try:
            size = os.path.getsize(events)
        except FileNotFoundError:
            size = 0
        if condition(events, size):
            proc.send_signal(signal.SIGKILL)
            proc.communicate(timeout=RUN_TIMEOUT)
            print(f"killed {what} (log {size} bytes)")
            return True
    proc.kill()
    fail(f"{what}: the kill point never came")


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


def main():
    if len(sys.argv) != 3:
        fail("usage: resume_kill_test.py ARENA WORKDIR")
    arena, work = sys.argv[1], sys.argv[2]
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

    killed = os.path.join(work, "killed")
    events = os.path.join(killed, "events.jsonl")
    def count(kind):
        return sum(1 for line in log_lines(events) if f'"type":"{kind}"' in line)

    def grows(measure):
        """A condition that holds once measure() exceeds its value at the first check."""
        base = []

        def condition(ev, size):
            now = measure(size)
            if not base:
                base.append(now)
            return now > base[0]

        return condition

    def mid_write():
        """Twenty moves into the resumed run, the very next growth of the log (size only, polled
        as fast as possible, so the kill lands as close to a write as this can get)."""
        moves = grows(lambda size: count("move") // 20)
        armed = []

        def condition(ev, size):
            if not armed:
                if moves(ev, size):
                    armed.append(size)
                return False
            return size > armed[0]

        return condition

    points = [
        ("during a move", lambda ev, size: count("move") >= 3),
        ("between games", grows(lambda size: count("game_end"))),
        ("mid-write", mid_write()),
    ]
    first = True
    kills = 0
    for what, condition in points:
        proc = start(arena, config, ["--output", killed] if first else ["--resume", killed])
        first = False
        if kill_when(proc, events, condition, what):
            kills += 1
            lines = log_lines(events)
            if lines and not lines[-1].endswith("}"):
                print("  the log ends in a torn line")
    if kills < 2:
        fail(f"only {kills} of the kill points were reached (the run is too fast for this test)")
    code, out, err = finish(start(arena, config, ["--resume", killed]), "the final resume")
    if code != 0:
        fail(f"the final resume exited {code}\n{out}\n{err}")
    print(f"killed {kills} times and resumed: {time.monotonic() - began:.1f} s in all")

    ref_pgn, ref_standings = results_of(reference)
    got_pgn, got_standings = results_of(killed)
    if len(ref_pgn) != GAMES:
        fail(f"the reference has {len(ref_pgn)} games, expected {GAMES}")
    if len(got_pgn) != len(ref_pgn):
        fail(f"the resumed run has {len(got_pgn)} games, the reference {len(ref_pgn)}")
    for i, (a, b) in enumerate(zip(ref_pgn, got_pgn)):
        if a != b:
            fail(f"game {i + 1} differs:\n--- reference\n{a}\n--- resumed\n{b}")
    if ref_standings != got_standings:
        fail("standings differ:\n" + json.dumps(ref_standings, indent=1) + "\n" +
             json.dumps(got_standings, indent=1))
    # Every game finished exactly once in the resumed log.
    ends = {}
    index_of = {}
    for line in log_lines(events):
        try:
            e = json.loads(line)
        except ValueError:
            continue  # a torn line a later run cut off and went past
        if e.get("type") == "game_start":
            index_of[e["game"]] = e["index"]
        if e.get("type") == "game_end" and e.get("result") != "*":
            ends[index_of[e["game"]]] = ends.get(index_of[e["game"]], 0) + 1
    if sorted(ends) != list(range(GAMES)) or any(n != 1 for n in ends.values()):
        fail(f"games finished in the log: {ends}")
    print("ok: the resumed run's games.pgn and standings.json equal the uninterrupted run's")


if __name__ == "__main__":
    main()
