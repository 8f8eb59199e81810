// The weight formats of a synthesized model (`arena synth --dtype`): their names and llama.cpp's
// general.file_type for each.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace engine::synth {

// The weight formats `arena synth --dtype` offers.
enum class SynthDtype { F32, F16, BF16, Q8_0, Q4_K };

// "f32", "f16", "bf16", "q8_0", "q4_k".
const char* to_string(SynthDtype dtype);
// The dtype of that name (case-insensitive), or nullopt.
std::optional<SynthDtype> parse_dtype(std::string_view name);
// llama.cpp's general.file_type (llama_ftype) for the dtype: 0, 1, 32, 7, 14 (Q4_K_S).
uint32_t file_type(SynthDtype dtype);

}  // namespace engine::synth
