// The tournament schedule and its openings (see schedule.h).
#include "arena/tournament/schedule.h"

#include <fmt/core.h>

#include <algorithm>
#include <fstream>
#include <numeric>
#include <sstream>

#include "base/strings.h"
#include "games/chess/pgn.h"
#include "games/game.h"
#include "games/janggi/fen.h"

namespace arena::tournament {
namespace {

uint64_t splitmix(uint64_t x) {
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

std::vector<std::string> split_ws(const std::string& s) {
  std::istringstream in(s);
  std::vector<std::string> out;
  for (std::string w; in >> w;) out.push_back(w);
  return out;
}

bool is_number(const std::string& s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
}

// One EPD or FEN line: 4 fields plus operations ("... bm e4; id \"x\";") or a 6-field FEN.
std::expected<Opening, std::string> parse_position_line(const std::string& line, const std::string& variant) {
  const auto fields = split_ws(line);
  if (fields.size() < 4) return std::unexpected(std::string("expected a FEN or EPD position"));
  std::string fen = fmt::format("{} {} {} {}", fields[0], fields[1], fields[2], fields[3]);
  std::string label;
  if (fields.size() >= 6 && is_number(fields[4]) && is_number(fields[5])) {
    fen += fmt::format(" {} {}", fields[4], fields[5]);
  } else {
    fen += " 0 1";
    // An EPD `id "..."` operation names the position.
    const auto id = line.find(" id ");
    if (id != std::string::npos) {
      const auto q1 = line.find('"', id);
      const auto q2 = q1 == std::string::npos ? q1 : line.find('"', q1 + 1);
      if (q2 != std::string::npos) label = line.substr(q1 + 1, q2 - q1 - 1);
    }
  }
  auto game = games::make_game(variant, fen);
  if (!game) return std::unexpected(game.error().message);
  return Opening{(*game)->fen(), label};
}

// The first `plies` plies of each PGN game (all when 0), as the position they reach.
std::expected<std::vector<Opening>, std::string> pgn_openings(const std::string& text,
                                                              const std::string& file, int32_t plies) {
  auto parsed = games::chess::read_pgn(text);
  if (!parsed) return std::unexpected(fmt::format("{}: {}", file, parsed.error().message));
  std::vector<Opening> out;
  for (const auto& pgn : *parsed) {
    auto game = games::make_game("chess", pgn.start_fen);
    if (!game) return std::unexpected(fmt::format("{}: {}", file, game.error().message));
    std::string label;
    const size_t n = plies > 0 ? std::min<size_t>(plies, pgn.moves.size()) : pgn.moves.size();
    for (size_t i = 0; i < n; ++i) {
      const auto legal = (*game)->legal_moves();
      const auto human = (*game)->legal_moves_human();
      std::string san = pgn.moves[i];
      for (size_t k = 0; k < legal.size(); ++k)
        if (legal[k] == pgn.moves[i]) san = human[k];
      const int ply = (*game)->ply();
      const bool white = (*game)->side_to_move() == games::Side::First;
      if (white || i == 0)
        label += fmt::format("{}{}{} ", ply / 2 + 1, white ? ". " : "... ", san);
      else
        label += san + " ";
      if (auto ok = (*game)->apply(pgn.moves[i]); !ok)
        return std::unexpected(fmt::format("{}: {}", file, ok.error().message));
    }
    if (!label.empty()) label.pop_back();
    out.push_back({(*game)->fen(), label});
  }
  return out;
}

}  // namespace

uint64_t mix_seed(uint64_t a, uint64_t b, uint64_t c) {
  return splitmix(splitmix(splitmix(a) ^ b) ^ c);
}

std::vector<Opening> janggi_setup_openings(const std::string& variant) {
  std::vector<Opening> out;
  for (auto cho : games::janggi::kAllSetups)
    for (auto han : games::janggi::kAllSetups) {
      auto game = games::make_game(variant, games::janggi::start_fen(cho, han));
      const std::string fen = game ? (*game)->fen() : games::janggi::start_fen(cho, han);
      out.push_back({fen, fmt::format("Cho {} / Han {}", games::janggi::setup_name(cho),
                                      games::janggi::setup_name(han))});
    }
  return out;
}

std::expected<std::vector<Opening>, std::string> load_openings(const config::OpeningsConfig& config,
                                                               const std::string& variant) {
  const bool janggi = variant.starts_with("janggi");
  if (janggi && config.janggi_setups) return janggi_setup_openings(variant);
  if (config.file.empty()) return std::vector<Opening>{};
  std::ifstream in(config.file, std::ios::binary);
  if (!in) return std::unexpected(fmt::format("cannot read the openings file '{}'", config.file));
  std::stringstream buffer;
  buffer << in.rdbuf();
  const std::string text = buffer.str();
  const auto first = text.find_first_not_of(" \t\r\n");
  const bool is_pgn = config.file.ends_with(".pgn") || (first != std::string::npos && text[first] == '[');
  if (is_pgn) {
    if (janggi) return std::vector<Opening>{};  // chess openings: janggi games start from the start position
    auto out = pgn_openings(text, config.file, config.plies);
    if (out && out->empty()) return std::unexpected(fmt::format("{}: no games in the file", config.file));
    return out;
  }
  std::vector<Opening> out;
  std::istringstream lines(text);
  int line_no = 0;
  for (std::string line; std::getline(lines, line);) {
    ++line_no;
    line = std::string(base::trim(line));
    if (line.empty() || line[0] == '#') continue;
    auto opening = parse_position_line(line, variant);
    if (!opening) return std::unexpected(fmt::format("{}:{}: {}", config.file, line_no, opening.error()));
    out.push_back(std::move(*opening));
  }
  if (out.empty()) return std::unexpected(fmt::format("{}: no positions in the file", config.file));
  return out;
}

namespace {

// The pairings of the format, by participant index (a gauntlet's seed first).
std::expected<std::vector<std::pair<int32_t, int32_t>>, std::string> pairings_of(
    const config::TournamentConfig& config, const std::vector<SchedulePlayer>& players) {
  std::vector<std::pair<int32_t, int32_t>> pairings;
  const int32_t n = int32_t(players.size());
  if (config.format == config::Format::Gauntlet) {
    int32_t seed = 0;
    if (!config.gauntlet_seed_agent.empty()) {
      seed = -1;
      for (int32_t i = 0; i < n; ++i)
        if (players[i].name == config.gauntlet_seed_agent) seed = i;
      if (seed < 0)
        return std::unexpected(
            fmt::format("gauntlet seed agent '{}' is not a participant", config.gauntlet_seed_agent));
    }
    for (int32_t j = 0; j < n; ++j)
      if (j != seed) pairings.emplace_back(seed, j);
  } else {
    const int repeats = config.format == config::Format::DoubleRoundRobin ? 2 : 1;
    for (int r = 0; r < repeats; ++r)
      for (int32_t i = 0; i < n; ++i)
        for (int32_t j = i + 1; j < n; ++j) pairings.emplace_back(i, j);
  }
  return pairings;
}

}  // namespace

std::expected<std::vector<ScheduledGame>, std::string> make_schedule(
    const config::TournamentConfig& config, const std::vector<SchedulePlayer>& players) {
  if (players.size() < 2) return std::unexpected(std::string("a tournament needs at least two agents"));
  if (config.games_per_pairing < 1)
    return std::unexpected(std::string("games_per_pairing must be at least 1"));
  auto made = pairings_of(config, players);
  if (!made) return std::unexpected(made.error());
  const std::vector<std::pair<int32_t, int32_t>>& pairings = *made;
  auto plays = [&](int32_t p, const std::string& v) {
    return std::find(players[p].variants.begin(), players[p].variants.end(), v) != players[p].variants.end();
  };
  struct VariantPlan {
    std::string variant;
    std::vector<Opening> openings;
    std::vector<size_t> order;  // the current cycle's opening order
    int64_t next = 0;           // openings taken so far
  };
  std::vector<VariantPlan> plans;
  for (const auto& v : config.games) {
    auto openings = load_openings(config.openings, v);
    if (!openings) return std::unexpected(openings.error());
    if (openings->empty()) {
      auto start = games::make_game(v);
      if (!start) return std::unexpected(start.error().message);
      openings->push_back({(*start)->fen(), ""});
    }
    bool any = false;
    for (const auto& [a, b] : pairings) any = any || (plays(a, v) && plays(b, v));
    if (!any) return std::unexpected(fmt::format("no two agents of the tournament can play {}", v));
    plans.push_back({v, std::move(*openings), {}, 0});
  }
  // The opening for the next pair of `plan`: in file order, or each cycle through the file in an
  // order shuffled by the seed and the cycle number.
  auto next_opening = [&](VariantPlan& plan, size_t variant_index) -> const Opening& {
    const size_t count = plan.openings.size();
    const size_t at = size_t(plan.next % int64_t(count));
    if (at == 0) {
      plan.order.resize(count);
      std::iota(plan.order.begin(), plan.order.end(), size_t{0});
      if (config.openings.order == config::OpeningOrder::Random) {
        const uint64_t cycle = uint64_t(plan.next / int64_t(count));
        for (size_t i = count; i > 1; --i) {
          const size_t j = size_t(mix_seed(config.seed, variant_index * 1000003 + cycle, i) % i);
          std::swap(plan.order[i - 1], plan.order[j]);
        }
      }
    }
    ++plan.next;
    return plan.openings[plan.order[at]];
  };
  std::vector<ScheduledGame> games;
  int32_t next_pair = 0;
  const int32_t rounds = (config.games_per_pairing + 1) / 2;
  for (int32_t round = 0; round < rounds; ++round) {
    const bool two = 2 * round + 1 < config.games_per_pairing;
    for (size_t vi = 0; vi < plans.size(); ++vi) {
      VariantPlan& plan = plans[vi];
      for (const auto& [a0, b0] : pairings) {
        if (!plays(a0, plan.variant) || !plays(b0, plan.variant)) continue;
        // Alternate who starts the pair from round to round, so that odd counts stay balanced.
        const int32_t a = round % 2 == 0 ? a0 : b0, b = round % 2 == 0 ? b0 : a0;
        const Opening& opening = next_opening(plan, vi);
        const int32_t pair = two ? next_pair++ : -1;
        games.push_back({int32_t(games.size()), plan.variant, a, b, opening.fen, opening.label, pair});
        if (two)
          games.push_back({int32_t(games.size()), plan.variant, b, a, opening.fen, opening.label, pair});
      }
    }
  }
  return games;
}

}  // namespace arena::tournament
