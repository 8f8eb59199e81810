// Binding GGUF tensors to kernel views with shape and type checks.
#include "engine/model/model_weights.h"

#include <fmt/format.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>

#include "engine/gguf/gguf_file.h"
#include "kernels/cpu/cpu_ops.h"
#include "kernels/cpu/huge_buffer.h"
#include "kernels/quant/dequant.h"

namespace engine {

namespace {

std::string shape_text(const std::vector<int64_t>& dims) {
  std::string s = "[";
  for (size_t i = 0; i < dims.size(); ++i) s += (i ? ", " : "") + std::to_string(dims[i]);
  return s + "]";
}

class Binder {
 public:
  explicit Binder(const gguf::GgufFile& file) : file_(file) {}

  // The first problem met, if any.
  const std::optional<Error>& error() const { return error_; }

  // A matrix of `rows` rows of `cols` values (ggml dims [cols, rows]) of a supported type.
  kernels::MatrixView matrix(const std::string& name, int64_t rows, int64_t cols) {
    const auto* t = weight(name, {cols, rows});
    return t ? kernels::matrix_view(t->data.data(), t->type, rows, cols) : kernels::MatrixView{};
  }

  // A 1-D weight of `cols` values (qwen2moe's ffn_gate_inp_shexp) as a matrix of one row.
  kernels::MatrixView row(const std::string& name, int64_t cols) {
    const auto* t = weight(name, {cols});
    return t ? kernels::matrix_view(t->data.data(), t->type, 1, cols) : kernels::MatrixView{};
  }

  // `count` matrices of `rows` rows of `cols` values stacked in one 3-D tensor (ggml dims
  // [cols, rows, count]: a mixture's experts), each a view of its rows in place.
  std::vector<kernels::MatrixView> stacked(const std::string& name, int64_t count, int64_t rows,
                                           int64_t cols) {
    const auto* t = weight(name, {cols, rows, count});
    if (!t) return std::vector<kernels::MatrixView>(static_cast<size_t>(count));
    const kernels::MatrixView whole = kernels::matrix_view(t->data.data(), t->type, rows * count, cols);
    std::vector<kernels::MatrixView> out;
    for (int64_t e = 0; e < count; ++e)
      out.push_back(kernels::matrix_view(whole.row(e * rows), t->type, rows, cols));
    return out;
  }

  // A fused matrix (phi3's attn_qkv, ffn_up) split into its parts: rows[0] rows, then rows[1], ...,
  // each part a view of its rows in place (a row's blocks never straddle two parts).
  std::vector<kernels::MatrixView> parts(const std::string& name, std::initializer_list<int64_t> rows,
                                         int64_t cols) {
    int64_t total = 0;
    for (int64_t r : rows) total += r;
    const kernels::MatrixView whole = matrix(name, total, cols);
    if (!whole.data) return std::vector<kernels::MatrixView>(rows.size());
    std::vector<kernels::MatrixView> out;
    int64_t first = 0;
    for (int64_t r : rows) {
      out.push_back(kernels::matrix_view(whole.row(first), whole.type, r, cols));
      first += r;
    }
    return out;
  }

  // An F32 vector of n values; absent optional tensors give an empty span.
  std::span<const float> vector(const std::string& name, int64_t n, bool required = true) {
    const auto* t = find(name, {n}, required);
    if (!t) return {};
    if (t->type != kernels::GgmlType::F32) {
      fail(fmt::format("tensor '{}' has type {}, expected f32", name, kernels::traits(t->type).name));
      return {};
    }
    return {reinterpret_cast<const float*>(t->data.data()), static_cast<size_t>(n)};
  }

  bool has(const std::string& name) const { return file_.find_tensor(name) != nullptr; }

 private:
  // A weight tensor of these dims, of a type the matmul reads, its rows whole blocks.
  const gguf::TensorInfo* weight(const std::string& name, const std::vector<int64_t>& dims) {
    const auto* t = find(name, dims, true);
    if (!t) return nullptr;
    if (!kernels::is_supported_weight_type(t->type)) {
      fail(fmt::format(
          "tensor '{}' has type {}, which is not supported (supported: f32, f16, bf16, q8_0, q4_0, "
          "q4_K, q5_K, q6_K)",
          name, kernels::traits(t->type).name));
      return nullptr;
    }
    if (dims[0] % kernels::traits(t->type).block_size != 0) {
      fail(fmt::format("tensor '{}' of type {} has rows of {} values, not a multiple of its block size {}",
                       name, kernels::traits(t->type).name, dims[0], kernels::traits(t->type).block_size));
      return nullptr;
    }
    return t;
  }

  const gguf::TensorInfo* find(const std::string& name, const std::vector<int64_t>& dims, bool required) {
    if (error_) return nullptr;
    const auto* t = file_.find_tensor(name);
    if (!t) {
      if (required) fail(fmt::format("missing tensor '{}' (expected shape {})", name, shape_text(dims)));
      return nullptr;
    }
    if (t->dims != dims) {
      fail(fmt::format("tensor '{}' has shape {}, expected {}", name, shape_text(t->dims), shape_text(dims)));
      return nullptr;
    }
    if (t->data.size() != kernels::row_bytes(t->type, t->num_elements())) {
      fail(fmt::format("tensor '{}' holds {} bytes, expected {}", name, t->data.size(),
                       kernels::row_bytes(t->type, t->num_elements())));
      return nullptr;
    }
    return t;
  }

  void fail(const std::string& what) {
    if (!error_) error_ = Error{fmt::format("{}: {}", file_.path(), what)};
  }

  const gguf::GgufFile& file_;
  std::optional<Error> error_;
};

// Drops the whole pages of [data, data + bytes) from this process's view of the mapped file:
// a repacked matrix is never read in its file layout again, so without this the process would
// hold the matrix twice (its file pages stay resident until the kernel needs the memory). The
// mapping is read-only and private, so a later read, if any (a tied token_embd's rows for the
// lookups), faults the same bytes back in from the file.
void release_file_pages(const std::byte* data, size_t bytes) {
  const auto page = static_cast<uintptr_t>(sysconf(_SC_PAGESIZE));
  const uintptr_t begin = (reinterpret_cast<uintptr_t>(data) + page - 1) / page * page;
  const uintptr_t end = (reinterpret_cast<uintptr_t>(data) + bytes) / page * page;
  if (end > begin) madvise(reinterpret_cast<void*>(begin), end - begin, MADV_DONTNEED);
}

// Bytes of a matrix's repacked copy in repack_all's buffer (0: the matrix keeps its layout).
size_t padded_repacked_bytes(const kernels::MatrixView& m) {
  return (kernels::repacked_bytes(m) + 63) / 64 * 64;
}

// Replaces every matrix the CPU matmul has a faster layout for by a repacked copy, all in one
// buffer owned by w (in 2 MiB pages where the kernel grants them: decode streams all of it per
// token, and huge pages spare the TLB a miss every 4 KiB).
void repack_all(ModelWeights& w, const std::vector<kernels::MatrixView*>& matrices) {
  size_t total = 0;
  for (const kernels::MatrixView* m : matrices) total += padded_repacked_bytes(*m);
  if (total == 0) return;
  kernels::HugeBuffer huge = kernels::allocate_huge_buffer(total);
  if (!huge) return;  // no memory for copies: the file layout works as well
  std::byte* const base = huge.get();
  std::shared_ptr<std::byte[]> buffer(std::move(huge));
  size_t at = 0;
  for (kernels::MatrixView* m : matrices) {
    const size_t bytes = kernels::repacked_bytes(*m);
    if (bytes == 0) continue;
    const kernels::MatrixView file_layout = *m;
    *m = kernels::repack_for_matmul(*m, base + at);
    at += (bytes + 63) / 64 * 64;
    release_file_pages(file_layout.data, file_layout.row_stride * static_cast<size_t>(file_layout.rows));
  }
  w.repacked.push_back(std::move(buffer));
}

// A dense FFN: ffn_gate, ffn_up, ffn_down (phi3: the gate's rows, then the up projection's, in ffn_up).
FfnWeights bind_ffn(Binder& b, const std::string& p, const ModelShape& s) {
  const int64_t embd = s.embedding_dim;
  FfnWeights f;
  if (b.has(p + "ffn_gate.weight")) {
    f.gate = b.matrix(p + "ffn_gate.weight", s.ffn_dim, embd);
    f.up = b.matrix(p + "ffn_up.weight", s.ffn_dim, embd);
  } else {
    const auto gate_up = b.parts(p + "ffn_up.weight", {s.ffn_dim, s.ffn_dim}, embd);
    f.gate = gate_up[0], f.up = gate_up[1];
  }
  f.down = b.matrix(p + "ffn_down.weight", embd, s.ffn_dim);
  return f;
}

// A mixture's router, its experts (views of the stacked ffn_{gate,up,down}_exps) and qwen2moe's
// shared expert with its gate.
MoeWeights bind_experts(Binder& b, const std::string& p, const ModelConfig& c) {
  const int64_t embd = c.shape.embedding_dim, count = c.num_experts, width = c.expert_ffn;
  MoeWeights m;
  m.router = b.matrix(p + "ffn_gate_inp.weight", count, embd);
  const auto gate = b.stacked(p + "ffn_gate_exps.weight", count, width, embd);
  const auto up = b.stacked(p + "ffn_up_exps.weight", count, width, embd);
  const auto down = b.stacked(p + "ffn_down_exps.weight", count, embd, width);
  for (size_t e = 0; e < static_cast<size_t>(count); ++e) m.experts.push_back({gate[e], up[e], down[e]});
  if (c.shared_ffn > 0) {
    m.shared_gate = b.row(p + "ffn_gate_inp_shexp.weight", embd);
    m.shared.gate = b.matrix(p + "ffn_gate_shexp.weight", c.shared_ffn, embd);
    m.shared.up = b.matrix(p + "ffn_up_shexp.weight", c.shared_ffn, embd);
    m.shared.down = b.matrix(p + "ffn_down_shexp.weight", embd, c.shared_ffn);
  }
  return m;
}

}  // namespace

uint64_t weight_copy_bytes(const gguf::GgufFile& file) {
  if (file.find_tensor("output.weight")) return 0;
  const gguf::TensorInfo* t = file.find_tensor("token_embd.weight");
  if (!t || t->dims.size() != 2 || !kernels::is_supported_weight_type(t->type) ||
      t->dims[0] % kernels::traits(t->type).block_size != 0)
    return 0;  // bind_weights refuses such a file
  return padded_repacked_bytes(kernels::matrix_view(nullptr, t->type, t->dims[1], t->dims[0]));
}

std::expected<ModelWeights, Error> bind_weights(const gguf::GgufFile& file, const ModelConfig& config) {
  const ModelShape& s = config.shape;
  const int64_t embd = s.embedding_dim, q_dim = int64_t{s.num_heads} * s.head_dim;
  const int64_t kv_dim = int64_t{s.num_kv_heads} * s.head_dim;
  Binder b(file);
  ModelWeights w;
  w.token_embd = b.matrix("token_embd.weight", s.vocab_size, embd);
  w.output_norm = b.vector("output_norm.weight", embd);
  // A model without output.weight ties its output projection to the token embedding.
  w.output = b.has("output.weight") ? b.matrix("output.weight", s.vocab_size, embd) : w.token_embd;
  if (b.has("rope_freqs.weight")) w.rope_freqs = b.vector("rope_freqs.weight", config.rope_dim / 2);
  if (b.has("rope_factors_long.weight") || b.has("rope_factors_short.weight")) {  // LongRoPE: both
    w.rope_factors_long = b.vector("rope_factors_long.weight", config.rope_dim / 2);
    w.rope_factors_short = b.vector("rope_factors_short.weight", config.rope_dim / 2);
  }

  for (int32_t l = 0; l < s.num_layers; ++l) {
    const std::string p = fmt::format("blk.{}.", l);
    LayerWeights& L = w.layers.emplace_back();
    L.attn_norm = b.vector(p + "attn_norm.weight", embd);
    if (b.has(p + "attn_qkv.weight")) {  // phi3: q, k and v rows in one tensor
      const auto qkv = b.parts(p + "attn_qkv.weight", {q_dim, kv_dim, kv_dim}, embd);
      L.attn_q = qkv[0], L.attn_k = qkv[1], L.attn_v = qkv[2];
    } else {
      L.attn_q = b.matrix(p + "attn_q.weight", q_dim, embd);
      L.attn_k = b.matrix(p + "attn_k.weight", kv_dim, embd);
      L.attn_v = b.matrix(p + "attn_v.weight", kv_dim, embd);
    }
    L.q_bias = b.vector(p + "attn_q.bias", q_dim, false);
    L.k_bias = b.vector(p + "attn_k.bias", kv_dim, false);
    L.v_bias = b.vector(p + "attn_v.bias", kv_dim, false);
    if (config.qk_norm) {
      L.q_norm = b.vector(p + "attn_q_norm.weight", s.head_dim);
      L.k_norm = b.vector(p + "attn_k_norm.weight", s.head_dim);
    }
    L.attn_output = b.matrix(p + "attn_output.weight", embd, q_dim);
    if (config.post_norms) {
      L.attn_post_norm = b.vector(p + "post_attention_norm.weight", embd);
      L.ffn_post_norm = b.vector(p + "post_ffw_norm.weight", embd);
    }
    L.ffn_norm = b.vector(p + "ffn_norm.weight", embd);
    if (config.is_moe())
      L.moe = bind_experts(b, p, config);
    else
      L.ffn = bind_ffn(b, p, s);
  }
  if (b.error()) return std::unexpected(*b.error());
  std::vector<kernels::MatrixView*> matrices;
  const auto add_ffn = [&](FfnWeights& f) {
    for (kernels::MatrixView* m : {&f.gate, &f.up, &f.down})
      if (m->data) matrices.push_back(m);
  };
  for (LayerWeights& L : w.layers) {
    for (kernels::MatrixView* m : {&L.attn_q, &L.attn_k, &L.attn_v, &L.attn_output}) matrices.push_back(m);
    add_ffn(L.ffn);
    for (FfnWeights& e : L.moe.experts) add_ffn(e);
    add_ffn(L.moe.shared);
  }
  matrices.push_back(&w.output);  // a tied output gets its own copy; token_embd stays for lookups
  repack_all(w, matrices);
  return w;
}

}  // namespace engine
