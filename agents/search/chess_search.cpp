// The chess side of the built-in search: a board adapter over games::chess::Position (legal
// moves from the bitboard generator, make/unmake with an undo stack, repetition by Zobrist key)
// and a material + piece-square evaluation with the king's table tapered from middlegame to
// endgame by the material left (the tables of Michniewski's "simplified evaluation function").
#include <cmath>
#include <vector>

#include "agents/search/alpha_beta.h"
#include "agents/search/variant_search.h"
#include "games/chess/fen.h"
#include "games/chess/movegen.h"
#include "games/chess/notation.h"
#include "games/chess/rules.h"

namespace agents::search {
namespace {

namespace gc = games::chess;

constexpr int kValue[gc::kNumPieceTypes] = {100, 320, 330, 500, 900, 0};
constexpr int kPhase[gc::kNumPieceTypes] = {0, 1, 1, 2, 4, 0};
constexpr int kMaxPhase = 24;

// Piece-square tables from White's side, rank 8 first (index = square ^ 56 for White).
// clang-format off
constexpr int kPst[gc::kNumPieceTypes + 1][64] = {
  { 0,  0,  0,  0,  0,  0,  0,  0,  50, 50, 50, 50, 50, 50, 50, 50,  10, 10, 20, 30, 30, 20, 10, 10,
    5,  5, 10, 25, 25, 10,  5,  5,   0,  0,  0, 20, 20,  0,  0,  0,   5, -5,-10,  0,  0,-10, -5,  5,
    5, 10, 10,-20,-20, 10, 10,  5,   0,  0,  0,  0,  0,  0,  0,  0},
  {-50,-40,-30,-30,-30,-30,-40,-50, -40,-20,  0,  0,  0,  0,-20,-40, -30,  0, 10, 15, 15, 10,  0,-30,
   -30,  5, 15, 20, 20, 15,  5,-30, -30,  0, 15, 20, 20, 15,  0,-30, -30,  5, 10, 15, 15, 10,  5,-30,
   -40,-20,  0,  5,  5,  0,-20,-40, -50,-40,-30,-30,-30,-30,-40,-50},
  {-20,-10,-10,-10,-10,-10,-10,-20, -10,  0,  0,  0,  0,  0,  0,-10, -10,  0,  5, 10, 10,  5,  0,-10,
   -10,  5,  5, 10, 10,  5,  5,-10, -10,  0, 10, 10, 10, 10,  0,-10, -10, 10, 10, 10, 10, 10, 10,-10,
   -10,  5,  0,  0,  0,  0,  5,-10, -20,-10,-10,-10,-10,-10,-10,-20},
  {  0,  0,  0,  0,  0,  0,  0,  0,   5, 10, 10, 10, 10, 10, 10,  5,  -5,  0,  0,  0,  0,  0,  0, -5,
    -5,  0,  0,  0,  0,  0,  0, -5,  -5,  0,  0,  0,  0,  0,  0, -5,  -5,  0,  0,  0,  0,  0,  0, -5,
    -5,  0,  0,  0,  0,  0,  0, -5,   0,  0,  0,  5,  5,  0,  0,  0},
  {-20,-10,-10, -5, -5,-10,-10,-20, -10,  0,  0,  0,  0,  0,  0,-10, -10,  0,  5,  5,  5,  5,  0,-10,
    -5,  0,  5,  5,  5,  5,  0, -5,   0,  0,  5,  5,  5,  5,  0, -5, -10,  5,  5,  5,  5,  5,  0,-10,
   -10,  0,  5,  0,  0,  0,  0,-10, -20,-10,-10, -5, -5,-10,-10,-20},
  // King, middlegame.
  {-30,-40,-40,-50,-50,-40,-40,-30, -30,-40,-40,-50,-50,-40,-40,-30, -30,-40,-40,-50,-50,-40,-40,-30,
   -30,-40,-40,-50,-50,-40,-40,-30, -20,-30,-30,-40,-40,-30,-30,-20, -10,-20,-20,-20,-20,-20,-20,-10,
    20, 20,  0,  0,  0,  0, 20, 20,  20, 30, 10,  0,  0, 10, 30, 20},
  // King, endgame.
  {-50,-40,-30,-20,-20,-30,-40,-50, -30,-20,-10,  0,  0,-10,-20,-30, -30,-10, 20, 30, 30, 20,-10,-30,
   -30,-10, 30, 40, 40, 30,-10,-30, -30,-10, 30, 40, 40, 30,-10,-30, -30,-10, 20, 30, 30, 20,-10,-30,
   -30,-30,  0,  0,  0,  0,-30,-30, -50,-30,-30,-30,-30,-30,-30,-50},
};
// clang-format on
constexpr int kKingEnd = gc::kNumPieceTypes;

class ChessBoard {
 public:
  using Move = gc::Move;

  explicit ChessBoard(const gc::Position& pos, std::vector<uint64_t> keys)
      : pos_(pos), keys_(std::move(keys)) {
    undo_.reserve(kMaxPly + 8);
    path_.reserve(kMaxPly + 8);
  }

  const gc::Position& position() const { return pos_; }

  void legal_moves(MoveBuf<Move>& buf) const {
    gc::MoveList list;
    gc::generate_legal(pos_, list);
    buf.size = 0;
    for (Move m : list) buf.push(m);
  }

  // Captures and queen promotions (the quiescence moves).
  void captures(MoveBuf<Move>& buf) const {
    gc::MoveList list;
    gc::generate_legal(pos_, list);
    buf.size = 0;
    for (Move m : list)
      if (is_capture(m) || (m.kind() == gc::MoveKind::Promotion && m.promotion() == gc::Queen)) buf.push(m);
  }

  bool in_check() const { return pos_.in_check(); }

  void make(Move m) {
    undo_.emplace_back();
    path_.push_back(m);
    pos_.make_move(m, undo_.back());
    keys_.push_back(pos_.key());
  }

  void unmake() {
    keys_.pop_back();
    pos_.unmake_move(path_.back(), undo_.back());
    path_.pop_back();
    undo_.pop_back();
  }

  uint64_t key() const { return pos_.key(); }

  bool is_capture(Move m) const {
    return pos_.piece_on(m.to()) != gc::NoPiece || m.kind() == gc::MoveKind::EnPassant;
  }
  bool is_tactical(Move m) const { return is_capture(m) || m.kind() == gc::MoveKind::Promotion; }
  int victim_value(Move m) const {
    const gc::Piece victim = pos_.piece_on(m.to());
    int value = victim == gc::NoPiece ? (m.kind() == gc::MoveKind::EnPassant ? kValue[gc::Pawn] : 0)
                                      : kValue[gc::type_of(victim)];
    if (m.kind() == gc::MoveKind::Promotion) value += kValue[m.promotion()] - kValue[gc::Pawn];
    return value;
  }
  int attacker_value(Move m) const {
    const gc::PieceType t = gc::type_of(pos_.piece_on(m.from()));
    return t == gc::King ? 2000 : kValue[t];
  }
  // Quiet moves: no static preference beyond the history table.
  int quiet_bonus(Move) const { return 0; }

  uint16_t encode(Move m) const { return m.raw(); }
  Move decode(uint16_t bits) const {
    return Move((bits >> 6) & 63, bits & 63, gc::MoveKind((bits >> 12) & 3),
                gc::PieceType(((bits >> 14) & 3) + 1));
  }

  // Checkmate or stalemate.
  int32_t no_moves_score(int ply) const { return pos_.in_check() ? -kMateScore + ply : 0; }

  // A draw by the rules that the search scores at once: fifty moves, insufficient material, or
  // a repetition (one is enough inside the search; the game's own history counts too).
  std::optional<int32_t> rule_score(int ply) const {
    const int rule50 = pos_.rule50();
    if (rule50 >= 100) return (pos_.in_check() && !gc::has_legal_move(pos_)) ? -kMateScore + ply : 0;
    if (gc::popcount(pos_.pieces()) <= 4 && gc::insufficient_material(pos_)) return 0;
    const int n = int(keys_.size());
    const int back = std::min(rule50, n - 1);
    for (int i = 4; i <= back; i += 2)
      if (keys_[n - 1 - i] == keys_.back()) return 0;
    return std::nullopt;
  }

  int32_t evaluate() const {
    int score = 0, king_mid = 0, king_end = 0, phase = 0;
    for (int c = 0; c < gc::kNumColors; ++c) {
      const int sign = c == gc::White ? 1 : -1;
      const int flip = c == gc::White ? 56 : 0;
      for (int t = gc::Pawn; t <= gc::Queen; ++t) {
        gc::Bitboard b = pos_.pieces(gc::Color(c), gc::PieceType(t));
        while (b) {
          const gc::Square s = gc::pop_lsb(b);
          score += sign * (kValue[t] + kPst[t][s ^ flip]);
          phase += kPhase[t];
        }
      }
      const gc::Square k = pos_.king_square(gc::Color(c));
      king_mid += sign * kPst[gc::King][k ^ flip];
      king_end += sign * kPst[kKingEnd][k ^ flip];
    }
    phase = std::min(phase, kMaxPhase);
    score += (king_mid * phase + king_end * (kMaxPhase - phase)) / kMaxPhase;
    return pos_.side_to_move() == gc::White ? score : -score;
  }

 private:
  gc::Position pos_;
  std::vector<uint64_t> keys_;  // every position of the game and the search path, current last
  std::vector<gc::UndoInfo> undo_;
  std::vector<Move> path_;
};

}  // namespace

std::expected<SearchReport, std::string> search_chess(std::string_view start_fen,
                                                      const std::vector<std::string>& moves,
                                                      const SearchLimits& limits) {
  const auto started = Clock::now();
  auto pos = gc::parse_fen(start_fen.empty() ? gc::kStartFen : start_fen);
  if (!pos) return std::unexpected("bad start position: " + pos.error().message);
  std::vector<uint64_t> keys{pos->key()};
  keys.reserve(moves.size() + kMaxPly + 8);
  for (const std::string& text : moves) {
    auto m = gc::parse_move(*pos, text);
    if (!m) return std::unexpected("move " + text + " of the game: " + m.error().message);
    gc::UndoInfo undo;
    pos->make_move(*m, undo);
    keys.push_back(pos->key());
  }
  if (!gc::has_legal_move(*pos)) return std::unexpected("the game is over: no legal move");
  ChessBoard board(*pos, std::move(keys));
  auto search = std::make_unique<AlphaBeta<ChessBoard>>(board, limits);
  const auto out = search->run();
  const double seconds = std::chrono::duration<double>(Clock::now() - started).count();
  return make_report(
      out, [](gc::Move m) { return gc::to_uci(m); }, seconds);
}

}  // namespace agents::search
