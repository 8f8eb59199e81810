// The pool ratings' text, Markdown, JSON and CSV forms (pool_ratings_report.h).
#include "arena/tournament/pool_ratings_report.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

namespace arena::tournament {
namespace {

constexpr size_t kMatrixPlayers = 12;  // the LOS matrix is printed up to this many players

double score(const PoolRating& r) {
  return r.games ? r.points / r.games : 0.0;
}

// The likelihood that player `i` is stronger than the next one, as text ("" for the last).
std::string los_next(const PoolRatings& r, size_t i) {
  if (r.los.empty() || i + 1 >= r.players.size()) return "";
  return fmt::format("{:.1f}%", 100 * r.los[i][i + 1]);
}

std::string advantage_line(const FirstMoveAdvantage& a) {
  return fmt::format("{} {:.1f}{} ({}; first movers scored {:.1f}% of {} games)", a.variant, a.elo,
                     a.fitted ? " +/- " + error_text(a.error) : "", a.fitted ? "fitted" : "set",
                     100 * a.first_score, a.games);
}

std::string heading(const PoolRatings& r) {
  std::string sims = r.simulations > 1
                         ? fmt::format("{} simulations, {:g}% error bars", r.simulations, 100 * r.confidence)
                         : "no simulations: no error bars";
  return fmt::format("Ratings over all {} games (maximum likelihood, as Ordo; {}; {})", r.games, r.reference,
                     sims);
}

nlohmann::json number(double v) {
  return std::isfinite(v) ? nlohmann::json(v) : nlohmann::json(nullptr);
}

std::string csv_field(const std::string& s) {
  if (s.find_first_of(",\"\n") == std::string::npos) return s;
  std::string out = "\"";
  for (char c : s) out += c == '"' ? std::string("\"\"") : std::string(1, c);
  return out + "\"";
}

}  // namespace

std::string rating_text(const PoolRating& r) {
  const char* mark = r.bound == RatingBound::AtLeast ? ">" : r.bound == RatingBound::AtMost ? "<" : "";
  return fmt::format("{}{:.1f}", mark, r.rating);
}

std::string error_text(double error) {
  return std::isfinite(error) ? fmt::format("{:.1f}", error) : "n/a";
}

std::string pool_ratings_text(const PoolRatings& r) {
  size_t width = 20;
  for (const auto& p : r.players) width = std::max(width, p.name.size());
  std::string out = heading(r) + ":\n";
  out += fmt::format("{:>4} {:<{}} : {:>9} {:>7} {:>8} {:>7} {:>7} {:>9}\n", "#", "PLAYER", width, "RATING",
                     "ERROR", "POINTS", "PLAYED", "(%)", "LOS-next");
  for (size_t i = 0; i < r.players.size(); ++i) {
    const PoolRating& p = r.players[i];
    out +=
        fmt::format("{:>4} {:<{}} : {:>9} {:>7} {:>8.1f} {:>7} {:>6.1f}% {:>9}\n", i + 1, p.name, width,
                    rating_text(p), error_text(p.error), p.points, p.games, 100 * score(p), los_next(r, i));
  }
  for (const auto& a : r.advantages) out += "First-move advantage: " + advantage_line(a) + "\n";
  if (r.simulations > 1)
    out += fmt::format("Draw rate between equal players: {:.1f}%\n", 100 * r.draw_rate_equal);
  if (!r.los.empty() && r.players.size() > 2 && r.players.size() <= kMatrixPlayers) {
    out += "Likelihood of superiority (row over column, %):\n";
    out += fmt::format("{:<{}}", "", width);
    for (size_t j = 0; j < r.players.size(); ++j) out += fmt::format(" {:>5}", j + 1);
    out += "\n";
    for (size_t i = 0; i < r.players.size(); ++i) {
      out += fmt::format("{:<{}}", fmt::format("{} {}", i + 1, r.players[i].name), width);
      for (size_t j = 0; j < r.players.size(); ++j)
        out += i == j ? fmt::format(" {:>5}", "-") : fmt::format(" {:>5.1f}", 100 * r.los[i][j]);
      out += "\n";
    }
  }
  for (const auto& w : r.warnings) out += "Warning: " + w + "\n";
  return out;
}

std::string pool_ratings_markdown(const PoolRatings& r) {
  std::string out =
      heading(r) + ".\n\n| # | Player | Rating | +/- | Points | Games | Score | LOS over next |\n";
  out += "|---:|---|---:|---:|---:|---:|---:|---:|\n";
  for (size_t i = 0; i < r.players.size(); ++i) {
    const PoolRating& p = r.players[i];
    out += fmt::format("| {} | {} | {} | {} | {:.1f} | {} | {:.1f}% | {} |\n", i + 1, p.name, rating_text(p),
                       error_text(p.error), p.points, p.games, 100 * score(p), los_next(r, i));
  }
  out += "\n";
  for (const auto& a : r.advantages) out += "First-move advantage: " + advantage_line(a) + ".\n";
  if (!r.los.empty() && r.players.size() > 2) {
    out += "\nLikelihood of superiority (row over column):\n\n|  |";
    for (const auto& p : r.players) out += " " + p.name + " |";
    out += "\n|---|";
    for (size_t j = 0; j < r.players.size(); ++j) out += "---:|";
    out += "\n";
    for (size_t i = 0; i < r.players.size(); ++i) {
      out += "| " + r.players[i].name + " |";
      for (size_t j = 0; j < r.players.size(); ++j)
        out += i == j ? std::string(" – |") : fmt::format(" {:.1f}% |", 100 * r.los[i][j]);
      out += "\n";
    }
  }
  for (const auto& w : r.warnings) out += "\n**Warning:** " + w + "\n";
  return out;
}

nlohmann::json pool_ratings_json(const PoolRatings& r) {
  nlohmann::json players = nlohmann::json::array(), advantages = nlohmann::json::array();
  for (size_t i = 0; i < r.players.size(); ++i) {
    const PoolRating& p = r.players[i];
    players.push_back(
        {{"rank", i + 1},
         {"name", p.name},
         {"rating", p.rating},
         {"error", number(p.error)},
         {"bound", p.bound == RatingBound::AtLeast  ? nlohmann::json("at_least")
                   : p.bound == RatingBound::AtMost ? nlohmann::json("at_most")
                                                    : nlohmann::json(nullptr)},
         {"anchored", p.anchored},
         {"games", p.games},
         {"wins", p.wins},
         {"draws", p.draws},
         {"losses", p.losses},
         {"points", p.points},
         {"score", score(p)},
         {"opponents_mean", p.opponents_mean},
         {"group", p.group},
         {"los_next", r.los.empty() || i + 1 >= r.players.size() ? nlohmann::json(nullptr)
                                                                 : nlohmann::json(r.los[i][i + 1])}});
  }
  for (const auto& a : r.advantages)
    advantages.push_back({{"variant", a.variant},
                          {"elo", a.elo},
                          {"error", number(a.error)},
                          {"fitted", a.fitted},
                          {"games", a.games},
                          {"first_score", a.first_score}});
  return {{"reference", r.reference},
          {"games", r.games},
          {"simulations", r.simulations},
          {"confidence", r.confidence},
          {"draw_rate_equal", r.draw_rate_equal},
          {"players", players},
          {"first_move_advantage", advantages},
          {"los", r.los},
          {"groups", r.groups},
          {"warnings", r.warnings}};
}

std::string pool_ratings_csv(const PoolRatings& r) {
  std::string out =
      "rank,name,rating,error,bound,anchored,games,wins,draws,losses,points,score,opponents_mean\n";
  for (size_t i = 0; i < r.players.size(); ++i) {
    const PoolRating& p = r.players[i];
    const char* bound = p.bound == RatingBound::AtLeast  ? "at_least"
                        : p.bound == RatingBound::AtMost ? "at_most"
                                                         : "";
    out += fmt::format("{},{},{:.2f},{},{},{},{},{},{},{},{:.1f},{:.4f},{:.2f}\n", i + 1, csv_field(p.name),
                       p.rating, std::isfinite(p.error) ? fmt::format("{:.2f}", p.error) : "", bound,
                       p.anchored ? "true" : "false", p.games, p.wins, p.draws, p.losses, p.points, score(p),
                       p.opponents_mean);
  }
  return out;
}

}  // namespace arena::tournament
