// /metrics in the Prometheus text exposition format (version 0.0.4): each engine's metrics with
// vLLM v1's names under an `arena:` prefix and a `model` label (gauges, counters, histograms),
// plus the tournament's progress gauges and per-agent standings.
#pragma once

#include <nlohmann/json.hpp>
#include <span>
#include <string>

#include "arena/models/engine_source.h"
#include "arena/server/hub.h"

namespace arena::server {

// The exposition text for `engines` (their current metrics), the tournament's `stats` and its
// `standings` rows (docs/events.md).
std::string render_prometheus(std::span<const models::EngineSource> engines, const TournamentStats& stats,
                              const nlohmann::json& standings);

// A label value escaped for the text format (backslash, double quote, newline).
std::string prometheus_label(std::string_view value);

}  // namespace arena::server
