// The transformer against a second, independent forward pass written here in plain double loops
// over dequantized weights, on synthesized F32 models: qwen3 (per-head q/k RMSNorm, neox rope),
// qwen2 with a tied output (q/k/v biases), the mixtures of experts, and llama with Llama-3.1-style
// rope_freqs, linear rope scaling and partial rotation (rope.dimension_count < head size) — the paths the
// llama.cpp conformance data does not reach.
#include <catch2/catch.hpp>
#include <cmath>
#include <cstring>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#include "engine/gguf/gguf_file.h"
#include "engine/model/sequence_runner.h"
#include "engine/model/transformer.h"
#include "kernels/cpu/half.h"
#include "kernels/quant/dequant.h"
#include "tests/engine/model_test_files.h"

using engine::synth::Arch;

namespace {

using Vec = std::vector<double>;

// One sequence through the model, every position, the definition written out directly.
class NaiveTransformer {
 public:
  explicit NaiveTransformer(const engine::gguf::GgufFile& f) : f_(f) {
    arch_ = *f.get_string("general.architecture");
    const std::string p = arch_ + ".";
    layers_ = *f.get_int(p + "block_count");
    embd_ = *f.get_int(p + "embedding_length");
    heads_ = *f.get_int(p + "attention.head_count");
    kv_heads_ = *f.get_int(p + "attention.head_count_kv");
    hd_ = f.get_int(p + "attention.key_length").value_or(embd_ / heads_);
    ffn_ = *f.get_int(p + "feed_forward_length");
    eps_ = *f.get_float(p + "attention.layer_norm_rms_epsilon");
    base_ = *f.get_float(p + "rope.freq_base");
    rot_ = f.get_int(p + "rope.dimension_count").value_or(hd_);
    scale_ = 1.0 / f.get_float(p + "rope.scaling.factor").value_or(1.0);
    if (f.find_tensor("rope_freqs.weight")) factors_ = vec("rope_freqs.weight");
    vocab_ = f.find_tensor("token_embd.weight")->dims[1];
    gemma3_ = arch_ == "gemma3";
    window_ = f.get_int(p + "attention.sliding_window").value_or(0);
    experts_ = f.get_int(p + "expert_count").value_or(0);
    used_ = f.get_int(p + "expert_used_count").value_or(0);
  }

  // logits[t] for every position t of `tokens`.
  std::vector<Vec> run(const std::vector<int32_t>& tokens) {
    std::vector<std::vector<Vec>> keys(static_cast<size_t>(layers_)), values(static_cast<size_t>(layers_));
    std::vector<Vec> out;
    const auto embd = mat("token_embd.weight");
    for (size_t t = 0; t < tokens.size(); ++t) {
      Vec x(embd.begin() + tokens[t] * embd_, embd.begin() + (tokens[t] + 1) * embd_);
      if (gemma3_)
        for (double& v : x) v *= std::sqrt(static_cast<double>(embd_));
      for (int64_t l = 0; l < layers_; ++l) {
        // gemma3: five of every six layers see the last window_ positions, with rope base 10000
        const bool sliding = gemma3_ && l % 6 < 5;
        const size_t first =
            sliding && t + 1 > static_cast<size_t>(window_) ? t + 1 - static_cast<size_t>(window_) : 0;
        const double base = sliding ? 10000.0 : base_, scale = sliding ? 1.0 : scale_;
        const std::string b = "blk." + std::to_string(l) + ".";
        Vec h = rmsnorm(x, vec(b + "attn_norm.weight"));
        Vec q = linear(b + "attn_q", h), k = linear(b + "attn_k", h), v = linear(b + "attn_v", h);
        if (arch_.starts_with("qwen3") || gemma3_) {
          head_norm(q, vec(b + "attn_q_norm.weight"));
          head_norm(k, vec(b + "attn_k_norm.weight"));
        }
        rope(q, static_cast<double>(t), base, scale);
        rope(k, static_cast<double>(t), base, scale);
        keys[static_cast<size_t>(l)].push_back(k);
        values[static_cast<size_t>(l)].push_back(v);
        Vec attn(static_cast<size_t>(heads_ * hd_), 0.0);
        for (int64_t hq = 0; hq < heads_; ++hq) {
          const int64_t hk = hq / (heads_ / kv_heads_);
          Vec score(t + 1);
          double max = -INFINITY, total = 0;
          for (size_t s = first; s <= t; ++s) {
            double d = 0;
            for (int64_t i = 0; i < hd_; ++i)
              d += q[static_cast<size_t>(hq * hd_ + i)] *
                   keys[static_cast<size_t>(l)][s][static_cast<size_t>(hk * hd_ + i)];
            score[s] = d / std::sqrt(static_cast<double>(hd_));
            max = std::max(max, score[s]);
          }
          for (size_t s = first; s <= t; ++s) total += (score[s] = std::exp(score[s] - max));
          for (size_t s = first; s <= t; ++s)
            for (int64_t i = 0; i < hd_; ++i)
              attn[static_cast<size_t>(hq * hd_ + i)] +=
                  score[s] / total * values[static_cast<size_t>(l)][s][static_cast<size_t>(hk * hd_ + i)];
        }
        Vec o = linear(b + "attn_output", attn);
        if (gemma3_) o = rmsnorm(o, vec(b + "post_attention_norm.weight"));
        add(x, o);
        h = rmsnorm(x, vec(b + "ffn_norm.weight"));
        Vec y = experts_ > 0 ? mixture(b, h)
                             : ffn(mat(b + "ffn_gate.weight"), mat(b + "ffn_up.weight"),
                                   mat(b + "ffn_down.weight"), h);
        if (gemma3_) y = rmsnorm(y, vec(b + "post_ffw_norm.weight"));
        add(x, y);
      }
      const std::string out_name = f_.find_tensor("output.weight") ? "output" : "token_embd";
      out.push_back(linear(out_name, rmsnorm(x, vec("output_norm.weight"))));
    }
    return out;
  }

 private:
  Vec vec(const std::string& name) const { return mat(name); }

  // down · (act(gate · h) * (up · h)), act = silu, or for Gemma GELU's tanh form with its input
  // and result rounded to F16, the precision llama.cpp's CPU takes it at (as arena does).
  Vec ffn(const Vec& gate, const Vec& up, const Vec& down, const Vec& h) const {
    Vec g = times(gate, h), u = times(up, h);
    for (size_t i = 0; i < g.size(); ++i)
      g[i] = (gemma3_ ? gelu_f16(g[i]) : g[i] / (1 + std::exp(-g[i]))) * u[i];
    return times(down, g);
  }

  static double gelu_f16(double v) {
    if (v <= -10) return 0;
    if (v >= 10) return v;
    const auto f16 = [](double y) { return kernels::f16_to_f32(kernels::f32_to_f16(static_cast<float>(y))); };
    const double x = f16(v);
    return f16(0.5 * x * (1 + std::tanh(std::sqrt(2 / M_PI) * x * (1 + 0.044715 * x * x))));
  }

  // Σ w_e · ffn_e(h) over the used_ experts of highest softmax(router · h), w renormalised to sum 1
  // except in qwen2moe, which adds sigmoid(shared_gate · h) · shared_ffn(h).
  Vec mixture(const std::string& b, const Vec& h) const {
    Vec p = times(mat(b + "ffn_gate_inp.weight"), h);
    const double max = *std::max_element(p.begin(), p.end());
    double total = 0;
    for (double& v : p) total += (v = std::exp(v - max));
    for (double& v : p) v /= total;
    std::vector<size_t> order(p.size());
    std::iota(order.begin(), order.end(), size_t{0});
    std::stable_sort(order.begin(), order.end(), [&](size_t i, size_t j) { return p[i] > p[j]; });
    double chosen = 0;
    for (int64_t s = 0; s < used_; ++s) chosen += p[order[static_cast<size_t>(s)]];
    const Vec gate = mat(b + "ffn_gate_exps.weight"), up = mat(b + "ffn_up_exps.weight"),
              down = mat(b + "ffn_down_exps.weight");
    const auto part = [&](const Vec& all, size_t e) {
      const size_t n = all.size() / static_cast<size_t>(experts_);
      return Vec(all.begin() + static_cast<long>(e * n), all.begin() + static_cast<long>((e + 1) * n));
    };
    Vec out(h.size(), 0.0);
    for (int64_t s = 0; s < used_; ++s) {
      const size_t e = order[static_cast<size_t>(s)];
      const double w = arch_ == "qwen2moe" ? p[e] : p[e] / chosen;
      const Vec y = ffn(part(gate, e), part(up, e), part(down, e), h);
      for (size_t i = 0; i < out.size(); ++i) out[i] += w * y[i];
    }
    if (arch_ == "qwen2moe") {
      double g = 0;
      const Vec shared_gate = vec(b + "ffn_gate_inp_shexp.weight");
      for (size_t i = 0; i < h.size(); ++i) g += shared_gate[i] * h[i];
      const Vec y = ffn(mat(b + "ffn_gate_shexp.weight"), mat(b + "ffn_up_shexp.weight"),
                        mat(b + "ffn_down_shexp.weight"), h);
      for (size_t i = 0; i < out.size(); ++i) out[i] += y[i] / (1 + std::exp(-g));
    }
    return out;
  }

  // W x for a row-major W of rows of x.size() values.
  static Vec times(const Vec& w, const Vec& x) {
    const size_t rows = w.size() / x.size();
    Vec y(rows, 0.0);
    for (size_t r = 0; r < rows; ++r)
      for (size_t i = 0; i < x.size(); ++i) y[r] += w[r * x.size() + i] * x[i];
    return y;
  }

  // A tensor dequantized to doubles, row-major.
  Vec mat(const std::string& name) const {
    const auto* t = f_.find_tensor(name);
    REQUIRE(t);
    std::vector<float> tmp(static_cast<size_t>(t->num_elements()));
    kernels::dequantize_row(t->type, t->data.data(), tmp.data(), t->num_elements());
    return Vec(tmp.begin(), tmp.end());
  }

  // W x (+ b) for the tensor `name`.weight (rows of size x.size()).
  Vec linear(const std::string& name, const Vec& x) const {
    Vec y = times(mat(name + ".weight"), x);
    if (f_.find_tensor(name + ".bias")) add(y, vec(name + ".bias"));
    return y;
  }

  Vec rmsnorm(const Vec& x, const Vec& w) const {
    double ms = 0;
    for (double v : x) ms += v * v;
    const double s = 1 / std::sqrt(ms / static_cast<double>(x.size()) + eps_);
    Vec y(x.size());
    for (size_t i = 0; i < x.size(); ++i) y[i] = x[i] * s * w[i % w.size()];
    return y;
  }

  void head_norm(Vec& x, const Vec& w) const {
    for (size_t h = 0; h < x.size() / w.size(); ++h) {
      Vec part(x.begin() + static_cast<long>(h * w.size()),
               x.begin() + static_cast<long>((h + 1) * w.size()));
      part = rmsnorm(part, w);
      std::copy(part.begin(), part.end(), x.begin() + static_cast<long>(h * w.size()));
    }
  }

  void rope(Vec& x, double pos, double base, double scale) const {
    for (size_t h = 0; h < x.size() / static_cast<size_t>(hd_); ++h) {
      double* v = x.data() + h * static_cast<size_t>(hd_);
      for (int64_t i = 0; i < rot_ / 2; ++i) {
        double theta =
            pos * scale * std::pow(base, -2.0 * static_cast<double>(i) / static_cast<double>(rot_));
        if (!factors_.empty()) theta /= factors_[static_cast<size_t>(i)];
        const bool neox = arch_ != "llama";
        const int64_t a = neox ? i : 2 * i, b = neox ? i + rot_ / 2 : 2 * i + 1;
        const double x0 = v[a], x1 = v[b];
        v[a] = x0 * std::cos(theta) - x1 * std::sin(theta);
        v[b] = x0 * std::sin(theta) + x1 * std::cos(theta);
      }
    }
  }

  static void add(Vec& x, const Vec& y) {
    for (size_t i = 0; i < x.size(); ++i) x[i] += y[i];
  }

  const engine::gguf::GgufFile& f_;
  std::string arch_;
  int64_t layers_, embd_, heads_, kv_heads_, hd_, ffn_, rot_, vocab_, experts_, used_, window_;
  bool gemma3_;
  double eps_, base_, scale_;
  Vec factors_;
};

// `tolerance` of max|logit|: 1e-4, more where an F16 rounding in the definition (Gemma's GELU)
// turns a last-bit float / double difference into a step of 1/2048.
void compare_with_naive(const std::string& path, double tolerance = 1e-4) {
  auto file = engine::gguf::GgufFile::open(path);
  REQUIRE(file.has_value());
  auto model = engine::Transformer::from_gguf(*file, 2);
  REQUIRE(model.has_value());
  std::mt19937 rng(5);
  std::uniform_int_distribution<int32_t> token(0, (*model)->shape().vocab_size - 1);
  std::vector<int32_t> tokens(9);
  for (auto& t : tokens) t = token(rng);

  engine::SequenceRunner runner(**model, 9);
  const auto got = runner.eval(tokens, true);
  REQUIRE(got.has_value());
  const auto want = NaiveTransformer(*file).run(tokens);
  const size_t vocab = static_cast<size_t>((*model)->shape().vocab_size);
  for (size_t t = 0; t < tokens.size(); ++t) {
    double worst = 0, scale = 0;
    for (size_t v = 0; v < vocab; ++v) {
      worst = std::max(worst, std::fabs((*got)[t * vocab + v] - want[t][v]));
      scale = std::max(scale, std::fabs(want[t][v]));
    }
    INFO("position " << t << ": max |diff| " << worst << " of max |logit| " << scale);
    CHECK(worst <= tolerance * scale);
  }
}

}  // namespace

TEST_CASE("qwen3 forward pass matches the naive definition", "[engine]") {
  compare_with_naive(engine::test::synth_tiny("ref_qwen3", Arch::Qwen3));
}

TEST_CASE("Mixtures of experts match the naive definition", "[engine]") {
  // llama with experts (Mixtral: weights renormalised), qwen2moe (weights as routed, a gated shared
  // expert), qwen3moe (q/k norms, renormalised; also against llama.cpp in
  // conformance_logits_test.cpp).
  for (const Arch arch : {Arch::Llama, Arch::Qwen2Moe, Arch::Qwen3Moe}) {
    SECTION(engine::synth::to_string(arch)) {
      compare_with_naive(engine::test::synth_tiny(std::string("ref_moe_") + engine::synth::to_string(arch),
                                                  arch, engine::synth::SynthDtype::F32, 1, false, 0, 8));
    }
  }
}

TEST_CASE("gemma3 matches the naive definition", "[engine]") {
  // 7 layers (0-4 and 6 slide a 4-position window with rope base 10000, 5 sees all with the file's
  // rope), 9 positions so the window cuts in; q/k norms, post-norms, GELU, the embedding scaled.
  // (Against llama.cpp too, with a 24-position window: conformance_logits_test.cpp.)
  engine::synth::ShapeOverrides o;
  o.arch = Arch::Gemma3;
  o.num_layers = 7;
  o.sliding_window = 4;
  o.rope_base = 1000000.f;  // the global layer's base; the sliding ones take 10000
  o.head_dim = 128;  // 4 heads of 128 on a width of 256, as Gemma 3's heads are wider than width / heads
  auto shape = engine::synth::resolve_shape("tiny", o);
  REQUIRE(shape.has_value());
  engine::synth::SynthOptions options;
  options.shape = *shape;
  options.dtype = engine::synth::SynthDtype::F32;
  options.seed = 3;
  options.output_path = engine::test::temp_model_path("ref_gemma3").string();
  REQUIRE(engine::synth::synthesize(options).has_value());
  compare_with_naive(options.output_path, 1e-3);
}

TEST_CASE("qwen2 with tied output matches the naive definition", "[engine]") {
  const auto untied = engine::test::synth_tiny("ref_qwen2", Arch::Qwen2);
  const auto tied = engine::test::rewrite_gguf(untied, "ref_qwen2_tied", {}, [](auto& tensors) {
    std::erase_if(tensors, [](const engine::test::TensorData& t) { return t.name == "output.weight"; });
  });
  compare_with_naive(tied);
}

TEST_CASE("llama with rope_freqs, linear scaling and partial rotation matches the naive definition",
          "[engine]") {
  const auto plain = engine::test::synth_tiny("ref_llama", Arch::Llama);
  const auto path = engine::test::rewrite_gguf(
      plain, "ref_llama_rope",
      [](auto& w) {
        w.set_u32("llama.rope.dimension_count", 48);
        w.set_string("llama.rope.scaling.type", "linear");
        w.set_f32("llama.rope.scaling.factor", 2.0f);
      },
      [](auto& tensors) {
        // Divisors 1, 1.25, 1.5, ... for the 24 rotated pairs.
        std::vector<float> factors(24);
        for (size_t i = 0; i < factors.size(); ++i) factors[i] = 1.0f + 0.25f * static_cast<float>(i);
        engine::test::TensorData t{"rope_freqs.weight", {24}, kernels::GgmlType::F32, {}};
        t.bytes.resize(factors.size() * sizeof(float));
        std::memcpy(t.bytes.data(), factors.data(), t.bytes.size());
        tensors.push_back(std::move(t));
      });
  compare_with_naive(path);
}
