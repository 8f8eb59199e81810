// The compute ops the transformer is made of, as one interface per compute device: a Backend is
// the context the ops run in (the CPU one holds the thread pool; a CUDA one would hold the
// stream, the cuBLAS handle and device memory) and owns the activation memory it hands out. The
// model calls only this interface, so it never branches on the device: the CPU backend
// (kernels/cpu/cpu_backend.h) and a device backend are two implementations of it. Views and
// their contracts: kernels/tensor.h; the CPU kernels behind each op: kernels/cpu/cpu_ops.h.
#pragma once

#include <cassert>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>

#include "kernels/tensor.h"

namespace kernels {

// F32 activation memory on a backend's device, owned and move-only; contents are undefined after
// allocation. Only the ops of the backend that made it may read or write it.
class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  DeviceBuffer(std::shared_ptr<float[]> data, size_t size, Device device)
      : data_(std::move(data)), size_(size), device_(device) {}

  size_t size() const { return size_; }
  Device device() const { return device_; }
  // The first `count` floats (count ≤ size()), as the ops take them.
  std::span<float> first(size_t count) const {
    assert(count <= size_);
    return {data_.get(), count};
  }

 private:
  std::shared_ptr<float[]> data_;
  size_t size_ = 0;
  Device device_ = Device::Cpu;
};

class Backend {
 public:
  virtual ~Backend() = default;

  // The device its ops run on and its memory lives on.
  virtual Device device() const = 0;
  // Host threads the ops run on (1 for a device backend driving a GPU from one thread).
  virtual int num_threads() const = 0;
  // A short description for logs and benchmarks, e.g. "cpu: 2 threads, avx512".
  virtual std::string describe() const = 0;

  // `count` floats of this device's memory.
  virtual DeviceBuffer allocate(size_t count) = 0;
  // Where an op should write results bound for the host memory `host`: `host` itself on a device
  // that computes in host memory (the CPU), else `scratch`'s first host.size() floats (grown to
  // fit). download() then brings them to `host`.
  virtual std::span<float> staging(std::span<float> host, DeviceBuffer& scratch) = 0;
  // Copies src (this device's memory, or `host` itself from staging) to host memory dst of the
  // same size; nothing when they are the same memory.
  virtual void download(std::span<const float> src, std::span<float> dst) = 0;

  // The ops, each with the contract of its CPU namesake in kernels/cpu/cpu_ops.h. Activation
  // spans are this device's memory; index arrays are host memory.

  // out[n, table.cols] = the dequantized rows ids[i] of `table`.
  virtual void embedding(const MatrixView& table, std::span<const int32_t> ids, std::span<float> out) = 0;
  // out[n, dim] = x / sqrt(mean(x²) + eps) * weight per row of `dim` values (out may alias x).
  virtual void rmsnorm(std::span<const float> x, std::span<const float> weight, int64_t dim, float eps,
                       std::span<float> out) = 0;
  // y[n, w.rows] = x[n, w.cols] · wᵀ.
  virtual void matmul(const MatrixView& w, std::span<const float> x, int64_t n, std::span<float> y) = 0;
  // matmul for up to 4 weights with the same input x[n, cols].
  virtual void matmul_group(std::span<const MatmulTarget> targets, std::span<const float> x, int64_t n) = 0;
  // x[n, dim] += bias[dim] for every row.
  virtual void add_bias(std::span<float> x, std::span<const float> bias) = 0;
  // Rotates x[n, num_heads, head_dim] in place, row r at position positions[r].
  virtual void rope(std::span<float> x, std::span<const int32_t> positions, int32_t num_heads,
                    int32_t head_dim, const RopeParams& params) = 0;
  // Writes n tokens' K and V into a cache layer, token i at slot slots[i].
  virtual void store_kv(const KvLayerMutView& kv, std::span<const float> k, std::span<const float> v,
                        std::span<const int32_t> slots) = 0;
  // Causal paged attention of every sequence of a step, each row independent of the others.
  virtual void paged_attention_batch(std::span<const float> q, std::span<const int32_t> positions,
                                     int32_t num_heads, const KvLayerView& kv,
                                     std::span<const AttentionSeq> seqs, AttentionScores scores,
                                     std::span<float> out) = 0;
  // out = silu(gate) * up, elementwise.
  virtual void swiglu(std::span<const float> gate, std::span<const float> up, std::span<float> out) = 0;
  // out = gelu(gate) * up, elementwise (Gemma).
  virtual void geglu(std::span<const float> gate, std::span<const float> up, std::span<float> out) = 0;
  // x *= factor, elementwise.
  virtual void scale(std::span<float> x, float factor) = 0;
  // out = a + b, elementwise (out may alias a or b).
  virtual void add(std::span<const float> a, std::span<const float> b, std::span<float> out) = 0;
  // dst[i, cols] = src[rows[i], cols]: the rows of a [*, cols] activation a step wants (e.g. the
  // last row of each sequence for its logits).
  virtual void gather_rows(std::span<const float> src, std::span<const int32_t> rows, int64_t cols,
                           std::span<float> dst) = 0;

  // Mixture of experts. Per row of logits[n, num_experts]: ids[r, 0..k) = the k experts of highest
  // softmax probability, highest first, and weights[r, 0..k) those probabilities (divided by their
  // sum where `normalize`). ids and weights are host memory.
  virtual void select_experts(std::span<const float> logits, int32_t num_experts, int32_t k, bool normalize,
                              std::span<int32_t> ids, std::span<float> weights) = 0;
  // out[r, cols] = Σ_s weights[r*k + s] · src[slots[r*k + s], cols]: each row's mixture of its k
  // experts' outputs. slots and weights are host memory.
  virtual void combine_experts(std::span<const float> src, std::span<const int32_t> slots,
                               std::span<const float> weights, int32_t k, int64_t cols,
                               std::span<float> out) = 0;
  // out[r, :] += sigmoid(gate[r]) · x[r, :] for x, out [n, cols] and gate [n] (qwen2moe's shared expert).
  virtual void add_sigmoid_gated(std::span<const float> x, std::span<const float> gate,
                                 std::span<float> out) = 0;
};

}  // namespace kernels
