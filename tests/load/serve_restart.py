#!/usr/bin/env python3
"""A tournament whose LLM agents play through `arena serve` (the OpenAI backend), with the server
killed (SIGKILL) and restarted on the same port twice during the run (issue 25, registered with
CTest as load_serve_restart).

Checked: the run finishes (exit 0, tournament_end); every scheduled game is in events.jsonl,
games.pgn and standings.json; a game ends normally, or, when its request failed past the
client's retries, as "abandoned" with failure_kind backend_error against an LLM agent, which is
what docs/events.md says of a backend error; the kills did hit requests (retries were logged, or
games failed). Printed: how many requests were retried and games lost.

Usage: serve_restart.py ARENA WORKDIR [--long]
"""
import json
import os
import shutil
import signal
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import check, free_port, start_serve, synth_model, wait_for, run_main  # noqa: E402

AGENT = ("  - {{name: {name}, type: llm, backend: openai, mode: constrained, chat: false,\n"
         "     openai: {{base_url: 'http://127.0.0.1:{port}/v1', model: tiny, endpoint: completions,\n"
         "              constraint: vllm, timeout: 10s, max_retries: 5, backoff: 200ms}}}}\n")

CONFIG = """\
agents:
{agents}  - {{name: random, type: random, seed: 1}}
tournament:
  games: chess
  format: round_robin
  games_per_pairing: {games}
  concurrency: 4
  tick: 20ms
  move_deadline: 30s
  deadline_policy: random_move
  adjudication:
    max_plies: {plies}
  seed: 3
web:
  port: 0
"""


def count_moves(events):
    try:
        with open(events) as f:
            return sum(1 for line in f if '"type":"move"' in line)
    except OSError:
        return 0


def main():
    arena, work = sys.argv[1], sys.argv[2]
    long_run = "--long" in sys.argv[3:]
    os.makedirs(work, exist_ok=True)
    model = synth_model(arena, os.path.join(work, "tiny.gguf"))
    port = free_port()
    games, plies = (100, 60) if long_run else (2, 30)
    out = os.path.join(work, "results")
    shutil.rmtree(out, ignore_errors=True)
    config = os.path.join(work, "restart.yaml")
    with open(config, "w") as f:
        agents = AGENT.format(name="llm-a", port=port) + AGENT.format(name="llm-b", port=port)
        f.write(CONFIG.format(agents=agents, games=games, plies=plies))
    serve_args = ("--max-num-seqs", "8", "--kv-cache-mb", "16")
    server = start_serve(arena, model, os.path.join(work, "serve0.log"), *serve_args, port=port)
    run_log = open(os.path.join(work, "run.log"), "w")
    run = subprocess.Popen([arena, "run", config, "--output", out, "--quiet"], stdout=run_log,
                           stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
    total_moves = 3 * games * plies  # at most: 3 pairings x games x plies
    try:
        for k, share in enumerate((0.15, 0.4)):
            events = os.path.join(out, "events.jsonl")
            wait_for(lambda: count_moves(events) >= share * total_moves or run.poll() is not None, 300,
                     f"the tournament reaching {share:.0%} of its moves")
            check(run.poll() is None, "the tournament ended before the server was killed")
            server.stop(signal.SIGKILL)
            time.sleep(0.5)
            server = start_serve(arena, model, os.path.join(work, f"serve{k + 1}.log"), *serve_args, port=port)
        run.wait(timeout=600)
    finally:
        if run.poll() is None:
            run.kill()
        server.stop()
        run_log.close()
    check(run.returncode == 0, f"arena run exited with {run.returncode}")
    ends, backend_errors, moves, finished = {}, 0, 0, False
    with open(os.path.join(out, "events.jsonl")) as f:
        for line in f:
            e = json.loads(line)
            if e["type"] == "game_end":
                ends[e["game"]] = e
            elif e["type"] == "move":
                moves += 1
            elif e["type"] == "tournament_end":
                finished = True
    check(finished, "no tournament_end in the log")
    check(len(ends) == 3 * games, f"{len(ends)} games ended, {3 * games} scheduled")
    for e in ends.values():
        if e["termination"] == "abandoned":
            backend_errors += 1
            check(e.get("failure_kind") == "backend_error" and e.get("failure_agent", "").startswith("llm"),
                  f"an abandoned game that is not an LLM backend error: {e}")
        else:
            check(e.get("failure_kind") is None, f"a game lost to something else than the restarts: {e}")
    with open(os.path.join(out, "games.pgn")) as f:
        check(f.read().count("[Event ") == 3 * games, "games.pgn does not hold every game")
    with open(os.path.join(out, "standings.json")) as f:
        rows = json.load(f)["rows"]
        check(sum(r["games"] for r in rows) == 2 * 3 * games, f"standings count {rows}")
    with open(os.path.join(work, "run.log"), errors="replace") as f:
        retries = f.read().count("; retrying in ")
    # The kills hit the run: requests were refused or cut off, and retried (or failed).
    check(retries + backend_errors > 0, "no request was retried or failed: the restarts missed the run")
    print(f"{3 * games} games, {moves} moves, the server killed and restarted twice: "
          f"{retries} requests retried, {backend_errors} games abandoned on a backend error")
    print("serve restart: ok")


if __name__ == "__main__":
    run_main(main)
