#!/usr/bin/env python3
"""A tournament whose LLM agents play through a fleet of two `arena serve` replicas (openai
endpoints: [A, B], prefix_affinity over each game's conversation), with replica B killed
(SIGKILL) once both have answered moves (issue 23, registered with CTest as load_fleet_tournament).

Checked: the run's board server keeps samples of both replicas (the dashboard's replica panels);
the run finishes (exit 0, tournament_end); every scheduled game is in events.jsonl; every
LLM move names its replica, one of the two; both replicas answered moves before the kill; the
moves after it came from A alone (B's requests moved on to A, B stayed out: its probes were
refused); a game that ended on a failure is a backend error against an LLM agent (a request in
flight on B when it died may have used its retries), which is what docs/events.md says of a
backend error. Printed: moves per replica before and after the kill.

Usage: fleet_tournament.py ARENA WORKDIR
"""
import json
import os
import re
import shutil
import signal
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import check, free_port, http_get, start_serve, synth_model, wait_for, run_main  # noqa: E402

AGENT = ("  - {{name: {name}, type: llm, backend: openai, mode: constrained, chat: false,\n"
         "     history: conversation,\n"
         "     openai: {{endpoints: ['{a}/v1', '{b}/v1'], model: tiny, endpoint: completions,\n"
         "              constraint: vllm, timeout: 10s, max_retries: 3, backoff: 200ms}}}}\n")

CONFIG = """\
agents:
{agents}  - {{name: random, type: random, seed: 1}}
tournament:
  games: chess
  format: round_robin
  games_per_pairing: 4
  concurrency: 4
  tick: 20ms
  move_deadline: 30s
  deadline_policy: random_move
  adjudication:
    max_plies: 12
  seed: 5
web:
  port: {port}
"""


def replicas_of_moves(events):
    """The replica of each LLM move so far, in order."""
    out = []
    try:
        with open(events) as f:
            for line in f:
                if '"type":"move"' in line:
                    e = json.loads(line)
                    if e["agent"].startswith("llm"):
                        out.append(e.get("replica", ""))
    except (OSError, ValueError):
        pass
    return out


def check_replica_samples(run_log, *urls):
    """The dashboard's data: the run's board server keeps samples of each replica."""
    def board_url():
        with open(run_log) as f:
            m = re.search(r"board view at (http://[0-9.:]+)", f.read())
        return m.group(1) if m else None
    wait_for(lambda: board_url() is not None, 30, "the board view's address in the run's log")

    def sampled():
        _, body = http_get(board_url() + "/api/metrics/history")
        models = json.loads(body)["models"]
        return all(models.get(u) and models[u][-1].get("source") == "replica" for u in urls)
    wait_for(sampled, 30, "replica samples in the board server's metrics history")


def main():
    arena, work = sys.argv[1], sys.argv[2]
    os.makedirs(work, exist_ok=True)
    model = synth_model(arena, os.path.join(work, "tiny.gguf"))
    out = os.path.join(work, "results")
    shutil.rmtree(out, ignore_errors=True)
    serve_args = ("--max-num-seqs", "8", "--kv-cache-mb", "16")
    a = start_serve(arena, model, os.path.join(work, "serve_a.log"), *serve_args)
    b = start_serve(arena, model, os.path.join(work, "serve_b.log"), *serve_args)
    config = os.path.join(work, "fleet.yaml")
    with open(config, "w") as f:
        agents = AGENT.format(name="llm-a", a=a.url, b=b.url) + AGENT.format(name="llm-b", a=a.url, b=b.url)
        f.write(CONFIG.format(agents=agents, port=free_port()))
    run_log = open(os.path.join(work, "run.log"), "w")
    run = subprocess.Popen([arena, "run", config, "--output", out, "--quiet"], stdout=run_log,
                           stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
    events = os.path.join(out, "events.jsonl")
    url_a, url_b = a.url + "/v1", b.url + "/v1"
    try:
        wait_for(lambda: {url_a, url_b} <= set(replicas_of_moves(events)) or run.poll() is not None, 300,
                 "both replicas answering moves")
        check(run.poll() is None, "the tournament ended before replica B was killed")
        check_replica_samples(os.path.join(work, "run.log"), url_a, url_b)
        before = len(replicas_of_moves(events))
        b.stop(signal.SIGKILL)
        run.wait(timeout=600)
    finally:
        if run.poll() is None:
            run.kill()
        a.stop()
        b.stop()
        run_log.close()
    check(run.returncode == 0, f"arena run exited with {run.returncode}")
    ends, finished = {}, False
    with open(events) as f:
        for line in f:
            e = json.loads(line)
            if e["type"] == "game_end":
                ends[e["game"]] = e
            elif e["type"] == "tournament_end":
                finished = True
    check(finished, "no tournament_end in the log")
    check(len(ends) == 3 * 4, f"{len(ends)} games ended, 12 scheduled")
    # 12 plies keep each game's conversation within the tiny model's 2048-token context.
    failed = 0
    for e in ends.values():
        if e.get("failure_kind") is not None:
            failed += 1
            check(e["failure_kind"] == "backend_error" and e.get("failure_agent", "").startswith("llm"),
                  f"a game lost to something else than the kill: {e}")
    moves = replicas_of_moves(events)
    check(all(r in (url_a, url_b) for r in moves), f"an LLM move without a fleet replica: {set(moves)}")
    # Moves logged just after the kill may have been answered by B before it died: allow a few.
    late_b = moves[before + 8:].count(url_b)
    check(late_b == 0, f"{late_b} moves answered by the killed replica well after the kill")
    check(len(moves) > before, "no LLM move after the kill")
    print(f"12 games; before the kill A {moves[:before].count(url_a)} / B {moves[:before].count(url_b)} "
          f"LLM moves, after it A {moves[before:].count(url_a)} / B {moves[before:].count(url_b)}; "
          f"{failed} games ended on a backend error")
    print("fleet tournament: ok")


if __name__ == "__main__":
    run_main(main)
