// The loop the R8 kernels (matmul_r8_avx2.cpp, matmul_r8_avx512.cpp) share: every group of 8
// weight rows of [r0, r1) against activation rows [j0, j1), four at a time and then the rest.
#pragma once

#include <algorithm>
#include <cstdint>
#include <type_traits>

#include "kernels/cpu/matmul_r8.h"

namespace kernels {

// tile(std::integral_constant<int, C>, group, j, num_w, out) computes one group (num_w of its
// rows valid) against activation rows j .. j + C - 1, writing out[c * y_stride + i].
template <typename Packed, typename Tile>
inline void for_each_r8_tile(const MatrixView& w, int64_t r0, int64_t r1, int64_t j0, int64_t j1, float* y,
                             Tile tile) {
  for (int64_t r = r0; r < r1; r += kR8) {
    const auto* g = reinterpret_cast<const Packed*>(w.data + static_cast<size_t>(r / kR8) * w.row_stride);
    const int num_w = static_cast<int>(std::min<int64_t>(kR8, r1 - r));
    float* out = y + r;
    int64_t j = j0;
    for (; j + 4 <= j1; j += 4) tile(std::integral_constant<int, 4>{}, g, j, num_w, out);
    switch (j1 - j) {
      case 3:
        tile(std::integral_constant<int, 3>{}, g, j, num_w, out);
        break;
      case 2:
        tile(std::integral_constant<int, 2>{}, g, j, num_w, out);
        break;
      case 1:
        tile(std::integral_constant<int, 1>{}, g, j, num_w, out);
        break;
      default:
        break;
    }
  }
}

}  // namespace kernels
