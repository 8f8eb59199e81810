// Which tensors a synthesized model has, with llama.cpp's names, shapes and storage types, and how
// each is initialised. Storage types follow llama.cpp's conventions: 1-D tensors (norms, biases)
// and MoE routers (ffn_gate_inp) stay F32; in q4_k files output.weight (and token_embd when it doubles as the
// output) is Q6_K and rows that are not a multiple of 256 fall back as llama-quantize does (Q4_K -> Q5_0,
// Q6_K -> Q8_0).
#pragma once

#include <cstdint>
#include <expected>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "engine/error.h"
#include "engine/tools/synth/model_shape.h"
#include "engine/tools/synth/synth_dtype.h"
#include "kernels/quant/ggml_type.h"

namespace engine::synth {

// How a tensor's values are made.
// LongFactors / ShortFactors: LongRoPE's frequency divisors, 1 + 0.25 i and 1 + 0.02 i for pair i.
enum class Init { Normal, Ones, LongFactors, ShortFactors };

struct PlannedTensor {
  std::string name;
  std::vector<int64_t> dims;  // ggml order: dims[0] is the row length
  kernels::GgmlType type = kernels::GgmlType::F32;
  Init init = Init::Normal;
  float stddev = 0.f;  // for Init::Normal
};

struct TensorPlan {
  std::vector<PlannedTensor> tensors;
  // One line per group of tensors stored in another type than the dtype asks for, e.g.
  // "blk.*.attn_q.weight: rows of 896 are not a multiple of 256 (q4_K): stored as q5_0, as llama.cpp does".
  std::vector<std::string> notes;
};

// The tensors of `shape` (with shape.vocab rows of embeddings) stored as `dtype`. Errors name the
// tensor and the rule, e.g. a q8_0 row length that is not a multiple of 32.
std::expected<TensorPlan, Error> plan_tensors(const ModelShape& shape, SynthDtype dtype);

}  // namespace engine::synth
