// Prompt templates: the user's text with {placeholders} filled from the position each move.
// A placeholder is `{name}` with a known name (kPlaceholderNames); `{{` writes a literal `{`; any
// other `{` is literal text. An unknown `{name}` is an error naming the template and the line and
// column, found when the template is parsed (so when the agent is made, not at move 30).
#pragma once

#include <array>
#include <cstddef>
#include <expected>
#include <string>
#include <string_view>
#include <vector>

namespace agents::llm {

// Every value a template can use.
enum class Placeholder {
  Game,               // "chess" or "janggi"
  Variant,            // the variant name ("chess", "janggimodern", ...)
  Side,               // the side to move ("White", "Black", "Cho", "Han")
  Opponent,           // the other agent's name
  Fen,                // the position as FEN
  Board,              // a compact text diagram (ranks top to bottom, '.' empty)
  BoardFull,          // the game's own verbose diagram (legend, last move, check, material)
  LegalMoves,         // the legal moves in the agent's notation, space separated
  LegalMovesGrouped,  // the same, moves from one point sharing it (Korean: "02마83 73" = 02마83 or 02마73)
  LegalMovesLines,    // the same, one move a line: each spelled out in the tokens an answer would use
  Captures,           // the capturing legal moves, each with the piece taken ("exd5 pawn"), or "none"
  Escapes,            // the moves that take an attacked piece where it cannot be taken at once, or "none"
  History,            // the moves so far in the agent's notation ("1. e4 e5 2. Nf3")
  LastMove,           // the last move in the agent's notation, or "none"
  MoveNumber,         // the full-move number
  Ply,                // plies played since the game's start
  Clock,              // both clocks ("White 4:32, Black 3:10, +2s") or "none"
  IllegalReason,      // on a retry, why the last answer was rejected (ends with a space); else empty
};
inline constexpr size_t kNumPlaceholders = 18;

// The names as written in templates, in Placeholder order.
// clang-format off
inline constexpr std::array<std::string_view, kNumPlaceholders> kPlaceholderNames = {
    "game",              "variant",     "side",
    "opponent",          "fen",         "board",
    "board_full",        "legal_moves", "legal_moves_grouped",
    "legal_moves_lines", "captures",    "escapes",
    "history",           "last_move",   "move_number",
    "ply",               "clock",       "illegal_reason"};
// clang-format on

// Whether a placeholder stays the same for a whole game (the only ones a system prompt may use,
// so that it is the same text every move and the prefix cache serves it).
bool is_per_game(Placeholder p);

// "{game} {variant} ...": every placeholder name, for "known: ..." hints.
std::string known_placeholders();

// A problem of a template: where (offset of the '{' in the text; 1-based line and column within
// the text) and what. `unknown`: the name is not a placeholder (else: a per-move one in a
// system prompt).
struct TemplateProblem {
  size_t offset = 0;
  int line = 1;
  int column = 1;
  std::string name;
  bool unknown = true;
  std::string message;  // "unknown placeholder {x}" or why it cannot be used here
};

// Every problem of `text` in order, empty when it parses; what PromptTemplate::parse refuses.
std::vector<TemplateProblem> template_problems(std::string_view text, bool per_game_only = false);

// One value per placeholder, indexed by Placeholder.
using PromptValues = std::array<std::string, kNumPlaceholders>;

class PromptTemplate {
 public:
  // Parses `text`; `source` names it in errors ("move_template of agent 'gpt' (prompts/move.txt)").
  // An error for an unknown placeholder, or (per_game_only) one that changes every move.
  static std::expected<PromptTemplate, std::string> parse(std::string_view text, std::string source,
                                                          bool per_game_only = false);

  // The text with every placeholder replaced by its value.
  std::string render(const PromptValues& values) const;
  // Whether the template uses `p`.
  bool uses(Placeholder p) const;
  const std::string& source() const { return source_; }

 private:
  struct Piece {
    std::string literal;   // text before the placeholder
    int placeholder = -1;  // index into PromptValues, -1 for trailing text
  };
  std::vector<Piece> pieces_;
  std::string source_;
};

}  // namespace agents::llm
