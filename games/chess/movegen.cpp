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

template <Color Us, typename Sink>
void generate(const Position& pos, Sink& sink) {
  constexpr Color Them = ~Us;
  constexpr int Up = pawn_push(Us);
  constexpr int UpLeft = Us == White ? 7 : -9;   // towards the a-file
  constexpr int UpRight = Us == White ? 9 : -7;  // towards the h-file
  constexpr Bitboard kRelRank3 = rank_bb(Us == White ? 2 : 5);
  constexpr Bitboard kRelRank7 = rank_bb(Us == White ? 6 : 1);

  const Bitboard ours = pos.pieces(Us), theirs = pos.pieces(Them), occupied = ours | theirs;
  const Square ksq = pos.king_square(Us);

  // Squares the opponent attacks, seen through our king.
  const Bitboard through_king = occupied ^ square_bb(ksq);
  Bitboard danger = pawn_attacks_bb<Them>(pos.pieces(Them, Pawn)) | king_attacks(pos.king_square(Them));
  for (Bitboard b = pos.pieces(Them, Knight); b;) danger |= knight_attacks(pop_lsb(b));
  for (Bitboard b = pos.pieces(Them, Bishop, Queen); b;) danger |= bishop_attacks(pop_lsb(b), through_king);
  for (Bitboard b = pos.pieces(Them, Rook, Queen); b;) danger |= rook_attacks(pop_lsb(b), through_king);

  sink.moves(ksq, king_attacks(ksq) & ~ours & ~danger);

  // Where the other pieces may go: anywhere not ours, or only onto the check line.
  Bitboard checkers = 0;
  if (danger & square_bb(ksq))
    checkers = (knight_attacks(ksq) & pos.pieces(Them, Knight)) |
               (pawn_attacks(Us, ksq) & pos.pieces(Them, Pawn)) |
               (bishop_attacks(ksq, occupied) & pos.pieces(Them, Bishop, Queen)) |
               (rook_attacks(ksq, occupied) & pos.pieces(Them, Rook, Queen));
  if (more_than_one(checkers)) return;
  const Bitboard target = checkers ? between_bb(ksq, lsb(checkers)) | checkers : ~ours;

  // A piece of ours alone between our king and an enemy slider on its line is pinned.
  Bitboard pinned = 0;
  Bitboard snipers = (rook_attacks(ksq, theirs) & pos.pieces(Them, Rook, Queen)) |
                     (bishop_attacks(ksq, theirs) & pos.pieces(Them, Bishop, Queen));
  while (snipers) {
    const Bitboard blockers = between_bb(ksq, pop_lsb(snipers)) & occupied;
    if (blockers && !more_than_one(blockers) && (blockers & ours)) pinned |= blockers;
  }
  // A pinned piece can never answer a check, so in check it does not move at all.
  const Bitboard pinned_movers = checkers ? 0 : pinned;

  for (Bitboard b = pos.pieces(Us, Knight) & ~pinned; b;) {
    const Square from = pop_lsb(b);
    sink.moves(from, knight_attacks(from) & target);
  }
  for (Bitboard b = pos.pieces(Us, Bishop, Queen) & ~(pinned & ~pinned_movers); b;) {
    const Square from = pop_lsb(b);
    Bitboard to = bishop_attacks(from, occupied) & target;
    if (pinned & square_bb(from)) to &= line_bb(ksq, from);
    sink.moves(from, to);
  }
  for (Bitboard b = pos.pieces(Us, Rook, Queen) & ~(pinned & ~pinned_movers); b;) {
    const Square from = pop_lsb(b);
    Bitboard to = rook_attacks(from, occupied) & target;
    if (pinned & square_bb(from)) to &= line_bb(ksq, from);
    sink.moves(from, to);
  }

  // Pawns that are not pinned, all at once.
  const Bitboard empty = ~occupied;
  const Bitboard pawns = pos.pieces(Us, Pawn);
  const Bitboard free_pawns = pawns & ~pinned;
  {
    const Bitboard movers = free_pawns & ~kRelRank7;
    const Bitboard single = shift<Up>(movers) & empty;
    sink.template pawn_moves<2 * Up>(shift<Up>(single & kRelRank3) & empty & target);
    sink.template pawn_moves<Up>(single & target);
    sink.template pawn_moves<UpLeft>(shift<UpLeft>(movers) & theirs & target);
    sink.template pawn_moves<UpRight>(shift<UpRight>(movers) & theirs & target);
  }
  if (const Bitboard promoters = free_pawns & kRelRank7) {
    sink.template promotions<Up>(shift<Up>(promoters) & empty & target);
    sink.template promotions<UpLeft>(shift<UpLeft>(promoters) & theirs & target);
    sink.template promotions<UpRight>(shift<UpRight>(promoters) & theirs & target);
  }
  // Pinned pawns, one at a time, along their pin ray (never while in check).
  for (Bitboard b = pawns & pinned_movers; b;) {
    const Square from = pop_lsb(b);
    const Bitboard ray = line_bb(ksq, from);
    Bitboard to = pawn_attacks(Us, from) & theirs & ray;
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
  // En passant: rare, so each candidate gets the exact legality test.
  if (const Square ep = pos.ep_square(); ep != kNoSquare)
    for (Bitboard b = pawn_attacks(Them, ep) & pawns; b;) {
      const Square from = pop_lsb(b);
      if (pos.ep_capture_is_legal(from, ep)) sink.move(Move(from, ep, MoveKind::EnPassant));
    }

  // Castling: a right implies its king and rook on their squares (the FEN reader checks this).
  if (!checkers && pos.castling_rights()) {
    constexpr uint8_t kRights[2] = {Us == White ? WhiteKingSide : BlackKingSide,
                                    Us == White ? WhiteQueenSide : BlackQueenSide};
    constexpr int kBackRank = Us == White ? 0 : 7;
    for (int side = 0; side < 2; ++side) {
      if (!(pos.castling_rights() & kRights[side])) continue;
      const Square rook_from = pos.castling_rook(kRights[side]);
      const Square king_to = make_square(side == 0 ? 6 : 2, kBackRank);
      const Square rook_to = make_square(side == 0 ? 5 : 3, kBackRank);
      const Bitboard king_path = between_bb(ksq, king_to) | square_bb(king_to);
      const Bitboard path = (king_path | between_bb(rook_from, rook_to) | square_bb(rook_to)) &
                            ~(square_bb(ksq) | square_bb(rook_from));
      if ((occupied & path) || (danger & king_path)) continue;
      // Outside the standard set-up the departing rook may have shielded the king's new square.
      const bool standard = ksq == make_square(4, kBackRank) && file_of(rook_from) == (side == 0 ? 7 : 0);
      if (!standard) {
        const Bitboard after =
            (occupied ^ square_bb(ksq) ^ square_bb(rook_from)) | square_bb(king_to) | square_bb(rook_to);
        if (pos.attackers_to(king_to, after) & theirs) continue;
      }
      sink.move(Move(ksq, king_to, MoveKind::Castling));
    }
  }
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
