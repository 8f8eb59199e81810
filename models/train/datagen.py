"""Positions for the arena default model: games between Stockfish (chess) or Fairy-Stockfish
(janggi) at mixed strength, each position labelled with a fixed-node search's move (so the label
does not depend on the machine's speed).

Each game draws, for each side, how often it plays a random legal move (0, 1/4, 1/2 or always) and
how many nodes its engine moves search; janggi games draw a rule set and one of the 16 setups.
Legal moves come from the engine's own `go perft 1`. Output: one JSON line per game,
{"variant", "fen", "moves": [uci...], "labels": [uci per ply]}; arena's rules check every move
again when `arena dataset` renders the prompts.

Deterministic for a seed (one search thread, fixed nodes). Resumable: a worker appends to its own
file and, restarted, skips the games already there."""
import argparse
import json
import os
import random
import subprocess
import sys
import time

CHESS_START = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"
# Back ranks from file a to i for each horse (N) / elephant (B) arrangement, read from the
# owner's own left: Cho's left is file a, Han's is file i.
JANGGI_SETUPS = ["NBBN", "BNNB", "NBNB", "BNBN"]
JANGGI_VARIANTS = ["janggi", "janggimodern", "janggicasual"]


def janggi_fen(cho, han):
    c = JANGGI_SETUPS[cho]
    h = JANGGI_SETUPS[han][::-1].lower()  # Han reads from file i
    cho_rank = f"R{c[0]}{c[1]}A1A{c[2]}{c[3]}R"
    han_rank = f"r{h[0]}{h[1]}a1a{h[2]}{h[3]}r"
    return f"{han_rank}/4k4/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/4K4/{cho_rank} w - - 0 1"


class Engine:
    """One UCI engine process; every read has a timeout through the engine's own answers."""

    def __init__(self, path, variant=None):
        self.p = subprocess.Popen([path], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                  stderr=subprocess.DEVNULL, text=True, bufsize=1)
        self.send("uci")
        self.wait_for("uciok")
        self.send("setoption name Threads value 1")
        self.send("setoption name Hash value 16")
        self.variant = None
        self.set_variant(variant)

    def send(self, line):
        self.p.stdin.write(line + "\n")

    def wait_for(self, prefix):
        lines = []
        while True:
            line = self.p.stdout.readline()
            if not line:
                raise RuntimeError("the engine exited")
            line = line.strip()
            lines.append(line)
            if line.startswith(prefix):
                return lines

    def set_variant(self, variant):
        if variant and variant != self.variant:
            self.send(f"setoption name UCI_Variant value {variant}")
            self.variant = variant
        self.send("isready")
        self.wait_for("readyok")

    def position(self, fen, moves):
        self.send(f"position fen {fen}" + (" moves " + " ".join(moves) if moves else ""))

    def legal_moves(self):
        self.send("go perft 1")
        out = self.wait_for("Nodes searched")
        return [l.split(":")[0] for l in out if ":" in l and not l.startswith("Nodes")]

    def best(self, nodes):
        self.send(f"go nodes {nodes}")
        out = self.wait_for("bestmove")
        move = out[-1].split()[1]
        return None if move in ("(none)", "0000") else move

    def new_game(self):
        self.send("ucinewgame")
        self.send("isready")
        self.wait_for("readyok")


def play_game(rng, engines, game_index, args):
    chess = game_index % 2 == 0 if args.variants == "both" else args.variants == "chess"
    if chess:
        variant, fen, eng = "chess", CHESS_START, engines["chess"]
        eng.set_variant(None)
    else:
        variant = rng.choice(JANGGI_VARIANTS)
        fen = janggi_fen(rng.randrange(4), rng.randrange(4))
        eng = engines["janggi"]
        eng.set_variant(variant)
    eng.new_game()
    sides = [(rng.choice([0.0, 0.25, 0.5, 1.0]), rng.choice([1, 30, 200, 1000])) for _ in range(2)]
    moves, labels = [], []
    for ply in range(args.max_plies):
        eng.position(fen, moves)
        legal = eng.legal_moves()
        if not legal:
            break
        label = eng.best(args.label_nodes)
        if label is None:
            break
        labels.append(label)
        random_prob, nodes = sides[ply % 2]
        if rng.random() < random_prob:
            move = rng.choice(legal)
        else:  # the engine still holds this position
            move = eng.best(nodes) or rng.choice(legal)
        moves.append(move)
    return {"variant": variant, "fen": fen, "moves": moves[:len(labels)], "labels": labels}


def worker(args, index):
    path = os.path.join(args.out, f"games-{index}.jsonl")
    done = 0
    if os.path.exists(path):
        with open(path) as f:
            done = sum(1 for line in f if line.endswith("\n"))
    engines = {"chess": Engine(args.stockfish), "janggi": Engine(args.fairy, "janggi")}
    positions = 0
    start = time.time()
    with open(path, "a") as f:
        for g in range(done, args.games_per_worker):
            rng = random.Random(f"{args.seed}-{index}-{g}")
            game = play_game(rng, engines, g, args)
            f.write(json.dumps(game) + "\n")
            f.flush()
            positions += len(game["labels"])
            if (g + 1) % 10 == 0:
                rate = positions / (time.time() - start)
                left = (args.games_per_worker - g - 1) * positions / max(1, g + 1 - done) / max(rate, 1e-9)
                print(f"worker {index}: game {g + 1}/{args.games_per_worker}, {positions} positions, "
                      f"{rate:.0f} positions/s, ETA {left / 60:.1f} min", flush=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", required=True, help="folder for games-N.jsonl")
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--games-per-worker", type=int, default=800)
    ap.add_argument("--max-plies", type=int, default=120)
    ap.add_argument("--label-nodes", type=int, default=4000)
    ap.add_argument("--variants", choices=["both", "chess", "janggi"], default="both")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--stockfish", default="/usr/games/stockfish")
    ap.add_argument("--fairy", default="/usr/games/fairy-stockfish")
    ap.add_argument("--worker", type=int, default=-1, help=argparse.SUPPRESS)
    args = ap.parse_args()
    os.makedirs(args.out, exist_ok=True)
    if args.worker >= 0:
        return worker(args, args.worker)
    procs = [subprocess.Popen([sys.executable, __file__, *sys.argv[1:], "--worker", str(i)])
             for i in range(args.workers)]
    sys.exit(max(p.wait() for p in procs))


if __name__ == "__main__":
    main()
