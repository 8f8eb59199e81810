// An engine a model runs on, named by the model: what the tournament runner samples into
// metrics.csv and what the board server's /metrics and dashboard read. Its own header so that
// `arena serve` and the board server need nothing of the tournament to name one.
#pragma once

#include <string>

#include "engine/api.h"

namespace arena::models {

struct EngineSource {
  std::string model;
  engine::Engine* engine = nullptr;
};

}  // namespace arena::models
