// The `tournament:` section: games, format, participants, openings, concurrency and ticks,
// deadline policy, clocks, adjudication, SPRT and seed.
#include <fmt/format.h>

#include "arena/config/sections.h"

namespace arena::config {
namespace {

void read_openings(const YamlNode* node, LoadContext& ctx, OpeningsConfig& o, TournamentMarks& marks) {
  FieldReader f(node, "tournament.openings", ctx.diag);
  f.read("file", o.file);
  marks.openings_file = f.mark("file");
  if (!o.file.empty()) {
    o.file = ctx.path(o.file, marks.openings_file);
    std::error_code ec;
    if (ctx.options.check_files && !o.file.empty() && !std::filesystem::is_regular_file(o.file, ec))
      ctx.diag.error(marks.openings_file, fmt::format("openings file '{}' not found", o.file));
  }
  f.read_enum("order", o.order, kOpeningOrderNames);
  f.read("plies", o.plies, 0, 10000);
  f.read("janggi_setups", o.janggi_setups);
  marks.janggi_setups = f.mark("janggi_setups");
  f.finish();
}

void read_clock(const YamlNode* node, LoadContext& ctx, std::optional<ClockConfig>& clock) {
  if (!node) return;
  if (node->is_null()) return clock.reset();
  FieldReader f(node, "tournament.clock", ctx.diag);
  if (!node->is_map()) return;  // the reader reported it
  ClockConfig c;
  if (!f.has("base")) ctx.diag.error(node->mark, "tournament.clock needs base (the time per game, e.g. 1m)");
  f.read_duration("base", c.base, std::chrono::milliseconds(1));
  f.read_duration("increment", c.increment, std::chrono::milliseconds(0));
  f.finish();
  clock = c;
}

void read_adjudication(const YamlNode* node, LoadContext& ctx, AdjudicationConfig& a,
                       TournamentMarks& marks) {
  FieldReader f(node, "tournament.adjudication", ctx.diag);
  f.read("max_plies", a.max_plies, 1, 100000);
  f.read("referee", a.referee);
  marks.referee = f.mark("referee");
  f.read("janggi_counting", a.janggi_counting);
  if (const YamlNode* draw = f.get("draw")) {
    marks.draw = draw->mark;
    if (draw->is_null()) {
      a.draw_move_number.reset();
    } else {
      FieldReader d(draw, "tournament.adjudication.draw", ctx.diag);
      int32_t number = a.draw_move_number.value_or(40);
      d.read("move_number", number, 1, 100000);
      a.draw_move_number = number;
      d.read("move_count", a.draw_move_count, 1, 1000);
      d.read("score", a.draw_score_cp, 0, 100000);
      d.finish();
    }
  }
  if (const YamlNode* resign = f.get("resign")) {
    marks.resign = resign->mark;
    if (resign->is_null()) {
      a.resign_move_count.reset();
    } else {
      FieldReader r(resign, "tournament.adjudication.resign", ctx.diag);
      int32_t count = a.resign_move_count.value_or(3);
      r.read("move_count", count, 1, 1000);
      a.resign_move_count = count;
      r.read("score", a.resign_score_cp, 1, 100000);
      r.finish();
    }
  }
  f.finish();
}

void read_sprt(const YamlNode* node, LoadContext& ctx, std::optional<SprtConfig>& sprt,
               TournamentMarks& marks) {
  if (!node) return;
  marks.sprt = node->mark;
  if (node->is_null()) return sprt.reset();
  FieldReader f(node, "tournament.sprt", ctx.diag);
  SprtConfig s;
  f.read("elo0", s.elo0, -1000, 1000);
  f.read("elo1", s.elo1, -1000, 1000);
  f.read("alpha", s.alpha, 1e-9, 0.5);
  f.read("beta", s.beta, 1e-9, 0.5);
  if (s.elo0 >= s.elo1)
    ctx.diag.error(f.mark("elo1"),
                   fmt::format("tournament.sprt needs elo0 < elo1, got elo0 {} and elo1 {}", s.elo0, s.elo1));
  f.finish();
  sprt = s;
}

}  // namespace

void read_tournament(const YamlNode* node, LoadContext& ctx, Config& config, Marks& all_marks) {
  TournamentConfig& t = config.tournament;
  TournamentMarks& marks = all_marks.tournament;
  FieldReader f(node, "tournament", ctx.diag);
  marks.section = node ? node->mark : SourceMark{1, 1};

  f.read_list("games", t.games);
  marks.games = f.mark("games");
  if (const YamlNode* v = f.get("games"); v && v->is_sequence())
    for (const auto& item : v->items) marks.game_items.push_back(item.mark);
  else
    marks.game_items.assign(t.games.size(), marks.games);

  f.read_enum("format", t.format, kFormatNames);
  f.read("gauntlet_seed", t.gauntlet_seed_agent);
  marks.gauntlet_seed = f.mark("gauntlet_seed");
  f.read_list("agents", t.agents);
  marks.agents = f.mark("agents");
  if (const YamlNode* v = f.get("agents"); v && v->is_sequence())
    for (const auto& item : v->items) marks.agent_items.push_back(item.mark);
  else
    marks.agent_items.assign(t.agents.size(), marks.agents);

  f.read("games_per_pairing", t.games_per_pairing, 2, 100000);
  if (t.games_per_pairing % 2 != 0)
    ctx.diag.error(
        f.mark("games_per_pairing"),
        fmt::format("games_per_pairing must be even (games are played in colour-swapped pairs), got {}",
                    t.games_per_pairing));
  read_openings(f.get("openings"), ctx, t.openings, marks);
  f.read("concurrency", t.concurrency, 1, 4096);
  f.read_duration("tick", t.tick, std::chrono::milliseconds(10));
  f.read_duration("move_deadline", t.move_deadline, std::chrono::milliseconds(0));
  f.read_enum("deadline_policy", t.deadline_policy, kDeadlinePolicyNames);
  read_clock(f.get("clock"), ctx, t.clock);
  read_adjudication(f.get("adjudication"), ctx, t.adjudication, marks);
  read_sprt(f.get("sprt"), ctx, t.sprt, marks);
  f.read("seed", t.seed);
  f.finish();
}

}  // namespace arena::config
