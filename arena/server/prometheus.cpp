// render_prometheus: one family at a time, HELP and TYPE first, every engine's sample under it.
#include "arena/server/prometheus.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <functional>

#include "arena/server/json_fields.h"

namespace arena::server {

namespace {

std::string number(double v) {
  if (v != v) return "NaN";
  return fmt::format("{}", v);
}

class Writer {
 public:
  explicit Writer(std::span<const models::EngineSource> engines) {
    for (const auto& e : engines)
      if (e.engine) snaps_.push_back({e.model, e.engine->metrics()});
  }

  // A gauge or counter family with one sample per engine.
  void scalar(const char* name, const char* type, const char* help,
              const std::function<double(const engine::MetricsSnapshot&)>& value) {
    head(name, type, help);
    for (const auto& [model, m] : snaps_)
      out_ += fmt::format("{}{{model=\"{}\"}} {}\n", name, prometheus_label(model), number(value(m)));
  }

  // A histogram family with one set of buckets per engine.
  void histogram(const char* name, const char* help,
                 const std::function<const engine::Histogram&(const engine::MetricsSnapshot&)>& get) {
    head(name, "histogram", help);
    for (const auto& [model, m] : snaps_) {
      const engine::Histogram& h = get(m);
      const std::string label = prometheus_label(model);
      int64_t cumulative = 0;
      for (size_t i = 0; i < h.bounds.size(); ++i) {
        cumulative += i < h.counts.size() ? h.counts[i] : 0;
        out_ += fmt::format("{}_bucket{{model=\"{}\",le=\"{}\"}} {}\n", name, label, number(h.bounds[i]),
                            cumulative);
      }
      out_ += fmt::format("{}_bucket{{model=\"{}\",le=\"+Inf\"}} {}\n", name, label, h.count);
      out_ += fmt::format("{}_sum{{model=\"{}\"}} {}\n", name, label, number(h.sum));
      out_ += fmt::format("{}_count{{model=\"{}\"}} {}\n", name, label, h.count);
    }
  }

  void head(const char* name, const char* type, const char* help) {
    out_ += fmt::format("# HELP {} {}\n# TYPE {} {}\n", name, help, name, type);
  }
  void line(const std::string& text) { out_ += text + "\n"; }
  std::string take() { return std::move(out_); }

 private:
  std::vector<std::pair<std::string, engine::MetricsSnapshot>> snaps_;
  std::string out_;
};

}  // namespace

std::string prometheus_label(std::string_view value) {
  std::string out;
  for (char c : value) {
    if (c == '\\')
      out += "\\\\";
    else if (c == '"')
      out += "\\\"";
    else if (c == '\n')
      out += "\\n";
    else
      out += c;
  }
  return out;
}

namespace {

// The agents' gauges: points and Elo, and the pool ratings (one fit over every game) when the
// standings have them; a bound (won or lost every game) is the bound's value.
void write_standings(Writer& w, const nlohmann::json& standings) {
  if (!standings.is_array() || standings.empty()) return;
  w.head("arena:agent_points", "gauge", "Tournament points of each agent.");
  for (const auto& row : standings)
    w.line(fmt::format("arena:agent_points{{agent=\"{}\"}} {}", prometheus_label(string_field(row, "agent")),
                       number(number_field(row, "points"))));
  w.head("arena:agent_elo", "gauge", "Elo estimate of each agent relative to the field.");
  for (const auto& row : standings)
    w.line(fmt::format("arena:agent_elo{{agent=\"{}\"}} {}", prometheus_label(string_field(row, "agent")),
                       number(number_field(row, "elo"))));
  const auto rated = [](const nlohmann::json& row) { return row.is_object() && row.contains("rating"); };
  if (!std::any_of(standings.begin(), standings.end(), rated)) return;
  w.head("arena:agent_rating", "gauge",
         "Rating of each agent over every game (maximum likelihood, as Ordo).");
  for (const auto& row : standings)
    if (rated(row))
      w.line(fmt::format("arena:agent_rating{{agent=\"{}\"}} {}",
                         prometheus_label(string_field(row, "agent")), number(number_field(row, "rating"))));
  w.head("arena:agent_rating_error", "gauge", "Error bar of that rating (at the configured confidence).");
  for (const auto& row : standings)
    if (rated(row))
      w.line(fmt::format("arena:agent_rating_error{{agent=\"{}\"}} {}",
                         prometheus_label(string_field(row, "agent")),
                         number(number_field(row, "rating_error", std::nan("")))));
}

}  // namespace

std::string render_prometheus(std::span<const models::EngineSource> engines, const TournamentStats& stats,
                              const nlohmann::json& standings) {
  using M = engine::MetricsSnapshot;
  Writer w(engines);
  w.scalar("arena:num_requests_running", "gauge", "Requests in the running batch.",
           [](const M& m) { return m.num_requests_running; });
  w.scalar("arena:num_requests_waiting", "gauge", "Requests waiting to be scheduled.",
           [](const M& m) { return m.num_requests_waiting; });
  w.scalar("arena:kv_cache_usage_perc", "gauge", "Fraction of KV-cache blocks in use (0..1).",
           [](const M& m) { return m.kv_usage(); });
  w.scalar("arena:kv_cache_blocks_used", "gauge", "KV-cache blocks in use.",
           [](const M& m) { return m.kv_blocks_used; });
  w.scalar("arena:kv_cache_blocks_total", "gauge", "KV-cache blocks in all.",
           [](const M& m) { return m.kv_blocks_total; });
  w.scalar("arena:kv_window_blocks_used", "gauge",
           "Sliding-window layers' own KV blocks in use (0 when they share the blocks above).",
           [](const M& m) { return m.kv_window_blocks_used; });
  w.scalar("arena:kv_window_blocks_total", "gauge", "Sliding-window layers' own KV blocks in all.",
           [](const M& m) { return m.kv_window_blocks_total; });
  w.scalar("arena:prefix_cache_queries_total", "counter", "Prompt tokens looked up in the prefix cache.",
           [](const M& m) { return double(m.prefix_cache_queries); });
  w.scalar("arena:prefix_cache_hits_total", "counter", "Prompt tokens served from the prefix cache.",
           [](const M& m) { return double(m.prefix_cache_hits); });
  w.scalar("arena:num_preemptions_total", "counter", "Preemptions (recompute) of running requests.",
           [](const M& m) { return double(m.num_preemptions); });
  w.scalar("arena:prompt_tokens_total", "counter", "Prompt tokens of admitted requests.",
           [](const M& m) { return double(m.prompt_tokens); });
  w.scalar("arena:generation_tokens_total", "counter", "Generated tokens.",
           [](const M& m) { return double(m.generation_tokens); });
  w.scalar("arena:request_success_total", "counter", "Requests finished by a stop condition or length.",
           [](const M& m) { return double(m.num_requests_finished); });
  w.scalar("arena:request_cancelled_total", "counter", "Requests cancelled.",
           [](const M& m) { return double(m.num_requests_cancelled); });
  w.scalar("arena:request_failed_total", "counter", "Requests the engine could not serve.",
           [](const M& m) { return double(m.num_requests_failed); });
  w.scalar("arena:request_rejected_total", "counter", "Requests refused at submit (queue full, invalid).",
           [](const M& m) { return double(m.num_requests_rejected); });
  w.scalar("arena:deadline_misses_total", "counter", "Requests finished after their deadline.",
           [](const M& m) { return double(m.deadline_misses); });
  w.scalar("arena:engine_steps_total", "counter", "Engine steps (forward passes).",
           [](const M& m) { return double(m.num_steps); });
  w.histogram("arena:time_to_first_token_seconds", "Time from submit to the first token.",
              [](const M& m) -> const engine::Histogram& { return m.time_to_first_token; });
  w.histogram("arena:inter_token_latency_seconds", "Time between two generated tokens.",
              [](const M& m) -> const engine::Histogram& { return m.inter_token_latency; });
  w.histogram("arena:e2e_request_latency_seconds", "Time from submit to finish.",
              [](const M& m) -> const engine::Histogram& { return m.e2e_latency; });
  w.histogram("arena:request_queue_time_seconds", "Time from submit to first scheduled.",
              [](const M& m) -> const engine::Histogram& { return m.queue_time; });
  w.histogram("arena:iteration_tokens_total", "Tokens (prompt chunks and decodes) in one engine step.",
              [](const M& m) -> const engine::Histogram& { return m.iteration_tokens; });
  // Not one of vLLM's: the sequences per step, beside the tokens.
  w.histogram("arena:iteration_sequences", "Sequences in one engine step (batch size).",
              [](const M& m) -> const engine::Histogram& { return m.batch_size; });

  w.head("arena:tournament_games_total", "gauge", "Games scheduled in the tournament.");
  w.line(fmt::format("arena:tournament_games_total {}", stats.games_total));
  w.head("arena:tournament_games_done", "gauge", "Games finished.");
  w.line(fmt::format("arena:tournament_games_done {}", stats.games_done));
  w.head("arena:tournament_games_in_flight", "gauge", "Games being played now.");
  w.line(fmt::format("arena:tournament_games_in_flight {}", stats.games_in_flight));
  w.head("arena:tournament_moves_total", "counter", "Moves played.");
  w.line(fmt::format("arena:tournament_moves_total {}", stats.moves));
  w.head("arena:tournament_move_failures_total", "counter",
         "Moves where the agent's own answer was not played.");
  w.line(fmt::format("arena:tournament_move_failures_total {}", stats.failures));
  w.head("arena:web_clients", "gauge", "WebSocket clients connected.");
  w.line(fmt::format("arena:web_clients {}", stats.ws_clients));
  write_standings(w, standings);
  return w.take();
}

}  // namespace arena::server
