// Repacking Q4_K / Q6_K weight rows into the 8-row interleaved layouts of matmul_r8.h, and back:
// each value goes through its 6-bit (Q6_K) or 4-bit (Q4_K) code and its sub-block's scale, read
// with ggml's value order (kernels/quant/dequant.cpp), so the layout is defined by values, not by
// ggml's byte order.
#include <cassert>
#include <cstring>

#include "kernels/cpu/matmul_r8.h"

namespace kernels {

namespace {

// The 4-bit code of value v (0..255) of a Q4_K super-block: 64 values per 32 bytes, low
// nibbles first.
uint8_t q4k_code(const BlockQ4K& b, int v) {
  const uint8_t byte = b.qs[32 * (v / 64) + v % 32];
  return v % 64 < 32 ? byte & 0xF : byte >> 4;
}

// The 6-bit code (q + 32) of value v of a Q6_K super-block: per half of 128 values, four runs
// of 32 (ql low, ql + 32 low, ql high, ql + 32 high) with two bits each of qh.
uint8_t q6k_code(const BlockQ6K& b, int v) {
  const int half = v / 128, run = v % 128 / 32, l = v % 32;
  const uint8_t ql = b.ql[64 * half + 32 * (run & 1) + l];
  const uint8_t low = run < 2 ? ql & 0xF : ql >> 4;
  const uint8_t high = (b.qh[32 * half + l] >> (2 * run)) & 3;
  return static_cast<uint8_t>(low | high << 4);
}

// Row i's value 4t + e sits at byte 4i + e of vector t.
constexpr int byte_of(int i, int e) {
  return 4 * i + e;
}

const std::byte* group_block(const MatrixView& w, int64_t g, int64_t k, size_t block_bytes) {
  return w.data + static_cast<size_t>(g) * w.row_stride + static_cast<size_t>(k) * block_bytes;
}

}  // namespace

void repack_r8k_group(const MatrixView& w, int64_t g, std::byte* dst_group) {
  assert(w.type == GgmlType::Q4_K || w.type == GgmlType::Q6_K);
  const int64_t nb = w.cols / kQK_K;
  for (int i = 0; i < kR8 && g * kR8 + i < w.rows; ++i) {
    const std::byte* row = w.row(g * kR8 + i);
    for (int64_t k = 0; k < nb; ++k) {
      if (w.type == GgmlType::Q4_K) {
        const auto& b = reinterpret_cast<const BlockQ4K*>(row)[k];
        auto& p = reinterpret_cast<BlockQ4_Kx8*>(dst_group)[k];
        p.d[i] = b.d;
        p.dmin[i] = b.dmin;
        for (int j = 0; j < 8; ++j) k_scale_min(j, b.scales, p.scales[j][i], p.mins[j][i]);
        for (int t = 0; t < 32; ++t)
          for (int e = 0; e < 4; ++e)
            p.qs[t][byte_of(i, e)] =
                static_cast<uint8_t>(q4k_code(b, 4 * t + e) | q4k_code(b, 4 * (t + 32) + e) << 4);
      } else {
        const auto& b = reinterpret_cast<const BlockQ6K*>(row)[k];
        auto& p = reinterpret_cast<BlockQ6_Kx8*>(dst_group)[k];
        p.d[i] = b.d;
        for (int j = 0; j < 16; ++j) p.scales[j][i] = b.scales[j];
        for (int t = 0; t < 32; ++t)
          for (int e = 0; e < 4; ++e)
            p.ql[t][byte_of(i, e)] = static_cast<uint8_t>((q6k_code(b, 4 * t + e) & 0xF) |
                                                          (q6k_code(b, 4 * (t + 32) + e) & 0xF) << 4);
        for (int u = 0; u < 16; ++u)
          for (int e = 0; e < 4; ++e) {
            uint8_t high = 0;
            for (int s = 0; s < 4; ++s)
              high |= static_cast<uint8_t>((q6k_code(b, 4 * (u + 16 * s) + e) >> 4) << (2 * s));
            p.qh[u][byte_of(i, e)] = high;
          }
      }
    }
  }
}

void unpack_r8k_row(const MatrixView& w, int64_t r, std::byte* dst) {
  assert(w.interleave == kR8 && (w.type == GgmlType::Q4_K || w.type == GgmlType::Q6_K));
  const int64_t nb = w.cols / kQK_K, g = r / kR8;
  const int i = static_cast<int>(r % kR8);
  for (int64_t k = 0; k < nb; ++k) {
    uint8_t code[kQK_K];
    if (w.type == GgmlType::Q4_K) {
      const auto& p = *reinterpret_cast<const BlockQ4_Kx8*>(group_block(w, g, k, sizeof(BlockQ4_Kx8)));
      auto& b = reinterpret_cast<BlockQ4K*>(dst)[k];
      for (int t = 0; t < 64; ++t)
        for (int e = 0; e < 4; ++e) {
          const uint8_t byte = p.qs[t % 32][byte_of(i, e)];
          code[4 * t + e] = t < 32 ? byte & 0xF : byte >> 4;
        }
      b.d = p.d[i];
      b.dmin = p.dmin[i];
      // ggml's 12-byte packing of the eight 6-bit scales and mins (the inverse of k_scale_min).
      std::memset(b.scales, 0, sizeof b.scales);
      for (int j = 0; j < 8; ++j) {
        const uint8_t sc = p.scales[j][i], mn = p.mins[j][i];
        if (j < 4) {
          b.scales[j] = static_cast<uint8_t>(b.scales[j] | sc);
          b.scales[j + 4] = static_cast<uint8_t>(b.scales[j + 4] | mn);
        } else {
          b.scales[j + 4] = static_cast<uint8_t>((sc & 0xF) | (mn & 0xF) << 4);
          b.scales[j - 4] = static_cast<uint8_t>(b.scales[j - 4] | (sc >> 4) << 6);
          b.scales[j] = static_cast<uint8_t>(b.scales[j] | (mn >> 4) << 6);
        }
      }
      for (int v = 0; v < kQK_K; ++v) {
        uint8_t& byte = b.qs[32 * (v / 64) + v % 32];
        byte = static_cast<uint8_t>(v % 64 < 32 ? (byte & 0xF0) | code[v] : (byte & 0x0F) | code[v] << 4);
      }
    } else {
      const auto& p = *reinterpret_cast<const BlockQ6_Kx8*>(group_block(w, g, k, sizeof(BlockQ6_Kx8)));
      auto& b = reinterpret_cast<BlockQ6K*>(dst)[k];
      for (int t = 0; t < 64; ++t)
        for (int e = 0; e < 4; ++e) {
          const uint8_t byte = p.ql[t % 32][byte_of(i, e)];
          const uint8_t low = t < 32 ? byte & 0xF : byte >> 4;
          const uint8_t high = (p.qh[t % 16][byte_of(i, e)] >> (2 * (t / 16))) & 3;
          code[4 * t + e] = static_cast<uint8_t>(low | high << 4);
        }
      b.d = p.d[i];
      for (int j = 0; j < 16; ++j) b.scales[j] = p.scales[j][i];
      std::memset(b.ql, 0, sizeof b.ql);
      std::memset(b.qh, 0, sizeof b.qh);
      for (int v = 0; v < kQK_K; ++v) {
        const int half = v / 128, run = v % 128 / 32, l = v % 32;
        uint8_t& ql = b.ql[64 * half + 32 * (run & 1) + l];
        ql = static_cast<uint8_t>(ql | (run < 2 ? code[v] & 0xF : (code[v] & 0xF) << 4));
        b.qh[32 * half + l] = static_cast<uint8_t>(b.qh[32 * half + l] | (code[v] >> 4) << (2 * run));
      }
    }
  }
}

}  // namespace kernels
