// Perft by make/unmake on one Position, with bulk counting at depth 1.
#include "games/chess/perft.h"

#include "games/chess/movegen.h"

namespace games::chess {

namespace {

uint64_t count(Position& pos, int depth) {
  if (depth == 1) return uint64_t(count_legal(pos));
  MoveList list;
  generate_legal(pos, list);
  uint64_t nodes = 0;
  UndoInfo undo;
  for (Move m : list) {
    pos.make_move(m, undo);
    nodes += count(pos, depth - 1);
    pos.unmake_move(m, undo);
  }
  return nodes;
}

}  // namespace

uint64_t perft(const Position& pos, int depth) {
  if (depth <= 0) return 1;
  Position work = pos;
  return count(work, depth);
}

std::vector<std::pair<Move, uint64_t>> perft_divide(const Position& pos, int depth) {
  std::vector<std::pair<Move, uint64_t>> result;
  if (depth < 1) return result;
  Position work = pos;
  MoveList list;
  generate_legal(work, list);
  UndoInfo undo;
  for (Move m : list) {
    work.make_move(m, undo);
    result.emplace_back(m, perft(work, depth - 1));
    work.unmake_move(m, undo);
  }
  return result;
}

}  // namespace games::chess
