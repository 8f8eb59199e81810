// The variant-neutral face of a game that the arena, the agents and the board view use.
// Chess (games/chess) and janggi (games/janggi) implement it; nothing outside games/ needs to
// know which rules are behind it. Moves cross this interface as UCI strings; to_human() and
// legal_moves_human() give the variant's human notation (chess SAN, janggi Korean numeric).
#pragma once

#include <array>
#include <cstdint>
#include <expected>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace games {

// The side to move. Chess: First = white. Janggi: First = Cho (blue, moves first).
enum class Side { First, Second };

// The other side.
constexpr Side opponent(Side side) {
  return side == Side::First ? Side::Second : Side::First;
}

// How a game stands, and why.
struct Outcome {
  enum class Result { Ongoing, FirstWins, SecondWins, Draw };
  Result result = Result::Ongoing;
  std::string reason;  // "checkmate", "stalemate", "fivefold repetition", "counting", ... ("" while ongoing)

  bool finished() const { return result != Result::Ongoing; }
};

// "ongoing", "first_wins", "second_wins" or "draw".
std::string_view to_string(Outcome::Result result);

// A move or position that could not be accepted, with a message a user can act on.
struct GameError {
  enum class Kind {
    InvalidInput,     // text that is not what was expected (PGN, EPD, ...)
    InvalidPosition,  // a FEN that cannot be read or describes an impossible position
    InvalidMove,      // a move that cannot be read, is ambiguous or is illegal here
    GameOver,         // a move asked for after the game ended
    UnknownVariant,   // a variant name make_game does not know
  };
  std::string message;  // e.g. "illegal move e2e5: the pawn on e2 cannot reach e5"
  Kind kind = Kind::InvalidInput;
};

// "invalid input", "invalid position", "invalid move", "game over" or "unknown variant".
std::string_view to_string(GameError::Kind kind);

// A piece as the board view shows it.
struct PieceView {
  Side side = Side::First;
  char letter = '?';  // the FEN letter: uppercase for the first side ('K', 'p', 'C', ...)
  std::string name;   // "king", "pawn", "general", "cannon", ...
};

// One square (janggi: one point) of the board view.
struct SquareView {
  std::string name;                // the square as UCI writes it: "e4", "a10"
  std::optional<PieceView> piece;  // empty when nothing stands there
};

// Everything a board viewer shows about a position, as plain values (the server serialises it).
struct BoardView {
  std::string variant;  // as given to make_game
  std::string fen;
  int files = 0, ranks = 0;  // 8 x 8 for chess, 9 x 10 for janggi
  // files * ranks squares: the top rank first (the second side's back rank), each from file a.
  std::vector<SquareView> squares;
  std::array<std::string, 2> side_names;  // {"White", "Black"} or {"Cho", "Han"}
  Side side_to_move = Side::First;
  int ply = 0;                                 // plies since the start position
  std::optional<std::string> last_move;        // UCI
  std::optional<std::string> last_move_human;  // SAN or Korean numeric
  std::optional<std::string> check_square;     // the king (general) of the side to move, when in check
  Outcome outcome;
  std::optional<std::string> claimable_draw;   // the reason, when the side to move may claim a draw
  std::vector<std::string> legal_moves;        // UCI
  std::vector<std::string> legal_moves_human;  // the same moves, same order, in human notation
  // Janggi only: whether the generals face each other, and both sides' counting points (Han's
  // include 1.5 for moving second).
  bool generals_facing = false;
  std::optional<std::array<double, 2>> points;
};

class Game {
 public:
  virtual ~Game() = default;

  // The variant name as given to make_game ("chess", "janggi", "janggimodern", ...).
  virtual std::string variant() const = 0;
  // The current position as FEN (Stockfish / Fairy-Stockfish conventions).
  virtual std::string fen() const = 0;
  // The position the game started from (the one given to make_game, or the standard start).
  virtual std::string start_fen() const = 0;
  // Whose move it is.
  virtual Side side_to_move() const = 0;
  // The name of a side: "White" / "Black" (chess), "Cho" / "Han" (janggi).
  virtual std::string side_name(Side side) const = 0;
  // The name of the side to move.
  std::string side_name() const { return side_name(side_to_move()); }
  // Plies played since the starting position given to make_game.
  virtual int ply() const = 0;
  // The moves played since start_fen(), in UCI.
  virtual std::vector<std::string> moves() const = 0;
  // The same moves in human notation (each written for the position it was played in).
  virtual std::vector<std::string> moves_human() const = 0;

  // Every legal move in UCI notation (janggi pass: the general's square twice, e.g. "e2e2").
  virtual std::vector<std::string> legal_moves() const = 0;
  // The same moves, in the same order, in human notation (chess SAN; janggi Korean numeric).
  virtual std::vector<std::string> legal_moves_human() const = 0;
  // Reads a move in UCI or human notation; returns the legal move in UCI, or what is wrong.
  virtual std::expected<std::string, GameError> parse_move(std::string_view text) const = 0;
  // The legal move `text` (UCI or human notation) in human notation, or what is wrong.
  virtual std::expected<std::string, GameError> to_human(std::string_view text) const = 0;
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
  // The board view: squares and pieces, side to move, last move, check, outcome, legal moves.
  virtual BoardView board_view() const = 0;
  // The square of the side to move's king (general) when it is in check, else nullopt: an
  // attack query, without generating moves (board_view's check_square).
  virtual std::optional<std::string> check_square() const = 0;

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

// Whether `variant` is one of the janggi rule sets (all but "chess").
bool is_janggi(std::string_view variant);

}  // namespace games
