// game_pgn: tags from game_start/game_end, movetext from the moves' human notation.
#include "arena/server/game_pgn.h"

#include <fmt/format.h>

#include <ctime>

#include "arena/server/json_fields.h"

namespace arena::server {

namespace {

// A PGN tag value: backslashes and quotes escaped.
std::string tag_value(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (c == '\\' || c == '"') out += '\\';
    if (c != '\n' && c != '\r') out += c;
  }
  return out;
}

std::string utc_date(double unix_seconds) {
  if (unix_seconds <= 0) return "????.??.??";
  const std::time_t t = static_cast<std::time_t>(unix_seconds);
  std::tm tm{};
  gmtime_r(&t, &tm);
  return fmt::format("{:04}.{:02}.{:02}", tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday);
}

}  // namespace

std::string game_pgn(const nlohmann::json& start, const std::vector<nlohmann::json>& moves,
                     const nlohmann::json& end) {
  const std::string variant = string_field(start, "variant", "chess");
  const std::string result = end.is_null() ? "*" : string_field(end, "result", "*");
  std::string pgn;
  auto tag = [&](const char* name, const std::string& value) {
    pgn += fmt::format("[{} \"{}\"]\n", name, tag_value(value));
  };
  tag("Event", "arena tournament");
  tag("Site", "arena");
  tag("Date", utc_date(number_field(start, "time")));
  tag("Round", std::to_string(integer_field(start, "index") + 1));
  tag("White", string_field(start, "first", "?"));
  tag("Black", string_field(start, "second", "?"));
  tag("Result", result);
  if (variant != "chess") tag("Variant", variant);
  const std::string fen = string_field(start, "start_fen");
  if (!fen.empty()) {
    tag("SetUp", "1");
    tag("FEN", fen);
  }
  if (const std::string opening = string_field(start, "opening"); !opening.empty()) tag("Opening", opening);
  if (!end.is_null()) tag("Termination", string_field(end, "reason"));
  tag("GameId", string_field(start, "game"));
  pgn += "\n";

  // Move numbers continue from the start position's full-move counter when it has one (chess
  // FEN's last field); the side to move first is the one after the start FEN.
  int number = 1;
  bool second_first = false;
  if (!fen.empty()) {
    const size_t last_space = fen.rfind(' ');
    if (last_space != std::string::npos) {
      try {
        number = std::max(1, std::stoi(fen.substr(last_space + 1)));
      } catch (...) {
        number = 1;
      }
    }
    const size_t first_space = fen.find(' ');
    if (first_space != std::string::npos && first_space + 1 < fen.size())
      second_first = fen[first_space + 1] == 'b';
  }
  std::string line;
  auto add = [&](const std::string& token) {
    if (line.size() + token.size() + 1 > 79) {
      pgn += line + "\n";
      line.clear();
    }
    if (!line.empty()) line += ' ';
    line += token;
  };
  bool second_to_move = second_first;
  for (size_t i = 0; i < moves.size(); ++i) {
    const nlohmann::json& m = moves[i];
    std::string text = string_field(m, "human");
    if (text.empty()) text = string_field(m, "uci", "?");
    if (!second_to_move)
      add(fmt::format("{}.", number));
    else if (i == 0)
      add(fmt::format("{}...", number));
    add(text);
    if (second_to_move) ++number;
    second_to_move = !second_to_move;
  }
  add(result);
  pgn += line + "\n";
  return pgn;
}

}  // namespace arena::server
