// Position: board bookkeeping, attack queries, make/unmake and the Zobrist key.
#include "games/chess/position.h"

#include <array>
#include <mutex>

namespace games::chess {

namespace zobrist {
uint64_t piece_square[kNumPieceCodes][64];
uint64_t castling[16];
uint64_t ep_file[8];
uint64_t black_to_move;
}  // namespace zobrist

namespace {

// splitmix64: deterministic keys, the same on every run.
uint64_t next_key(uint64_t& state) {
  uint64_t z = (state += 0x9E3779B97F4A7C15ULL);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31);
}

void init_zobrist() {
  uint64_t state = 0x2545F4914F6CDD1DULL;
  for (auto& squares : zobrist::piece_square)
    for (auto& key : squares) key = next_key(state);
  for (auto& key : zobrist::castling) key = next_key(state);
  for (auto& key : zobrist::ep_file) key = next_key(state);
  zobrist::black_to_move = next_key(state);
}

}  // namespace

Position::Position() {
  init_bitboards();
  static std::once_flag once;
  std::call_once(once, init_zobrist);
  for (auto& b : by_type_) b = 0;
  for (auto& b : by_color_) b = 0;
  for (auto& p : board_) p = NoPiece;
  for (auto& keep : castling_keep_) keep = AllCastling;
}

void Position::put_piece(Piece p, Square s) {
  add_piece(p, s);
}

void Position::add_castling_right(uint8_t right, Square rook) {
  const Color c = right & (WhiteKingSide | WhiteQueenSide) ? White : Black;
  castling_ |= right;
  castling_rook_[std::countr_zero(right)] = rook;
  castling_keep_[king_square(c)] &=
      c == White ? ~(WhiteKingSide | WhiteQueenSide) : ~(BlackKingSide | BlackQueenSide);
  castling_keep_[rook] &= ~right;
}

void Position::set_state(Color side, Square ep_square, int rule50, int fullmove) {
  side_ = side;
  rule50_ = rule50;
  fullmove_ = fullmove;
  ep_square_ = kNoSquare;
  // Keep the en-passant square only when the pawn that just moved two squares is there and a
  // capture onto it is legal.
  if (ep_square != kNoSquare && relative_rank(side, ep_square) == 5) {
    const Square pushed_to = ep_square - pawn_push(side), came_from = ep_square + pawn_push(side);
    if (board_[ep_square] == NoPiece && board_[came_from] == NoPiece &&
        board_[pushed_to] == make_piece(~side, Pawn) && has_legal_ep_capture(ep_square))
      ep_square_ = ep_square;
  }
  key_ = compute_key();
}

uint64_t Position::compute_key() const {
  uint64_t key = zobrist::castling[castling_];
  for (Square s = 0; s < 64; ++s)
    if (board_[s] != NoPiece) key ^= zobrist::piece_square[board_[s]][s];
  if (ep_square_ != kNoSquare) key ^= zobrist::ep_file[file_of(ep_square_)];
  if (side_ == Black) key ^= zobrist::black_to_move;
  return key;
}

void Position::add_piece(Piece p, Square s) {
  board_[s] = p;
  by_type_[type_of(p)] |= square_bb(s);
  by_color_[color_of(p)] |= square_bb(s);
}

void Position::remove_piece(Square s) {
  const Piece p = board_[s];
  by_type_[type_of(p)] ^= square_bb(s);
  by_color_[color_of(p)] ^= square_bb(s);
  board_[s] = NoPiece;
}

void Position::move_piece(Square from, Square to) {
  const Piece p = board_[from];
  const Bitboard from_to = square_bb(from) | square_bb(to);
  by_type_[type_of(p)] ^= from_to;
  by_color_[color_of(p)] ^= from_to;
  board_[from] = NoPiece;
  board_[to] = p;
}

Bitboard Position::attackers_to(Square s, Bitboard occupied) const {
  return (chess::pawn_attacks(Black, s) & pieces(White, Pawn)) |
         (chess::pawn_attacks(White, s) & pieces(Black, Pawn)) | (knight_attacks(s) & by_type_[Knight]) |
         (king_attacks(s) & by_type_[King]) |
         (bishop_attacks(s, occupied) & (by_type_[Bishop] | by_type_[Queen])) |
         (rook_attacks(s, occupied) & (by_type_[Rook] | by_type_[Queen]));
}

bool Position::ep_capture_is_legal(Square from, Square to) const {
  const Color us = side_;
  const Square captured = to - pawn_push(us);
  const Bitboard occupied = (pieces() ^ square_bb(from) ^ square_bb(captured)) | square_bb(to);
  return !(attackers_to(king_square(us), occupied) & pieces(~us) & ~square_bb(captured));
}

bool Position::has_legal_ep_capture(Square ep) const {
  for (Bitboard b = chess::pawn_attacks(~side_, ep) & pieces(side_, Pawn); b;)
    if (ep_capture_is_legal(pop_lsb(b), ep)) return true;
  return false;
}

std::pair<Square, Square> Position::castling_rook_move(Color us, Square king_to) const {
  const bool king_side = file_of(king_to) == 6;
  const uint8_t right = us == White ? (king_side ? WhiteKingSide : WhiteQueenSide)
                                    : (king_side ? BlackKingSide : BlackQueenSide);
  return {castling_rook(right), make_square(king_side ? 5 : 3, rank_of(king_to))};
}

void Position::make_move(Move m, UndoInfo& undo) {
  undo = {key_, ep_square_, NoPiece, castling_, rule50_};
  const Color us = side_;
  const Square from = m.from(), to = m.to();
  const Piece piece = board_[from];
  uint64_t key = key_ ^ zobrist::black_to_move;
  if (ep_square_ != kNoSquare) {
    key ^= zobrist::ep_file[file_of(ep_square_)];
    ep_square_ = kNoSquare;
  }
  ++rule50_;

  if (m.kind() == MoveKind::Castling) {
    // King and rook leave before either lands: their squares may overlap.
    const auto [rook_from, rook_to] = castling_rook_move(us, to);
    const Piece rook = make_piece(us, Rook);
    remove_piece(from);
    remove_piece(rook_from);
    add_piece(piece, to);
    add_piece(rook, rook_to);
    key ^= zobrist::piece_square[piece][from] ^ zobrist::piece_square[piece][to] ^
           zobrist::piece_square[rook][rook_from] ^ zobrist::piece_square[rook][rook_to];
  } else {
    const Square captured_on = m.kind() == MoveKind::EnPassant ? to - pawn_push(us) : to;
    const Piece captured = board_[captured_on];
    if (captured != NoPiece) {
      remove_piece(captured_on);
      key ^= zobrist::piece_square[captured][captured_on];
      undo.captured = captured;
      rule50_ = 0;
    }
    move_piece(from, to);
    key ^= zobrist::piece_square[piece][from] ^ zobrist::piece_square[piece][to];
    if (type_of(piece) == Pawn) {
      rule50_ = 0;
      if (m.kind() == MoveKind::Promotion) {
        const Piece promoted = make_piece(us, m.promotion());
        remove_piece(to);
        add_piece(promoted, to);
        key ^= zobrist::piece_square[piece][to] ^ zobrist::piece_square[promoted][to];
      }
    }
  }

  const uint8_t castling = castling_ & castling_keep_[from] & castling_keep_[to];
  if (castling != castling_) {
    key ^= zobrist::castling[castling_] ^ zobrist::castling[castling];
    castling_ = castling;
  }
  side_ = ~us;
  if (us == Black) ++fullmove_;

  // A double pawn push sets the en-passant square only if the opponent can really use it.
  if (type_of(piece) == Pawn && (to ^ from) == 16) {
    const Square ep = from + pawn_push(us);
    if ((chess::pawn_attacks(us, ep) & pieces(~us, Pawn)) && has_legal_ep_capture(ep)) {
      ep_square_ = ep;
      key ^= zobrist::ep_file[file_of(ep)];
    }
  }
  key_ = key;
}

void Position::unmake_move(Move m, const UndoInfo& undo) {
  side_ = ~side_;
  const Color us = side_;
  const Square from = m.from(), to = m.to();
  if (m.kind() == MoveKind::Castling) {
    const auto [rook_from, rook_to] = castling_rook_move(us, to);
    remove_piece(to);
    remove_piece(rook_to);
    add_piece(make_piece(us, King), from);
    add_piece(make_piece(us, Rook), rook_from);
  } else {
    if (m.kind() == MoveKind::Promotion) {
      remove_piece(to);
      add_piece(make_piece(us, Pawn), to);
    }
    move_piece(to, from);
    if (undo.captured != NoPiece)
      add_piece(undo.captured, m.kind() == MoveKind::EnPassant ? to - pawn_push(us) : to);
  }
  if (us == Black) --fullmove_;
  key_ = undo.key;
  ep_square_ = undo.ep_square;
  castling_ = undo.castling;
  rule50_ = undo.rule50;
}

}  // namespace games::chess
