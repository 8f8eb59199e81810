// Repacking Q8_0 / Q4_0 / Q5_0 weight rows into the 8-row interleaved layout of matmul_r8.h (and
// back, one row at a time; the K-quants in matmul_r8_k.cpp), plus the public entry points in kernels/ops.h
// that decide whether a weight is worth repacking on this CPU.
#include "kernels/cpu/matmul_r8.h"

#include <atomic>
#include <cassert>
#include <cstring>

#include "kernels/cpu/vec_dot_simd.h"

namespace kernels {

namespace {

// The unsigned code of a value: Q8_0 value + 128 (its sign bit flipped); value v (0..31) of a
// Q4_0 / Q5_0 block: the nibble, nibble | fifth << 4.
uint8_t q8_code(int8_t value) {
  return static_cast<uint8_t>(value) ^ 0x80;
}

uint8_t q4_code(const BlockQ4_0& b, int v) {
  return v < 16 ? b.qs[v] & 0xF : b.qs[v - 16] >> 4;
}

uint8_t q5_code(const BlockQ5_0& b, int v) {
  const uint8_t nibble = v < 16 ? b.qs[v] & 0xF : b.qs[v - 16] >> 4;
  return static_cast<uint8_t>(nibble | (((b.qh[v / 8] >> (v % 8)) & 1) << 4));
}

bool is_r8k(GgmlType type) {
  return type == GgmlType::Q4_K || type == GgmlType::Q6_K;
}

// Group g, block k of the repacked matrix.
template <typename Packed>
Packed& packed_block(const MatrixView& w, std::byte* base, int64_t g, int64_t k) {
  return reinterpret_cast<Packed*>(base + static_cast<size_t>(g) * w.row_stride)[k];
}

// Byte q (0..31) of vector t holds value 4t + q % 4 of row q / 4.
constexpr int value_of(int t, int q) {
  return 4 * t + q % 4;
}

}  // namespace

bool has_r8_layout(GgmlType type) {
  return type == GgmlType::Q8_0 || type == GgmlType::Q4_0 || type == GgmlType::Q5_0 || is_r8k(type);
}

size_t r8_group_bytes(GgmlType type, int64_t cols) {
  if (type == GgmlType::Q4_K) return static_cast<size_t>(cols / kQK_K) * sizeof(BlockQ4_Kx8);
  return kR8 * row_bytes(type, cols);
}

size_t r8_bytes(GgmlType type, int64_t rows, int64_t cols) {
  return static_cast<size_t>((rows + kR8 - 1) / kR8) * r8_group_bytes(type, cols);
}

MatrixView repack_r8(const MatrixView& w, std::byte* dst) {
  assert(has_r8_layout(w.type) && w.interleave == 0);
  MatrixView out{dst, w.type, w.rows, w.cols, r8_group_bytes(w.type, w.cols), kR8};
  const int64_t nb = w.cols / kQK8_0, groups = (w.rows + kR8 - 1) / kR8;
  std::memset(dst, 0, r8_bytes(w.type, w.rows, w.cols));
  if (is_r8k(w.type)) {
    for (int64_t g = 0; g < groups; ++g)
      repack_r8k_group(w, g, dst + static_cast<size_t>(g) * out.row_stride);
    return out;
  }
  for (int64_t g = 0; g < groups; ++g) {
    for (int i = 0; i < kR8 && g * kR8 + i < w.rows; ++i) {
      const std::byte* row = w.row(g * kR8 + i);
      for (int64_t k = 0; k < nb; ++k) {
        if (w.type == GgmlType::Q8_0) {
          const auto& b = reinterpret_cast<const BlockQ8_0*>(row)[k];
          auto& p = packed_block<BlockQ8_0x8>(out, dst, g, k);
          p.d[i] = b.d;
          for (int t = 0; t < 8; ++t)
            for (int q = 4 * i; q < 4 * i + 4; ++q) p.qs[t][q] = q8_code(b.qs[value_of(t, q)]);
        } else if (w.type == GgmlType::Q4_0) {
          const auto& b = reinterpret_cast<const BlockQ4_0*>(row)[k];
          auto& p = packed_block<BlockQ4_0x8>(out, dst, g, k);
          p.d[i] = b.d;
          for (int t = 0; t < 4; ++t)
            for (int q = 4 * i; q < 4 * i + 4; ++q)
              p.qs[t][q] =
                  static_cast<uint8_t>(q4_code(b, value_of(t, q)) | q4_code(b, value_of(t + 4, q)) << 4);
        } else {
          const auto& b = reinterpret_cast<const BlockQ5_0*>(row)[k];
          auto& p = packed_block<BlockQ5_0x8>(out, dst, g, k);
          p.d[i] = b.d;
          for (int q = 4 * i; q < 4 * i + 4; ++q) {
            for (int t = 0; t < 4; ++t)
              p.qs[t][q] = static_cast<uint8_t>((q5_code(b, value_of(t, q)) & 0xF) |
                                                (q5_code(b, value_of(t + 4, q)) & 0xF) << 4);
            uint8_t high = 0;
            for (int t = 0; t < 8; ++t) high |= static_cast<uint8_t>((q5_code(b, value_of(t, q)) >> 4) << t);
            p.qh[q] = high;
          }
        }
      }
    }
  }
  return out;
}

void unpack_r8_row(const MatrixView& w, int64_t r, std::byte* dst) {
  assert(w.interleave == kR8 && r >= 0 && r < w.rows);
  if (is_r8k(w.type)) return unpack_r8k_row(w, r, dst);
  const int64_t nb = w.cols / kQK8_0, g = r / kR8;
  const int i = static_cast<int>(r % kR8);
  for (int64_t k = 0; k < nb; ++k) {
    if (w.type == GgmlType::Q8_0) {
      const auto& p = packed_block<BlockQ8_0x8>(w, const_cast<std::byte*>(w.data), g, k);
      auto& b = reinterpret_cast<BlockQ8_0*>(dst)[k];
      b.d = p.d[i];
      for (int t = 0; t < 8; ++t)
        for (int q = 4 * i; q < 4 * i + 4; ++q) b.qs[value_of(t, q)] = static_cast<int8_t>(p.qs[t][q] ^ 0x80);
    } else {
      uint8_t code[32];
      uint16_t d;
      if (w.type == GgmlType::Q4_0) {
        const auto& p = packed_block<BlockQ4_0x8>(w, const_cast<std::byte*>(w.data), g, k);
        d = p.d[i];
        for (int t = 0; t < 4; ++t)
          for (int q = 4 * i; q < 4 * i + 4; ++q) {
            code[value_of(t, q)] = p.qs[t][q] & 0xF;
            code[value_of(t + 4, q)] = p.qs[t][q] >> 4;
          }
      } else {
        const auto& p = packed_block<BlockQ5_0x8>(w, const_cast<std::byte*>(w.data), g, k);
        d = p.d[i];
        for (int t = 0; t < 8; ++t)
          for (int q = 4 * i; q < 4 * i + 4; ++q) {
            const uint8_t nibble = t < 4 ? p.qs[t][q] & 0xF : p.qs[t - 4][q] >> 4;
            code[value_of(t, q)] = static_cast<uint8_t>(nibble | ((p.qh[q] >> t) & 1) << 4);
          }
      }
      if (w.type == GgmlType::Q4_0) {
        auto& b = reinterpret_cast<BlockQ4_0*>(dst)[k];
        b.d = d;
        for (int v = 0; v < 16; ++v) b.qs[v] = static_cast<uint8_t>(code[v] | code[v + 16] << 4);
      } else {
        auto& b = reinterpret_cast<BlockQ5_0*>(dst)[k];
        b.d = d;
        std::memset(b.qh, 0, sizeof b.qh);
        for (int v = 0; v < 16; ++v)
          b.qs[v] = static_cast<uint8_t>((code[v] & 0xF) | (code[v + 16] & 0xF) << 4);
        for (int v = 0; v < 32; ++v)
          b.qh[v / 8] = static_cast<uint8_t>(b.qh[v / 8] | (code[v] >> 4) << (v % 8));
      }
    }
  }
}

R8KMatmulFn r8k_matmul_for(GgmlType type, SimdLevel level) {
  if (level == SimdLevel::Scalar) return nullptr;
  if (level == SimdLevel::Avx512)
    if (R8KMatmulFn f = avx512_r8k_matmul(type)) return f;
  // An AVX-512 CPU without VNNI: as for r8_matmul_for below.
  if (level == SimdLevel::Avx2 && simd_level() == SimdLevel::Avx512 && !cpu_has_avx512_vnni())
    if (R8KMatmulFn f = avx512bw_r8k_matmul(type)) return f;
  return avx2_r8k_matmul(type);
}

R8MatmulFn r8_matmul_for(GgmlType type, SimdLevel level) {
  if (level == SimdLevel::Scalar) return nullptr;
  if (level == SimdLevel::Avx512)
    if (R8MatmulFn f = avx512_r8_matmul(type)) return f;
  // An AVX-512 CPU without VNNI runs the dot kernels at the AVX2 level (vec_dot_level_for), but
  // the R8 kernel in 512-bit registers (1.33-1.61x the AVX2 one on a Zen 5: docs/benchmarks.md).
  if (level == SimdLevel::Avx2 && simd_level() == SimdLevel::Avx512 && !cpu_has_avx512_vnni())
    if (R8MatmulFn f = avx512bw_r8_matmul(type)) return f;
  return avx2_r8_matmul(type);
}

namespace {
std::atomic<bool> repack_layout{true};
}  // namespace

void set_repack_layout(bool enabled) {
  repack_layout = enabled;
}

size_t repacked_bytes(const MatrixView& w) {
  if (!repack_layout || w.interleave != 0 || !has_r8_layout(w.type)) return 0;
  const SimdLevel level = vec_dot_level();
  const bool kernel =
      is_r8k(w.type) ? r8k_matmul_for(w.type, level) != nullptr : r8_matmul_for(w.type, level) != nullptr;
  if (!kernel) return 0;
  return r8_bytes(w.type, w.rows, w.cols);
}

MatrixView repack_for_matmul(const MatrixView& w, std::byte* dst) {
  assert(repacked_bytes(w) > 0);
  return repack_r8(w, dst);
}

}  // namespace kernels
