// The mixture-of-experts ops against values worked out by hand: routing (softmax, top-k, ties,
// renormalised or not), the weighted mix of a row's experts, and the sigmoid-gated shared expert.
#include <catch2/catch.hpp>
#include <cmath>
#include <vector>

#include "kernels/cpu/cpu_ops.h"

TEST_CASE("select_experts takes the k most probable experts, highest first, ties to the lower", "[kernels]") {
  // Two rows of 4 experts. Row 0: logits 0, ln 3, ln 2, ln 3 -> p = 1/9, 3/9, 2/9, 3/9.
  const float l3 = std::log(3.0f), l2 = std::log(2.0f);
  const std::vector<float> logits = {0, l3, l2, l3, 5, 0, 0, 0};
  std::vector<int32_t> ids(4);
  std::vector<float> weights(4);
  kernels::select_experts(logits, 4, 2, false, ids, weights);
  CHECK(ids == std::vector<int32_t>{1, 3, 0, 1});  // the tie 1 / 3 to the lower; row 1's tie of zeros too
  CHECK(weights[0] == Approx(3.0 / 9));
  CHECK(weights[1] == Approx(3.0 / 9));
  const double e5 = std::exp(5.0);
  CHECK(weights[2] == Approx(e5 / (e5 + 3)));
  CHECK(weights[3] == Approx(1 / (e5 + 3)));
  // Renormalised, a row's weights sum to 1 in the same proportions.
  kernels::select_experts(logits, 4, 2, true, ids, weights);
  CHECK(weights[0] == Approx(0.5));
  CHECK(weights[1] == Approx(0.5));
  CHECK(weights[2] + weights[3] == Approx(1.0));
  CHECK(weights[2] / weights[3] == Approx(e5));
  // k = every expert: all of them, by probability.
  std::vector<int32_t> all(4);
  std::vector<float> w4(4);
  kernels::select_experts(std::span(logits).first(4), 4, 4, true, all, w4);
  CHECK(all == std::vector<int32_t>{1, 3, 2, 0});
  CHECK(w4[3] == Approx(1.0 / 9));
}

TEST_CASE("combine_experts mixes each row's experts by weight; add_sigmoid_gated adds a gated term",
          "[kernels]") {
  // Three routed rows of 2 values; two rows with k = 2: row 0 -> routed 2 and 0, row 1 -> 1 and 2.
  const std::vector<float> src = {1, 2, 10, 20, 100, 200};
  const std::vector<int32_t> slots = {2, 0, 1, 2};
  const std::vector<float> weights = {0.5f, 0.25f, 1.0f, 2.0f};
  std::vector<float> out(4, -1.0f);
  kernels::combine_experts(src, slots, weights, 2, 2, out);
  CHECK(out == std::vector<float>{50.25f, 100.5f, 210, 420});

  const std::vector<float> x = {1, 2, 3, 4};
  const std::vector<float> gate = {0, std::log(3.0f)};  // sigmoid: 1/2, 3/4
  kernels::add_sigmoid_gated(x, gate, out);
  CHECK(out[0] == Approx(50.75));
  CHECK(out[1] == Approx(101.5));
  CHECK(out[2] == Approx(212.25));
  CHECK(out[3] == Approx(423));
}
