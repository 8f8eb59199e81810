#!/usr/bin/env python3
"""The results folder full or read-only during `arena run` (registered with CTest as
cli_results_fault; issue 25).

A full disk is made without root: the run goes under RLIMIT_FSIZE with SIGXFSZ ignored, so a
write past the limit fails with EFBIG as it would with ENOSPC. Checked:
  1. a run whose event log reaches the limit stops with a clear error naming the file; the log
     holds whole lines only (a half-written line is cut back), no *.tmp is left;
  2. a resume whose games.pgn rewrite cannot be written stops with the error, leaves no
     games.pgn.tmp and does not touch the log;
  3. with the limit gone, `--resume` completes to the uninterrupted run's games.pgn and
     standings.json (compared as resume_kill_test.py does);
  4. a folder made read-only during the run (chmod): the run ends with an error saying to resume,
     no *.tmp is left, and `--resume` completes once it is writable again. As root chmod does not
     stop writes, so there arena runs as user nobody for this part (skipped, saying so, if nobody
     cannot run the binary).

Usage: results_fault_test.py ARENA WORKDIR
"""
import json
import os
import resource
import shutil
import signal
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from resume_kill_test import CONFIG, RUN_TIMEOUT, compare, fail  # noqa: E402


def run(arena, config, args, limit=None):
    def limited():
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))

    proc = subprocess.run([arena, "run", config, "--quiet", "--web-port", "0"] + args,
                          capture_output=True, timeout=RUN_TIMEOUT, restore_signals=False,
                          preexec_fn=limited if limit is not None else None)
    return proc.returncode, proc.stdout.decode(errors="replace") + proc.stderr.decode(errors="replace")


def stray(folder):
    return [n for n in os.listdir(folder) if n.endswith(".tmp")]


def whole_lines(path):
    data = open(path, "rb").read()
    if data and not data.endswith(b"\n"):
        fail(f"{path} ends in a half line: {data[-80:]!r}")
    for n, line in enumerate(data.splitlines(), 1):
        if line.strip():
            try:
                json.loads(line)
            except ValueError:
                fail(f"{path}:{n}: not a JSON event: {line[:80]!r}")
    return data


def full_disk(arena, config, work, reference):
    events_size = os.path.getsize(os.path.join(reference, "events.jsonl"))
    folder = os.path.join(work, "full")
    limit = events_size // 2
    code, out = run(arena, config, ["--output", folder], limit)
    if code == 0 or "events.jsonl" not in out or "File too large" not in out:
        fail(f"a full disk (limit {limit} bytes): exit {code}, expected an error naming events.jsonl:\n{out}")
    print(f"full disk at {limit} of {events_size} bytes: exit {code}: {out.strip().splitlines()[-1]}")
    if stray(folder):
        fail(f"stray files after the full disk: {stray(folder)}")
    log = whole_lines(os.path.join(folder, "events.jsonl"))
    if len(log) > limit:
        fail(f"the log is {len(log)} bytes, past the limit {limit}")

    pgn = os.path.getsize(os.path.join(folder, "games.pgn"))
    if pgn > 1:  # a resume rewrites games.pgn first: make that write fail
        code, out = run(arena, config, ["--resume", folder], pgn // 2)
        if code == 0 or "games.pgn" not in out:
            fail(f"a resume that cannot rewrite games.pgn: exit {code}\n{out}")
        print(f"resume with games.pgn ({pgn} bytes) past the limit: exit {code}: {out.strip().splitlines()[-1]}")
        if stray(folder):
            fail(f"stray files after the failed rewrite: {stray(folder)}")
        if open(os.path.join(folder, "events.jsonl"), "rb").read() != log:
            fail("the failed resume changed the event log")
    else:
        print("(the run stopped before any game ended: the games.pgn rewrite is not exercised)")

    code, out = run(arena, config, ["--resume", folder])
    if code != 0:
        fail(f"the resume with space back exited {code}\n{out}")
    compare(reference, folder, "after the full disk")
    print("resumed with space back: equals the uninterrupted run")


def set_writable(folder, writable):
    for name in os.listdir(folder):
        try:
            os.chmod(os.path.join(folder, name), 0o644 if writable else 0o444)
        except FileNotFoundError:
            pass  # a *.tmp the running arena renamed into place since the listing
    os.chmod(folder, 0o755 if writable else 0o555)


NOBODY = 65534


def as_nobody():
    os.setgroups([])
    os.setgid(NOBODY)
    os.setuid(NOBODY)


def read_only(arena, config, work, reference):
    """As root chmod does not stop writes: arena then runs as user nobody (root keeps the chmod)."""
    demote = as_nobody if os.geteuid() == 0 else None
    folder = os.path.join(work, "readonly")
    os.makedirs(folder)
    if demote:
        os.chown(folder, NOBODY, NOBODY)
        os.chmod(work, 0o755)
        probe = subprocess.run(["/bin/sh", "-c", f"test -x {arena} && test -r {config}"], preexec_fn=demote)
        if probe.returncode != 0:
            print("read-only folder: SKIPPED (root, and user nobody cannot run arena from here)")
            return
    proc = subprocess.Popen([arena, "run", config, "--quiet", "--web-port", "0", "--output", folder],
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, preexec_fn=demote)
    events = os.path.join(folder, "events.jsonl")
    deadline = time.monotonic() + RUN_TIMEOUT
    while proc.poll() is None and time.monotonic() < deadline:
        if os.path.exists(events) and open(events, "rb").read().count(b'"type":"game_end"') >= 2:
            break
        time.sleep(0.01)
    set_writable(folder, False)
    try:
        out = proc.communicate(timeout=RUN_TIMEOUT)[0].decode(errors="replace")
    finally:
        set_writable(folder, True)
    if proc.returncode == 0 or "resume the run" not in out:
        fail(f"the read-only folder: exit {proc.returncode}, expected an error saying to resume:\n{out}")
    print(f"read-only folder{' (as nobody)' if demote else ''}: exit {proc.returncode}: "
          f"{out.strip().splitlines()[-1]}")
    # A temporary is left only where the folder turned read-only between its write and its rename
    # (neither the rename nor the removal can then happen); the resume must replace it.
    left = stray(folder)
    if left and "cannot replace" not in out:
        fail(f"stray files after the read-only folder: {left}")
    whole_lines(events)
    resumed = subprocess.run([arena, "run", config, "--quiet", "--web-port", "0", "--resume", folder],
                             capture_output=True, timeout=RUN_TIMEOUT, preexec_fn=demote)
    if resumed.returncode != 0:
        fail(f"the resume once writable exited {resumed.returncode}\n{resumed.stderr.decode(errors='replace')}")
    if stray(folder):
        fail(f"stray files after the resume: {stray(folder)}")
    compare(reference, folder, "after the read-only folder")
    print("resumed once writable: equals the uninterrupted run")


def main():
    if len(sys.argv) != 3:
        fail("usage: results_fault_test.py ARENA WORKDIR")
    arena, work = sys.argv[1], sys.argv[2]
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    config = os.path.join(work, "fault.yaml")
    with open(config, "w") as f:
        f.write(CONFIG)
    reference = os.path.join(work, "reference")
    code, out = run(arena, config, ["--output", reference])
    if code != 0:
        fail(f"the reference run exited {code}\n{out}")
    full_disk(arena, config, work, reference)
    read_only(arena, config, work, reference)
    print("ok")


if __name__ == "__main__":
    main()
