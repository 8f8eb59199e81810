// Position text for prompts: FEN-derived diagram, notation conversion by index alignment with the
// game's legal moves, clock and history formatting.
#include "agents/llm/position_text.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>

#include "agents/llm/tactics_text.h"
#include "base/strings.h"

namespace agents::llm {

namespace {

// The full-move number of a FEN (its sixth field), 1 when absent.
int fen_move_number(std::string_view fen) {
  const auto fields = base::split(fen, ' ');
  if (fields.size() < 6) return 1;
  int n = 0;
  for (char c : fields[5]) {
    if (!std::isdigit(static_cast<unsigned char>(c))) return 1;
    n = n * 10 + (c - '0');
  }
  return n > 0 ? n : 1;
}

std::string minutes(std::chrono::milliseconds ms) {
  const auto s = ms.count() / 1000;
  return fmt::format("{}:{:02}", s / 60, s % 60);
}

}  // namespace

std::string game_family(std::string_view variant) {
  return games::is_janggi(variant) ? "janggi" : "chess";
}

Notation default_notation(std::string_view variant) {
  return game_family(variant) == "chess" ? Notation::San : Notation::Korean;
}

bool notation_fits(Notation notation, std::string_view variant) {
  if (notation == Notation::Uci) return true;
  return (notation == Notation::San) == (game_family(variant) == "chess");
}

std::string compact_board(const games::Game& game) {
  const std::string fen = game.fen();
  const auto rows = base::split(std::string_view(fen).substr(0, fen.find(' ')), '/');
  std::string out;
  size_t width = 0;
  for (size_t r = 0; r < rows.size(); ++r) {
    std::string line = fmt::format("{} ", rows.size() - r);
    size_t files = 0;
    for (size_t i = 0; i < rows[r].size(); ++i) {
      const char c = rows[r][i];
      if (std::isdigit(static_cast<unsigned char>(c))) {
        size_t n = static_cast<size_t>(c - '0');
        while (i + 1 < rows[r].size() && std::isdigit(static_cast<unsigned char>(rows[r][i + 1])))
          n = n * 10 + static_cast<size_t>(rows[r][++i] - '0');
        line.append(n, '.');
        files += n;
      } else {
        line += c;
        ++files;
      }
    }
    width = std::max(width, files);
    out += line + "\n";
  }
  out += "  ";
  for (size_t f = 0; f < width; ++f) out += static_cast<char>('a' + f);
  return out;
}

std::vector<std::string> legal_moves_in(const games::Game& game, Notation notation) {
  return notation == Notation::Uci ? game.legal_moves() : game.legal_moves_human();
}

std::string grouped_moves(const std::vector<std::string>& moves, Notation notation) {
  std::string out;
  if (notation != Notation::Korean) {
    for (const auto& m : moves) out += (out.empty() ? "" : " ") + m;
    return out;
  }
  // "02마83": two digits, the piece (one UTF-8 character), two digits; grouped by all but the last two.
  auto is_numeric = [](const std::string& m) {
    return m.size() >= 5 && std::isdigit(static_cast<unsigned char>(m[0])) &&
           std::isdigit(static_cast<unsigned char>(m[m.size() - 1])) &&
           std::isdigit(static_cast<unsigned char>(m[m.size() - 2]));
  };
  std::vector<std::pair<std::string, std::vector<std::string>>> groups;  // in first-seen order
  for (const auto& m : moves) {
    const std::string prefix = is_numeric(m) ? m.substr(0, m.size() - 2) : m;
    const std::string dest = is_numeric(m) ? m.substr(m.size() - 2) : std::string();
    auto it = std::find_if(groups.begin(), groups.end(), [&](const auto& g) { return g.first == prefix; });
    if (it == groups.end() || dest.empty())
      groups.push_back({prefix, {dest}});
    else
      it->second.push_back(dest);
  }
  for (const auto& [prefix, dests] : groups) {
    if (!out.empty()) out += ", ";
    out += prefix + dests.front();
    for (size_t i = 1; i < dests.size(); ++i) out += " " + dests[i];
  }
  return out;
}

std::string clock_text(const games::Game& game, const std::optional<ClockState>& clock) {
  if (!clock) return "none";
  std::string out =
      fmt::format("{} {}, {} {}", game.side_name(games::Side::First), minutes(clock->first_remaining),
                  game.side_name(games::Side::Second), minutes(clock->second_remaining));
  if (clock->increment.count() > 0) out += fmt::format(", +{}s", clock->increment.count() / 1000.0);
  return out;
}

std::string history_text(const games::Game& game, Notation notation) {
  const auto moves = notation == Notation::Uci ? game.moves() : game.moves_human();
  if (moves.empty()) return "none";
  const std::string start = game.start_fen();
  const auto fields = base::split(start, ' ');
  int number = fen_move_number(start);
  bool second = fields.size() > 1 && fields[1] == "b";
  std::string out;
  for (size_t i = 0; i < moves.size(); ++i) {
    if (!out.empty()) out += ' ';
    if (!second)
      out += fmt::format("{}. ", number);
    else if (i == 0)
      out += fmt::format("{}... ", number);
    out += moves[i];
    if (second) ++number;
    second = !second;
  }
  return out;
}

std::string last_move_text(const games::Game& game, Notation notation) {
  const auto moves = notation == Notation::Uci ? game.moves() : game.moves_human();
  return moves.empty() ? "none" : moves.back();
}

PromptValues position_values(const MoveRequest& request, Notation notation, Hints hints) {
  const games::Game& game = *request.game;
  const std::string variant = game.variant();
  PromptValues v;
  auto set = [&](Placeholder p, std::string value) { v[static_cast<size_t>(p)] = std::move(value); };
  set(Placeholder::Game, game_family(variant));
  set(Placeholder::Variant, variant);
  set(Placeholder::Side, game.side_name());
  set(Placeholder::Opponent, request.opponent);
  set(Placeholder::Fen, game.fen());
  set(Placeholder::Board, compact_board(game));
  set(Placeholder::BoardFull, game.render_text());
  const std::shared_ptr<const LegalMoves> legal = legal_moves(request);
  const std::vector<std::string>& moves = notation == Notation::Uci ? legal->uci : legal->human;
  set(Placeholder::LegalMoves, fmt::format("{}", fmt::join(moves, " ")));
  set(Placeholder::LegalMovesGrouped, grouped_moves(moves, notation));
  set(Placeholder::LegalMovesLines, fmt::format("{}", fmt::join(moves, "\n")));
  if (hints.captures) set(Placeholder::Captures, captures_text(game, legal->uci, moves));
  if (hints.escapes) set(Placeholder::Escapes, escapes_text(game, legal->uci, moves));
  set(Placeholder::History, history_text(game, notation));
  set(Placeholder::LastMove, last_move_text(game, notation));
  set(Placeholder::MoveNumber, std::to_string(fen_move_number(game.fen())));
  set(Placeholder::Ply, std::to_string(game.ply()));
  set(Placeholder::Clock, clock_text(game, request.clock));
  return v;
}

}  // namespace agents::llm
