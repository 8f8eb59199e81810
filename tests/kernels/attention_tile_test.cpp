// The AVX-512 attention tile step (1 to 3 query heads sharing each key and value load) computes
// the AVX2 step's arithmetic: over a run of tiles, full and partial, with the running max jumping
// and with a soft cap, every head's state and output are the same bits.
#include "kernels/cpu/attention_tile.h"

#include <catch2/catch.hpp>
#include <cmath>
#include <cstring>
#include <random>
#include <vector>

#include "kernels/cpu/cpu_features.h"
#include "tests/kernels/random_weights.h"

namespace {

using kernels::kAttentionTile;
using kernels::OnlineSoftmax;

struct Heads {
  std::vector<float> acc;
  std::vector<OnlineSoftmax> states;
  Heads(int32_t heads, int32_t hd)
      : acc(static_cast<size_t>(heads * hd), 0.0f), states(static_cast<size_t>(heads)) {
    for (int32_t h = 0; h < heads; ++h)
      states[static_cast<size_t>(h)] = {-INFINITY, 0.0f, acc.data() + h * hd};
  }
};

}  // namespace

TEST_CASE("The AVX-512 attention tile step gives the AVX2 step's bits for 1 to 3 heads", "[kernels]") {
  if (kernels::detect_simd_level() < kernels::SimdLevel::Avx512 || !kernels::avx512_attention_built() ||
      !kernels::avx2_attention_built()) {
    WARN("this CPU has no AVX-512: the AVX-512 attention kernel is not run (skipped)");
    CHECK_FALSE(kernels::detect_simd_level() == kernels::SimdLevel::Avx512);
    return;
  }
  std::mt19937 rng(41);
  // Keys per tile: full, partial (past 8 and below), full again; tile 2's keys are scaled up so
  // the running max jumps there.
  const int32_t counts[] = {16, 9, 16, 3, 16};
  int num_compared = 0;
  for (int32_t hd : {16, 64, 96, 128, 256})
    for (int32_t heads = 1; heads <= 3; ++heads)
      for (float softcap : {0.0f, 3.0f}) {
        INFO("head_dim " << hd << ", " << heads << " heads, soft cap " << softcap);
        const kernels::AttentionScores scores(1.0f / std::sqrt(static_cast<float>(hd)), softcap);
        const auto q = kernels::test::random_floats(static_cast<size_t>(heads * hd), rng);
        const std::vector<float> zeros(static_cast<size_t>(hd), 0.0f);
        Heads avx2(heads, hd), avx512(heads, hd);
        for (int tile_index = 0; tile_index < 5; ++tile_index) {
          const float spread = tile_index == 2 ? 4.0f : 1.0f;
          const auto k = kernels::test::random_floats(static_cast<size_t>(kAttentionTile * hd), rng, spread);
          const auto v = kernels::test::random_floats(static_cast<size_t>(kAttentionTile * hd), rng);
          const int32_t n = counts[tile_index];
          kernels::KvTile tile;
          for (int32_t t = 0; t < kAttentionTile; ++t) {
            tile.k[t] = t < n ? k.data() + t * hd : zeros.data();
            tile.v[t] = t < n ? v.data() + t * hd : zeros.data();
          }
          const float* qs[3];
          OnlineSoftmax* states[3];
          for (int32_t h = 0; h < heads; ++h) {
            kernels::avx2_attend_tile(q.data() + h * hd, tile, n, hd, scores,
                                      avx2.states[static_cast<size_t>(h)]);
            qs[h] = q.data() + h * hd;
            states[h] = &avx512.states[static_cast<size_t>(h)];
          }
          kernels::avx512_attend_tile_heads(qs, heads, tile, n, hd, scores, states);
          for (int32_t h = 0; h < heads; ++h) {
            CHECK(avx512.states[static_cast<size_t>(h)].max == avx2.states[static_cast<size_t>(h)].max);
            CHECK(avx512.states[static_cast<size_t>(h)].sum == avx2.states[static_cast<size_t>(h)].sum);
          }
          CHECK(std::memcmp(avx512.acc.data(), avx2.acc.data(), avx2.acc.size() * sizeof(float)) == 0);
        }
        std::vector<float> out2(static_cast<size_t>(hd)), out512(static_cast<size_t>(hd));
        for (int32_t h = 0; h < heads; ++h) {
          kernels::avx2_finish(avx2.states[static_cast<size_t>(h)], hd, out2.data());
          kernels::avx512_finish(avx512.states[static_cast<size_t>(h)], hd, out512.data());
          CHECK(std::memcmp(out2.data(), out512.data(), out2.size() * sizeof(float)) == 0);
          CHECK(std::isfinite(out2[0]));
          ++num_compared;
        }
      }
  CHECK(num_compared == 5 * (1 + 2 + 3) * 2);
}

TEST_CASE("The AVX-512 F16 conversion of a cache row is the F16C one", "[kernels]") {
  if (kernels::detect_simd_level() < kernels::SimdLevel::Avx512 || !kernels::avx512_attention_built()) {
    WARN("this CPU has no AVX-512: not run (skipped)");
    CHECK_FALSE(kernels::detect_simd_level() == kernels::SimdLevel::Avx512);
    return;
  }
  std::vector<std::byte> halves(2 * 256);
  for (size_t i = 0; i < halves.size() / 2; ++i) {
    const auto bits = static_cast<uint16_t>(i * 257u + 13u);  // normal, subnormal and special values
    std::memcpy(halves.data() + 2 * i, &bits, 2);
  }
  std::vector<float> a(256), b(256);
  kernels::avx2_f16_to_f32(halves.data(), a.data(), 256);
  kernels::avx512_f16_to_f32(halves.data(), b.data(), 256);
  CHECK(std::memcmp(a.data(), b.data(), a.size() * sizeof(float)) == 0);
}
