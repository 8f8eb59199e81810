// The tensor list per architecture and the storage type of each tensor.
//
// Initial values keep activations sane through any depth: norms are 1; token_embd has std 0.02
// (as GPT-2 initialises it; with tied embeddings the logits then have std 0.02 * sqrt(embd));
// projections reading a normalised input (q, k, v, gate, up, output) have std 1 / sqrt(fan_in) so
// their outputs have unit scale; projections writing to the residual stream (attn_output,
// ffn_down) are further divided by sqrt(2 * layers), as GPT-2 scales them; biases have std 0.02.
#include "engine/tools/synth/tensor_plan.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <regex>

#include "base/strings.h"

namespace engine::synth {

namespace {

using kernels::GgmlType;

// "blk.7.attn_q.weight" -> "blk.*.attn_q.weight", to report a fallback once for all layers.
std::string name_pattern(const std::string& name) {
  static const std::regex kLayer(R"(^blk\.\d+\.)");
  return std::regex_replace(name, kLayer, "blk.*.");
}

class Planner {
 public:
  explicit Planner(SynthDtype dtype) : dtype_(dtype) {}

  // A 1-D tensor (norm or bias): always F32.
  void vector(std::string name, int64_t n, Init init, float stddev = 0.f) {
    plan_.tensors.push_back({std::move(name), {n}, GgmlType::F32, init, stddev});
  }

  // A matrix of `rows` rows of `row_len` values; `output_like` for the output projection (and
  // token_embd when tied), which llama.cpp keeps at higher precision.
  std::expected<void, Error> matrix(std::string name, int64_t row_len, int64_t rows, float stddev,
                                    bool output_like) {
    auto type = storage_type(name, row_len, output_like);
    if (!type) return std::unexpected(type.error());
    plan_.tensors.push_back({std::move(name), {row_len, rows}, *type, Init::Normal, stddev});
    return {};
  }

  // Every expert's matrix of `rows` rows of `row_len` values, stacked in one 3-D tensor
  // [row_len, rows, experts] as llama.cpp stores them.
  std::expected<void, Error> experts(std::string name, int64_t row_len, int64_t rows, int64_t experts,
                                     float stddev) {
    auto type = storage_type(name, row_len, false);
    if (!type) return std::unexpected(type.error());
    plan_.tensors.push_back({std::move(name), {row_len, rows, experts}, *type, Init::Normal, stddev});
    return {};
  }

  // The router [row_len, rows]: F32 whatever the dtype, as llama.cpp's converter and quantizer keep it.
  void router(std::string name, int64_t row_len, int64_t rows, float stddev) {
    plan_.tensors.push_back({std::move(name), {row_len, rows}, GgmlType::F32, Init::Normal, stddev});
  }

  TensorPlan take() { return std::move(plan_); }

 private:
  std::expected<GgmlType, Error> storage_type(const std::string& name, int64_t row_len, bool output_like) {
    switch (dtype_) {
      case SynthDtype::F32:
        return GgmlType::F32;
      case SynthDtype::F16:
        return GgmlType::F16;
      case SynthDtype::BF16:
        return GgmlType::BF16;
      case SynthDtype::Q8_0:
      case SynthDtype::Q4_K:
        break;
    }
    if (row_len % 32 != 0)
      return std::unexpected(Error{fmt::format(
          "tensor '{}': row length {} is not a multiple of 32, which {} needs (llama.cpp cannot quantize it "
          "either); choose sizes that are multiples of 32 or use --dtype f16, bf16 or f32",
          name, row_len, to_string(dtype_))});
    if (dtype_ == SynthDtype::Q8_0) return GgmlType::Q8_0;
    const GgmlType wanted = output_like ? GgmlType::Q6_K : GgmlType::Q4_K;
    if (row_len % 256 == 0) return wanted;
    const GgmlType fallback = output_like ? GgmlType::Q8_0 : GgmlType::Q5_0;
    note(fmt::format("{}: rows of {} are not a multiple of 256 ({}): stored as {}, as llama.cpp does",
                     name_pattern(name), row_len, kernels::traits(wanted).name,
                     kernels::traits(fallback).name));
    return fallback;
  }

  void note(std::string line) {
    if (std::find(plan_.notes.begin(), plan_.notes.end(), line) == plan_.notes.end())
      plan_.notes.push_back(std::move(line));
  }

  SynthDtype dtype_;
  TensorPlan plan_;
};

float inv_sqrt(int64_t n) {
  return 1.f / std::sqrt(static_cast<float>(n));
}

// The FFN's gate, up and down matrices (phi3: gate and up rows in one ffn_up).
std::expected<void, Error> plan_dense_ffn(Planner& p, const ModelShape& s, const std::string& blk) {
  const float residual_scale = 1.f / std::sqrt(2.f * static_cast<float>(s.num_layers));
  if (s.arch == Arch::Phi3) {
    if (auto ok = p.matrix(blk + "ffn_up.weight", s.embd, 2 * s.ffn, inv_sqrt(s.embd), false); !ok) return ok;
  } else {
    for (const char* name : {"ffn_gate", "ffn_up"})
      if (auto ok = p.matrix(blk + name + ".weight", s.embd, s.ffn, inv_sqrt(s.embd), false); !ok) return ok;
  }
  return p.matrix(blk + "ffn_down.weight", s.ffn, s.embd, inv_sqrt(s.ffn) * residual_scale, false);
}

// A mixture-of-experts FFN: the router (ffn_gate_inp), the experts' gate, up and down matrices, and
// qwen2moe's shared expert with its sigmoid gate (ffn_*_shexp).
std::expected<void, Error> plan_experts(Planner& p, const ModelShape& s, const std::string& blk) {
  const float residual_scale = 1.f / std::sqrt(2.f * static_cast<float>(s.num_layers));
  const int64_t width = s.expert_width();
  p.router(blk + "ffn_gate_inp.weight", s.embd, s.num_experts, inv_sqrt(s.embd));
  for (const char* name : {"ffn_gate_exps", "ffn_up_exps"})
    if (auto ok = p.experts(blk + name + ".weight", s.embd, width, s.num_experts, inv_sqrt(s.embd)); !ok)
      return ok;
  if (auto ok = p.experts(blk + "ffn_down_exps.weight", width, s.embd, s.num_experts,
                          inv_sqrt(width) * residual_scale);
      !ok)
    return ok;
  if (s.arch != Arch::Qwen2Moe) return {};
  const int64_t shared = s.shared_width();
  p.vector(blk + "ffn_gate_inp_shexp.weight", s.embd, Init::Normal, inv_sqrt(s.embd));
  for (const char* name : {"ffn_gate_shexp", "ffn_up_shexp"})
    if (auto ok = p.matrix(blk + name + ".weight", s.embd, shared, inv_sqrt(s.embd), false); !ok) return ok;
  return p.matrix(blk + "ffn_down_shexp.weight", shared, s.embd, inv_sqrt(shared) * residual_scale, false);
}

}  // namespace

std::expected<TensorPlan, Error> plan_tensors(const ModelShape& s, SynthDtype dtype) {
  if (s.vocab <= 0)
    return std::unexpected(Error{"the vocabulary size is not known (give --vocab or --tokenizer)"});
  Planner p(dtype);
  const float residual_scale = 1.f / std::sqrt(2.f * static_cast<float>(s.num_layers));

  if (auto ok = p.matrix("token_embd.weight", s.embd, s.vocab, 0.02f, s.tied_embeddings); !ok)
    return std::unexpected(ok.error());
  for (int64_t l = 0; l < s.num_layers; ++l) {
    const std::string blk = fmt::format("blk.{}.", l);
    p.vector(blk + "attn_norm.weight", s.embd, Init::Ones);
    const bool fused = s.arch == Arch::Phi3;  // attn_qkv = [q; k; v] rows, ffn_up = [gate; up] rows
    if (fused) {
      if (auto ok = p.matrix(blk + "attn_qkv.weight", s.embd, s.q_width() + 2 * s.kv_width(),
                             inv_sqrt(s.embd), false);
          !ok)
        return std::unexpected(ok.error());
    }
    for (const auto& [name, width] :
         {std::pair{"attn_q", s.q_width()}, {"attn_k", s.kv_width()}, {"attn_v", s.kv_width()}}) {
      if (fused) break;
      if (auto ok = p.matrix(blk + name + ".weight", s.embd, width, inv_sqrt(s.embd), false); !ok)
        return std::unexpected(ok.error());
      if (s.arch == Arch::Qwen2 || s.arch == Arch::Qwen2Moe)
        p.vector(blk + name + ".bias", width, Init::Normal, 0.02f);
    }
    if (s.arch == Arch::Qwen3 || s.arch == Arch::Qwen3Moe || s.arch == Arch::Gemma3) {
      p.vector(blk + "attn_q_norm.weight", s.head_dim, Init::Ones);
      p.vector(blk + "attn_k_norm.weight", s.head_dim, Init::Ones);
    }
    if (auto ok = p.matrix(blk + "attn_output.weight", s.q_width(), s.embd,
                           inv_sqrt(s.q_width()) * residual_scale, false);
        !ok)
      return std::unexpected(ok.error());
    const bool gemma = s.arch == Arch::Gemma2 || s.arch == Arch::Gemma3;
    if (gemma) p.vector(blk + "post_attention_norm.weight", s.embd, Init::Ones);
    p.vector(blk + "ffn_norm.weight", s.embd, Init::Ones);
    if (auto ok = s.is_moe() ? plan_experts(p, s, blk) : plan_dense_ffn(p, s, blk); !ok)
      return std::unexpected(ok.error());
    if (gemma) p.vector(blk + "post_ffw_norm.weight", s.embd, Init::Ones);
  }
  if (s.longrope_original_context > 0) {
    p.vector("rope_factors_long.weight", s.head_dim / 2, Init::LongFactors);
    p.vector("rope_factors_short.weight", s.head_dim / 2, Init::ShortFactors);
  }
  p.vector("output_norm.weight", s.embd, Init::Ones);
  if (!s.tied_embeddings)
    if (auto ok = p.matrix("output.weight", s.embd, s.vocab, inv_sqrt(s.embd), true); !ok)
      return std::unexpected(ok.error());
  return p.take();
}

}  // namespace engine::synth
