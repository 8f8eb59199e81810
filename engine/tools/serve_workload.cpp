// The synthetic agent workload: the conversations of N agents and their run on an Engine,
// ticks of N concurrent requests with growing conversations.
#include "engine/tools/serve_workload.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <random>
#include <vector>

#include "engine/model/language_model.h"

namespace engine {

int64_t serve_workload_kv_tokens(const ServeWorkload& w) {
  const int64_t per_agent = w.system_tokens + int64_t{w.ticks} * (w.prompt_tokens + w.gen_tokens);
  return int64_t{w.num_agents} * per_agent;
}

int64_t serve_workload_context_tokens(const ServeWorkload& w) {
  return w.system_tokens + int64_t{w.ticks} * (w.prompt_tokens + w.gen_tokens);
}

std::optional<std::string> serve_workload_context_error(const ServeWorkload& w, int64_t context) {
  const int64_t need = serve_workload_context_tokens(w);
  if (context <= 0 || need <= context) return std::nullopt;
  return fmt::format(
      "every agent needs {} tokens of context (system {} + {} ticks x ({} new + {} generated)), more than "
      "the model's context of {}: give fewer tokens or ticks",
      need, w.system_tokens, w.ticks, w.prompt_tokens, w.gen_tokens, context);
}

double serve_quantile(std::vector<double> values, double q) {
  if (values.empty()) return 0;
  std::ranges::sort(values);
  const auto rank = static_cast<size_t>(std::ceil(q * static_cast<double>(values.size())));
  return values[std::clamp<size_t>(rank, 1, values.size()) - 1];
}

ServeConversations::ServeConversations(const Tokenizer& tokenizer, int32_t vocab,
                                       const ServeWorkload& workload)
    : tokenizer_(tokenizer), vocab_(vocab), rng_(workload.seed), workload_(workload) {
  std::vector<TokenId> system;
  append_random(system, workload.system_tokens);
  conversations_.assign(static_cast<size_t>(workload.num_agents), system);
}

void ServeConversations::append_random(std::vector<TokenId>& out, int32_t n) {
  std::uniform_int_distribution<TokenId> pick(0, vocab_ - 1);
  for (int32_t i = 0; i < n;) {
    const TokenId id = pick(rng_);
    if (tokenizer_.is_control(id) || tokenizer_.is_end_of_generation(id)) continue;
    out.push_back(id);
    ++i;
  }
}

const std::vector<std::vector<TokenId>>& ServeConversations::next_tick() {
  for (auto& conv : conversations_) append_random(conv, workload_.prompt_tokens);
  return conversations_;
}

void ServeConversations::append_answer(size_t agent, std::span<const TokenId> answer) {
  auto& conv = conversations_.at(agent);
  conv.insert(conv.end(), answer.begin(), answer.end());
}

std::expected<std::unique_ptr<ServeWorkloadRun>, Error> ServeWorkloadRun::create(
    LanguageModel& model, const Tokenizer& tokenizer, const EngineConfig& config,
    const ServeWorkload& workload) {
  auto engine = Engine::create(model, tokenizer, config);
  if (!engine) return std::unexpected(engine.error());
  const int32_t vocab = std::min(model.shape().vocab_size, tokenizer.vocab_size());
  return std::unique_ptr<ServeWorkloadRun>(
      new ServeWorkloadRun(std::move(*engine), tokenizer, vocab, workload));
}

std::expected<std::unique_ptr<ServeWorkloadRun>, Error> ServeWorkloadRun::create(
    LoadedModel& model, const EngineConfig& config, const ServeWorkload& workload) {
  auto engine = model.create_engine(config);
  if (!engine) return std::unexpected(engine.error());
  const int32_t vocab = std::min(model.shape().vocab_size, model.tokenizer().vocab_size());
  return std::unique_ptr<ServeWorkloadRun>(
      new ServeWorkloadRun(std::move(*engine), model.tokenizer(), vocab, workload));
}

ServeWorkloadRun::ServeWorkloadRun(std::unique_ptr<Engine> engine, const Tokenizer& tokenizer, int32_t vocab,
                                   const ServeWorkload& workload)
    : engine_(std::move(engine)), conversations_(tokenizer, vocab, workload), workload_(workload) {}

std::expected<double, Error> ServeWorkloadRun::run_tick() {
  const auto start = Clock::now();
  std::vector<RequestHandle> handles;
  for (const auto& conv : conversations_.next_tick()) {
    GenerateRequest r;
    r.prompt_tokens = conv;
    r.sampling.max_tokens = workload_.gen_tokens;
    r.sampling.ignore_eos = true;
    if (workload_.deadline_seconds > 0)
      r.deadline = Clock::now() + std::chrono::duration_cast<Clock::duration>(
                                      std::chrono::duration<double>(workload_.deadline_seconds));
    auto h = engine_->submit(std::move(r));
    if (!h) return std::unexpected(h.error());
    totals_.prompt_tokens += static_cast<int64_t>(conv.size());
    handles.push_back(std::move(*h));
  }
  for (size_t a = 0; a < handles.size(); ++a) {
    const GenerateResult r = handles[a].wait();
    if (r.reason != FinishReason::Length) ++totals_.failed;
    ttft_.push_back(r.ttft_seconds);
    queue_.push_back(r.queue_seconds);
    totals_.generated_tokens += static_cast<int64_t>(r.tokens.size());
    conversations_.append_answer(a, r.tokens);
    ++totals_.num_requests;
  }
  const double seconds = std::chrono::duration<double>(Clock::now() - start).count();
  totals_.seconds += seconds;
  return seconds;
}

ServeRunStats ServeWorkloadRun::stats() const {
  ServeRunStats stats = totals_;
  const MetricsSnapshot m = engine_->metrics();
  const double seconds = std::max(stats.seconds, 1e-9);
  stats.requests_per_second = static_cast<double>(stats.num_requests) / seconds;
  stats.prompt_tokens_per_second = static_cast<double>(stats.prompt_tokens) / seconds;
  stats.generated_tokens_per_second = static_cast<double>(stats.generated_tokens) / seconds;
  stats.ttft_p50 = serve_quantile(ttft_, 0.5);
  stats.ttft_p99 = serve_quantile(ttft_, 0.99);
  stats.queue_p50 = serve_quantile(queue_, 0.5);
  stats.queue_p99 = serve_quantile(queue_, 0.99);
  stats.prefix_hit_rate = m.prefix_hit_rate();
  stats.kv_blocks_peak = m.kv_blocks_peak;
  stats.kv_blocks_total = m.kv_blocks_total;
  stats.kv_waste = m.kv_waste();
  stats.kv_waste_per_step = m.kv_waste_per_step();
  stats.preemptions = m.num_preemptions;
  stats.deadline_misses = m.deadline_misses;
  return stats;
}

}  // namespace engine
