// When the scheduler may start waiting sequences: the batching mode as a policy object, so the
// continuous scheduler's step has no mode branches. Continuous batching admits whenever a seat
// and blocks are free and lets an urgent request displace running ones; the benchmark's
// comparison modes admit a batch only once the previous one has finished (static), one sequence
// at a time (sequential).
#pragma once

#include <cstdint>
#include <memory>

#include "engine/core/engine_config.h"

namespace engine {

class AdmissionPolicy {
 public:
  virtual ~AdmissionPolicy() = default;

  // The running sequences at most under this mode, given the configured max_num_seqs.
  virtual int32_t max_num_seqs(int32_t configured) const { return configured; }
  // Called at the start of every step with the queue lengths.
  virtual void begin_step(int32_t /*num_waiting*/, int32_t /*num_running*/) {}
  // Whether another waiting sequence may start in this step (seats and blocks permitting).
  virtual bool may_admit() const = 0;
  // A waiting sequence started.
  virtual void on_admit() {}
  // A running sequence was preempted (it goes back to the waiting queue).
  virtual void on_preempt() {}
  // Whether a more urgent waiting sequence may preempt running ones to start.
  virtual bool displaces() const = 0;
};

// The policy of config.mode (static batches hold up to config.max_num_seqs sequences).
std::unique_ptr<AdmissionPolicy> make_admission_policy(const SchedulerConfig& config);

}  // namespace engine
