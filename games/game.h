// The variant-neutral face of a game that the arena, the agents and the board view use.
// Chess (games/chess) and janggi (games/janggi) implement it; nothing outside games/ needs to
// know which rules are behind it. Moves cross this interface as UCI strings.
#pragma once

#include <cstdint>
#include <expected>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace games {

// The side to move. Chess: First = white. Janggi: First = Cho (blue, moves first).
enum class Side { First, Second };

// How a game stands, and why.
struct Outcome {
  enum class Result { Ongoing, FirstWins, SecondWins, Draw };
  Result result = Result::Ongoing;
  std::string reason;  // "checkmate", "stalemate", "fivefold repetition", "counting", ... ("" while ongoing)

  bool finished() const { return result != Result::Ongoing; }
};

// A move or position that could not be accepted, with a message a user can act on.
struct GameError {
  std::string message;  // e.g. "illegal move e2e5: the pawn on e2 cannot reach e5"
};

class Game {
 public:
  virtual ~Game() = default;

  // The variant name as given to make_game ("chess", "janggi", "janggimodern", ...).
  virtual std::string variant() const = 0;
  // The current position as FEN (Stockfish / Fairy-Stockfish conventions).
  virtual std::string fen() const = 0;
  // Whose move it is.
  virtual Side side_to_move() const = 0;
  // Plies played since the starting position given to make_game.
  virtual int ply() const = 0;

  // Every legal move in UCI notation (janggi pass: the general's square twice, e.g. "e2e2").
  virtual std::vector<std::string> legal_moves() const = 0;
  // The same moves, in the same order, in human notation (chess SAN; janggi Korean numeric).
  virtual std::vector<std::string> legal_moves_human() const = 0;
  // Reads a move in UCI or human notation; returns the legal move in UCI, or what is wrong.
  virtual std::expected<std::string, GameError> parse_move(std::string_view text) const = 0;
  // Plays a legal UCI move (anything parse_move accepts is also accepted here).
  virtual std::expected<void, GameError> apply(std::string_view move) = 0;
  // Takes back the last move; false when there is none.
  virtual bool undo() = 0;

  // The result under the rules' automatic endings (mate, stalemate, fivefold, 75 moves, ...).
  virtual Outcome outcome() const = 0;
  // A draw the side to move could claim now (threefold, fifty moves), or Ongoing if none.
  virtual Outcome claimable_draw() const = 0;

  // The board as plain text for prompts (ranks, files, pieces, side to move).
  virtual std::string render_text() const = 0;
  // A JSON object for the board view: variant, fen, board squares, side, last move, check, outcome.
  virtual std::string to_json() const = 0;

  // Leaf nodes of the legal-move tree `depth` plies deep from the current position.
  virtual uint64_t perft(int depth) const = 0;
  // perft(depth - 1) after each legal move, keyed by the move in UCI (depth >= 1).
  virtual std::vector<std::pair<std::string, uint64_t>> perft_divide(int depth) const = 0;

  // An independent copy of the game, history included.
  virtual std::unique_ptr<Game> clone() const = 0;
};

// A game of `variant` ("chess", "janggi", "janggimodern", "janggicasual", "janggitraditional")
// from `fen` (the variant's standard start position when empty), or what is wrong.
std::expected<std::unique_ptr<Game>, GameError> make_game(std::string_view variant,
                                                          std::string_view fen = {});

// The variant names make_game accepts.
std::vector<std::string> game_variants();

}  // namespace games
