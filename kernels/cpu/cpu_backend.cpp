// The CPU backend: each op checks that its views are host memory and calls its CPU kernel.
#include "kernels/cpu/cpu_backend.h"

#include <fmt/core.h>

#include <algorithm>
#include <cassert>

#include "kernels/cpu/cpu_features.h"
#include "kernels/cpu/cpu_ops.h"

namespace kernels {

std::string CpuBackend::describe() const {
  return fmt::format("cpu: {} threads, {}", pool_.num_threads(), to_string(simd_level()));
}

DeviceBuffer CpuBackend::allocate(size_t count) {
  return DeviceBuffer(std::shared_ptr<float[]>(new float[count]), count, Device::Cpu);
}

void CpuBackend::download(std::span<const float> src, std::span<float> dst) {
  assert(src.size() == dst.size());
  if (src.data() != dst.data()) std::copy(src.begin(), src.end(), dst.begin());
}

void CpuBackend::embedding(const MatrixView& table, std::span<const int32_t> ids, std::span<float> out) {
  assert(table.device == Device::Cpu);
  kernels::embedding(table, ids, out);
}

void CpuBackend::rmsnorm(std::span<const float> x, std::span<const float> weight, int64_t dim, float eps,
                         std::span<float> out) {
  kernels::rmsnorm(x, weight, dim, eps, out);
}

void CpuBackend::matmul(const MatrixView& w, std::span<const float> x, int64_t n, std::span<float> y) {
  assert(w.device == Device::Cpu);
  kernels::matmul(w, x, n, y, pool_);
}

void CpuBackend::matmul_group(std::span<const MatmulTarget> targets, std::span<const float> x, int64_t n) {
  assert(std::all_of(targets.begin(), targets.end(),
                     [](const MatmulTarget& t) { return t.w.device == Device::Cpu; }));
  kernels::matmul_group(targets, x, n, pool_);
}

void CpuBackend::add_bias(std::span<float> x, std::span<const float> bias) {
  kernels::add_bias(x, bias);
}

void CpuBackend::rope(std::span<float> x, std::span<const int32_t> positions, int32_t num_heads,
                      int32_t head_dim, const RopeParams& params) {
  kernels::rope(x, positions, num_heads, head_dim, params);
}

void CpuBackend::store_kv(const KvLayerMutView& kv, std::span<const float> k, std::span<const float> v,
                          std::span<const int32_t> slots) {
  assert(kv.device == Device::Cpu);
  kernels::store_kv(kv, k, v, slots);
}

void CpuBackend::paged_attention_batch(std::span<const float> q, std::span<const int32_t> positions,
                                       int32_t num_heads, const KvLayerView& kv,
                                       std::span<const AttentionSeq> seqs, AttentionScores scores,
                                       std::span<float> out) {
  assert(kv.device == Device::Cpu);
  kernels::paged_attention_batch(q, positions, num_heads, kv, seqs, scores, out, pool_);
}

void CpuBackend::swiglu(std::span<const float> gate, std::span<const float> up, std::span<float> out) {
  kernels::swiglu(gate, up, out);
}

void CpuBackend::geglu(std::span<const float> gate, std::span<const float> up, std::span<float> out) {
  kernels::geglu(gate, up, out);
}

void CpuBackend::scale(std::span<float> x, float factor) {
  kernels::scale(x, factor);
}

void CpuBackend::add(std::span<const float> a, std::span<const float> b, std::span<float> out) {
  kernels::add(a, b, out);
}

void CpuBackend::gather_rows(std::span<const float> src, std::span<const int32_t> rows, int64_t cols,
                             std::span<float> dst) {
  assert(dst.size() == rows.size() * static_cast<size_t>(cols));
  for (size_t i = 0; i < rows.size(); ++i) {
    assert(rows[i] >= 0 && static_cast<size_t>(rows[i] + 1) * static_cast<size_t>(cols) <= src.size());
    std::copy_n(src.begin() + rows[i] * cols, cols, dst.begin() + static_cast<int64_t>(i) * cols);
  }
}

void CpuBackend::select_experts(std::span<const float> logits, int32_t num_experts, int32_t k, bool normalize,
                                std::span<int32_t> ids, std::span<float> weights) {
  kernels::select_experts(logits, num_experts, k, normalize, ids, weights);
}

void CpuBackend::combine_experts(std::span<const float> src, std::span<const int32_t> slots,
                                 std::span<const float> weights, int32_t k, int64_t cols,
                                 std::span<float> out) {
  kernels::combine_experts(src, slots, weights, k, cols, out);
}

void CpuBackend::add_sigmoid_gated(std::span<const float> x, std::span<const float> gate,
                                   std::span<float> out) {
  kernels::add_sigmoid_gated(x, gate, out);
}

std::expected<std::unique_ptr<CpuBackend>, std::string> make_cpu_backend(int num_threads) {
  if (auto threads = check_num_threads(num_threads); !threads) return std::unexpected(threads.error());
  auto backend = std::make_unique<CpuBackend>(num_threads);
  if (!backend->pool().start_error().empty()) return std::unexpected(backend->pool().start_error());
  return backend;
}

}  // namespace kernels
