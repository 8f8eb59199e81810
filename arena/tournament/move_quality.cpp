// Move quality from the referee's scores (see move_quality.h).
#include "arena/tournament/move_quality.h"

#include <algorithm>
#include <cctype>
#include <cmath>

namespace arena::tournament {
namespace {

// lichess's Cp.CEILING: scores beyond it say no more about the winning chances.
constexpr int32_t kCeiling = 1000;
// WinPercent.scala's logistic slope, fitted by lichess to its players' results.
constexpr double kWinSlope = 0.00368208;
// A game of this many plies or more has no opening left.
constexpr int32_t kOpeningPlies = 20;
// At most this many pieces (not kings, pawns or advisors, both sides) make an endgame (lichess's
// Divider uses 6 majors and minors).
constexpr int32_t kEndgamePieces = 6;

bool is_mate(int32_t cp) {
  return std::abs(cp) >= kMateScoreCp;
}

int32_t ceiled(int32_t cp) {
  return std::clamp(cp, -kCeiling, kCeiling);
}

// Winning chances in [-1, 1], as Advice.scala judges by.
double winning_chances(int32_t cp) {
  return 2.0 / (1.0 + std::exp(-kWinSlope * ceiled(cp))) - 1.0;
}

// The mover's score after the game's last move when the rules ended the game there (the referee
// is not asked then): a win counts as a mate delivered, a draw as 0.
std::optional<int32_t> rules_end_score(const GameRecord& g, const MoveEvent& last) {
  if (!g.finished() || g.end->termination != "normal" || !g.end->failure_agent.empty()) return std::nullopt;
  if (g.end->plies != int32_t(g.moves.size())) return std::nullopt;
  if (g.result() == "1/2-1/2") return 0;
  const bool first_won = g.result() == "1-0";
  return first_won == last.first_side ? 30000 : -30000;
}

// The population standard deviation of `xs` (as lila's; 0 with fewer than two).
double deviation(const std::vector<double>& xs) {
  if (xs.size() < 2) return 0;
  double mean = 0;
  for (double x : xs) mean += x;
  mean /= double(xs.size());
  double sum = 0;
  for (double x : xs) sum += (x - mean) * (x - mean);
  return std::sqrt(sum / double(xs.size()));
}

void add_move(QualityStats& s, const MoveQualityEntry& m) {
  ++s.moves;
  s.cp_loss_sum += m.cp_loss;
  s.accuracy_sum += m.accuracy;
  s.inaccuracies += m.judgment == Judgment::Inaccuracy;
  s.mistakes += m.judgment == Judgment::Mistake;
  s.blunders += m.judgment == Judgment::Blunder;
}

void add_game(QualityStats& s, double accuracy) {
  ++s.games;
  s.game_accuracy_sum += accuracy;
}

}  // namespace

const char* to_string(GamePhase phase) {
  static constexpr const char* kNames[] = {"opening", "middlegame", "endgame"};
  return kNames[int(phase)];
}

const char* glyph(Judgment judgment) {
  static constexpr const char* kGlyphs[] = {"", "?!", "?", "??"};
  return kGlyphs[int(judgment)];
}

double win_percent(int32_t cp) {
  return 50.0 + 50.0 * winning_chances(cp);
}

double move_accuracy(double win_before, double win_after) {
  if (win_after >= win_before) return 100.0;
  // lichess's fit of accuracy to the win% lost, plus 1 for the referee's imperfect analysis.
  const double raw =
      103.1668100711649 * std::exp(-0.04354415386753951 * (win_before - win_after)) - 3.166924740191411;
  return std::clamp(raw + 1.0, 0.0, 100.0);
}

int32_t cp_loss(int32_t before, int32_t after) {
  return std::max(0, ceiled(before) - ceiled(after));
}

Judgment judge(int32_t before, int32_t after) {
  if (!is_mate(before) && !is_mate(after)) {
    const double drop = winning_chances(before) - winning_chances(after);
    return drop >= 0.3   ? Judgment::Blunder
           : drop >= 0.2 ? Judgment::Mistake
           : drop >= 0.1 ? Judgment::Inaccuracy
                         : Judgment::None;
  }
  // lichess's MateAdvice: a mate against the mover that was not there (graded by how lost the
  // position already was), or a mate of the mover's that is gone (by how much is left).
  if (!is_mate(before) && after <= -kMateScoreCp)
    return before < -999 ? Judgment::Inaccuracy : before < -700 ? Judgment::Mistake : Judgment::Blunder;
  if (before >= kMateScoreCp && after < kMateScoreCp) {
    const int32_t left = is_mate(after) ? 0 : after;
    return left > 999 ? Judgment::Inaccuracy : left > 700 ? Judgment::Mistake : Judgment::Blunder;
  }
  return Judgment::None;  // a mate kept (maybe slower), or one against the mover already there
}

GamePhase game_phase(const std::string& fen, int32_t plies) {
  int32_t pieces = 0;
  for (char c : fen.substr(0, fen.find(' '))) {
    const char lower = char(std::tolower(static_cast<unsigned char>(c)));
    if (std::isalpha(static_cast<unsigned char>(c)) && lower != 'k' && lower != 'p' && lower != 'a') ++pieces;
  }
  if (pieces <= kEndgamePieces) return GamePhase::Endgame;
  return plies < kOpeningPlies ? GamePhase::Opening : GamePhase::Middlegame;
}

std::vector<MoveQualityEntry> judge_game(const GameRecord& g) {
  std::vector<MoveQualityEntry> out;
  out.reserve(g.moves.size());
  for (size_t i = 0; i < g.moves.size(); ++i) {
    const MoveEvent& m = g.moves[i];
    MoveQualityEntry e;
    e.ply = int32_t(i) + 1;
    e.first_side = m.first_side;
    e.phase = game_phase(i == 0 ? g.start.start_fen : g.moves[i - 1].fen, int32_t(i));
    if (i > 0 && g.moves[i - 1].referee_cp) e.before = -*g.moves[i - 1].referee_cp;
    e.after = m.referee_cp;
    if (!e.after && i + 1 == g.moves.size()) e.after = rules_end_score(g, m);
    e.scored = e.before && e.after && !m.substitute;
    if (e.scored) {
      e.cp_loss = cp_loss(*e.before, *e.after);
      e.accuracy = move_accuracy(win_percent(*e.before), win_percent(*e.after));
      e.judgment = judge(*e.before, *e.after);
    }
    out.push_back(e);
  }
  return out;
}

std::optional<double> game_accuracy(const std::vector<MoveQualityEntry>& moves, bool first_side) {
  // The first side's win% of each position (0: the start, which the referee does not score; i:
  // after ply i).
  const size_t n = moves.size();
  std::vector<std::optional<double>> wins(n + 1);
  for (size_t i = 0; i < n; ++i)
    if (const auto& m = moves[i]; m.after) wins[i + 1] = win_percent(m.first_side ? *m.after : -*m.after);
  // lichess weighs each move by the volatility of the win% around it: the deviation over a window
  // of positions ending at the one after the move (the first windows all start at the start).
  const size_t window = std::clamp<size_t>(n / 10, 2, 8);
  double weighted = 0, weights = 0, inverse_sum = 0;
  int32_t count = 0;
  for (size_t i = 0; i < n; ++i) {
    const auto& m = moves[i];
    if (!m.scored || m.first_side != first_side) continue;
    const size_t begin = i + 2 > window ? i + 2 - window : 0, end = std::min(n + 1, begin + window);
    std::vector<double> xs;
    for (size_t k = begin; k < end; ++k)
      if (wins[k]) xs.push_back(*wins[k]);
    const double weight = std::clamp(deviation(xs), 0.5, 12.0);
    weighted += m.accuracy * weight;
    weights += weight;
    ++count;
    inverse_sum += 1.0 / std::max(1.0, m.accuracy);  // as lila's harmonic mean: at least 1 each
  }
  if (count == 0) return std::nullopt;
  return (weighted / weights + count / inverse_sum) / 2.0;
}

std::optional<double> QualityStats::acpl() const {
  return moves ? std::optional(double(cp_loss_sum) / moves) : std::nullopt;
}

std::optional<double> QualityStats::accuracy() const {
  return games ? std::optional(game_accuracy_sum / games) : std::nullopt;
}

std::optional<double> QualityStats::move_accuracy() const {
  return moves ? std::optional(accuracy_sum / moves) : std::nullopt;
}

std::optional<std::map<std::string, AgentQuality>> compute_move_quality(const GameBook& book) {
  std::map<std::string, AgentQuality> out;
  bool refereed = false;
  for (const auto& [index, g] : book.games()) {
    if (!g.finished()) continue;
    for (const MoveEvent& m : g.moves) refereed = refereed || m.has_referee;
    const auto moves = judge_game(g);
    for (int side = 0; side < 2; ++side) {
      AgentQuality& q = out[side == 0 ? g.start.first : g.start.second];
      QualityStats& variant = q.variants[g.start.variant];
      for (const auto& m : moves) {
        if (!m.scored || m.first_side != (side == 0)) continue;
        add_move(q.all, m);
        add_move(variant, m);
        add_move(q.phases[int(m.phase)], m);
      }
      if (const auto accuracy = game_accuracy(moves, side == 0)) {
        add_game(q.all, *accuracy);
        add_game(variant, *accuracy);
      }
    }
  }
  if (!refereed) return std::nullopt;
  return out;
}

}  // namespace arena::tournament
