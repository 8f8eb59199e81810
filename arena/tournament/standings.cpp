// Standings, and their text, JSON and Markdown forms (see standings.h).
#include "arena/tournament/standings.h"

#include <fmt/core.h>

#include <algorithm>
#include <cmath>
#include <map>

#include "arena/tournament/move_quality_report.h"
#include "arena/tournament/pool_ratings_report.h"

namespace arena::tournament {
namespace {

// A JSON number, or null for an infinite or undefined value.
nlohmann::json number(double v) {
  return std::isfinite(v) ? nlohmann::json(v) : nlohmann::json(nullptr);
}

std::string penta_text(const Pentanomial& p) {
  return fmt::format("[{}, {}, {}, {}, {}]", p.ll, p.ld, p.wl + p.dd, p.wd, p.ww);
}

double score_percent(const ScoreStats& s) {
  return s.games() ? 100.0 * s.points() / s.games() : 0.0;
}

// A statistic with two decimals: "inf" / "-inf" for an infinite one (a 100% score), "n/a" for one
// that is undefined (the error bar of too few games).
std::string fixed2(double v) {
  return std::isnan(v) ? "n/a" : fmt::format("{:.2f}", v + 0.0);  // + 0.0: no "-0.00"
}

// `v`, one of `e`'s spreads (errors, nElo), or NaN when `e` has none (no variance: every game or
// pair scored the same).
double spread(const EloEstimate& e, double v) {
  return e.valid ? v : std::nan("");
}

// Whether a failure kind counts as an illegal answer.
bool is_illegal_kind(const std::optional<agents::FailureKind>& kind) {
  return kind == agents::FailureKind::Illegal || kind == agents::FailureKind::Unparseable;
}

using Rows = std::map<std::string, StandingRow>;

// One finished game's result and its sides' numbers added to `rows`.
void add_game(const GameRecord& g, Rows& rows, std::map<std::string, double>& latency_sum) {
  const std::string& result = g.result();
  StandingRow& first = rows[g.start.first];
  StandingRow& second = rows[g.start.second];
  first.agent = g.start.first;
  second.agent = g.start.second;
  if (result == "1-0") {
    ++first.stats.wins;
    ++second.stats.losses;
  } else if (result == "0-1") {
    ++first.stats.losses;
    ++second.stats.wins;
  } else {
    ++first.stats.draws;
    ++second.stats.draws;
  }
  for (int side = 0; side < 2; ++side) {
    const SideUsage& u = g.usage[side];
    const std::string& agent = side == 0 ? g.start.first : g.start.second;
    StandingRow& r = rows[agent];
    r.moves += u.moves;
    r.retries += u.retries;
    r.illegal_answers += u.illegal;
    r.failures += u.failures;
    latency_sum[agent] += u.latency_s;
    r.prompt_tokens += u.prompt_tokens;
    r.cached_tokens += u.cached_tokens;
    r.completion_tokens += u.completion_tokens;
  }
  if (!g.end->failure_agent.empty()) {
    StandingRow& r = rows[g.end->failure_agent];
    ++r.moves;
    ++r.failures;
    r.illegal_answers += is_illegal_kind(g.end->failure_kind) ? 1 : 0;
  }
}

// Pentanomial counts: pairs whose two games are both finished.
void add_pairs(const std::map<int32_t, std::vector<const GameRecord*>>& pairs, Rows& rows) {
  for (const auto& [pair, games] : pairs) {
    if (games.size() != 2) continue;
    for (const std::string& agent : {games[0]->start.first, games[0]->start.second}) {
      double points = 0;
      int32_t draws = 0;
      for (const GameRecord* g : games) {
        const bool first = g->start.first == agent;
        if (g->result() == "1/2-1/2") {
          points += 0.5;
          ++draws;
        } else if ((g->result() == "1-0") == first) {
          points += 1;
        }
      }
      rows[agent].stats.penta.add_pair(points, draws);
    }
  }
}

}  // namespace

Standings compute_standings(const std::vector<std::string>& agents, const GameBook& book, int32_t games_total,
                            const std::optional<config::SprtConfig>& sprt,
                            const std::optional<PoolRatingOptions>& pool) {
  Standings out;
  out.games_total = games_total;
  Rows rows;
  std::map<std::string, double> latency_sum;
  for (const auto& a : agents) rows[a].agent = a;
  std::map<int32_t, std::vector<const GameRecord*>> pairs;
  for (const auto& [index, g] : book.games()) {
    if (!g.finished()) continue;
    ++out.games_done;
    add_game(g, rows, latency_sum);
    if (g.start.pair >= 0) pairs[g.start.pair].push_back(&g);
  }
  add_pairs(pairs, rows);
  for (auto& [name, r] : rows) {
    r.elo = elo_estimate(r.stats);
    if (r.moves > 0) {
      r.mean_latency_s = latency_sum[name] / r.moves;
      r.tokens_per_move = double(r.completion_tokens) / r.moves;
    }
    r.prefix_hit_rate = r.prompt_tokens ? double(r.cached_tokens) / double(r.prompt_tokens) : 0.0;
    out.rows.push_back(r);
  }
  std::stable_sort(out.rows.begin(), out.rows.end(), [](const StandingRow& a, const StandingRow& b) {
    const double ea = a.stats.games() ? a.elo.elo : -INFINITY, eb = b.stats.games() ? b.elo.elo : -INFINITY;
    if (ea != eb) return ea > eb;
    return a.stats.points() > b.stats.points();
  });
  if (sprt && agents.size() == 2) {
    SprtState s;
    s.first = agents[0];
    s.second = agents[1];
    s.config = *sprt;
    s.bounds = sprt_bounds(sprt->alpha, sprt->beta);
    const StandingRow& r = rows[agents[0]];
    s.pentanomial = r.stats.penta.pairs() > 0;
    if (r.stats.games() > 0) {
      s.llr = s.pentanomial
                  ? sprt_llr_pentanomial(r.stats.penta, sprt->elo0, sprt->elo1)
                  : sprt_llr_trinomial(r.stats.wins, r.stats.draws, r.stats.losses, sprt->elo0, sprt->elo1);
      s.decision = sprt_decide(s.llr, s.bounds);
    }
    out.sprt = s;
  }
  if (pool) out.pool = fit_pool_ratings(pool_games(book), *pool);
  out.quality = compute_move_quality(book);
  return out;
}

std::vector<PoolGame> pool_games(const GameBook& book) {
  std::vector<PoolGame> games;
  for (const auto& [index, g] : book.games()) {
    if (!g.finished()) continue;
    const std::string& result = g.result();
    games.push_back({g.start.variant, g.start.first, g.start.second,
                     result == "1-0"   ? 1.0
                     : result == "0-1" ? 0.0
                                       : 0.5});
  }
  return games;
}

PoolRatingOptions pool_options(const config::RatingsConfig& ratings, uint64_t seed, int32_t max_simulations) {
  return {.anchors = ratings.anchors,
          .pool_mean = ratings.mean,
          .first_move_advantage = ratings.first_move_advantage,
          .simulations = std::min(ratings.simulations, max_simulations),
          .confidence = ratings.confidence / 100,
          .seed = seed};
}

std::string standings_text(const Standings& st) {
  size_t width = 25;
  for (const auto& r : st.rows) width = std::max(width, r.agent.size());
  std::string out = fmt::format("Games: {} of {}\n", st.games_done, st.games_total);
  out += fmt::format("{:<4} {:<{}} {:>10} {:>10} {:>10} {:>10} {:>10} {:>10} {:>10} {:>20}\n", "Rank", "Name",
                     width, "Elo", "+/-", "nElo", "+/-", "Games", "Score", "Draw", "Ptnml(0-2)");
  int rank = 0;
  for (const auto& r : st.rows)
    out += fmt::format("{:>4} {:<{}} {:>10} {:>10} {:>10} {:>10} {:>10} {:>9.1f}% {:>9.1f}% {:>20}\n", ++rank,
                       r.agent, width, fixed2(r.elo.elo), fixed2(spread(r.elo, r.elo.elo_error)),
                       fixed2(spread(r.elo, r.elo.nelo)), fixed2(spread(r.elo, r.elo.nelo_error)),
                       r.stats.games(), score_percent(r.stats), 100 * r.stats.draw_ratio(),
                       penta_text(r.stats.penta));
  if (st.rows.size() == 2 && st.sprt) {
    // fastchess's head-to-head block, from the first agent's side.
    const auto it = std::find_if(st.rows.begin(), st.rows.end(),
                                 [&](const StandingRow& r) { return r.agent == st.sprt->first; });
    if (it != st.rows.end()) {
      const StandingRow& r = *it;
      out += fmt::format("Results of {} vs {}:\n", st.sprt->first, st.sprt->second);
      out += fmt::format("Elo: {} +/- {}, nElo: {} +/- {}\n", fixed2(r.elo.elo),
                         fixed2(spread(r.elo, r.elo.elo_error)), fixed2(spread(r.elo, r.elo.nelo)),
                         fixed2(spread(r.elo, r.elo.nelo_error)));
      // fastchess's DrawRatio: over pairs (a 1-1 pair counts) when there are pairs, else over games.
      out += fmt::format("LOS: {} %, DrawRatio: {:.2f} %{}\n", fixed2(r.elo.los * 100),
                         100 * (r.stats.penta.pairs() ? r.stats.pair_draw_ratio() : r.stats.draw_ratio()),
                         r.stats.penta.pairs()
                             ? fmt::format(" of pairs, draws {:.2f} % of games", 100 * r.stats.draw_ratio())
                             : "");
      out += fmt::format("Games: {}, Wins: {}, Losses: {}, Draws: {}, Points: {:.1f} ({:.2f} %)\n",
                         r.stats.games(), r.stats.wins, r.stats.losses, r.stats.draws, r.stats.points(),
                         score_percent(r.stats));
      out += fmt::format("Ptnml(0-2): {}\n", penta_text(r.stats.penta));
    }
  }
  if (st.sprt) {
    const auto& s = *st.sprt;
    const double fraction = s.llr >= 0 ? s.llr / s.bounds.upper : -s.llr / s.bounds.lower;
    out += fmt::format("LLR: {:.2f} ({:.1f}%) ({:.2f}, {:.2f}) [{:.2f}, {:.2f}]{}\n", s.llr, fraction * 100,
                       s.bounds.lower, s.bounds.upper, s.config.elo0, s.config.elo1,
                       s.decision == SprtDecision::AcceptH1   ? " H1 accepted"
                       : s.decision == SprtDecision::AcceptH0 ? " H0 accepted"
                                                              : "");
  }
  out += fmt::format("{:<{}} {:>8} {:>9} {:>8} {:>10} {:>11} {:>11}\n", "Agent", width, "Moves", "Illegal",
                     "Retries", "Latency", "Tokens/mv", "Prefix hit");
  for (const auto& r : st.rows)
    out += fmt::format("{:<{}} {:>8} {:>8.1f}% {:>8} {:>9.3f}s {:>11.1f} {:>10.1f}%\n", r.agent, width,
                       r.moves, r.illegal_rate() * 100, r.retries, r.mean_latency_s, r.tokens_per_move,
                       r.prefix_hit_rate * 100);
  if (st.pool) out += pool_ratings_text(*st.pool);
  out += move_quality_text(st);
  return out;
}

nlohmann::json standings_json(const Standings& st) {
  nlohmann::json rows = nlohmann::json::array();
  int rank = 0;
  for (const auto& r : st.rows) {
    const auto& p = r.stats.penta;
    rows.push_back({{"rank", ++rank},
                    {"agent", r.agent},
                    {"games", r.stats.games()},
                    {"wins", r.stats.wins},
                    {"draws", r.stats.draws},
                    {"losses", r.stats.losses},
                    {"points", r.stats.points()},
                    {"score", r.stats.games() ? r.stats.points() / r.stats.games() : 0.0},
                    {"elo", number(r.elo.elo)},
                    {"elo_error", number(spread(r.elo, r.elo.elo_error))},
                    {"nelo", number(spread(r.elo, r.elo.nelo))},
                    {"nelo_error", number(spread(r.elo, r.elo.nelo_error))},
                    {"los", number(r.elo.los)},
                    {"draw_ratio", r.stats.draw_ratio()},
                    {"pair_draw_ratio", r.stats.pair_draw_ratio()},
                    {"pentanomial", {p.ll, p.ld, p.wl + p.dd, p.wd, p.ww}},
                    {"pentanomial_wl", p.wl},
                    {"pentanomial_dd", p.dd},
                    {"moves", r.moves},
                    {"illegal_rate", r.illegal_rate()},
                    {"illegal_answers", r.illegal_answers},
                    {"retries", r.retries},
                    {"failures", r.failures},
                    {"mean_latency_s", r.mean_latency_s},
                    {"tokens_per_move", r.tokens_per_move},
                    {"prefix_hit_rate", r.prefix_hit_rate}});
  }
  nlohmann::json out = {{"games_done", st.games_done}, {"games_total", st.games_total}, {"rows", rows}};
  if (st.sprt) {
    const auto& s = *st.sprt;
    out["sprt"] = {{"first", s.first},
                   {"second", s.second},
                   {"elo0", s.config.elo0},
                   {"elo1", s.config.elo1},
                   {"alpha", s.config.alpha},
                   {"beta", s.config.beta},
                   {"llr", s.llr},
                   {"lower", s.bounds.lower},
                   {"upper", s.bounds.upper},
                   {"model", s.pentanomial ? "pentanomial" : "trinomial"},
                   {"decision", s.decision == SprtDecision::AcceptH1   ? "H1"
                                : s.decision == SprtDecision::AcceptH0 ? "H0"
                                                                       : "continue"}};
  }
  if (st.pool) out["ratings"] = pool_ratings_json(*st.pool);
  add_move_quality_json(out, st);
  return out;
}

std::string standings_markdown(const Standings& st) {
  std::string out = fmt::format("# Standings\n\n{} of {} games played.\n\n", st.games_done, st.games_total);
  out +=
      "| Rank | Agent | Elo | +/- | nElo | +/- | Games | W | D | L | Points | Score | Draw | LOS | "
      "Ptnml(0-2) |\n";
  out += "|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|\n";
  int rank = 0;
  for (const auto& r : st.rows)
    out += fmt::format(
        "| {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {:.1f} | {:.1f}% | {:.1f}% | {}% | {} |\n",
        ++rank, r.agent, fixed2(r.elo.elo), fixed2(spread(r.elo, r.elo.elo_error)),
        fixed2(spread(r.elo, r.elo.nelo)), fixed2(spread(r.elo, r.elo.nelo_error)), r.stats.games(),
        r.stats.wins, r.stats.draws, r.stats.losses, r.stats.points(), score_percent(r.stats),
        100 * r.stats.draw_ratio(), fixed2(r.elo.los * 100), penta_text(r.stats.penta));
  out += "\n| Agent | Moves | Illegal answers | Retries | Mean latency | Tokens/move | Prefix hit rate |\n";
  out += "|---|---:|---:|---:|---:|---:|---:|\n";
  for (const auto& r : st.rows)
    out += fmt::format("| {} | {} | {:.1f}% | {} | {:.3f} s | {:.1f} | {:.1f}% |\n", r.agent, r.moves,
                       r.illegal_rate() * 100, r.retries, r.mean_latency_s, r.tokens_per_move,
                       r.prefix_hit_rate * 100);
  if (st.sprt) {
    const auto& s = *st.sprt;
    out += fmt::format(
        "\nSPRT of {} vs {} [{:.2f}, {:.2f}], alpha {:.3f}, beta {:.3f}: LLR {:.2f} in ({:.2f}, {:.2f})\n",
        s.first, s.second, s.config.elo0, s.config.elo1, s.config.alpha, s.config.beta, s.llr, s.bounds.lower,
        s.bounds.upper);
  }
  if (st.pool) out += "\n## Ratings\n\n" + pool_ratings_markdown(*st.pool);
  out += move_quality_markdown(st);
  return out;
}

StandingsEvent standings_event(const Standings& st) {
  auto finite = [](double v) { return std::isfinite(v) ? std::optional<double>(v) : std::nullopt; };
  StandingsEvent event;
  for (const auto& r : st.rows) {
    StandingsEntry e{r.agent,
                     r.stats.games(),
                     r.stats.wins,
                     r.stats.draws,
                     r.stats.losses,
                     r.stats.points(),
                     finite(r.elo.elo),
                     finite(spread(r.elo, r.elo.elo_error)),
                     finite(r.elo.los),
                     r.stats.draw_ratio(),
                     std::nullopt,
                     std::nullopt,
                     "",
                     move_quality_entry(st, r.agent)};
    if (st.pool)
      for (const PoolRating& p : st.pool->players)
        if (p.name == r.agent) {
          e.rating = p.rating;
          e.rating_error = finite(p.error);
          if (p.bound != RatingBound::None)
            e.rating_bound.push_back(p.bound == RatingBound::AtLeast ? '>' : '<');
        }
    event.rows.push_back(std::move(e));
  }
  return event;
}

}  // namespace arena::tournament
