// The synthetic agent workload: ticks of N concurrent requests with growing conversations.
#include "engine/core/serve_workload.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <random>
#include <vector>

namespace engine {

namespace {

// The q-quantile of `values` (nearest rank; 0 when empty).
double quantile(std::vector<double> values, double q) {
  if (values.empty()) return 0;
  std::ranges::sort(values);
  const auto rank = static_cast<size_t>(std::ceil(q * static_cast<double>(values.size())));
  return values[std::clamp<size_t>(rank, 1, values.size()) - 1];
}

// Random ordinary-text token ids (no control or end-of-generation tokens).
class TokenSource {
 public:
  TokenSource(const Tokenizer& tokenizer, int32_t vocab, uint64_t seed)
      : tokenizer_(tokenizer), pick_(0, vocab - 1), rng_(seed) {}
  void append(std::vector<TokenId>& out, int32_t n) {
    for (int32_t i = 0; i < n;) {
      const TokenId id = pick_(rng_);
      if (tokenizer_.is_control(id) || tokenizer_.is_end_of_generation(id)) continue;
      out.push_back(id);
      ++i;
    }
  }

 private:
  const Tokenizer& tokenizer_;
  std::uniform_int_distribution<TokenId> pick_;
  std::mt19937_64 rng_;
};

}  // namespace

int64_t serve_workload_kv_tokens(const ServeWorkload& w) {
  const int64_t per_agent = w.system_tokens + int64_t{w.ticks} * (w.prompt_tokens + w.gen_tokens);
  return int64_t{w.num_agents} * per_agent;
}

std::expected<ServeRunStats, Error> run_serve_workload(LanguageModel& model, const Tokenizer& tokenizer,
                                                       const EngineConfig& config, const ServeWorkload& w) {
  auto engine = Engine::create(model, tokenizer, config);
  if (!engine) return std::unexpected(engine.error());
  const int32_t vocab = std::min(model.shape().vocab_size, tokenizer.vocab_size());
  TokenSource source(tokenizer, vocab, w.seed);
  std::vector<TokenId> system;
  source.append(system, w.system_tokens);
  std::vector<std::vector<TokenId>> conversation(static_cast<size_t>(w.num_agents), system);

  ServeRunStats stats;
  std::vector<double> ttft, queue;
  const auto start = Clock::now();
  for (int32_t tick = 0; tick < w.ticks; ++tick) {
    std::vector<RequestHandle> handles;
    for (auto& conv : conversation) {
      source.append(conv, w.prompt_tokens);
      GenerateRequest r;
      r.prompt_tokens = conv;
      r.sampling.max_tokens = w.gen_tokens;
      r.sampling.ignore_eos = true;
      if (w.deadline_seconds > 0)
        r.deadline = Clock::now() + std::chrono::duration_cast<Clock::duration>(
                                        std::chrono::duration<double>(w.deadline_seconds));
      auto h = (*engine)->submit(std::move(r));
      if (!h) return std::unexpected(h.error());
      stats.prompt_tokens += static_cast<int64_t>(conv.size());
      handles.push_back(std::move(*h));
    }
    for (size_t a = 0; a < handles.size(); ++a) {
      const GenerateResult r = handles[a].wait();
      if (r.reason != FinishReason::Length) ++stats.failed;
      ttft.push_back(r.ttft_seconds);
      queue.push_back(r.queue_seconds);
      stats.generated_tokens += static_cast<int64_t>(r.tokens.size());
      conversation[a].insert(conversation[a].end(), r.tokens.begin(), r.tokens.end());
      ++stats.num_requests;
    }
  }
  stats.seconds = std::chrono::duration<double>(Clock::now() - start).count();
  const MetricsSnapshot m = (*engine)->metrics();
  stats.requests_per_second = static_cast<double>(stats.num_requests) / stats.seconds;
  stats.prompt_tokens_per_second = static_cast<double>(stats.prompt_tokens) / stats.seconds;
  stats.generated_tokens_per_second = static_cast<double>(stats.generated_tokens) / stats.seconds;
  stats.ttft_p50 = quantile(ttft, 0.5);
  stats.ttft_p99 = quantile(ttft, 0.99);
  stats.queue_p50 = quantile(queue, 0.5);
  stats.queue_p99 = quantile(queue, 0.99);
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
