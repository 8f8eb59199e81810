// `arena bench serve [--model M] [--agents N] [--system-tokens S] [--prompt-tokens U] [--gen-tokens G]
// [--ticks T] [--modes LIST] [--endpoint URL]... [--routing POLICY] [--json FILE]`: the synthetic agent
// workload (engine/tools/serve_workload.h) in each mode and against each OpenAI-compatible endpoint, or
// one fleet of them (bench_serve_http.h), taking turns a tick at a time: requests/s, tokens/s, TTFT and
// queue percentiles, prefix hit rate, KV blocks and waste, preemptions, misses, failures, and ratios.
// The default model (Qwen2.5-0.5B shaped, Q8_0) is written to models/ by the synth library when missing.
#include "arena/cli/bench_serve.h"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "arena/cli/bench_serve_http.h"
#include "arena/cli/bench_serve_json.h"
#include "arena/cli/command.h"
#include "engine/api.h"
#include "engine/tools/capacity_planner.h"
#include "engine/tools/serve_workload.h"
#include "engine/tools/synth/synthesize.h"

namespace arena::cli {

namespace {

constexpr const char* kDefaultModel = "models/qwen2.5-0.5b-q8_0.gguf";
constexpr const char* kAllModes = "sequential,static,continuous,continuous+prefix";

struct ServeFlags {
  std::string model = kDefaultModel;
  engine::ServeWorkload workload;
  std::string modes = kAllModes;
  int32_t max_batched_tokens = engine::SchedulerConfig{}.max_num_batched_tokens;
  int32_t max_prefill_tokens = engine::SchedulerConfig{}.max_prefill_tokens;
  int32_t block_size = engine::CacheConfig{}.block_size;
  int threads = 0;
  std::string kv_dtype = "f16";
  std::string kv_memory;
  double deadline_ms = 0;
  std::vector<std::string> endpoints;  // URLs or comma lists of them
  std::string routing;                 // set: the endpoints are one fleet, routed by this policy
  double request_timeout_s = 300;
  std::string json;
};

int fail(const std::string& message) {
  return cli::fail("bench serve", message);
}

// Writes the default synthetic model, as `arena synth` would.
bool make_default_model(const std::string& path) {
  namespace synth = engine::synth;
  fmt::print(stderr,
             "{} is missing; writing it with the synth library (the same as `arena synth --arch qwen2 "
             "--shape qwen2.5-0.5b --dtype q8_0 -o {}`)\n",
             path, path);
  synth::SynthOptions options;
  auto shape = synth::resolve_shape(std::string("qwen2.5-0.5b"), synth::ShapeOverrides{});
  if (!shape) return false;
  options.shape = *shape;
  options.dtype = synth::SynthDtype::Q8_0;
  options.output_path = path;
  std::filesystem::create_directories(std::filesystem::path(path).parent_path());
  auto result = synth::synthesize(options);
  if (!result) fail(result.error().message);
  return result.has_value();
}

// The engine configuration of one mode.
engine::EngineConfig mode_config(const std::string& mode, const ServeFlags& f, size_t kv_bytes) {
  engine::EngineConfig c;
  c.cache.kv_cache_bytes = kv_bytes;
  c.cache.block_size = f.block_size;
  c.cache.dtype = engine::parse_kv_dtype(f.kv_dtype).value_or(engine::KvDtype::F16);
  c.cache.enable_prefix_cache = mode == "continuous+prefix";
  // "continuous+prefix" is continuous batching with the prefix cache on.
  c.scheduler.mode = engine::parse_batching_mode(mode == "continuous+prefix" ? "continuous" : mode)
                         .value_or(engine::BatchingMode::Continuous);
  c.scheduler.max_num_seqs = f.workload.num_agents;
  c.scheduler.max_num_batched_tokens = f.max_batched_tokens;
  c.scheduler.max_prefill_tokens = f.max_prefill_tokens;
  c.scheduler.max_queue = std::max(1024, f.workload.num_agents);
  c.logger = [](std::string_view line) { spdlog::debug("engine: {}", line); };
  return c;
}

// One row of the table: an in-process mode or an endpoint.
void print_row(const std::string& name, size_t width, const engine::ServeRunStats& r) {
  std::string line =
      fmt::format("{:<{}} {:>7.2f} {:>9.1f} {:>8.1f} {:>8.3f} {:>8.3f} ", name, width, r.requests_per_second,
                  r.prompt_tokens_per_second, r.generated_tokens_per_second, r.ttft_p50, r.ttft_p99);
  if (r.engine_side)
    line += fmt::format("{:>8.3f} {:>8.3f} ", r.queue_p50, r.queue_p99);
  else
    line += fmt::format("{:>8} {:>8} ", "-", "-");
  line += r.prefix_hit_known ? fmt::format("{:>6.3f} ", r.prefix_hit_rate) : fmt::format("{:>6} ", "-");
  if (r.engine_side)
    line += fmt::format("{:>5}/{:<5} {:>5.1f}% {:>5.1f}% {:>7} {:>6}", r.kv_blocks_peak, r.kv_blocks_total,
                        100 * r.kv_waste, 100 * r.kv_waste_per_step, r.preemptions, r.deadline_misses);
  else
    line += fmt::format("{:>11} {:>6} {:>6} {:>7} {:>6}", "-", "-", "-", "-", "-");
  fmt::print("{} {:>6}\n", line, r.failed);
}

// The --modes list ("none": no in-process mode), or a usage error.
std::expected<std::vector<std::string>, std::string> parse_modes(const std::string& text) {
  std::vector<std::string> modes;
  std::stringstream list(text == "none" ? "" : text);
  for (std::string m; std::getline(list, m, ',');) {
    if (m != "sequential" && m != "static" && m != "continuous" && m != "continuous+prefix")
      return std::unexpected(fmt::format("--modes: unknown mode '{}' (known: {})", m, kAllModes));
    modes.push_back(m);
  }
  return modes;
}

// The KV cache bytes of each mode: --kv-memory, or by default every agent's whole conversation
// resident at once plus a block each; a usage error when --kv-memory holds no block.
std::expected<size_t, std::string> kv_budget(const ServeFlags& f, const engine::LoadedModel& model) {
  const auto& w = f.workload;
  // Before any KV is sized: a conversation longer than the model's context.
  if (auto why = engine::serve_workload_context_error(w, model.shape().context_length))
    return std::unexpected(*why);
  const size_t token_bytes = model.kv_bytes_per_token(mode_config("continuous", f, 0).cache);
  const size_t block_bytes = token_bytes * static_cast<size_t>(f.block_size);
  const size_t kv_bytes = token_bytes * static_cast<size_t>(engine::serve_workload_kv_tokens(w)) +
                          block_bytes * static_cast<size_t>(2 * w.num_agents);
  if (f.kv_memory.empty()) return kv_bytes;
  auto bytes = engine::parse_byte_size(f.kv_memory);
  if (!bytes) return std::unexpected("--kv-memory: " + bytes.error().message);
  // 0 would mean "a fraction of the machine's memory" to the engine: not what was asked.
  if (*bytes < block_bytes)
    return std::unexpected(fmt::format(
        "--kv-memory {} holds no KV block: one block of {} tokens takes {} with "
        "this model and dtype (leave --kv-memory out for room for every "
        "conversation, {})",
        f.kv_memory, f.block_size, engine::format_bytes(block_bytes), engine::format_bytes(kv_bytes)));
  return *bytes;
}

// Probes each endpoint and prints what it found; the first one that does not answer is the error.
std::expected<std::vector<std::unique_ptr<HttpServeRun>>, std::string> open_endpoints(
    const std::vector<std::string>& urls, const std::string& routing, const engine::LoadedModel& model,
    const engine::ServeWorkload& workload, std::chrono::milliseconds timeout) {
  const int32_t vocab = std::min(model.shape().vocab_size, model.tokenizer().vocab_size());
  std::vector<std::unique_ptr<HttpServeRun>> http_runs;
  const auto policy = agents::parse_routing(routing).value_or(agents::Routing::PrefixAffinity);
  for (const auto& url : urls) {  // a fleet is one "URL,URL..." item
    auto run =
        HttpServeRun::create(split_endpoints({url}), policy, model.tokenizer(), vocab, workload, timeout);
    if (!run) return std::unexpected(run.error());
    const EndpointInfo& info = (*run)->info();
    fmt::print("endpoint {}: model '{}'{}, {}, context {}\n", url, info.model_id,
               info.owned_by.empty() ? "" : fmt::format(" (owned by {})", info.owned_by), info.route,
               info.context > 0 ? fmt::format("{} ({})", info.context, info.context_source)
                                : std::string("unknown (not checked)"));
    http_runs.push_back(std::move(*run));
  }
  return http_runs;
}

// The runs of one benchmark: the in-process modes and the endpoints, with their names.
struct ServeRuns {
  std::vector<std::string> modes, urls;
  std::vector<std::unique_ptr<engine::ServeWorkloadRun>> runs;  // one per mode
  std::vector<std::unique_ptr<HttpServeRun>> http_runs;         // one per url
};

// Runs the ticks, every run taking its turn at each, so that a drift in the machine's speed
// (other load, clocks) weighs on every mode alike rather than on whichever ran in the slow
// minutes. An error when an in-process request is rejected.
std::expected<void, std::string> run_ticks(ServeRuns& r, int32_t ticks) {
  for (int32_t tick = 0; tick < ticks; ++tick) {
    std::string progress = fmt::format("tick {}/{}:", tick + 1, ticks);
    for (size_t i = 0; i < r.runs.size(); ++i) {
      const auto seconds = r.runs[i]->run_tick();
      if (!seconds) return std::unexpected(fmt::format("{}: {}", r.modes[i], seconds.error().message));
      progress += fmt::format(" {} {:.1f} s", r.modes[i], *seconds);
    }
    for (size_t i = 0; i < r.http_runs.size(); ++i) {
      const int64_t failed_before = r.http_runs[i]->stats().failed;
      const double seconds = r.http_runs[i]->run_tick();
      const int64_t failed = r.http_runs[i]->stats().failed - failed_before;
      progress += fmt::format(" {} {:.1f} s", r.urls[i], seconds);
      if (failed > 0) progress += fmt::format(" ({} failed)", failed);
    }
    fmt::print(stderr, "{}\n", progress);
  }
  return {};
}

// What the report collects: the JSON document, each mode's requests/s, the failures, and the
// figures compared (the reference mode, then every endpoint).
struct ServeReport {
  nlohmann::json out;
  std::map<std::string, double> rps;
  std::vector<std::string> failures;
  std::vector<std::pair<std::string, engine::ServeRunStats>> compared;
};

// The table: a row per mode and per endpoint, then each endpoint's answers and failures.
void print_rows(const ServeRuns& r, size_t width, ServeReport& report) {
  fmt::print("{:<{}} {:>7} {:>9} {:>8} {:>8} {:>8} {:>8} {:>8} {:>6} {:>11} {:>6} {:>6} {:>7} {:>6} {:>6}\n",
             "mode", width, "req/s", "prompt/s", "gen/s", "ttft50", "ttft99", "queue50", "queue99", "hit",
             "kv peak", "waste", "w/step", "preempt", "missed", "failed");
  // Endpoints are compared with continuous+prefix (what `arena serve` runs), else the last mode.
  const bool has_prefix = std::ranges::find(r.modes, "continuous+prefix") != r.modes.end();
  const std::string reference = has_prefix ? "continuous+prefix" : r.modes.empty() ? "" : r.modes.back();
  for (size_t i = 0; i < r.runs.size(); ++i) {
    const auto& mode = r.modes[i];
    const engine::ServeRunStats stats = r.runs[i]->stats();
    print_row(mode, width, stats);
    if (stats.failed > 0)
      report.failures.push_back(
          fmt::format("{}: {} requests did not run to their length", mode, stats.failed));
    report.out["modes"][mode] = to_json(stats);
    report.rps[mode] = stats.requests_per_second;
    if (mode == reference) report.compared.emplace_back(mode, stats);
  }
  for (size_t i = 0; i < r.http_runs.size(); ++i) {
    const engine::ServeRunStats stats = r.http_runs[i]->stats();
    print_row(r.urls[i], width, stats);
    nlohmann::json j = to_json_http(stats);
    const EndpointInfo& info = r.http_runs[i]->info();
    j["model"] = info.model_id;
    j["owned_by"] = info.owned_by;
    j["route"] = info.route;
    j["context"] = info.context;
    j["answers_appended_as"] = r.http_runs[i]->answer_source();
    j["failures"] = r.http_runs[i]->failures();
    report.out["endpoints"][r.urls[i]] = j;
    report.compared.emplace_back(r.urls[i], stats);
  }
  for (size_t i = 0; i < r.http_runs.size(); ++i) {
    const std::string routed = r.http_runs[i]->routing_summary();
    fmt::print("{}: answers appended as {}{}\n", r.urls[i], r.http_runs[i]->answer_source(),
               routed.empty() ? "" : "; " + routed);
    for (const auto& [message, count] : r.http_runs[i]->failures())
      fmt::print("{}: {} failed: {}\n", r.urls[i], count, message);
    if (const int64_t n = r.http_runs[i]->stats().failed; n > 0)
      report.failures.push_back(
          fmt::format("{}: {} of {} requests failed", r.urls[i], n, r.http_runs[i]->stats().num_requests));
  }
}

// The ratios between modes, and of each endpoint against what precedes it (the in-process
// reference mode, earlier endpoints): printed, and returned for the JSON document.
nlohmann::json print_ratios(const std::vector<std::string>& modes, size_t num_endpoints,
                            ServeReport& report) {
  nlohmann::json ratios = nlohmann::json::object();
  auto& rps = report.rps;
  if (rps.contains("sequential")) {
    std::string line = "requests/s vs sequential:";
    for (const auto& mode : modes) {
      if (mode == "sequential") continue;
      const double x = rps[mode] / rps["sequential"];
      ratios[mode + "/sequential"] = x;
      line += fmt::format(" {} {:.2f}x", mode, x);
    }
    fmt::print("{}\n", line);
  }
  if (rps.contains("continuous") && rps.contains("continuous+prefix")) {
    const double x = rps["continuous+prefix"] / rps["continuous"];
    ratios["continuous+prefix/continuous"] = x;
    fmt::print("prefix cache: continuous+prefix {:.2f}x continuous\n", x);
  }
  const auto& compared = report.compared;
  for (size_t b = compared.size() - num_endpoints; b < compared.size(); ++b) {
    for (size_t a = 0; a < b; ++a) {
      const auto& [an, ar] = compared[a];
      const auto& [bn, br] = compared[b];
      auto ratio = [](double x, double y) { return y > 0 ? x / y : 0.0; };
      const double x = ratio(ar.requests_per_second, br.requests_per_second);
      const double t50 = ratio(ar.ttft_p50, br.ttft_p50), t99 = ratio(ar.ttft_p99, br.ttft_p99);
      ratios[an + "/" + bn] = {{"requests_per_s", x}, {"ttft_p50", t50}, {"ttft_p99", t99}};
      fmt::print("{} vs {}: requests/s {:.2f}x, TTFT p50 {:.2f}x, p99 {:.2f}x\n", an, bn, x, t50, t99);
    }
  }
  return ratios;
}

// The JSON document's settings part (results are added under "modes", "endpoints", "ratios").
nlohmann::json settings_json(const ServeFlags& f, size_t kv_bytes) {
  const auto& w = f.workload;
  return {{"model", f.model},
          {"workload",
           {{"agents", w.num_agents},
            {"system_tokens", w.system_tokens},
            {"prompt_tokens", w.prompt_tokens},
            {"gen_tokens", w.gen_tokens},
            {"ticks", w.ticks},
            {"deadline_ms", f.deadline_ms}}},
          {"max_batched_tokens", f.max_batched_tokens},
          {"max_prefill_tokens", f.max_prefill_tokens},
          {"block_size", f.block_size},
          {"kv_cache_bytes", kv_bytes},
          {"kv_dtype", f.kv_dtype},
          {"modes", nlohmann::json::object()},
          {"endpoints", nlohmann::json::object()}};
}

int run_bench_serve(const ServeFlags& f) {
  ServeRuns r;
  auto modes = parse_modes(f.modes);
  if (!modes) return usage_error("bench serve", modes.error());
  r.modes = std::move(*modes);
  r.urls = split_endpoints(f.endpoints);
  if (r.modes.empty() && r.urls.empty())
    return usage_error("bench serve", "--modes none needs at least one --endpoint");
  for (const auto& url : r.urls)
    if (auto error = endpoint_url_error(url)) return usage_error("bench serve", *error);
  if (!f.routing.empty() && !r.urls.empty()) r.urls = {join_endpoints(r.urls)};
  if (!std::filesystem::exists(f.model)) {
    if (f.model != kDefaultModel) return fail(fmt::format("model file {} not found", f.model));
    if (!make_default_model(f.model)) return 1;
  }
  engine::ModelOptions options;
  options.num_threads = f.threads;
  auto model = engine::LoadedModel::open(f.model, options);
  if (!model) return fail(model.error().message);
  const auto kv_bytes = kv_budget(f, **model);
  if (!kv_bytes) return usage_error("bench serve", kv_bytes.error());
  const auto& w = f.workload;
  engine::ServeWorkload workload = w;
  workload.deadline_seconds = f.deadline_ms / 1e3;

  // The endpoints first: a server that does not answer fails the run before any work.
  const auto timeout = std::chrono::milliseconds(static_cast<int64_t>(f.request_timeout_s * 1e3));
  auto http_runs = open_endpoints(r.urls, f.routing, **model, workload, timeout);
  if (!http_runs) return fail(http_runs.error());
  r.http_runs = std::move(*http_runs);
  const auto& s = (*model)->shape();
  fmt::print(
      "model {} ({} {} layers, embd {}, vocab {}); {} agents x {} ticks, system {} + {} new tokens per "
      "tick, {} generated; KV {} ({}, blocks of {}), max {} tokens per step ({} prompt tokens)\n",
      f.model, s.arch, s.num_layers, s.embedding_dim, s.vocab_size, w.num_agents, w.ticks, w.system_tokens,
      w.prompt_tokens, w.gen_tokens, engine::format_bytes(*kv_bytes), f.kv_dtype, f.block_size,
      f.max_batched_tokens, f.max_prefill_tokens);
  for (const auto& mode : r.modes) {
    auto run = engine::ServeWorkloadRun::create(**model, mode_config(mode, f, *kv_bytes), workload);
    if (!run) return fail(fmt::format("{}: {}", mode, run.error().message));
    r.runs.push_back(std::move(*run));
  }
  if (auto ran = run_ticks(r, w.ticks); !ran) return fail(ran.error());

  size_t width = 18;
  for (const auto& url : r.urls) width = std::max(width, url.size());
  ServeReport report{settings_json(f, *kv_bytes), {}, {}, {}};
  print_rows(r, width, report);
  report.out["ratios"] = print_ratios(r.modes, r.http_runs.size(), report);
  if (!f.json.empty()) {
    std::ofstream file(f.json);
    file << report.out.dump(2) << "\n";
    if (!file) return fail(fmt::format("cannot write {}", f.json));
  }
  for (const auto& message : report.failures) fail(message);
  return report.failures.empty() ? 0 : 1;
}

}  // namespace

void add_bench_serve(CLI::App& bench, Action& action) {
  auto flags = std::make_shared<ServeFlags>();
  auto* cmd = bench.add_subcommand(
      "serve",
      "Serving engine under a synthetic agent workload: sequential, static, continuous, +prefix cache");
  ServeFlags& f = *flags;
  cmd->add_option("--model", f.model,
                  std::string("GGUF model file (default ") + kDefaultModel +
                      ", written with the synth library when missing)");
  cmd->add_option("--agents", f.workload.num_agents, "Agents, each asking once per tick")
      ->check(CLI::Range(1, 4096));
  cmd->add_option("--system-tokens", f.workload.system_tokens, "Shared system prompt tokens")
      ->check(CLI::Range(0, 1 << 20));
  cmd->add_option("--prompt-tokens", f.workload.prompt_tokens, "New unique prompt tokens per agent per tick")
      ->check(CLI::Range(1, 1 << 20));
  cmd->add_option("--gen-tokens", f.workload.gen_tokens, "Generated tokens per request")
      ->check(CLI::Range(1, 1 << 16));
  cmd->add_option("--ticks", f.workload.ticks, "Ticks (rounds of one request per agent)")
      ->check(CLI::Range(1, 10000));
  cmd->add_option(
      "--modes", f.modes,
      std::string("Comma-separated modes to run (default ") + kAllModes + "; none: only the endpoints)");
  cmd->add_option("--max-batched-tokens", f.max_batched_tokens, "Token budget per step")
      ->check(CLI::Range(1, 1 << 20));
  cmd->add_option(
         "--max-prefill-tokens", f.max_prefill_tokens,
         "Prompt tokens per step at most, most urgent first (0 = only --max-batched-tokens limits them)")
      ->check(CLI::Range(0, 1 << 20));
  cmd->add_option("--block-size", f.block_size, "Tokens per KV block")->check(CLI::Range(1, 1024));
  cmd->add_option("--threads", f.threads, "Compute threads (0 = all cores)")->check(CLI::NonNegativeNumber);
  cmd->add_option("--kv-dtype", f.kv_dtype, "KV cache value type: f16 (default), q8_0 or f32")
      ->check(CLI::IsMember(engine::kv_dtype_names()));
  cmd->add_option("--kv-memory", f.kv_memory,
                  "KV cache size, e.g. 512MiB (default: every conversation fits)");
  cmd->add_option("--deadline-ms", f.deadline_ms, "Per-request deadline after submission (0 = none)")
      ->check(number_at_least(0));
  cmd->add_option("--seed", f.workload.seed, "Seed of the synthetic prompts");
  cmd->add_option(
      "--endpoint", f.endpoints,
      "An OpenAI-compatible server (http://HOST:PORT; repeatable or a comma list) to run the same "
      "workload against over /v1/completions, taking turns with the modes");
  cmd->add_option("--routing", f.routing, "The endpoints are one fleet, each request routed by this policy")
      ->check(CLI::IsMember({"prefix_affinity", "least_loaded", "round_robin"}));
  cmd->add_option("--request-timeout", f.request_timeout_s,
                  "Seconds an endpoint's request may take, connect to last byte (default 300)")
      ->check(number_in(0.001, 86400));
  cmd->add_option("--json", f.json, "Also write the results as one JSON object to this file");
  cmd->callback([flags, &action] { action = [flags] { return run_bench_serve(*flags); }; });
}

}  // namespace arena::cli
