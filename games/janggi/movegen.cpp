// Janggi move generation and perft (see movegen.h).
#include "games/janggi/movegen.h"

#include <algorithm>

#include "games/janggi/geometry.h"

namespace games::janggi {
namespace {

// A target square the mover may go to: empty or holding an opponent's piece.
inline bool open_for(Piece target, Color us) {
  return target == NoPiece || color_of(target) != us;
}

inline void add_steps(const Position& pos, Square from, const Steps& steps, Color us, MoveList& list) {
  for (int i = 0; i < steps.num_steps; ++i)
    if (open_for(pos.piece_on(steps.squares[i]), us)) list.add(Move{uint8_t(from), steps.squares[i]});
}

inline void add_slides(const Position& pos, Square from, const Ray& ray, Color us, MoveList& list) {
  for (int i = 0; i < ray.num_squares; ++i) {
    const Piece target = pos.piece_on(ray.squares[i]);
    if (target == NoPiece || color_of(target) != us) list.add(Move{uint8_t(from), ray.squares[i]});
    if (target != NoPiece) return;
  }
}

// A cannon jumps exactly one screen that is not a cannon, then moves to any empty point or
// captures the first piece beyond, unless that piece is a cannon.
inline void add_cannon_jumps(const Position& pos, Square from, const Ray& ray, Color us, MoveList& list) {
  int i = 0;
  while (i < ray.num_squares && pos.piece_on(ray.squares[i]) == NoPiece) ++i;
  if (i == ray.num_squares || type_of(pos.piece_on(ray.squares[i])) == Cannon) return;
  for (++i; i < ray.num_squares; ++i) {
    const Piece target = pos.piece_on(ray.squares[i]);
    if (target == NoPiece) {
      list.add(Move{uint8_t(from), ray.squares[i]});
      continue;
    }
    if (color_of(target) != us && type_of(target) != Cannon) list.add(Move{uint8_t(from), ray.squares[i]});
    return;
  }
}

inline void add_leaps(const Position& pos, Square from, const Leaps& leaps, Color us, MoveList& list) {
  for (int i = 0; i < leaps.num_leaps; ++i) {
    const Leap& l = leaps.leaps[i];
    if (pos.piece_on(l.block1) == NoPiece && pos.piece_on(l.block2) == NoPiece &&
        open_for(pos.piece_on(l.to), us))
      list.add(Move{uint8_t(from), l.to});
  }
}

}  // namespace

bool MoveList::contains(Move m) const {
  return std::find(begin(), end(), m) != end();
}

void generate_piece_moves(const Position& pos, MoveList& list) {
  const Geometry& g = kGeometry;
  const Color us = pos.side_to_move();
  for (Square s = 0; s < kNumSquares; ++s) {
    const Piece p = pos.piece_on(s);
    if (p == NoPiece || color_of(p) != us) continue;
    switch (type_of(p)) {
      case General:
      case Guard:
        add_steps(pos, s, g.palace_steps[us][s], us, list);
        break;
      case Elephant:
        add_leaps(pos, s, g.elephant[s], us, list);
        break;
      case Horse:
        add_leaps(pos, s, g.horse[s], us, list);
        break;
      case Chariot:
        for (const Ray& ray : g.rays[s]) add_slides(pos, s, ray, us, list);
        if (on_palace_diagonal(s))
          for (const Ray& ray : g.palace_rays[s]) add_slides(pos, s, ray, us, list);
        break;
      case Cannon:
        for (const Ray& ray : g.rays[s]) add_cannon_jumps(pos, s, ray, us, list);
        if (on_palace_diagonal(s))
          for (const Ray& ray : g.palace_rays[s]) add_cannon_jumps(pos, s, ray, us, list);
        break;
      case Soldier:
        add_steps(pos, s, g.soldier[us][s], us, list);
        break;
      default:
        break;
    }
  }
}

void generate_legal(Position& pos, const Rules& rules, MoveList& list) {
  list.size = 0;
  if (immediate_end(pos, rules)) return;
  // Under the bikjang rule, while the generals face each other every move but a pass must
  // break the facing, and the pass is allowed even in check.
  const bool bikjang = rules.bikjang && pos.state().facing;
  MoveList pseudo;
  generate_piece_moves(pos, pseudo);
  for (Move m : pseudo)
    if (pos.move_is_safe(m, bikjang)) list.add(m);
  if (bikjang || !pos.state().in_check) {
    const uint8_t king = uint8_t(pos.king_square(pos.side_to_move()));
    list.add(Move{king, king});
  }
}

uint64_t perft(Position& pos, const Rules& rules, int depth) {
  if (depth <= 0) return 1;
  MoveList list;
  generate_legal(pos, rules, list);
  if (depth == 1) return uint64_t(list.size);
  uint64_t nodes = 0;
  for (Move m : list) {
    pos.do_move(m);
    nodes += perft(pos, rules, depth - 1);
    pos.undo_move();
  }
  return nodes;
}

}  // namespace games::janggi
