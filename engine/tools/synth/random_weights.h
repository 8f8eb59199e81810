// Deterministic pseudo-random weights, fast enough to synthesize billions of values: each row of
// each tensor draws from its own stream (derived from the seed, the tensor's name and the row),
// so rows can be generated in any order, on any number of threads, with identical results.
#pragma once

#include <cstdint>
#include <string_view>

namespace engine::synth {

// The stream key of one tensor: the seed mixed with a hash of the tensor's name.
uint64_t tensor_key(uint64_t seed, std::string_view tensor_name);

// Fills out[0..n) with row `row` of the tensor keyed `key`: approximately normal values (the
// centred sum of four uniform 16-bit draws, so bounded by +-3.46 standard deviations) with mean 0
// and standard deviation `stddev`.
void fill_normal_row(uint64_t key, int64_t row, float stddev, float* out, int64_t n);

}  // namespace engine::synth
