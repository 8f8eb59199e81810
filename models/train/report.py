"""The model card's figures from `arena run` results folders: the agent's score per opponent and
per game (from events.jsonl, so chess and janggi are apart), and in free mode the share of first
answers that were legal moves.
   report.py --agent model RESULTS_DIR..."""
import argparse
import json
import os
from collections import defaultdict


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--agent", required=True)
    ap.add_argument("results", nargs="+")
    args = ap.parse_args()
    for folder in args.results:
        starts, points = {}, defaultdict(lambda: [0.0, 0, 0, 0, 0])  # score, games, wins, draws, losses
        moves = retried = 0
        reasons = defaultdict(int)
        with open(os.path.join(folder, "events.jsonl")) as f:
            for line in f:
                e = json.loads(line)
                if e["type"] == "game_start":
                    starts[e["game"]] = e
                elif e["type"] == "move" and e["agent"] == args.agent:
                    moves += 1
                    retried += (e.get("retries") or 0) > 0 or e.get("failure") is not None
                elif e["type"] == "game_end" and e["game"] in starts:
                    s = starts[e["game"]]
                    if args.agent not in (s["first"], s["second"]) or e["result"] == "*":
                        continue
                    first = s["first"] == args.agent
                    opponent = s["second"] if first else s["first"]
                    family = "chess" if s["variant"] == "chess" else "janggi"
                    r = {"1-0": 1.0, "0-1": 0.0}.get(e["result"], 0.5)
                    mine = r if first else 1.0 - r
                    p = points[(opponent, family)]
                    p[0] += mine
                    p[1] += 1
                    p[2 if mine == 1 else 3 if mine == 0.5 else 4] += 1
                    reasons[(family, e["reason"].split(";")[0].split(" (")[0])] += 1
        print(f"== {folder}")
        for (opponent, family), (score, games, w, d, l) in sorted(points.items()):
            print(f"  vs {opponent:12s} {family:7s} {score / games:6.1%} of {games} games (+{w} ={d} -{l})")
        if moves:
            print(f"  {args.agent}'s first answers legal: {1 - retried / moves:.1%} of {moves} moves")
        print("  endings: " + ", ".join(f"{f} {r}: {n}" for (f, r), n in sorted(reasons.items())))


if __name__ == "__main__":
    main()
