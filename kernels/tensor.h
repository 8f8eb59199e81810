// The views the compute ops work on, backend-neutral: weight matrices in ggml layout (any
// supported type), one layer of a paged KV cache, and the parameters of a grouped matmul, of
// rotary embedding and of a batched attention call. Each memory view says on which device its
// bytes live; a backend's ops accept only views of its own device. Activations are F32 spans on
// the backend's device (Backend::allocate); index arrays (tokens, positions, slots, block
// tables) are host memory, uploaded by a device backend itself.
#pragma once

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <span>

#include "kernels/quant/ggml_type.h"

namespace kernels {

// Where a tensor's memory lives.
enum class Device : uint8_t {
  Cpu,   // host memory, read by the CPU kernels
  Cuda,  // memory of an NVIDIA GPU
};

// "cpu", "cuda".
constexpr const char* to_string(Device device) {
  return device == Device::Cuda ? "cuda" : "cpu";
}

// A 2-D matrix in ggml layout: `rows` rows of `cols` elements of `type`, row r starting at
// data + r * row_stride bytes (row_stride = row_bytes(type, cols) for a packed tensor). A view
// made by repack_for_matmul has interleave 8: groups of 8 rows interleaved block by block
// (kernels/cpu/matmul_r8.h), row_stride the bytes of one group; only matmul reads it.
struct MatrixView {
  const std::byte* data = nullptr;
  GgmlType type = GgmlType::F32;
  int64_t rows = 0;
  int64_t cols = 0;
  size_t row_stride = 0;
  int32_t interleave = 0;  // 0: ggml rows; 8: repacked
  Device device = Device::Cpu;

  // Bytes of row r (ggml layout only).
  const std::byte* row(int64_t r) const { return data + static_cast<size_t>(r) * row_stride; }
};

// A packed [rows, cols] matrix of `type` at `data` (host memory).
MatrixView matrix_view(const void* data, GgmlType type, int64_t rows, int64_t cols);

// One layer of a paged KV cache: K and V each [num_blocks, block_size, num_kv_heads, head_dim]
// of `type` (F32, F16 or Q8_0; Q8_0 quantizes each head's row in blocks of 32). A sliding-window
// layer (window > 0) lets the query at position p see only positions p - window + 1 .. p.
struct KvLayerView {
  const std::byte* k = nullptr;
  const std::byte* v = nullptr;
  GgmlType type = GgmlType::F32;
  int32_t num_blocks = 0;
  int32_t block_size = 0;
  int32_t num_kv_heads = 0;
  int32_t head_dim = 0;
  Device device = Device::Cpu;
  int32_t window = 0;  // 0: every earlier position

  // The first position the query at `pos` sees.
  int64_t first_visible(int64_t pos) const { return window > 0 && pos >= window ? pos - window + 1 : 0; }

  // Bytes of one token's K (or V): num_kv_heads * head_dim values of `type`.
  size_t token_bytes() const { return row_bytes(type, static_cast<int64_t>(num_kv_heads) * head_dim); }
};

// The same layer open for writing (store_kv).
struct KvLayerMutView {
  std::byte* k = nullptr;
  std::byte* v = nullptr;
  GgmlType type = GgmlType::F32;
  int32_t num_blocks = 0;
  int32_t block_size = 0;
  int32_t num_kv_heads = 0;
  int32_t head_dim = 0;
  Device device = Device::Cpu;

  // The layer, read-only.
  KvLayerView view() const { return {k, v, type, num_blocks, block_size, num_kv_heads, head_dim, device}; }
};

// One weight of a grouped matmul and where its product goes: y[n, w.rows].
struct MatmulTarget {
  MatrixView w;
  std::span<float> y;
};

// How rotary embedding pairs the dimensions of a head.
enum class RopeStyle {
  Normal,  // pairs (2i, 2i+1): llama
  Neox,    // pairs (i, i + rot_dim/2): qwen2, qwen3
};

struct RopeParams {
  RopeStyle style = RopeStyle::Normal;
  int32_t rot_dim = 0;                  // rotated dimensions per head (≤ head_dim; the rest pass through)
  float freq_base = 10000.0f;           // theta_i = pos * freq_scale * base^(-2i/rot_dim) / factor_i
  float freq_scale = 1.0f;              // linear rope scaling: 1 / factor
  const float* freq_factors = nullptr;  // optional [rot_dim / 2] divisors (Llama 3.1 rope_freqs), host
  float attn_factor = 1.0f;             // cos and sin scaled by it (LongRoPE's magnitude correction)
};

// How attention scores a key: scale * q·k, then, with a soft cap, cap * tanh(score / cap) (Gemma 2
// caps its attention logits at 50). A plain float is a scale without a cap.
struct AttentionScores {
  float scale = 1.0f;
  float softcap = 0.0f;                                                                       // 0: none
  AttentionScores(float scale_, float softcap_ = 0.0f) : scale(scale_), softcap(softcap_) {}  // NOLINT
  float of(float dot) const {
    const float s = scale * dot;
    return softcap > 0 ? softcap * std::tanh(s * (1.0f / softcap)) : s;
  }
};

// One sequence of a batched attention call: rows [first_row, first_row + num_rows) of q,
// positions and out belong to it, and its positions are found through block_table.
struct AttentionSeq {
  std::span<const int32_t> block_table;
  int32_t first_row = 0;
  int32_t num_rows = 0;
};

}  // namespace kernels
