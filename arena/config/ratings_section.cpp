// The `ratings:` section: anchors (agents held at given ratings), the pool's mean without them, the
// first-move advantage (fitted per variant, or set), and the simulations behind the error bars.
// Read after the agents, so that an anchor naming no agent is an error at its line.
#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cmath>

#include "arena/config/sections.h"

namespace arena::config {

namespace {

constexpr double kMaxRating = 100000;

void read_anchors(FieldReader& r, const Config& config, Diagnostics& diag, RatingsConfig& out) {
  const YamlNode* node = r.get("anchors");
  if (!node || node->is_null()) return;
  if (!node->is_map())
    return diag.error(node->mark, fmt::format("ratings.anchors must be a mapping of agent names to ratings "
                                              "(e.g. `anchors: {{random: 0}}`), got {}",
                                              node->kind_name()));
  std::vector<std::string> agents;
  for (const auto& a : config.agents) agents.push_back(a.name);
  FieldReader anchors(node, "ratings.anchors", diag);
  for (const YamlEntry& e : node->entries) {
    if (std::find(agents.begin(), agents.end(), e.key.scalar) == agents.end()) {
      anchors.accept(e.key.scalar);
      diag.error(e.key.mark, fmt::format("ratings.anchors: no agent '{}'{}", e.key.scalar,
                                         did_you_mean(e.key.scalar, agents)));
      continue;
    }
    double rating = 0;
    if (!anchors.has(e.key.scalar)) continue;
    const size_t before = diag.errors().size();
    anchors.read(e.key.scalar, rating, -kMaxRating, kMaxRating);
    if (diag.errors().size() == before) out.anchors[e.key.scalar] = rating;
  }
  anchors.finish();
}

void read_advantage(FieldReader& r, Diagnostics& diag, RatingsConfig& out) {
  const YamlNode* v = r.get("first_move_advantage");
  if (v && (v->is_null() || (v->is_scalar() && v->scalar == "fit"))) {
    out.first_move_advantage.reset();
    return;
  }
  if (!v) return;
  double elo = 0;
  const std::string text = v->is_scalar() ? v->scalar : "";
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), elo);
  if (text.empty() || ec != std::errc() || end != text.data() + text.size() || std::abs(elo) > 1000)
    return diag.error(v->mark,
                      "ratings.first_move_advantage is `fit` (fitted per variant) or a number of Elo "
                      "points between -1000 and 1000");
  out.first_move_advantage = elo;
}

}  // namespace

void read_ratings(const YamlNode* node, LoadContext& ctx, Config& config) {
  FieldReader r(node, "ratings", ctx.diag);
  RatingsConfig& out = config.ratings;
  read_anchors(r, config, ctx.diag, out);
  r.read("mean", out.mean, -kMaxRating, kMaxRating);
  read_advantage(r, ctx.diag, out);
  r.read("simulations", out.simulations, 0, 100000);
  r.read("confidence", out.confidence, 50, 99.99);
  r.finish();
}

}  // namespace arena::config
