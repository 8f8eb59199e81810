// The admission policies of the three batching modes.
#include "engine/core/admission_policy.h"

#include <algorithm>

namespace engine {

namespace {

// Continuous batching: sequences join and leave between any two steps.
class ContinuousAdmission final : public AdmissionPolicy {
 public:
  bool may_admit() const override { return true; }
  bool displaces() const override { return true; }
};

// Static batching (and sequential, a batch of one): a batch of up to max_num_seqs opens when
// the previous one has finished; a preempted member rejoins its own batch.
class BatchAdmission final : public AdmissionPolicy {
 public:
  explicit BatchAdmission(int32_t max_batch) : max_batch_(max_batch) {}

  int32_t max_num_seqs(int32_t configured) const override { return std::min(configured, max_batch_); }
  void begin_step(int32_t num_waiting, int32_t num_running) override {
    if (num_running == 0) quota_ = std::min(num_waiting, max_batch_);
  }
  bool may_admit() const override { return quota_ > 0; }
  void on_admit() override { --quota_; }
  void on_preempt() override { ++quota_; }
  bool displaces() const override { return false; }

 private:
  int32_t max_batch_;
  int32_t quota_ = 0;  // admissions left in the current batch
};

}  // namespace

std::unique_ptr<AdmissionPolicy> make_admission_policy(const SchedulerConfig& config) {
  switch (config.mode) {
    case BatchingMode::Sequential:
      return std::make_unique<BatchAdmission>(1);
    case BatchingMode::Static:
      return std::make_unique<BatchAdmission>(config.max_num_seqs);
    case BatchingMode::Continuous:
      break;
  }
  return std::make_unique<ContinuousAdmission>();
}

}  // namespace engine
