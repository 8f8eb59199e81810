// PGN of game records (see pgn_writer.h).
#include "arena/tournament/pgn_writer.h"

#include <fmt/core.h>

#include <algorithm>
#include <cmath>
#include <ctime>

#include "arena/tournament/janggi_san.h"
#include "games/game.h"

namespace arena::tournament {
namespace {

constexpr const char* kChessStart = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";

// A tag value with '\' and '"' escaped.
std::string tag_value(const std::string& v) {
  std::string out;
  for (char c : v) {
    if (c == '\\' || c == '"') out += '\\';
    out += (c == '\n' || c == '\r') ? ' ' : c;
  }
  return out;
}

// Comment text: braces would end the comment early, so they become parentheses.
std::string comment_text(const std::string& v) {
  std::string out;
  for (char c : v) out += c == '{' ? '(' : c == '}' ? ')' : (c == '\n' || c == '\r') ? ' ' : c;
  return out;
}

std::string format_date(double unix_seconds) {
  if (unix_seconds <= 0) return "????.??.??";
  const std::time_t t = std::time_t(unix_seconds);
  std::tm tm{};
  gmtime_r(&t, &tm);
  return fmt::format("{:04}.{:02}.{:02}", tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday);
}

// [%clk H:MM:SS] (tenths when under a minute).
std::string format_clock(int64_t ms) {
  if (ms < 0) ms = 0;
  const int64_t s = ms / 1000;
  if (s < 60) return fmt::format("{}:{:02}:{:02}.{}", 0, 0, s, (ms % 1000) / 100);
  return fmt::format("{}:{:02}:{:02}", s / 3600, (s / 60) % 60, s % 60);
}

// Appends tokens to movetext, wrapping lines before 80 columns.
struct Wrapper {
  std::string text;
  size_t line = 0;
  void add(const std::string& token) {
    if (line > 0 && line + 1 + token.size() > 79) {
      text += '\n';
      line = 0;
    } else if (line > 0) {
      text += ' ';
      ++line;
    }
    text += token;
    line += token.size();
  }
  // A comment: words wrapped like tokens, inside braces.
  void comment(const std::string& body) {
    std::string word;
    bool first = true;
    auto flush = [&](bool last) {
      std::string token = (first ? "{" : "") + word + (last ? "}" : "");
      add(token);
      first = false;
      word.clear();
    };
    for (char c : body) {
      if (c == ' ') {
        if (!word.empty()) flush(false);
      } else {
        word += c;
      }
    }
    flush(true);
  }
};

std::string move_comment(const MoveEvent& m) {
  std::string c = fmt::format("{:.2f}s", m.latency_s);
  if (m.clock_ms)
    c += fmt::format(" [%clk {}]", format_clock(m.first_side ? (*m.clock_ms)[0] : (*m.clock_ms)[1]));
  if (m.substitute) {
    c += fmt::format(" {} for {}", config::to_string(*m.substitute), m.agent);
    if (m.failure) c += fmt::format(" ({})", agents::to_string(m.failure->kind));
  }
  if (m.retries > 0) c += fmt::format(" retries={}", m.retries);
  return comment_text(c);
}

// The moves in SAN (chess) or Fairy-Stockfish SAN (janggi). A chess move event carries its SAN
// (the runner wrote it from the position's legal moves); the game is replayed from `start` only
// for janggi (whose events carry Korean notation) or a record whose events lack it, and a move
// that is not legal there is an error.
std::expected<std::vector<std::string>, std::string> san_moves(const GameStart& g, const games::Game& start,
                                                               const std::vector<MoveEvent>& played) {
  const bool janggi = g.variant.starts_with("janggi");
  std::vector<std::string> uci, human;
  for (const auto& m : played) {
    uci.push_back(m.uci);
    human.push_back(m.human);
  }
  if (!janggi && std::ranges::none_of(human, [](const std::string& h) { return h.empty(); })) return human;
  if (janggi) {
    auto san = janggi_san_moves(g.variant, start.fen(), uci);
    if (!san) return std::unexpected(fmt::format("game {}: {}", g.game, san.error()));
    return std::move(*san);
  }
  std::vector<std::string> san;
  auto replay = start.clone();
  for (const auto& move : uci) {
    const auto legal = replay->legal_moves();
    const auto human = replay->legal_moves_human();
    std::string text;
    for (size_t k = 0; k < legal.size(); ++k)
      if (legal[k] == move) text = human[k];
    if (text.empty()) return std::unexpected(fmt::format("game {}: move {} is not legal", g.game, move));
    if (auto ok = replay->apply(move); !ok) return std::unexpected(ok.error().message);
    san.push_back(text);
  }
  return san;
}

}  // namespace

std::string pgn_time_control(const std::optional<config::ClockConfig>& clock) {
  if (!clock) return "-";
  auto secs = [](std::chrono::milliseconds ms) {
    return ms.count() % 1000 == 0 ? fmt::format("{}", ms.count() / 1000)
                                  : fmt::format("{:g}", ms.count() / 1000.0);
  };
  return clock->increment.count() > 0 ? secs(clock->base) + "+" + secs(clock->increment) : secs(clock->base);
}

std::expected<std::string, std::string> game_to_pgn(const GameRecord& record, const PgnContext& context) {
  const GameStart& g = record.start;
  const std::string& result = record.result();
  const std::string reason = record.end ? record.end->reason : "";
  const std::string termination = record.end ? record.end->termination : "";
  const bool janggi = g.variant.starts_with("janggi");
  auto game = games::make_game(g.variant, g.start_fen);
  if (!game) return std::unexpected(fmt::format("game {}: {}", g.game, game.error().message));
  auto moves = san_moves(g, **game, record.moves);
  if (!moves) return std::unexpected(moves.error());
  const std::vector<std::string>& san = *moves;
  const std::string start = (*game)->fen();
  std::string out;
  auto tag = [&](const char* name, const std::string& value) {
    out += fmt::format("[{} \"{}\"]\n", name, tag_value(value));
  };
  tag("Event", context.event);
  tag("Site", context.site);
  tag("Date", format_date(record.start_time));
  tag("Round", std::to_string(g.index + 1));
  tag("White", g.first);
  tag("Black", g.second);
  tag("Result", result);
  tag("Variant", janggi ? "Janggi" : "Standard");
  // pychess-variants writes every janggi game as "Janggi" and has no tag for the rule set;
  // VariantRules (ignored by PGN readers that do not know it) keeps arena's variant name, which
  // is also Fairy-Stockfish's UCI_Variant, so a re-read game knows its rules.
  if (janggi) tag("VariantRules", g.variant);
  if (janggi || start != kChessStart) {
    tag("FEN", start);
    tag("SetUp", "1");
  }
  if (!g.opening.empty()) tag("Opening", g.opening);
  tag("Termination", termination.empty() ? (result == "*" ? "unterminated" : "normal") : termination);
  tag("PlyCount", std::to_string(record.moves.size()));
  tag("TimeControl", pgn_time_control(context.clock));
  out += '\n';

  // The move number and side of the first move come from the start FEN.
  const bool first_to_move = (*game)->side_to_move() == games::Side::First;
  int64_t fullmove = 1;
  {
    const auto last_space = start.find_last_of(' ');
    if (last_space != std::string::npos)
      fullmove = std::max<int64_t>(1, std::atoll(start.c_str() + last_space + 1));
  }
  Wrapper w;
  bool need_number = true;
  for (size_t i = 0; i < san.size(); ++i) {
    const bool first_side = ((i % 2 == 0) == first_to_move);
    if (first_side)
      w.add(fmt::format("{}. {}", fullmove, san[i]));
    else if (need_number)
      w.add(fmt::format("{}... {}", fullmove, san[i]));
    else
      w.add(san[i]);
    w.comment(move_comment(record.moves[i]));
    need_number = true;  // a comment follows every move, so the next black move is numbered
    if (!first_side) ++fullmove;
  }
  if (!reason.empty()) w.comment(comment_text(reason));
  w.add(result);
  out += w.text + "\n\n";
  return out;
}

}  // namespace arena::tournament
