// Who runs next: the waiting queue (earliest deadline, then priority, then arrival), the running
// list, the step's token budget and max_num_seqs, and preemption by recompute when KV blocks
// run out or a more urgent request cannot start. One rule (vLLM's): each step, every running
// sequence gets tokens until its num_computed_tokens catches up with its tokens, within the
// budget; prefill, chunked prefill, decode and prefix hits are one code path. Prompt chunks
// also share a smaller per-step allowance (max_prefill_tokens), most urgent first, so that the
// earliest-deadline requests finish their prefill, answer and decode while later prompts are still
// being prefilled: requests answer in deadline order rather than all after one huge step; a
// running prompt chunk yields that allowance to a waiting request that outranks it. A waiting sequence
// whose next uncached block another computes in the same step waits one step to hit it (as
// SGLang's in-batch prefix caching), so a shared prompt arriving with many requests is computed
// once. It asks the KvCacheManager for blocks and never reads block internals.
#pragma once

#include <cstdint>
#include <memory>
#include <set>
#include <vector>

#include "engine/core/admission_policy.h"
#include "engine/core/engine_config.h"
#include "engine/core/kv_cache_manager.h"
#include "engine/core/scheduler_output.h"
#include "engine/core/sequence.h"

namespace engine {

class Scheduler {
 public:
  Scheduler(const SchedulerConfig& config, KvCacheManager& kv);

  // Queues a new sequence (status Waiting, nothing computed, no blocks).
  void add(Sequence* seq);
  // Takes `seq` out of the waiting or running queue and frees its blocks (finish or cancel).
  void remove(Sequence* seq);
  // Decides the next step: running sequences first, then admissions from the waiting queue.
  SchedulerOutput schedule();
  // Records that the step `out` ran: advances num_computed_tokens and caches full blocks.
  void update_after_step(const SchedulerOutput& out);

  int32_t num_waiting() const { return static_cast<int32_t>(waiting_.size()); }
  int32_t num_running() const { return static_cast<int32_t>(running_.size()); }
  bool has_work() const { return !waiting_.empty() || !running_.empty(); }
  int64_t num_preemptions() const { return num_preemptions_; }
  // The most urgent waiting sequence, or nullptr.
  Sequence* next_waiting() const { return waiting_.empty() ? nullptr : *waiting_.begin(); }
  // Running sequences, most urgent first.
  const std::vector<Sequence*>& running() const { return running_; }

 private:
  // Waiting order: earliest deadline (none = last), then smaller priority, then arrival (id).
  struct Urgency {
    bool operator()(const Sequence* a, const Sequence* b) const;
  };

  // Whether `a` goes before `b` whatever their arrival: an earlier deadline (none is latest),
  // or the same deadline and a smaller priority.
  static bool outranks(const Sequence& a, const Sequence& b);

  bool may_admit() const;
  // Preemption by recompute; the id goes to `record` (out.preempted or out.displaced).
  void preempt(Sequence* seq, std::vector<SeqId>& record);
  // Preempts the least urgent running sequences (when the admission policy displaces), while `urgent`
  // outranks them and could not start otherwise (max_num_seqs reached, or too few free blocks for its first
  // chunk). Arrival alone never displaces.
  void displace_for(const Sequence& urgent, SchedulerOutput& out);
  void insert_running(Sequence* seq);

  // One schedule() call: its token budgets, the blocks it computes and its output (scheduler.cpp).
  struct Step;
  // The running sequences' tokens, most urgent first, preempting from the back for blocks; the
  // prompt chunks that yield to an outranking waiting sequence go to `yielded`.
  void schedule_running(Step& step, std::vector<Sequence*>& yielded);
  // Admissions from the waiting queue, only in steps without preemption for want of blocks.
  void admit_waiting(Step& step);

  SchedulerConfig config_;
  KvCacheManager& kv_;
  std::unique_ptr<AdmissionPolicy> admission_;  // the batching mode
  std::set<Sequence*, Urgency> waiting_;
  std::vector<Sequence*> running_;  // sorted by Urgency; the last one is preempted first
  int64_t num_preemptions_ = 0;
};

}  // namespace engine
