// Legal move generation, written once per colour (a template) so pawn directions are constants.
//
// Order of work: the squares the opponent attacks with our king lifted off the board (so the
// king cannot step back along a checking ray); king moves; stop on double check; the check
// mask (a single checker and the squares between it and the king); the pinned pieces; then
// every other piece's moves restricted to the check mask and, if pinned, to its pin ray.
// The same code fills a move list or, for perft's last ply, only counts (the Sink policy).
#include "games/chess/movegen.h"

namespace games::chess {

namespace {

// Where generated moves go: into a list...
struct ListSink {
  MoveList& list;

  void move(Move m) { list.push(m); }
  void moves(Square from, Bitboard targets) {
    while (targets) list.push(Move(from, pop_lsb(targets)));
  }
  // Pawn moves onto `targets`, each from `Delta` squares back.
  template <int Delta>
  void pawn_moves(Bitboard targets) {
    while (targets) {
      const Square to = pop_lsb(targets);
      list.push(Move(to - Delta, to));
    }
  }
  template <int Delta>
  void promotions(Bitboard targets) {
    while (targets) {
      const Square to = pop_lsb(targets);
      promote(to - Delta, to);
    }
  }
  void promotions_from(Square from, Bitboard targets) {
    while (targets) promote(from, pop_lsb(targets));
  }
  void promote(Square from, Square to) {
    for (PieceType t : {Queen, Rook, Bishop, Knight}) list.push(Move(from, to, MoveKind::Promotion, t));
  }
};

// ...or only counted, for perft's last ply.
struct CountSink {
  int count = 0;

  void move(Move) { ++count; }
  void moves(Square, Bitboard targets) { count += popcount(targets); }
  template <int Delta>
  void pawn_moves(Bitboard targets) {
    count += popcount(targets);
  }
  template <int Delta>
  void promotions(Bitboard targets) {
    count += 4 * popcount(targets);
  }
  void promotions_from(Square, Bitboard targets) { count += 4 * popcount(targets); }
};

// What every piece's moves depend on, computed once per position. The helpers below take it
// by reference and are forced inline, so generate() compiles to the one loop it was.
struct MoveContext {
  Bitboard ours, theirs, occupied;
  Square ksq;              // our king
  Bitboard danger;         // squares the opponent attacks, seen through our king
  Bitboard checkers;       // their pieces giving check
  Bitboard target;         // where a piece other than the king may go (the check line when in check)
  Bitboard pinned;         // our pieces pinned to our king
  Bitboard pinned_movers;  // the pinned pieces that may move along their pin (none while in check)
};

// Squares the opponent attacks, with our king lifted off the board (so it cannot step back
// along a checking ray).
template <Color Us>
[[gnu::always_inline]] inline Bitboard danger_squares(const Position& pos, const MoveContext& b) {
  constexpr Color Them = ~Us;
  const Bitboard through_king = b.occupied ^ square_bb(b.ksq);
  Bitboard danger = pawn_attacks_bb<Them>(pos.pieces(Them, Pawn)) | king_attacks(pos.king_square(Them));
  for (Bitboard p = pos.pieces(Them, Knight); p;) danger |= knight_attacks(pop_lsb(p));
  for (Bitboard p = pos.pieces(Them, Bishop, Queen); p;) danger |= bishop_attacks(pop_lsb(p), through_king);
  for (Bitboard p = pos.pieces(Them, Rook, Queen); p;) danger |= rook_attacks(pop_lsb(p), through_king);
  return danger;
}

template <Color Us>
[[gnu::always_inline]] inline Bitboard checkers_of(const Position& pos, const MoveContext& b) {
  constexpr Color Them = ~Us;
  if (!(b.danger & square_bb(b.ksq))) return 0;
  return (knight_attacks(b.ksq) & pos.pieces(Them, Knight)) |
         (pawn_attacks(Us, b.ksq) & pos.pieces(Them, Pawn)) |
         (bishop_attacks(b.ksq, b.occupied) & pos.pieces(Them, Bishop, Queen)) |
         (rook_attacks(b.ksq, b.occupied) & pos.pieces(Them, Rook, Queen));
}

// A piece of ours alone between our king and an enemy slider on its line is pinned.
template <Color Us>
[[gnu::always_inline]] inline Bitboard pinned_pieces(const Position& pos, const MoveContext& b) {
  constexpr Color Them = ~Us;
  Bitboard pinned = 0;
  Bitboard snipers = (rook_attacks(b.ksq, b.theirs) & pos.pieces(Them, Rook, Queen)) |
                     (bishop_attacks(b.ksq, b.theirs) & pos.pieces(Them, Bishop, Queen));
  while (snipers) {
    const Bitboard blockers = between_bb(b.ksq, pop_lsb(snipers)) & b.occupied;
    if (blockers && !more_than_one(blockers) && (blockers & b.ours)) pinned |= blockers;
  }
  return pinned;
}

// Knights (never when pinned), then bishops, rooks and queens (along the pin ray when pinned).
template <Color Us, typename Sink>
[[gnu::always_inline]] inline void piece_moves(const Position& pos, const MoveContext& b, Sink& sink) {
  for (Bitboard p = pos.pieces(Us, Knight) & ~b.pinned; p;) {
    const Square from = pop_lsb(p);
    sink.moves(from, knight_attacks(from) & b.target);
  }
  const Bitboard frozen = b.pinned & ~b.pinned_movers;
  for (Bitboard p = pos.pieces(Us, Bishop, Queen) & ~frozen; p;) {
    const Square from = pop_lsb(p);
    Bitboard to = bishop_attacks(from, b.occupied) & b.target;
    if (b.pinned & square_bb(from)) to &= line_bb(b.ksq, from);
    sink.moves(from, to);
  }
  for (Bitboard p = pos.pieces(Us, Rook, Queen) & ~frozen; p;) {
    const Square from = pop_lsb(p);
    Bitboard to = rook_attacks(from, b.occupied) & b.target;
    if (b.pinned & square_bb(from)) to &= line_bb(b.ksq, from);
    sink.moves(from, to);
  }
}

// Pawns that are not pinned, all at once; pinned ones one at a time along their pin ray; en
// passant (rare, so each candidate gets the exact legality test).
template <Color Us, typename Sink>
[[gnu::always_inline]] inline void pawn_moves(const Position& pos, const MoveContext& b, Sink& sink) {
  constexpr Color Them = ~Us;
  constexpr int Up = pawn_push(Us);
  constexpr int UpLeft = Us == White ? 7 : -9;   // towards the a-file
  constexpr int UpRight = Us == White ? 9 : -7;  // towards the h-file
  constexpr Bitboard kRelRank3 = rank_bb(Us == White ? 2 : 5);
  constexpr Bitboard kRelRank7 = rank_bb(Us == White ? 6 : 1);
  const Bitboard empty = ~b.occupied;
  const Bitboard pawns = pos.pieces(Us, Pawn);
  const Bitboard free_pawns = pawns & ~b.pinned;
  {
    const Bitboard movers = free_pawns & ~kRelRank7;
    const Bitboard single = shift<Up>(movers) & empty;
    sink.template pawn_moves<2 * Up>(shift<Up>(single & kRelRank3) & empty & b.target);
    sink.template pawn_moves<Up>(single & b.target);
    sink.template pawn_moves<UpLeft>(shift<UpLeft>(movers) & b.theirs & b.target);
    sink.template pawn_moves<UpRight>(shift<UpRight>(movers) & b.theirs & b.target);
  }
  if (const Bitboard promoters = free_pawns & kRelRank7) {
    sink.template promotions<Up>(shift<Up>(promoters) & empty & b.target);
    sink.template promotions<UpLeft>(shift<UpLeft>(promoters) & b.theirs & b.target);
    sink.template promotions<UpRight>(shift<UpRight>(promoters) & b.theirs & b.target);
  }
  for (Bitboard p = pawns & b.pinned_movers; p;) {
    const Square from = pop_lsb(p);
    const Bitboard ray = line_bb(b.ksq, from);
    Bitboard to = pawn_attacks(Us, from) & b.theirs & ray;
    const Square ahead = from + Up;
    if ((empty & square_bb(ahead) & ray)) {
      to |= square_bb(ahead);
      if ((square_bb(ahead) & kRelRank3) && (empty & square_bb(ahead + Up))) to |= square_bb(ahead + Up);
    }
    if (square_bb(from) & kRelRank7)
      sink.promotions_from(from, to);
    else
      sink.moves(from, to);
  }
  if (const Square ep = pos.ep_square(); ep != kNoSquare)
    for (Bitboard p = pawn_attacks(Them, ep) & pawns; p;) {
      const Square from = pop_lsb(p);
      if (pos.ep_capture_is_legal(from, ep)) sink.move(Move(from, ep, MoveKind::EnPassant));
    }
}

// Castling (not in check): a right implies its king and rook on their squares (the FEN reader
// checks this).
template <Color Us, typename Sink>
[[gnu::always_inline]] inline void castling_moves(const Position& pos, const MoveContext& b, Sink& sink) {
  constexpr uint8_t kRights[2] = {Us == White ? WhiteKingSide : BlackKingSide,
                                  Us == White ? WhiteQueenSide : BlackQueenSide};
  constexpr int kBackRank = Us == White ? 0 : 7;
  const Square ksq = b.ksq;
  for (int side = 0; side < 2; ++side) {
    if (!(pos.castling_rights() & kRights[side])) continue;
    const Square rook_from = pos.castling_rook(kRights[side]);
    const Square king_to = make_square(side == 0 ? 6 : 2, kBackRank);
    const Square rook_to = make_square(side == 0 ? 5 : 3, kBackRank);
    const Bitboard king_path = between_bb(ksq, king_to) | square_bb(king_to);
    const Bitboard path = (king_path | between_bb(rook_from, rook_to) | square_bb(rook_to)) &
                          ~(square_bb(ksq) | square_bb(rook_from));
    if ((b.occupied & path) || (b.danger & king_path)) continue;
    // Outside the standard set-up the departing rook may have shielded the king's new square.
    const bool standard = ksq == make_square(4, kBackRank) && file_of(rook_from) == (side == 0 ? 7 : 0);
    if (!standard) {
      const Bitboard after =
          (b.occupied ^ square_bb(ksq) ^ square_bb(rook_from)) | square_bb(king_to) | square_bb(rook_to);
      if (pos.attackers_to(king_to, after) & b.theirs) continue;
    }
    sink.move(Move(ksq, king_to, MoveKind::Castling));
  }
}

template <Color Us, typename Sink>
void generate(const Position& pos, Sink& sink) {
  MoveContext b{};
  b.ours = pos.pieces(Us);
  b.theirs = pos.pieces(~Us);
  b.occupied = b.ours | b.theirs;
  b.ksq = pos.king_square(Us);
  b.danger = danger_squares<Us>(pos, b);
  sink.moves(b.ksq, king_attacks(b.ksq) & ~b.ours & ~b.danger);
  b.checkers = checkers_of<Us>(pos, b);
  if (more_than_one(b.checkers)) return;  // double check: only the king moves
  b.target = b.checkers ? between_bb(b.ksq, lsb(b.checkers)) | b.checkers : ~b.ours;
  b.pinned = pinned_pieces<Us>(pos, b);
  // A pinned piece can never answer a check, so in check it does not move at all.
  b.pinned_movers = b.checkers ? 0 : b.pinned;
  piece_moves<Us>(pos, b, sink);
  pawn_moves<Us>(pos, b, sink);
  if (!b.checkers && pos.castling_rights()) castling_moves<Us>(pos, b, sink);
}

}  // namespace

void generate_legal(const Position& pos, MoveList& list) {
  ListSink sink{list};
  if (pos.side_to_move() == White)
    generate<White>(pos, sink);
  else
    generate<Black>(pos, sink);
}

int count_legal(const Position& pos) {
  CountSink sink;
  if (pos.side_to_move() == White)
    generate<White>(pos, sink);
  else
    generate<Black>(pos, sink);
  return sink.count;
}

bool has_legal_move(const Position& pos) {
  return count_legal(pos) > 0;
}

}  // namespace games::chess
