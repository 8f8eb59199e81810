// The janggi side of the built-in search: a board adapter over games::janggi::Position under one
// rule set (legal moves with the pass last, the bikjang restriction, endings by rule decided by
// counting where the rule set counts), and an evaluation of material (the counting values times
// 100) plus piece-square terms computed from each piece's file and distance from its own back
// rank: soldiers gain as they advance towards the palace, horses and elephants prefer the centre.
#include <array>
#include <cstdlib>
#include <vector>

#include "agents/search/alpha_beta.h"
#include "agents/search/variant_search.h"
#include "games/janggi/fen.h"
#include "games/janggi/movegen.h"
#include "games/janggi/notation.h"
#include "games/janggi/rules.h"

namespace agents::search {
namespace {

namespace gj = games::janggi;

// Indexed by PieceType: none, general, guard, elephant, horse, chariot, cannon, soldier.
constexpr int kValue[gj::kNumPieceTypes] = {0, 0, 300, 300, 500, 1300, 700, 200};
// A win by counting at an ending by rule: below every mate score, above any material balance.
constexpr int32_t kRuleWin = 16000;

// The positional bonus of a piece of type `t` on `file` at `rel` ranks from its own back rank.
constexpr int square_bonus(int t, int file, int rel) {
  const int centre = file < 4 ? 4 - file : file - 4;
  switch (t) {
    case gj::General:
      return (file == 4 && rel == 1) ? 10 : 0;
    case gj::Elephant:
      return 10 - 3 * centre;
    case gj::Horse:
      return 20 - 6 * centre - 4 * (rel < 4 ? 4 - rel : rel - 4);
    case gj::Chariot:
      return (rel >= 6 && rel <= 8 ? 15 : 0) + (file == 4 ? 5 : 0);
    case gj::Cannon:
      return rel <= 2 && centre <= 1 ? 10 : 0;
    case gj::Soldier: {
      constexpr int kAdvance[10] = {0, 0, 0, 0, 10, 25, 40, 60, 70, 40};
      return kAdvance[rel] + (rel >= 6 && centre <= 1 ? 15 : 0) - (centre == 4 ? 5 : 0);
    }
    default:
      return 0;
  }
}

// Material plus square bonus for every piece code on every square, from its owner's side.
struct PieceSquare {
  std::array<std::array<int16_t, gj::kNumSquares>, gj::kNumPieceCodes> value{};
};

constexpr PieceSquare build_piece_square() {
  PieceSquare table;
  for (int c = 0; c < gj::kNumColors; ++c)
    for (int t = gj::General; t <= gj::Soldier; ++t)
      for (int s = 0; s < gj::kNumSquares; ++s) {
        const int rel = c == gj::Cho ? gj::rank_of(s) : gj::kNumRanks - 1 - gj::rank_of(s);
        table.value[gj::make_piece(gj::Color(c), gj::PieceType(t))][s] =
            int16_t(kValue[t] + square_bonus(t, gj::file_of(s), rel));
      }
  return table;
}

constexpr PieceSquare kPieceSquare = build_piece_square();

class JanggiBoard {
 public:
  using Move = gj::Move;

  JanggiBoard(gj::Position pos, gj::Rules rules) : pos_(std::move(pos)), rules_(rules) {}

  void legal_moves(MoveBuf<Move>& buf) {
    gj::MoveList list;
    gj::generate_legal(pos_, rules_, list);
    buf.size = 0;
    for (Move m : list) buf.push(m);
  }

  // Legal captures only (generated without testing the quiet moves' safety).
  void captures(MoveBuf<Move>& buf) {
    buf.size = 0;
    if (gj::immediate_end(pos_, rules_)) return;
    gj::MoveList pseudo;
    gj::generate_piece_moves(pos_, pseudo);
    const bool forbid_facing = rules_.bikjang && pos_.state().facing;
    for (Move m : pseudo)
      if (pos_.piece_on(m.to) != gj::NoPiece && pos_.move_is_safe(m, forbid_facing)) buf.push(m);
  }

  bool in_check() const { return pos_.state().in_check; }
  void make(Move m) { pos_.do_move(m); }
  void unmake() { pos_.undo_move(); }
  uint64_t key() const { return pos_.state().key; }

  bool is_tactical(Move m) const { return !m.is_pass() && pos_.piece_on(m.to) != gj::NoPiece; }
  int victim_value(Move m) const { return m.is_pass() ? 0 : kValue[gj::type_of(pos_.piece_on(m.to))]; }
  int attacker_value(Move m) const {
    const gj::PieceType t = gj::type_of(pos_.piece_on(m.from));
    return t == gj::General ? 2000 : kValue[t];
  }
  // The pass comes after every other quiet move.
  int quiet_bonus(Move m) const { return m.is_pass() ? -(1 << 22) : 0; }

  uint16_t encode(Move m) const { return uint16_t(m.from << 7 | m.to); }
  Move decode(uint16_t bits) const { return Move{uint8_t((bits >> 7) & 127), uint8_t(bits & 127)}; }

  // No legal move: the general is checkmated (or, rarely, has no move at all): a loss.
  int32_t no_moves_score(int ply) const { return -kMateScore + ply; }

  // Endings by rule (facing generals twice, two passes, the no-capture limit) scored by counting
  // or as draws, and a repetition inside the search or with the game's history as a draw.
  std::optional<int32_t> rule_score(int ply) const {
    if (gj::immediate_end(pos_, rules_) || pos_.state().rule50 >= gj::kNoCapturePlies)
      return rule_ending(ply);
    const int back = std::min(pos_.state().rule50, pos_.plies_played());
    const uint64_t key = pos_.state().key;
    for (int i = 4; i <= back; i += 2)
      if (pos_.state_back(i).key == key) return 0;
    return std::nullopt;
  }

  int32_t evaluate() const {
    int score = 0;
    for (gj::Square s = 0; s < gj::kNumSquares; ++s) {
      const gj::Piece p = pos_.piece_on(s);
      if (p == gj::NoPiece) continue;
      const int v = kPieceSquare.value[p][s];
      score += gj::color_of(p) == gj::Cho ? v : -v;
    }
    return pos_.side_to_move() == gj::Cho ? score : -score;
  }

 private:
  int32_t rule_ending(int ply) const {
    if (!rules_.material_counting) return 0;
    const bool cho_wins = gj::counting_points(pos_, gj::Cho) > gj::counting_points(pos_, gj::Han);
    const bool mover_wins = cho_wins == (pos_.side_to_move() == gj::Cho);
    return mover_wins ? kRuleWin - ply : -kRuleWin + ply;
  }

  gj::Position pos_;
  gj::Rules rules_;
};

}  // namespace

std::expected<SearchReport, std::string> search_janggi(std::string_view variant, std::string_view start_fen,
                                                       const std::vector<std::string>& moves,
                                                       const SearchLimits& limits) {
  const auto started = Clock::now();
  const auto rules = gj::rules_for_variant(variant);
  if (!rules) return std::unexpected("unknown janggi rule set '" + std::string(variant) + "'");
  const std::string standard = gj::start_fen();
  auto pos = gj::parse_fen(start_fen.empty() ? std::string_view(standard) : start_fen);
  if (!pos) return std::unexpected("bad start position: " + pos.error().message);
  for (const std::string& text : moves) {
    auto m = gj::parse_move_text(*pos, *rules, text);
    if (!m) return std::unexpected("move " + text + " of the game: " + m.error().message);
    pos->do_move(*m);
  }
  gj::MoveList legal;
  gj::generate_legal(*pos, *rules, legal);
  if (const auto o = gj::evaluate_outcome(*pos, *rules, legal.size); o.finished())
    return std::unexpected("the game is over: " + o.reason);
  JanggiBoard board(std::move(*pos), *rules);
  auto search = std::make_unique<AlphaBeta<JanggiBoard>>(board, limits);
  const auto out = search->run();
  const double seconds = std::chrono::duration<double>(Clock::now() - started).count();
  return make_report(
      out, [](gj::Move m) { return gj::move_name(m); }, seconds);
}

}  // namespace agents::search
