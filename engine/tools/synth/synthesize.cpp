// Model synthesis: metadata, vocabulary, then each tensor generated and quantized in batches of
// rows by worker threads and streamed to the GGUF writer, one batch in memory at a time.
#include "engine/tools/synth/synthesize.h"

#include <fmt/format.h>
#include <sys/stat.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <fstream>
#include <iterator>
#include <system_error>
#include <thread>
#include <unordered_set>

#include "engine/gguf/gguf_file.h"
#include "engine/tools/gguf_writer.h"
#include "engine/tools/synth/builtin_corpus.h"
#include "engine/tools/synth/random_weights.h"
#include "engine/tools/synth/synth_vocab.h"
#include "engine/tools/synth/tensor_plan.h"
#include "kernels/quant/quantize.h"
#include "kernels/thread_pool.h"

namespace engine::synth {

namespace {

// The whole of the file at `path` into `out` (nothing when `path` is empty); an empty file is an error.
std::expected<void, Error> read_text(const std::string& path, std::string_view what, std::string& out) {
  if (path.empty()) return {};
  std::ifstream in(path, std::ios::binary);
  out.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  if (!in && !in.eof()) return std::unexpected(Error{fmt::format("cannot read {} {}", what, path)});
  if (out.empty()) return std::unexpected(Error{fmt::format("{} {} is empty", what, path)});
  return {};
}

// One user-defined token a line; blank lines are skipped, a repeated token is an error (file:line).
std::expected<std::vector<std::string>, Error> user_token_lines(std::string_view text,
                                                                const std::string& path) {
  std::vector<std::string> tokens;
  std::unordered_set<std::string_view> seen;
  size_t line = 0;
  for (size_t start = 0; start < text.size();) {
    const size_t end = std::min(text.find('\n', start), text.size());
    std::string_view token = text.substr(start, end - start);
    if (token.ends_with('\r')) token.remove_suffix(1);
    ++line;
    start = end + 1;
    if (token.empty()) continue;
    if (!seen.insert(token).second)
      return std::unexpected(
          Error{fmt::format("{}:{}: the user token '{}' is listed twice", path, line, token)});
    tokens.emplace_back(token);
  }
  return tokens;
}

constexpr size_t kBatchBytes = size_t{64} << 20;  // quantized bytes produced per batch
constexpr int64_t kRowsPerTask = 16;              // rows a worker takes at a time

// Rows [first, first + count) of tensor `t` into `out` (count * row bytes), on `num_threads` threads.
void generate_rows(const PlannedTensor& t, uint64_t key, int64_t first, int64_t count, std::byte* out,
                   int num_threads) {
  const int64_t row_len = t.dims[0];
  const size_t row_bytes = kernels::row_bytes(t.type, row_len);
  const int64_t num_tasks = (count + kRowsPerTask - 1) / kRowsPerTask;
  std::atomic<int64_t> next{0};
  auto work = [&] {
    std::vector<float> row(static_cast<size_t>(row_len));
    for (int64_t task; (task = next.fetch_add(1)) < num_tasks;) {
      const int64_t end = std::min(count, (task + 1) * kRowsPerTask);
      for (int64_t r = task * kRowsPerTask; r < end; ++r) {
        if (t.init == Init::Ones)
          std::fill(row.begin(), row.end(), 1.0f);
        else if (t.init == Init::LongFactors || t.init == Init::ShortFactors)
          for (int64_t i = 0; i < row_len; ++i)
            row[static_cast<size_t>(i)] =
                1.0f + (t.init == Init::LongFactors ? 0.25f : 0.02f) * static_cast<float>(i);
        else
          fill_normal_row(key, first + r, t.stddev, row.data(), row_len);
        kernels::quantize_row(t.type, row.data(), out + static_cast<size_t>(r) * row_bytes, row_len);
      }
    }
  };
  const int helpers = static_cast<int>(std::min<int64_t>(num_threads, num_tasks)) - 1;
  std::vector<std::jthread> threads;
  for (int i = 0; i < helpers; ++i) {
    try {
      threads.emplace_back(work);
    } catch (const std::system_error&) {
      break;  // out of threads: the ones started and this one share the rows (same bytes either way)
    }
  }
  work();
}

// The output must be a regular file or not exist yet; so must "<path>.part", the name GgufWriter
// writes to before renaming (a symlink, FIFO, device or directory there is refused, never
// written through or renamed over).
std::expected<void, Error> check_output_path(const std::string& path) {
  for (const std::string& p : {path, path + ".part"}) {
    struct stat st {};
    if (lstat(p.c_str(), &st) != 0) {
      if (errno == ENOENT) continue;
      return std::unexpected(Error{fmt::format("{}: cannot check the output: {}", p, std::strerror(errno))});
    }
    if (!S_ISREG(st.st_mode))
      return std::unexpected(Error{fmt::format(
          "{} exists and is not a regular file ({}); synth writes only regular files: choose another path", p,
          S_ISLNK(st.st_mode)                          ? "a symbolic link"
          : S_ISDIR(st.st_mode)                        ? "a directory"
          : S_ISFIFO(st.st_mode)                       ? "a FIFO"
          : S_ISCHR(st.st_mode) || S_ISBLK(st.st_mode) ? "a device"
                                                       : "a socket")});
  }
  return {};
}

std::expected<void, Error> write_tensor(const PlannedTensor& t, uint64_t seed, int num_threads,
                                        gguf::GgufWriter& writer, std::vector<std::byte>& buffer) {
  const int64_t row_len = t.dims[0];
  int64_t rows = 1;
  for (size_t d = 1; d < t.dims.size(); ++d) rows *= t.dims[d];
  const size_t row_bytes = kernels::row_bytes(t.type, row_len);
  const int64_t rows_per_batch = std::max<int64_t>(1, static_cast<int64_t>(kBatchBytes / row_bytes));
  const uint64_t key = tensor_key(seed, t.name);
  for (int64_t first = 0; first < rows; first += rows_per_batch) {
    const int64_t count = std::min(rows_per_batch, rows - first);
    buffer.resize(static_cast<size_t>(count) * row_bytes);
    generate_rows(t, key, first, count, buffer.data(), num_threads);
    if (auto ok = writer.write_data(buffer); !ok) return ok;
  }
  return {};
}

}  // namespace

void write_model_metadata(const ModelShape& s, SynthDtype dtype, const std::string& name,
                          gguf::GgufWriter& w) {
  const std::string arch = to_string(s.arch);
  auto u32 = [](int64_t v) { return static_cast<uint32_t>(v); };
  w.set_string("general.architecture", arch);
  w.set_string("general.name", name);
  w.set_u32("general.file_type", file_type(dtype));
  if (dtype == SynthDtype::Q8_0 || dtype == SynthDtype::Q4_K) w.set_u32("general.quantization_version", 2);
  w.set_u32(arch + ".context_length", u32(s.context));
  w.set_u32(arch + ".embedding_length", u32(s.embd));
  w.set_u32(arch + ".block_count", u32(s.num_layers));
  w.set_u32(arch + ".feed_forward_length", u32(s.ffn));
  w.set_u32(arch + ".attention.head_count", u32(s.num_heads));
  w.set_u32(arch + ".attention.head_count_kv", u32(s.num_kv_heads));
  if (s.head_dim * s.num_heads != s.embd) {  // llama.cpp assumes embd / heads otherwise
    w.set_u32(arch + ".attention.key_length", u32(s.head_dim));
    w.set_u32(arch + ".attention.value_length", u32(s.head_dim));
  }
  w.set_u32(arch + ".rope.dimension_count", u32(s.head_dim));
  w.set_f32(arch + ".rope.freq_base", s.rope_base);
  w.set_f32(arch + ".attention.layer_norm_rms_epsilon", s.rms_eps);
  if (s.arch == Arch::Phi3 || s.arch == Arch::Gemma2 || s.arch == Arch::Gemma3)
    w.set_u32(arch + ".attention.sliding_window", u32(s.sliding_window));
  if (s.arch == Arch::Gemma2) {
    w.set_f32(arch + ".attn_logit_softcapping", s.attn_softcap);
    w.set_f32(arch + ".final_logit_softcapping", s.final_softcap);
  }
  if (s.longrope_original_context > 0) {  // as llama.cpp's converter writes Phi-3.5
    const double scale = static_cast<double>(s.context) / static_cast<double>(s.longrope_original_context);
    w.set_u32(arch + ".rope.scaling.original_context_length", u32(s.longrope_original_context));
    w.set_f32(arch + ".rope.scaling.attn_factor",
              static_cast<float>(std::sqrt(
                  1 + std::log(scale) / std::log(static_cast<double>(s.longrope_original_context)))));
  }
  if (s.is_moe()) {
    w.set_u32(arch + ".expert_count", u32(s.num_experts));
    w.set_u32(arch + ".expert_used_count", u32(s.experts_used));
    if (s.arch != Arch::Llama) w.set_u32(arch + ".expert_feed_forward_length", u32(s.expert_width()));
    if (s.arch == Arch::Qwen2Moe)
      w.set_u32(arch + ".expert_shared_feed_forward_length", u32(s.shared_width()));
  }
  w.set_u32(arch + ".vocab_size", u32(s.vocab));
}

std::expected<void, Error> check_options(const SynthOptions& options) {
  if (options.tokenizer_path.empty()) {
    if (options.shape.vocab <= 0) return std::unexpected(Error{"give --vocab N or --tokenizer VOCAB.gguf"});
    if (options.shape.vocab < kMinBuiltinVocab)
      return std::unexpected(
          Error{fmt::format("vocab {} is too small for the built-in tokenizer (at least {})",
                            options.shape.vocab, kMinBuiltinVocab)});
  }
  if (options.output_path.empty()) return std::unexpected(Error{"no output file given"});
  if (auto threads = kernels::check_num_threads(options.num_threads); !threads)
    return std::unexpected(Error{threads.error()});
  ModelShape shape = options.shape;
  shape.vocab = std::max<int64_t>(shape.vocab, 1);  // row lengths do not depend on the vocabulary
  if (auto ok = validate_shape(shape); !ok) return ok;
  // Each size alone is bounded by validate_shape; together they must still describe a model that
  // can be planned and written (--layers 1000000 would plan ten million tensors first).
  constexpr int64_t kMaxLayers = 4096;
  constexpr double kMaxParams = 0x1p40;  // about 1.1e12, beyond any released model
  if (shape.num_layers > kMaxLayers)
    return std::unexpected(Error{
        fmt::format("layers = {} is more than synth writes (at most {})", shape.num_layers, kMaxLayers)});
  const double embd = static_cast<double>(shape.embd),
               q = static_cast<double>(shape.num_heads * shape.head_dim),
               kv = static_cast<double>(shape.num_kv_heads * shape.head_dim);
  const double ffn_width =
      shape.is_moe() ? static_cast<double>(shape.num_experts * shape.expert_width() +
                                           (shape.arch == Arch::Qwen2Moe ? shape.shared_width() : 0))
                     : static_cast<double>(shape.ffn);
  const double params =
      static_cast<double>(shape.num_layers) * (2 * embd * q + 2 * embd * kv + 3 * embd * ffn_width) +
      2 * embd * static_cast<double>(options.shape.vocab);
  if (params > kMaxParams)
    return std::unexpected(
        Error{fmt::format("that shape has about {:.3g} parameters, more than synth writes (at most {:.3g})",
                          params, kMaxParams)});
  if (auto plan = plan_tensors(shape, options.dtype); !plan) return std::unexpected(plan.error());
  return {};
}

std::expected<SynthResult, Error> synthesize(const SynthOptions& options, const SynthProgress& progress) {
  if (auto ok = check_options(options); !ok) return std::unexpected(ok.error());
  if (auto ok = check_output_path(options.output_path); !ok) return std::unexpected(ok.error());
  SynthResult result;
  result.shape = options.shape;
  ModelShape& shape = result.shape;
  const std::string name =
      options.name.empty() ? fmt::format("synth-{}-{}", shape.name, to_string(options.dtype)) : options.name;
  gguf::GgufWriter writer;
  write_model_metadata(shape, options.dtype, name, writer);

  // The vocabulary decides the number of embedding rows.
  std::string user_text;
  if (auto ok = read_text(options.user_tokens_path, "the user tokens file", user_text); !ok)
    return std::unexpected(ok.error());
  auto user_tokens = user_token_lines(user_text, options.user_tokens_path);
  if (!user_tokens) return std::unexpected(user_tokens.error());
  if (!options.tokenizer_path.empty()) {
    auto source = gguf::GgufFile::open(options.tokenizer_path);
    if (!source) return std::unexpected(source.error());
    auto num_tokens = copy_tokenizer(*source, writer, *user_tokens);
    if (!num_tokens) return std::unexpected(num_tokens.error());
    if (options.vocab_given && shape.vocab != *num_tokens)
      return std::unexpected(
          Error{fmt::format("--vocab {} disagrees with the {} tokens of {} (omit --vocab to use theirs)",
                            shape.vocab, *num_tokens, options.tokenizer_path)});
    shape.vocab = *num_tokens;
  } else {
    if (shape.vocab <= 0) return std::unexpected(Error{"give --vocab N or --tokenizer VOCAB.gguf"});
    std::string corpus;
    if (auto ok = read_text(options.corpus_path, "the corpus", corpus); !ok)
      return std::unexpected(ok.error());
    auto vocab = build_builtin_vocab(shape.vocab, corpus.empty() ? builtin_corpus() : corpus, *user_tokens);
    if (!vocab) return std::unexpected(vocab.error());
    write_vocab(*vocab, writer);
  }
  writer.set_u32(std::string(to_string(shape.arch)) + ".vocab_size", static_cast<uint32_t>(shape.vocab));

  auto plan = plan_tensors(shape, options.dtype);
  if (!plan) return std::unexpected(plan.error());
  result.notes = plan->notes;

  for (const auto& t : plan->tensors) {
    if (auto ok = writer.add_tensor(t.name, t.dims, t.type); !ok) return std::unexpected(ok.error());
    int64_t n = 1;
    for (auto d : t.dims) n *= d;
    result.num_params += n;
  }
  result.num_tensors = static_cast<int64_t>(plan->tensors.size());

  if (auto ok = check_output_path(options.output_path); !ok) return std::unexpected(ok.error());
  if (auto ok = writer.begin(options.output_path); !ok) return std::unexpected(ok.error());
  const int num_threads = kernels::resolve_num_threads(options.num_threads);
  std::vector<std::byte> buffer;
  for (size_t i = 0; i < plan->tensors.size(); ++i) {
    if (progress) progress(i, plan->tensors.size(), plan->tensors[i].name);
    if (auto ok = write_tensor(plan->tensors[i], options.seed, num_threads, writer, buffer); !ok)
      return std::unexpected(ok.error());
  }
  if (auto ok = writer.finish(); !ok) return std::unexpected(ok.error());
  result.file_bytes = writer.bytes_written();
  return result;
}

}  // namespace engine::synth
