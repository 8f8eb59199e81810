// The serving core's step: schedule, forward, sample, stop checks, outputs and metrics.
#include "engine/core/engine_core.h"

#include <fmt/format.h>

#include <algorithm>
#include <cassert>
#include <chrono>
#include <cmath>

namespace engine {

namespace {

double seconds(Clock::duration d) {
  return std::chrono::duration<double>(d).count();
}

}  // namespace

EngineCore::EngineCore(LanguageModel& model, const Tokenizer& tokenizer, const EngineConfig& config,
                       KvBlocks blocks)
    : config_(config),
      model_(model),
      tokenizer_(tokenizer),
      pieces_(tokenizer, std::min(tokenizer.vocab_size(), model.shape().vocab_size)),
      sample_vocab_(std::min(tokenizer.vocab_size(), model.shape().vocab_size)),
      cache_(kv_cache_shape(model.shape(), config.cache), blocks.blocks, blocks.window_blocks),
      pool_(blocks.blocks, config.cache.block_size),
      window_pool_(std::max(0, blocks.window_blocks - 1), config.cache.block_size),  // the last: zeros
      kv_(pool_, config.cache.enable_prefix_cache, blocks.window_blocks > 0 ? &window_pool_ : nullptr,
          model.shape().sliding_window),
      scheduler_(config.scheduler, kv_),
      runner_(model, cache_) {
  assert(blocks.window_blocks == 0 || (model.shape().num_sliding_layers() > 0 &&
                                       blocks.window_blocks >= min_window_blocks(model.shape(), config)));
  metrics_.kv_blocks_total = blocks.blocks;
  metrics_.kv_window_blocks_total = window_pool_.num_blocks();
}

void EngineCore::log(std::string_view message) const {
  if (config_.logger) config_.logger(message);
}

std::expected<std::unique_ptr<Sequence>, Error> EngineCore::make_sequence(SeqId id,
                                                                          const GenerateRequest& request,
                                                                          Clock::time_point arrival) const {
  std::vector<TokenId> prompt = request.prompt_tokens;
  if (prompt.empty()) {
    if (request.prompt.empty())
      return std::unexpected(Error{"the request has neither prompt text nor prompt tokens"});
    prompt = tokenizer_.encode(request.prompt, /*add_special=*/true, /*parse_special=*/true);
    if (prompt.empty()) return std::unexpected(Error{"the prompt text encodes to no tokens"});
  }
  const int64_t num_prompt = static_cast<int64_t>(prompt.size());
  const int32_t context = model_.shape().context_length;
  if (context > 0 && num_prompt > context)
    return std::unexpected(Error{fmt::format(
        "prompt of {} tokens exceeds the model's context of {}; shorten it", num_prompt, context)});
  if (context > 0 && num_prompt == context)
    return std::unexpected(Error{
        fmt::format("prompt of {} tokens fills the model's context of {}: no room for an answer; shorten it",
                    num_prompt, context)});
  const int32_t vocab = model_.shape().vocab_size;
  for (size_t i = 0; i < prompt.size(); ++i)
    if (prompt[i] < 0 || prompt[i] >= vocab)
      return std::unexpected(Error{fmt::format(
          "prompt token {} at position {} is outside the vocabulary [0, {})", prompt[i], i, vocab)});
  if (auto bad = validate(request.sampling)) return std::unexpected(Error{bad->message});

  int64_t needed = num_prompt + request.sampling.max_tokens;
  if (context > 0) needed = std::min<int64_t>(needed, context);
  if (needed > cache_capacity_tokens())
    return std::unexpected(
        Error{fmt::format("the request needs up to {} tokens of KV cache (prompt {} + max_tokens {}) but the "
                          "whole cache holds {}; "
                          "lower max_tokens or raise the KV cache budget",
                          needed, num_prompt, request.sampling.max_tokens, cache_capacity_tokens())});

  auto seq = std::make_unique<Sequence>(id, std::move(prompt), request.sampling, arrival);
  seq->priority = request.priority;
  seq->deadline = request.deadline;
  if (!request.allowed_completions.empty()) {
    auto trie = CompletionTrie::build(request.allowed_completions);
    if (!trie) return std::unexpected(trie.error());
    seq->constraint.emplace(std::move(*trie));
    const int32_t fewest = seq->constraint->min_tokens_to_complete(pieces_);
    if (fewest == Constraint::kUnreachable)
      return std::unexpected(Error{"no allowed completion can be spelled with the model's tokens"});
    if (fewest > request.sampling.max_tokens)
      return std::unexpected(
          Error{fmt::format("max_tokens is {} but the shortest allowed completion needs {} tokens",
                            request.sampling.max_tokens, fewest)});
  }
  return seq;
}

void EngineCore::add(std::unique_ptr<Sequence> seq) {
  Sequence& s = *seq;
  seqs_.emplace(s.id(), std::move(seq));
  if (s.constraint) {
    // A constraint with a single possible start is spelled out before anything runs.
    bool stop_string = false;
    const bool complete = jump_forward(s, stop_string);
    if (!s.pending_tokens.empty()) s.first_token = s.last_token = Clock::now();
    if (complete || stop_string) {
      pending_.push_back(collect(s, FinishReason::Stop));
      return;
    }
    if (s.num_output_tokens() >= s.sampling.max_tokens) {
      pending_.push_back(collect(s, FinishReason::Length));
      return;
    }
  }
  scheduler_.add(&s);
  metrics_.num_requests_waiting = scheduler_.num_waiting();
}

std::optional<RequestOutput> EngineCore::cancel(SeqId id) {
  auto it = seqs_.find(id);
  if (it == seqs_.end()) return std::nullopt;
  return collect(*it->second, FinishReason::Cancelled);
}

std::vector<RequestOutput> EngineCore::cancel_all() {
  std::vector<SeqId> ids;
  for (const auto& [id, seq] : seqs_) ids.push_back(id);
  std::ranges::sort(ids);
  std::vector<RequestOutput> outputs = std::move(pending_);
  pending_.clear();
  for (SeqId id : ids) outputs.push_back(*cancel(id));
  return outputs;
}

void EngineCore::append_output(Sequence& seq, TokenId token, bool& hit_stop_string) {
  seq.append_token(token);
  seq.pending_tokens.push_back(token);
  const std::string& piece = pieces_.piece(token);
  if (seq.text.append(piece)) hit_stop_string = true;
  if (seq.constraint) {
    [[maybe_unused]] const bool inside = seq.constraint->advance(piece);
    assert(inside && "only allowed tokens are appended to a constrained sequence");
  }
  ++metrics_.generation_tokens;
}

bool EngineCore::jump_forward(Sequence& seq, bool& hit_stop_string) {
  Constraint& constraint = *seq.constraint;
  const std::string forced = constraint.forced_text();
  if (forced.empty()) return false;
  const std::vector<TokenId> ids = tokens_spelling(forced, tokenizer_, pieces_);
  // Forced tokens count against max_tokens. When this spelling would leave too few tokens to
  // finish an allowed string, the budget-aware mask spells the text by sampling instead.
  const int64_t room = seq.sampling.max_tokens - seq.num_output_tokens();
  const int32_t rest = constraint.min_tokens_after(pieces_, forced);
  if (ids.empty() || rest == Constraint::kUnreachable || static_cast<int64_t>(ids.size()) + rest > room)
    return false;
  // They are prefilled in the next step, like any token not yet computed.
  for (TokenId id : ids) append_output(seq, id, hit_stop_string);
  return constraint.is_finished();
}

std::optional<Finish> EngineCore::advance(Sequence& seq, std::span<const float> logits) {
  std::vector<TokenId> allowed;
  if (seq.constraint) {
    allowed = seq.constraint->allowed_tokens(pieces_, seq.sampling.max_tokens - seq.num_output_tokens());
    if (allowed.empty())
      return Finish(FinishReason::Error,
                    "no token of the vocabulary continues the output toward an allowed completion");
  }
  const auto token =
      sampler_.sample(logits.first(static_cast<size_t>(sample_vocab_)), seq.sampling, allowed, seq.rng);
  if (!token) return Finish(FinishReason::Error, "the model's logits hold no finite value");
  bool stop_string = false;
  append_output(seq, *token, stop_string);
  const SamplingParams& p = seq.sampling;
  if (seq.constraint) {
    // End-of-generation is only allowed once the output is complete.
    if (tokenizer_.is_end_of_generation(*token) || seq.constraint->is_finished()) return FinishReason::Stop;
    if (jump_forward(seq, stop_string)) return FinishReason::Stop;
  } else if (!p.ignore_eos && tokenizer_.is_end_of_generation(*token)) {
    return FinishReason::Stop;
  }
  if (std::ranges::find(p.stop_token_ids, *token) != p.stop_token_ids.end() || stop_string)
    return FinishReason::Stop;
  if (seq.num_output_tokens() >= p.max_tokens) return FinishReason::Length;
  const int32_t context = model_.shape().context_length;
  if (context > 0 && seq.num_tokens() >= context) return FinishReason::Length;
  return std::nullopt;
}

RequestOutput EngineCore::collect(Sequence& seq, std::optional<Finish> finish) {
  RequestOutput out;
  out.id = seq.id();
  out.tokens = std::move(seq.pending_tokens);
  seq.pending_tokens.clear();
  out.text = finish ? seq.text.take_rest() : seq.text.take_ready();
  if (!finish) return out;
  const FinishReason reason = finish->reason;

  const auto now = Clock::now();
  GenerateResult r;
  r.id = seq.id();
  r.reason = reason;
  r.error = std::move(finish->error);
  r.tokens.assign(seq.output_tokens().begin(), seq.output_tokens().end());
  r.text = seq.text.text();
  r.num_prompt_tokens = seq.num_prompt_tokens();
  r.num_cached_prompt_tokens = std::max(0, seq.num_cached_prompt_tokens);
  r.num_preemptions = seq.num_preemptions;
  if (seq.first_scheduled) r.queue_seconds = seconds(*seq.first_scheduled - seq.arrival);
  if (seq.first_token) r.ttft_seconds = seconds(*seq.first_token - seq.arrival);
  r.total_seconds = seconds(now - seq.arrival);
  r.deadline_missed = seq.deadline && now > *seq.deadline;
  out.result = std::move(r);

  switch (reason) {
    case FinishReason::Stop:
    case FinishReason::Length:
      ++metrics_.num_requests_finished;
      metrics_.e2e_latency.observe(out.result->total_seconds);
      break;
    case FinishReason::Cancelled:
      ++metrics_.num_requests_cancelled;
      break;
    case FinishReason::Error:
      ++metrics_.num_requests_failed;
      break;
  }
  if (out.result->deadline_missed) ++metrics_.deadline_misses;
  scheduler_.remove(&seq);  // its computed full blocks were cached in update_after_step
  seqs_.erase(seq.id());
  metrics_.num_requests_running = scheduler_.num_running();
  metrics_.num_requests_waiting = scheduler_.num_waiting();
  metrics_.kv_blocks_used = pool_.num_used();
  metrics_.kv_window_blocks_used = window_pool_.num_used();
  return out;
}

std::vector<RequestOutput> EngineCore::step() {
  std::vector<RequestOutput> outputs = std::move(pending_);
  pending_.clear();
  const SchedulerOutput out = scheduler_.schedule();
  const auto start = Clock::now();
  for (SeqId id : out.preempted)
    log(fmt::format("preempted request {} (KV cache full: {} of {} blocks in use); it will be recomputed",
                    id.value, pool_.num_used(), pool_.num_blocks()));
  for (SeqId id : out.displaced)
    log(
        fmt::format("preempted request {} for a more urgent one (earlier deadline or smaller priority "
                    "value); it will be recomputed",
                    id.value));
  metrics_.num_preemptions = scheduler_.num_preemptions();
  metrics_.prefix_cache_queries += out.num_prefix_queries;
  metrics_.prefix_cache_hits += out.num_prefix_hits;
  for (SeqId id : out.admitted) {
    Sequence& seq = *seqs_.at(id);
    if (seq.first_scheduled) continue;  // re-admitted after a preemption
    seq.first_scheduled = start;
    metrics_.queue_time.observe(seconds(start - seq.arrival));
    metrics_.prompt_tokens += seq.num_prompt_tokens();
  }

  if (out.empty() && scheduler_.num_running() == 0 && scheduler_.num_waiting() > 0) {
    // Nothing runs and the most urgent request cannot be admitted into an otherwise empty
    // cache: it can never fit (make_sequence refuses such requests; this guards the loop).
    Sequence& head = *scheduler_.next_waiting();
    const int64_t tokens = head.num_tokens();
    outputs.push_back(
        collect(head, Finish(FinishReason::Error,
                             fmt::format("the request needs {} tokens of KV cache; the whole cache holds {}",
                                         tokens, cache_capacity_tokens()))));
  }
  if (!out.empty()) {
    const auto logits = runner_.execute(out);
    scheduler_.update_after_step(out);
    const auto done = Clock::now();

    // KV waste: allocated slots past each running sequence's computed tokens (full blocks,
    // shared or not, hold tokens in every slot; only a sequence's tail block can be partial).
    const int32_t bs = pool_.block_size();
    int64_t empty = 0;
    for (const Sequence* seq : scheduler_.running())
      empty += static_cast<int64_t>(seq->kv.block_table.size()) * bs - seq->num_computed_tokens;
    const int64_t allocated = int64_t{pool_.num_used()} * bs;
    const double duration = seconds(done - start);
    metrics_.kv_slots_allocated += allocated;
    metrics_.kv_slots_empty += empty;
    metrics_.kv_slot_seconds += duration * static_cast<double>(allocated);
    metrics_.kv_empty_slot_seconds += duration * static_cast<double>(empty);
    metrics_.kv_blocks_peak = std::max(metrics_.kv_blocks_peak, pool_.num_used());
    ++metrics_.num_steps;
    metrics_.batch_size.observe(static_cast<double>(out.seqs.size()));
    metrics_.iteration_tokens.observe(static_cast<double>(out.num_batched_tokens));

    const size_t vocab = static_cast<size_t>(runner_.vocab_size());
    size_t row = 0;
    for (const auto& s : out.seqs) {
      if (!s.needs_logits) continue;
      Sequence& seq = *s.seq;
      const auto row_logits = logits.subspan(row++ * vocab, vocab);
      if (observer_) observer_(seq.id(), seq.num_output_tokens(), row_logits);
      auto finish = advance(seq, row_logits);
      if (!seq.first_token) {
        seq.first_token = done;
        metrics_.time_to_first_token.observe(seconds(done - seq.arrival));
      } else if (seq.last_token) {
        metrics_.inter_token_latency.observe(seconds(done - *seq.last_token));
      }
      seq.last_token = done;
      outputs.push_back(collect(seq, std::move(finish)));
    }
  }
  metrics_.num_requests_running = scheduler_.num_running();
  metrics_.num_requests_waiting = scheduler_.num_waiting();
  metrics_.kv_blocks_used = pool_.num_used();
  metrics_.kv_window_blocks_used = window_pool_.num_used();
  return outputs;
}

}  // namespace engine
