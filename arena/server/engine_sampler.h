// Turns the engines' cumulative MetricsSnapshots into dashboard samples (the `metrics` event of
// docs/events.md): every call compares each engine with its previous snapshot, so rates
// (tokens/s) and TTFT quantiles describe the interval since the last sample.
#pragma once

#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "arena/models/engine_source.h"
#include "engine/api.h"

namespace arena::server {

class EngineSampler {
 public:
  explicit EngineSampler(std::vector<models::EngineSource> engines);

  // One `metrics` event per engine at Unix time `now` (source "server").
  std::vector<nlohmann::json> sample(double now);
  // The sample of one snapshot against the previous one (prev null on the first sample).
  static nlohmann::json make_sample(const std::string& model, const engine::MetricsSnapshot& cur,
                                    const engine::MetricsSnapshot* prev, double dt, double now);

 private:
  struct Previous {
    engine::MetricsSnapshot snapshot;
    double time = 0;
  };
  std::vector<models::EngineSource> engines_;
  std::map<std::string, Previous> previous_;
};

}  // namespace arena::server
