// Captures and escapes for prompts (see tactics_text.h).
#include "agents/llm/tactics_text.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cctype>
#include <ranges>
#include <set>
#include <string_view>

#include "agents/llm/position_text.h"
#include "base/strings.h"

namespace agents::llm {

namespace {

// The origin square of a UCI move ("e7e8q" -> "e7", "a10a9" -> "a10"), empty for a pass.
std::string_view uci_origin(std::string_view uci) {
  if (uci.empty() || !std::isalpha(static_cast<unsigned char>(uci[0]))) return {};
  size_t end = 1;
  while (end < uci.size() && std::isdigit(static_cast<unsigned char>(uci[end]))) ++end;
  return end == 1 ? std::string_view{} : uci.substr(0, end);
}

// The destination square of a UCI move ("e7e8q" -> "e8", "a10a9" -> "a9"), empty for a pass.
std::string_view uci_destination(std::string_view uci) {
  size_t end = uci.size();
  if (end > 0 && std::isalpha(static_cast<unsigned char>(uci[end - 1]))) --end;  // promotion
  size_t start = end;
  while (start > 0 && std::isdigit(static_cast<unsigned char>(uci[start - 1]))) --start;
  if (start == end || start == 0 || !std::isalpha(static_cast<unsigned char>(uci[start - 1]))) return {};
  return uci.substr(start - 1, end - start + 1);
}

// The usual material value of a piece by its name: chess 9/5/3/3/1, janggi's counting points
// (chariot 13, cannon 7, horse 5, elephant and guard 3, soldier 2); 0 for the king and general.
int piece_value(std::string_view name) {
  static constexpr std::pair<std::string_view, int> kValues[] = {
      {"queen", 9},  {"rook", 5},  {"bishop", 3},   {"knight", 3}, {"pawn", 1},    {"chariot", 13},
      {"cannon", 7}, {"horse", 5}, {"elephant", 3}, {"guard", 3},  {"soldier", 2},
  };
  for (const auto& [piece, value] : kValues)
    if (piece == name) return value;
  return 0;
}

const games::SquareView* square_named(const games::BoardView& view, std::string_view name) {
  auto it = std::find_if(view.squares.begin(), view.squares.end(),
                         [&](const games::SquareView& s) { return s.name == name; });
  return it == view.squares.end() ? nullptr : &*it;
}

// Whether one of `replies` lands on `square`.
bool reaches(const std::vector<std::string>& replies, std::string_view square) {
  return std::any_of(replies.begin(), replies.end(),
                     [&](const std::string& m) { return uci_destination(m) == square; });
}

// What the capture `uci` wins at once: the taken piece's value, less the capturing piece's (as it
// stands on `to` after the move: a promoted pawn counts as its new piece) when the opponent can
// take back on `to`. A one-move look, not a full exchange: enough to put a free piece before a
// defended one.
int capture_gain(const games::Game& game, std::string_view uci, std::string_view to, int taken) {
  auto after = game.clone();
  if (!after->apply(uci)) return taken;
  const games::BoardView view = after->board_view();
  const games::SquareView* square = square_named(view, to);
  const int mover = square && square->piece ? piece_value(square->piece->name) : 0;
  return reaches(view.legal_moves, to) ? taken - mover : taken;
}

// The opponent's legal moves if it were to move now (the FEN with the other side to move and no
// en-passant square), empty when that position cannot be set up.
std::vector<std::string> opponent_moves(const games::Game& game) {
  const std::string current = game.fen();
  const auto fields = base::split(current, ' ');
  if (fields.size() < 2) return {};
  const bool chess = game_family(game.variant()) == "chess";
  std::string fen = fmt::format("{} {}", fields[0], fields[1] == "w" ? 'b' : 'w');
  for (size_t i = 2; i < fields.size(); ++i)
    fen += fmt::format(" {}", i == 3 && chess ? std::string_view("-") : fields[i]);
  auto flipped = games::make_game(game.variant(), fen);
  return flipped ? (*flipped)->legal_moves() : std::vector<std::string>{};
}

// `ranked` (best first) one a line, the best last: the layout tactics_text.h explains.
template <typename Ranked>
std::string best_last(Ranked&& ranked) {
  return fmt::format("{}", fmt::join(ranked | std::views::reverse, "\n"));
}

}  // namespace

std::string captures_text(const games::Game& game, const std::vector<std::string>& uci,
                          const std::vector<std::string>& moves) {
  const games::BoardView view = game.board_view();
  struct Capture {
    int gain;
    std::string text;
  };
  std::vector<Capture> captures;
  for (size_t i = 0; i < uci.size() && i < moves.size(); ++i) {
    const std::string_view to = uci_destination(uci[i]);
    if (to.empty()) continue;
    const games::SquareView* square = square_named(view, to);
    std::string taken;
    if (square && square->piece && square->piece->side != view.side_to_move)
      taken = square->piece->name;
    else if (game_family(view.variant) == "chess" && moves[i].find('x') != std::string::npos)
      taken = "pawn";  // en passant: the pawn is not on the destination square
    if (taken.empty()) continue;
    captures.push_back(
        {capture_gain(game, uci[i], to, piece_value(taken)), fmt::format("{} {}", moves[i], taken)});
  }
  if (captures.empty()) return "none";
  std::stable_sort(captures.begin(), captures.end(),
                   [](const Capture& a, const Capture& b) { return a.gain > b.gain; });
  return best_last(captures | std::views::transform(&Capture::text));
}

std::string escapes_text(const games::Game& game, const std::vector<std::string>& uci,
                         const std::vector<std::string>& moves, size_t limit) {
  if (game.check_square()) return "none";
  const games::BoardView view = game.board_view();
  std::set<std::string, std::less<>> attacked;
  for (const auto& m : opponent_moves(game)) {
    const games::SquareView* square = square_named(view, uci_destination(m));
    if (square && square->piece && square->piece->side == view.side_to_move &&
        piece_value(square->piece->name) > 0)
      attacked.insert(square->name);
  }
  struct Escape {
    int value;
    std::string move;
  };
  std::vector<Escape> escapes;
  for (size_t i = 0; i < uci.size() && i < moves.size() && !attacked.empty(); ++i) {
    const std::string_view from = uci_origin(uci[i]);
    if (!attacked.contains(from)) continue;
    auto after = game.clone();
    if (!after->apply(uci[i]) || reaches(after->legal_moves(), uci_destination(uci[i]))) continue;
    escapes.push_back({piece_value(square_named(view, from)->piece->name), moves[i]});
  }
  if (escapes.empty()) return "none";
  std::stable_sort(escapes.begin(), escapes.end(),
                   [](const Escape& a, const Escape& b) { return a.value > b.value; });
  return best_last(escapes | std::views::take(limit) | std::views::transform(&Escape::move));
}

}  // namespace agents::llm
