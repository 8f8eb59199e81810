// The CPU backend: the ops of kernels/ops.h on the CPU kernels of kernels/cpu/cpu_ops.h, over
// host memory, parallel on a thread pool the backend owns. One forward pass at a time.
#pragma once

#include <expected>
#include <memory>
#include <string>

#include "kernels/ops.h"
#include "kernels/thread_pool.h"

namespace kernels {

class CpuBackend final : public Backend {
 public:
  // A backend on `num_threads` threads (0 = all cores; see ThreadPool for the bounds).
  explicit CpuBackend(int num_threads = 0) : pool_(num_threads) {}

  // The pool its ops run on (the kernel benchmarks and tests share it).
  ThreadPool& pool() { return pool_; }

  Device device() const override { return Device::Cpu; }
  int num_threads() const override { return pool_.num_threads(); }
  std::string describe() const override;
  DeviceBuffer allocate(size_t count) override;
  std::span<float> staging(std::span<float> host, DeviceBuffer&) override { return host; }
  void download(std::span<const float> src, std::span<float> dst) override;

  void embedding(const MatrixView& table, std::span<const int32_t> ids, std::span<float> out) override;
  void rmsnorm(std::span<const float> x, std::span<const float> weight, int64_t dim, float eps,
               std::span<float> out) override;
  void matmul(const MatrixView& w, std::span<const float> x, int64_t n, std::span<float> y) override;
  void matmul_group(std::span<const MatmulTarget> targets, std::span<const float> x, int64_t n) override;
  void add_bias(std::span<float> x, std::span<const float> bias) override;
  void rope(std::span<float> x, std::span<const int32_t> positions, int32_t num_heads, int32_t head_dim,
            const RopeParams& params) override;
  void store_kv(const KvLayerMutView& kv, std::span<const float> k, std::span<const float> v,
                std::span<const int32_t> slots) override;
  void paged_attention_batch(std::span<const float> q, std::span<const int32_t> positions, int32_t num_heads,
                             const KvLayerView& kv, std::span<const AttentionSeq> seqs,
                             AttentionScores scores, std::span<float> out) override;
  void swiglu(std::span<const float> gate, std::span<const float> up, std::span<float> out) override;
  void geglu(std::span<const float> gate, std::span<const float> up, std::span<float> out) override;
  void scale(std::span<float> x, float factor) override;
  void add(std::span<const float> a, std::span<const float> b, std::span<float> out) override;
  void gather_rows(std::span<const float> src, std::span<const int32_t> rows, int64_t cols,
                   std::span<float> dst) override;
  void select_experts(std::span<const float> logits, int32_t num_experts, int32_t k, bool normalize,
                      std::span<int32_t> ids, std::span<float> weights) override;
  void combine_experts(std::span<const float> src, std::span<const int32_t> slots,
                       std::span<const float> weights, int32_t k, int64_t cols,
                       std::span<float> out) override;
  void add_sigmoid_gated(std::span<const float> x, std::span<const float> gate,
                         std::span<float> out) override;

 private:
  ThreadPool pool_;
};

// A CPU backend on `num_threads` threads, or why it cannot have them (a count out of bounds, a
// worker thread that failed to start).
std::expected<std::unique_ptr<CpuBackend>, std::string> make_cpu_backend(int num_threads);

}  // namespace kernels
