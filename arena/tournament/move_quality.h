// How good the moves were, by the adjudication referee's scores (`referee_cp` of the move events):
// per agent, per variant and per game phase, the average centipawn loss, lichess-style accuracy
// and the counts of inaccuracies, mistakes and blunders, computed as lichess does (lila's
// AccuracyCP, WinPercent, AccuracyPercent and Advice; constants checked against its source).
//
// A move's eval before is the referee's score of the position it was played in, from the mover's
// view: the negated `referee_cp` of the move before it. The referee does not score a game's start
// position, so a game's first move has no eval before and is not scored. Its eval after is its own
// `referee_cp`, or, for the last move of a game the rules ended there (checkmate, stalemate, a
// repetition: no referee call), the result itself: a win for the mover counts as mate, a draw as 0.
// A move with either eval missing (the referee failed) is not scored, nor is a move a deadline
// policy chose instead of the agent (`substitute`): it is not the agent's move. Both still give
// their neighbours an eval.
//
// Scores are clamped to +-1000 cp as lichess's `ceiled`; a score of at least 20000 in magnitude is
// a mate (the referee writes mates as +-(30000 - distance)) and counts as +-1000 in the loss and
// accuracy, while the judgment follows lichess's MateAdvice (see judge()).
//
// Accuracy: per game and side, lichess's game accuracy (the mean of a volatility-weighted mean and
// a harmonic mean of the move accuracies); an agent's, and per variant, the plain mean of its game
// accuracies. Beside it, `move_accuracy` is the plain mean of the move accuracies; a game phase has
// only that (a game accuracy needs the whole game).
//
// Phases, a simplified version of lichess's Divider that also fits janggi, from the position the
// move is played in: endgame once at most 6 pieces other than kings, pawns (soldiers) and janggi's
// advisors are left on the board (both sides together), else opening during the first 20 plies,
// else middlegame.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "arena/tournament/game_record.h"

namespace arena::tournament {

enum class GamePhase { Opening = 0, Middlegame = 1, Endgame = 2 };
const char* to_string(GamePhase phase);

// lichess's judgments: a drop in winning chances of 0.1 / 0.2 / 0.3 (5 / 10 / 15 win% points).
enum class Judgment { None, Inaccuracy, Mistake, Blunder };
// "?!", "?", "??", or "".
const char* glyph(Judgment judgment);

// A referee score of at least this magnitude is a mate.
inline constexpr int32_t kMateScoreCp = 20000;

// lichess's win% (0..100) of a score from one side's view, clamped to +-1000 cp first.
double win_percent(int32_t cp);
// lichess's accuracy (0..100) of a move that took the mover's win% from `before` to `after`.
double move_accuracy(double win_before, double win_after);
// The centipawn loss of a move, from the mover's view: max(0, before - after), both clamped.
int32_t cp_loss(int32_t before, int32_t after);
// lichess's judgment of a move, by its evals before and after from the mover's view.
Judgment judge(int32_t before, int32_t after);
// The phase of the game in the position `fen` reached after `plies` plies.
GamePhase game_phase(const std::string& fen, int32_t plies);

// One move of a game, as judged.
struct MoveQualityEntry {
  int32_t ply = 0;  // 1-based
  bool first_side = true;
  GamePhase phase = GamePhase::Opening;
  std::optional<int32_t> before, after;  // evals from the mover's view
  bool scored = false;                   // both evals known and the agent chose the move
  int32_t cp_loss = 0;
  double accuracy = 0;
  Judgment judgment = Judgment::None;
};

// Every move of a game, in ply order.
std::vector<MoveQualityEntry> judge_game(const GameRecord& game);
// lichess's game accuracy of one side over the judged moves of a game (null: none scored).
std::optional<double> game_accuracy(const std::vector<MoveQualityEntry>& moves, bool first_side);

// Sums over some moves (and the games they belong to).
struct QualityStats {
  int32_t moves = 0;  // moves scored
  int64_t cp_loss_sum = 0;
  double accuracy_sum = 0;  // of the moves
  int32_t games = 0;        // games with a game accuracy
  double game_accuracy_sum = 0;
  int32_t inaccuracies = 0, mistakes = 0, blunders = 0;

  // Average centipawn loss; null when no move was scored.
  std::optional<double> acpl() const;
  // The mean game accuracy; null without games (a phase).
  std::optional<double> accuracy() const;
  // The mean move accuracy.
  std::optional<double> move_accuracy() const;
};

struct AgentQuality {
  QualityStats all;
  std::map<std::string, QualityStats> variants;
  std::array<QualityStats, 3> phases;  // by GamePhase
};

// Per agent, over the finished games of `book`; null when no move carries a referee score field
// (the tournament has no referee), so that standings leave the block out.
std::optional<std::map<std::string, AgentQuality>> compute_move_quality(const GameBook& book);

}  // namespace arena::tournament
