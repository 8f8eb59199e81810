// The step scheduler: running sequences catch up within the token budget, then admissions.
#include "engine/core/scheduler.h"

#include <algorithm>
#include <cassert>
#include <unordered_set>

namespace engine {

bool Scheduler::outranks(const Sequence& a, const Sequence& b) {
  const auto never = Clock::time_point::max();
  const auto da = a.deadline.value_or(never), db = b.deadline.value_or(never);
  return da != db ? da < db : a.priority < b.priority;
}

bool Scheduler::Urgency::operator()(const Sequence* a, const Sequence* b) const {
  if (outranks(*a, *b)) return true;
  if (outranks(*b, *a)) return false;
  return a->id() < b->id();
}

Scheduler::Scheduler(const SchedulerConfig& config, KvCacheManager& kv)
    : config_(config), kv_(kv), admission_(make_admission_policy(config)) {
  config_.max_num_seqs = admission_->max_num_seqs(config_.max_num_seqs);
}

void Scheduler::add(Sequence* seq) {
  assert(seq->num_computed_tokens == 0 && seq->kv.block_table.empty());
  seq->status = SeqStatus::Waiting;
  waiting_.insert(seq);
}

void Scheduler::remove(Sequence* seq) {
  if (seq->status == SeqStatus::Waiting) {
    waiting_.erase(seq);
  } else if (seq->status == SeqStatus::Running) {
    std::erase(running_, seq);
  }
  kv_.free(*seq);
  seq->status = SeqStatus::Finished;
}

void Scheduler::insert_running(Sequence* seq) {
  running_.insert(std::ranges::upper_bound(running_, seq, Urgency{}), seq);
}

void Scheduler::preempt(Sequence* seq, std::vector<SeqId>& record) {
  // Preemption by recompute: drop the KV (its full blocks stay cached until evicted) and queue
  // the sequence again with all its tokens, the generated ones included.
  kv_.free(*seq);
  seq->num_computed_tokens = 0;
  seq->status = SeqStatus::Waiting;
  ++seq->num_preemptions;
  ++num_preemptions_;
  waiting_.insert(seq);
  record.push_back(seq->id());
  admission_->on_preempt();
}

void Scheduler::displace_for(const Sequence& urgent, SchedulerOutput& out) {
  if (running_.empty() || !outranks(urgent, *running_.back())) return;  // the common case, cheaply
  const CachedPrefix hit = kv_.find_cached_prefix(urgent);
  const int32_t first_chunk = std::min(urgent.num_tokens() - hit.num_tokens, config_.max_num_batched_tokens);
  while (!running_.empty() && outranks(urgent, *running_.back()) &&
         (num_running() >= config_.max_num_seqs || !kv_.can_allocate(urgent, first_chunk, &hit))) {
    Sequence* victim = running_.back();
    running_.pop_back();
    preempt(victim, out.displaced);
  }
}

bool Scheduler::may_admit() const {
  return static_cast<int32_t>(running_.size()) < config_.max_num_seqs && admission_->may_admit();
}

struct Scheduler::Step {
  Step(const SchedulerConfig& config, const KvCacheManager& kv, const std::set<Sequence*, Urgency>& waiting)
      : budget(config.max_num_batched_tokens),
        prefill_left(config.max_prefill_tokens > 0 ? config.max_prefill_tokens : budget),
        prefill_cap(prefill_left),
        block(kv.block_size()),
        kv(kv),
        waiting(waiting) {}

  // The tokens a sequence with `computed` tokens in the cache gets now: all it lacks, within the
  // step's budget and, for a prompt chunk (more than the one token a decode computes), within the
  // prompt tokens left. A chunk that stops short of the end stops at a block boundary, so that
  // its tail block is full while it waits for the next step (the tokens cut off start the next
  // chunk: no slot is held empty across steps); when what is left of the step does not reach
  // the next boundary, it waits for the next step's allowance, unless nothing else had prompt
  // tokens this step (progress whatever the budget; an allowance smaller than a block is used as
  // it is).
  int32_t grant(int32_t computed, int32_t lacking) const {
    int32_t n = std::min(lacking, budget);
    if (lacking > 1) n = std::min(n, prefill_left);
    if (n < lacking && prefill_cap >= block) {
      if (const int32_t end = (computed + n) / block * block; end > computed)
        n = end - computed;
      else if (prefill_left < prefill_cap)  // others have had prompt tokens this step
        n = 0;
    }
    return n;
  }

  // `seq` runs `n` tokens this step. The full blocks they complete are noted: a waiting sequence
  // whose next block is among them waits one step and then finds it cached, instead of computing
  // it a second time in the same step (a shared system prompt arriving with many requests at
  // once is computed once).
  void record(Sequence* seq, int32_t n, bool prompt_chunk) {
    if (!waiting.empty())  // else nobody to defer
      for (BlockHash h : kv.hashes_completed_by(*seq, seq->num_computed_tokens + n)) in_flight.insert(h);
    out.seqs.push_back({seq, n, seq->num_computed_tokens + n == seq->num_tokens()});
    budget -= n;
    if (prompt_chunk) prefill_left -= n;
  }

  SchedulerOutput out;
  int32_t budget;        // tokens this step may still compute
  int32_t prefill_left;  // prompt tokens this step may still take (decodes are not counted)
  const int32_t prefill_cap, block;
  const KvCacheManager& kv;
  const std::set<Sequence*, Urgency>& waiting;
  std::unordered_set<BlockHash> in_flight;  // full blocks this step computes
};

// Running sequences, most urgent first; victims of preemption come from the back. A running
// sequence's prompt chunk yields to waiting sequences that outrank it (an earlier deadline
// arrived while it was being prefilled): they are admitted first and it takes what is left.
void Scheduler::schedule_running(Step& step, std::vector<Sequence*>& yielded) {
  const bool may_yield = admission_->displaces();
  for (size_t i = 0; i < running_.size() && step.budget > 0; ++i) {
    Sequence* seq = running_[i];
    const int32_t lacking = seq->num_uncomputed_tokens();
    assert(lacking > 0 && "a running sequence always has its last token to compute");
    if (lacking > 1 && may_yield && may_admit() && !waiting_.empty() && outranks(*next_waiting(), *seq)) {
      yielded.push_back(seq);
      continue;
    }
    const int32_t n = step.grant(seq->num_computed_tokens, lacking);
    if (n == 0) continue;  // no prompt tokens left this step; decodes behind it still run
    bool scheduled = true;
    while (!kv_.allocate_slots(*seq, n)) {
      Sequence* victim = running_.back();
      running_.pop_back();
      std::erase(yielded, victim);
      preempt(victim, step.out.preempted);
      if (victim == seq) {
        scheduled = false;
        break;
      }
    }
    if (!scheduled) break;
    step.record(seq, n, lacking > 1);
  }
}

void Scheduler::admit_waiting(Step& step) {
  SchedulerOutput& out = step.out;
  for (auto it = waiting_.begin(); out.preempted.empty() && it != waiting_.end() && step.budget > 0 &&
                                   step.prefill_left > 0 && may_admit();) {
    Sequence* seq = *it;
    const CachedPrefix hit = kv_.find_cached_prefix(*seq);
    if (const auto next = kv_.next_block_hash(*seq, hit); next && step.in_flight.contains(*next)) {
      ++it;  // its next block is being computed now: admit it next step, as a cache hit
      continue;
    }
    const int32_t lacking = seq->num_tokens() - hit.num_tokens;
    const int32_t n = step.grant(hit.num_tokens, lacking);
    if (n == 0) break;                              // the step's prompt tokens are spent
    if (!kv_.allocate_slots(*seq, n, &hit)) break;  // head of line waits for free blocks
    it = waiting_.erase(it);
    seq->num_computed_tokens = hit.num_tokens;
    seq->status = SeqStatus::Running;
    if (seq->num_cached_prompt_tokens < 0)
      seq->num_cached_prompt_tokens = std::min(hit.num_tokens, seq->num_prompt_tokens());
    if (kv_.prefix_cache_enabled()) {
      out.num_prefix_queries += seq->num_tokens();
      out.num_prefix_hits += hit.num_tokens;
    }
    admission_->on_admit();
    insert_running(seq);
    out.admitted.push_back(seq->id());
    step.record(seq, n, lacking > 1);
  }
}

SchedulerOutput Scheduler::schedule() {
  Step step(config_, kv_, waiting_);
  admission_->begin_step(num_waiting(), num_running());
  if (admission_->displaces() && !waiting_.empty()) displace_for(*next_waiting(), step.out);
  std::vector<Sequence*> yielded;
  schedule_running(step, yielded);
  admit_waiting(step);
  // The prompt chunks that yielded, most urgent first, with what is left. No preemption here:
  // a chunk that finds no free block waits (displace_for already made room for the waiting
  // sequences that outrank it, and the running ones behind it may have been scheduled).
  for (Sequence* seq : yielded) {
    const int32_t n = step.grant(seq->num_computed_tokens, seq->num_uncomputed_tokens());
    if (n == 0 || !kv_.allocate_slots(*seq, n)) break;
    step.record(seq, n, true);
  }
  step.out.num_batched_tokens = config_.max_num_batched_tokens - step.budget;
  return std::move(step.out);
}

void Scheduler::update_after_step(const SchedulerOutput& out) {
  for (const auto& s : out.seqs) {
    s.seq->num_computed_tokens += s.num_new_tokens;
    kv_.cache_full_blocks(*s.seq);
    kv_.slide_window(*s.seq);
  }
}

}  // namespace engine
