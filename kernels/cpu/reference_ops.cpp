// Reference matmul and paged attention: dequantize, then accumulate in double.
#include "kernels/cpu/reference_ops.h"

#include <cassert>
#include <cmath>
#include <vector>

#include "kernels/quant/dequant.h"
#include "kernels/quant/dot_activation.h"

namespace kernels::reference {

void matmul(const MatrixView& w, std::span<const float> x, int64_t n, std::span<float> y) {
  const GgmlType xt = dot_type(w.type);
  std::vector<std::byte> converted(row_bytes(xt, w.cols));
  std::vector<float> xr(static_cast<size_t>(w.cols)), wr(static_cast<size_t>(w.cols));
  for (int64_t j = 0; j < n; ++j) {
    // The activation row as the dot kernels see it.
    quantize_activation_row(xt, x.data() + j * w.cols, converted.data(), w.cols);
    dequantize_row(xt, converted.data(), xr.data(), w.cols);
    for (int64_t r = 0; r < w.rows; ++r) {
      dequantize_row(w.type, w.row(r), wr.data(), w.cols);
      double sum = 0;
      for (int64_t i = 0; i < w.cols; ++i)
        sum += static_cast<double>(wr[static_cast<size_t>(i)]) * xr[static_cast<size_t>(i)];
      y[static_cast<size_t>(j * w.rows + r)] = static_cast<float>(sum);
    }
  }
}

void paged_attention(std::span<const float> q, std::span<const int32_t> positions, int32_t num_heads,
                     const KvLayerView& kv, std::span<const int32_t> block_table, AttentionScores scores,
                     std::span<float> out) {
  const int32_t hd = kv.head_dim;
  const int32_t group = num_heads / kv.num_kv_heads;
  const size_t head_bytes = row_bytes(kv.type, hd);
  std::vector<float> k(static_cast<size_t>(hd)), v(static_cast<size_t>(hd));
  // Where the row of KV head `kvh` at position t lives.
  auto locate = [&](int64_t t, int32_t kvh) {
    const int32_t block = block_table[static_cast<size_t>(t / kv.block_size)];
    return (static_cast<size_t>(block) * kv.block_size + static_cast<size_t>(t % kv.block_size)) *
               kv.token_bytes() +
           static_cast<size_t>(kvh) * head_bytes;
  };
  for (size_t r = 0; r < positions.size(); ++r) {
    const int64_t first = kv.first_visible(positions[r]), n_visible = int64_t{positions[r]} + 1 - first;
    for (int32_t h = 0; h < num_heads; ++h) {
      const int32_t kvh = h / group;
      const float* qh = q.data() + (r * static_cast<size_t>(num_heads) + static_cast<size_t>(h)) * hd;
      std::vector<double> score(static_cast<size_t>(n_visible));
      double max = -INFINITY;
      for (int64_t t = 0; t < n_visible; ++t) {
        dequantize_row(kv.type, kv.k + locate(first + t, kvh), k.data(), hd);
        double s = 0;
        for (int32_t i = 0; i < hd; ++i) s += static_cast<double>(qh[i]) * k[static_cast<size_t>(i)];
        score[static_cast<size_t>(t)] = s * scores.scale;
        if (scores.softcap > 0)
          score[static_cast<size_t>(t)] =
              scores.softcap * std::tanh(score[static_cast<size_t>(t)] / scores.softcap);
        max = std::fmax(max, score[static_cast<size_t>(t)]);
      }
      double total = 0;
      for (double& s : score) total += (s = std::exp(s - max));
      std::vector<double> acc(static_cast<size_t>(hd), 0.0);
      for (int64_t t = 0; t < n_visible; ++t) {
        dequantize_row(kv.type, kv.v + locate(first + t, kvh), v.data(), hd);
        for (int32_t i = 0; i < hd; ++i)
          acc[static_cast<size_t>(i)] += score[static_cast<size_t>(t)] / total * v[static_cast<size_t>(i)];
      }
      float* oh = out.data() + (r * static_cast<size_t>(num_heads) + static_cast<size_t>(h)) * hd;
      for (int32_t i = 0; i < hd; ++i) oh[i] = static_cast<float>(acc[static_cast<size_t>(i)]);
    }
  }
}

}  // namespace kernels::reference
