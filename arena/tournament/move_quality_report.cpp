// The standings' move-quality block (see move_quality_report.h).
#include "arena/tournament/move_quality_report.h"

#include <fmt/core.h>

#include <algorithm>
#include <utility>
#include <vector>

namespace arena::tournament {
namespace {

// One labelled line of the block: the agent's totals, a variant or a phase.
using Line = std::pair<std::string, const QualityStats*>;

// The agent's lines in print order: its totals, its variants (when it played more than one),
// then the phases it has scored moves in.
std::vector<Line> lines_of(const std::string& agent, const AgentQuality& q) {
  std::vector<Line> out{{agent, &q.all}};
  int32_t variants = 0;
  for (const auto& [name, s] : q.variants) variants += s.moves > 0;
  if (variants > 1)
    for (const auto& [name, s] : q.variants)
      if (s.moves > 0) out.emplace_back("  " + name, &s);
  for (int p = 0; p < 3; ++p)
    if (q.phases[p].moves > 0) out.emplace_back(std::string("  ") + to_string(GamePhase(p)), &q.phases[p]);
  return out;
}

// The rows of the standings that have move quality, in standings order.
std::vector<std::pair<std::string, const AgentQuality*>> agents_of(const Standings& st) {
  std::vector<std::pair<std::string, const AgentQuality*>> out;
  for (const auto& r : st.rows)
    if (const auto it = st.quality->find(r.agent); it != st.quality->end())
      out.emplace_back(r.agent, &it->second);
  return out;
}

std::string optional_text(const std::optional<double>& v, const char* suffix) {
  return v ? fmt::format("{:.1f}{}", *v, suffix) : std::string("-");
}

nlohmann::json optional_json(const std::optional<double>& v) {
  return v ? nlohmann::json(*v) : nlohmann::json();
}

nlohmann::json stats_json(const QualityStats& s) {
  return {{"moves", s.moves},
          {"acpl", optional_json(s.acpl())},
          {"accuracy", optional_json(s.accuracy())},
          {"move_accuracy", optional_json(s.move_accuracy())},
          {"inaccuracies", s.inaccuracies},
          {"mistakes", s.mistakes},
          {"blunders", s.blunders}};
}

}  // namespace

std::string move_quality_text(const Standings& st) {
  if (!st.quality) return "";
  size_t width = 25;
  for (const auto& r : st.rows) width = std::max(width, r.agent.size());
  std::string out = fmt::format("Move quality by the referee (lichess ACPL, accuracy and judgments):\n");
  out += fmt::format("{:<{}} {:>8} {:>8} {:>9} {:>9} {:>13} {:>9} {:>9}\n", "Agent", width, "Scored", "ACPL",
                     "Accuracy", "Move acc", "Inaccuracies", "Mistakes", "Blunders");
  for (const auto& [agent, q] : agents_of(st))
    for (const auto& [label, s] : lines_of(agent, *q))
      out += fmt::format("{:<{}} {:>8} {:>8} {:>9} {:>9} {:>13} {:>9} {:>9}\n", label, width, s->moves,
                         optional_text(s->acpl(), ""), optional_text(s->accuracy(), "%"),
                         optional_text(s->move_accuracy(), "%"), s->inaccuracies, s->mistakes, s->blunders);
  return out;
}

std::string move_quality_markdown(const Standings& st) {
  if (!st.quality) return "";
  std::string out =
      "\n## Move quality\n\nBy the adjudication referee's scores: average centipawn loss, lichess-style "
      "accuracy (per game, as lichess combines it; and the mean over moves), and lichess's inaccuracies "
      "(?!), mistakes (?) and blunders (?\?).\n\n"
      "| Agent | Scored moves | ACPL | Accuracy | Move accuracy | Inaccuracies | Mistakes | Blunders |\n"
      "|---|---:|---:|---:|---:|---:|---:|---:|\n";
  for (const auto& [agent, q] : agents_of(st))
    for (const auto& [label, s] : lines_of(agent, *q)) {
      const bool indented = label.starts_with("  ");
      out += fmt::format("| {} | {} | {} | {} | {} | {} | {} | {} |\n",
                         indented ? fmt::format("{}: {}", agent, label.substr(2)) : label, s->moves,
                         optional_text(s->acpl(), ""), optional_text(s->accuracy(), "%"),
                         optional_text(s->move_accuracy(), "%"), s->inaccuracies, s->mistakes, s->blunders);
    }
  return out;
}

void add_move_quality_json(nlohmann::json& out, const Standings& st) {
  if (!st.quality) return;
  nlohmann::json block = nlohmann::json::object();
  for (const auto& [agent, q] : agents_of(st)) {
    nlohmann::json j = stats_json(q->all);
    j["variants"] = nlohmann::json::object();
    for (const auto& [name, s] : q->variants)
      if (s.moves > 0) j["variants"][name] = stats_json(s);
    j["phases"] = nlohmann::json::object();
    for (int p = 0; p < 3; ++p) j["phases"][to_string(GamePhase(p))] = stats_json(q->phases[p]);
    block[agent] = std::move(j);
  }
  out["move_quality"] = std::move(block);
}

std::optional<StandingsQuality> move_quality_entry(const Standings& st, const std::string& agent) {
  if (!st.quality) return std::nullopt;
  StandingsQuality out;
  if (const auto it = st.quality->find(agent); it != st.quality->end()) {
    const QualityStats& s = it->second.all;
    out = {s.acpl(), s.accuracy(), s.inaccuracies, s.mistakes, s.blunders};
  }
  return out;
}

}  // namespace arena::tournament
