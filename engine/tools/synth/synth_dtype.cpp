#include "engine/tools/synth/synth_dtype.h"

#include <string>

#include "base/strings.h"

namespace engine::synth {

const char* to_string(SynthDtype dtype) {
  switch (dtype) {
    case SynthDtype::F32:
      return "f32";
    case SynthDtype::F16:
      return "f16";
    case SynthDtype::BF16:
      return "bf16";
    case SynthDtype::Q8_0:
      return "q8_0";
    case SynthDtype::Q4_K:
      return "q4_k";
  }
  return "unknown";
}

std::optional<SynthDtype> parse_dtype(std::string_view name) {
  const std::string lower = base::to_lower(name);
  for (auto d : {SynthDtype::F32, SynthDtype::F16, SynthDtype::BF16, SynthDtype::Q8_0, SynthDtype::Q4_K})
    if (lower == to_string(d)) return d;
  return std::nullopt;
}

uint32_t file_type(SynthDtype dtype) {
  switch (dtype) {
    case SynthDtype::F32:
      return 0;  // LLAMA_FTYPE_ALL_F32
    case SynthDtype::F16:
      return 1;  // LLAMA_FTYPE_MOSTLY_F16
    case SynthDtype::BF16:
      return 32;  // LLAMA_FTYPE_MOSTLY_BF16
    case SynthDtype::Q8_0:
      return 7;  // LLAMA_FTYPE_MOSTLY_Q8_0
    case SynthDtype::Q4_K:
      return 14;  // LLAMA_FTYPE_MOSTLY_Q4_K_S: Q4_K with a Q6_K output
  }
  return 0;
}

}  // namespace engine::synth
