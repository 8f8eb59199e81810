// Janggi position: make/unmake and the attack test (see position.h).
#include "games/janggi/position.h"

#include <cassert>

#include "games/janggi/geometry.h"

namespace games::janggi {
namespace {

constexpr uint64_t splitmix64(uint64_t& state) {
  uint64_t z = (state += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

constexpr Zobrist build_zobrist() {
  Zobrist z{};
  uint64_t state = 0x4A414E474749ull;  // "JANGGI"
  for (auto& squares : z.piece_square)
    for (auto& key : squares) key = splitmix64(state);
  z.han_to_move = splitmix64(state);
  return z;
}

}  // namespace

constinit const Zobrist kZobrist = build_zobrist();

Position::Position() {
  states_.reserve(256);
  states_.emplace_back();
}

void Position::put_piece(Piece p, Square s) {
  assert(board_[s] == NoPiece && p != NoPiece);
  board_[s] = p;
  ++counts_[color_of(p)][type_of(p)];
  if (type_of(p) == General) king_[color_of(p)] = s;
}

void Position::finish_setup(Color side, int rule50, int fullmove) {
  side_ = side;
  game_ply_ = 2 * (fullmove > 0 ? fullmove - 1 : 0) + (side == Han);
  states_.assign(1, StateInfo{});
  StateInfo& st = states_.back();
  st.key = compute_key();
  st.rule50 = rule50;
  st.facing = generals_facing();
  st.in_check = in_check();
}

uint64_t Position::compute_key() const {
  uint64_t key = side_ == Han ? kZobrist.han_to_move : 0;
  for (Square s = 0; s < kNumSquares; ++s)
    if (board_[s] != NoPiece) key ^= kZobrist.piece_square[board_[s]][s];
  return key;
}

void Position::do_move(Move m) {
  const StateInfo& prev = states_.back();
  StateInfo st;
  st.key = prev.key ^ kZobrist.han_to_move;
  st.move = m;
  st.rule50 = prev.rule50 + 1;
  st.pass = m.is_pass();
  if (!st.pass) {
    const Piece moved = board_[m.from];
    const Piece captured = board_[m.to];
    st.captured = captured;
    st.key ^= kZobrist.piece_square[moved][m.from] ^ kZobrist.piece_square[moved][m.to];
    if (captured != NoPiece) {
      st.key ^= kZobrist.piece_square[captured][m.to];
      --counts_[color_of(captured)][type_of(captured)];
      st.rule50 = 0;
    }
    board_[m.to] = moved;
    board_[m.from] = NoPiece;
    if (type_of(moved) == General) king_[side_] = m.to;
  }
  side_ = ~side_;
  ++game_ply_;
  st.facing = generals_facing();
  st.in_check = in_check();
  states_.push_back(st);
}

void Position::undo_move() {
  assert(states_.size() > 1);
  const StateInfo& st = states_.back();
  side_ = ~side_;
  --game_ply_;
  if (!st.pass) {
    const Piece moved = board_[st.move.to];
    board_[st.move.from] = moved;
    board_[st.move.to] = st.captured;
    if (st.captured != NoPiece) ++counts_[color_of(st.captured)][type_of(st.captured)];
    if (type_of(moved) == General) king_[side_] = st.move.from;
  }
  states_.pop_back();
}

bool Position::generals_facing() const {
  const Square a = king_[Cho], b = king_[Han];
  if (file_of(a) != file_of(b)) return false;
  for (Square s = a + kNumFiles; s < b; s += kNumFiles)
    if (board_[s] != NoPiece) return false;
  return true;
}

bool Position::move_is_safe(Move m, bool forbid_facing) {
  const Piece moved = board_[m.from], captured = board_[m.to];
  const Square king = king_[side_];
  board_[m.to] = moved;
  board_[m.from] = NoPiece;
  if (type_of(moved) == General) king_[side_] = m.to;
  const bool safe = !attacked(king_[side_], ~side_) && !(forbid_facing && generals_facing());
  board_[m.from] = moved;
  board_[m.to] = captured;
  king_[side_] = king;
  return safe;
}

bool Position::attacked(Square s, Color by) const {
  const Geometry& g = kGeometry;
  const Piece chariot = make_piece(by, Chariot), cannon = make_piece(by, Cannon);
  // Chariots slide and cannons jump one screen that is not a cannon, along files and ranks and,
  // inside a palace, along its diagonals.
  auto along = [&](const Ray& ray) {
    int i = 0;
    while (i < ray.num_squares && board_[ray.squares[i]] == NoPiece) ++i;
    if (i == ray.num_squares) return false;
    const Piece first = board_[ray.squares[i]];
    if (first == chariot) return true;
    if (type_of(first) == Cannon) return false;
    ++i;
    while (i < ray.num_squares && board_[ray.squares[i]] == NoPiece) ++i;
    return i < ray.num_squares && board_[ray.squares[i]] == cannon;
  };
  for (const Ray& ray : g.rays[s])
    if (along(ray)) return true;
  if (on_palace_diagonal(s))
    for (const Ray& ray : g.palace_rays[s])
      if (ray.num_squares && along(ray)) return true;
  // Horses and elephants, unless a piece stands on a point of their path.
  const Piece horse = make_piece(by, Horse), elephant = make_piece(by, Elephant);
  const Leaps& hf = g.horse_from[s];
  for (int i = 0; i < hf.num_leaps; ++i)
    if (board_[hf.leaps[i].to] == horse && board_[hf.leaps[i].block1] == NoPiece) return true;
  const Leaps& ef = g.elephant_from[s];
  for (int i = 0; i < ef.num_leaps; ++i)
    if (board_[ef.leaps[i].to] == elephant && board_[ef.leaps[i].block1] == NoPiece &&
        board_[ef.leaps[i].block2] == NoPiece)
      return true;
  const Piece soldier = make_piece(by, Soldier);
  const Steps& sf = g.soldier_from[by][s];
  for (int i = 0; i < sf.num_steps; ++i)
    if (board_[sf.squares[i]] == soldier) return true;
  // Generals and guards never leave their own palace, so they can only attack inside it.
  if (in_palace(by, s)) {
    const Steps& ps = g.palace_steps[by][s];
    for (int i = 0; i < ps.num_steps; ++i) {
      const PieceType t = type_of(board_[ps.squares[i]]);
      if ((t == General || t == Guard) && color_of(board_[ps.squares[i]]) == by) return true;
    }
  }
  return false;
}

}  // namespace games::janggi
