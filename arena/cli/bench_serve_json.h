// The figures of one `arena bench serve` run (an in-process mode or an endpoint) as a row of its
// JSON document.
#pragma once

#include <nlohmann/json.hpp>

#include "engine/api.h"
#include "engine/tools/serve_workload.h"

namespace arena::cli {

// Every figure of `s`.
nlohmann::json to_json(const engine::ServeRunStats& s);

// Over HTTP only what the client sees: no queue, KV or preemption figures; a hit rate no answer
// reported is null.
nlohmann::json to_json_http(const engine::ServeRunStats& s);

}  // namespace arena::cli
