// run_forward_bench: the transformer's forward pass timed on S sequences sharing one paged KV
// cache (engine tool). Each stream owns its own run of blocks; the prompts run one sequence per
// forward pass, the decode steps one batch of S rows per forward pass.
#include "engine/tools/forward_bench.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <ctime>
#include <memory>
#include <numeric>
#include <random>
#include <span>
#include <vector>

#include "engine/gguf/gguf_file.h"
#include "engine/model/sequence_runner.h"
#include "engine/model/transformer.h"
#include "kernels/cpu/machine_peaks.h"
#include "kernels/cpu/vec_dot_simd.h"
#include "kernels/thread_pool.h"

namespace engine {

namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

// CPU seconds used by the whole process so far (all threads, spinning included).
double process_cpu_seconds() {
  timespec ts{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
}

// The streams of one run: their blocks in the shared cache and the tokens evaluated so far.
struct Stream {
  std::vector<int32_t> block_table;
  int32_t num_tokens = 0;
  int32_t next = 0;  // the token to decode next
};

// One forward pass over `tokens[i]` appended to streams[ids[i]] (rows of a stream contiguous,
// streams in the order of ids); logits of each stream's last row go to `logits` [ids, vocab].
void forward_streams(Transformer& net, PagedKvCache& cache, std::vector<Stream>& streams,
                     std::span<const int32_t> ids, std::span<const std::vector<int32_t>> tokens,
                     std::vector<float>& logits) {
  ForwardBatch batch;
  for (size_t i = 0; i < ids.size(); ++i) {
    Stream& s = streams[static_cast<size_t>(ids[i])];
    const auto count = static_cast<int32_t>(tokens[i].size());
    batch.seqs.push_back(BatchSeq{s.block_table, s.num_tokens, batch.num_tokens(), count, {}});
    for (int32_t j = 0; j < count; ++j) {
      batch.tokens.push_back(tokens[i][static_cast<size_t>(j)]);
      batch.positions.push_back(s.num_tokens + j);
    }
    batch.logit_rows.push_back(batch.num_tokens() - 1);
    s.num_tokens += count;
  }
  logits.resize(ids.size() * static_cast<size_t>(net.shape().vocab_size));
  net.forward(batch, cache, logits);
}

// Bytes of weights one decode step reads: every matrix of the file but the token embedding, which
// only counts where it is also the output matrix (tied embeddings); one row of it is negligible.
uint64_t decode_weight_bytes(const gguf::GgufFile& file) {
  uint64_t bytes = 0, embedding = 0;
  bool has_output = false;
  for (const auto& t : file.tensors()) {
    if (t.name == "token_embd.weight") {
      embedding = t.data.size();
      continue;
    }
    has_output = has_output || t.name == "output.weight";
    bytes += t.data.size();
  }
  return bytes + (has_output ? 0 : embedding);
}

// What is wrong with `options` (counts below their minimum), or nothing.
std::expected<void, Error> check_options(const ForwardBenchOptions& options) {
  if (options.prompt_tokens < 1 || options.gen_tokens < 0 || options.repeat < 1)
    return std::unexpected(
        Error{fmt::format("prompt tokens ({}) and runs ({}) must be >= 1, gen tokens ({}) >= 0",
                          options.prompt_tokens, options.repeat, options.gen_tokens)});
  if (options.streams < 1 || options.block_size < 1)
    return std::unexpected(Error{fmt::format("streams ({}) and the KV block size ({}) must be >= 1",
                                             options.streams, options.block_size)});
  return {};
}

}  // namespace

std::expected<ForwardBenchResult, Error> run_forward_bench(
    const std::string& path, const ForwardBenchOptions& options,
    const std::function<void(std::string_view)>& report) {
  if (auto ok = check_options(options); !ok) return std::unexpected(ok.error());
  auto file = gguf::GgufFile::open(path);
  if (!file) return std::unexpected(file.error());
  auto model = Transformer::from_gguf(*file, options.num_threads);
  if (!model) return std::unexpected(model.error());
  Transformer& net = **model;
  const auto& s = net.shape();
  // Refused before the prompts and the KV cache are allocated: a stream past the model's context
  // would allocate for positions the model was never trained on (and 2^20 tokens ran out of memory).
  const int64_t stream_tokens = int64_t{options.prompt_tokens} + options.gen_tokens;
  if (s.context_length > 0 && stream_tokens > s.context_length)
    return std::unexpected(Error{fmt::format(
        "{} prompt + {} generated tokens per stream = {} is more than the model's context of {} tokens",
        options.prompt_tokens, options.gen_tokens, stream_tokens, s.context_length)});
  if (options.kv_dtype == KvDtype::Q8_0 && s.head_dim % 32 != 0)
    return std::unexpected(
        Error{fmt::format("a q8_0 KV cache needs a head size that is a multiple of 32, not {}", s.head_dim)});
  report(fmt::format("model   {}: {} {} layers, embd {}, {} heads ({} kv, dim {}), ffn {}, vocab {}", path,
                     s.arch, s.num_layers, s.embedding_dim, s.num_heads, s.num_kv_heads, s.head_dim,
                     s.ffn_dim, s.vocab_size));
  report(fmt::format("threads {}, simd {}, streams {}, kv {} in blocks of {}", net.num_threads(),
                     kernels::to_string(kernels::vec_dot_level()), options.streams,
                     to_string(options.kv_dtype), options.block_size));

  const int32_t n = options.streams;
  std::mt19937 rng(1234);
  std::uniform_int_distribution<int32_t> token(0, s.vocab_size - 1);
  std::vector<std::vector<int32_t>> prompts(static_cast<size_t>(n));
  for (auto& prompt : prompts) {
    prompt.resize(static_cast<size_t>(options.prompt_tokens));
    for (auto& t : prompt) t = token(rng);
  }
  const int32_t blocks_per_stream =
      (options.prompt_tokens + options.gen_tokens + options.block_size - 1) / options.block_size;
  PagedKvCache cache(net.kv_cache_shape(options.kv_dtype, options.block_size), n * blocks_per_stream);
  std::vector<int32_t> all(static_cast<size_t>(n));
  std::iota(all.begin(), all.end(), 0);

  // The read that follows each decode step (--bandwidth): its own pool of as many threads.
  const uint64_t step_bytes = decode_weight_bytes(*file);
  std::unique_ptr<kernels::ThreadPool> read_pool;
  std::unique_ptr<kernels::ReadStream> read;
  if (options.bandwidth) {
    read_pool = std::make_unique<kernels::ThreadPool>(net.num_threads());
    read = std::make_unique<kernels::ReadStream>(*read_pool, step_bytes);
    if (!read->ok())
      return std::unexpected(Error{fmt::format("cannot allocate {} MiB to read", step_bytes >> 20)});
    report(
        fmt::format("bandwidth: each decode step reads {:.1f} MB of weights, then {} threads read {:.1f} MB",
                    static_cast<double>(step_bytes) / 1e6, read_pool->num_threads(),
                    static_cast<double>(read->bytes()) / 1e6));
  }

  ForwardBenchResult best;
  std::vector<float> logits;
  std::vector<std::vector<int32_t>> step(static_cast<size_t>(n), std::vector<int32_t>(1));
  for (int32_t r = 0; r < options.repeat; ++r) {
    std::vector<Stream> streams(static_cast<size_t>(n));
    for (int32_t i = 0; i < n; ++i) {
      auto& table = streams[static_cast<size_t>(i)].block_table;
      table.resize(static_cast<size_t>(blocks_per_stream));
      std::iota(table.begin(), table.end(), i * blocks_per_stream);
    }
    // Prompt processing: one forward pass per stream.
    const double c0 = process_cpu_seconds();
    const auto t0 = Clock::now();
    for (int32_t i = 0; i < n; ++i) {
      forward_streams(net, cache, streams, std::span(&all[static_cast<size_t>(i)], 1),
                      std::span(&prompts[static_cast<size_t>(i)], 1), logits);
      streams[static_cast<size_t>(i)].next = argmax(logits);
    }
    const double prompt_s = seconds_since(t0);
    // Decode: every step one batch of n rows, one per stream.
    const double c1 = process_cpu_seconds();
    double decode_s = 0, read_s = 0;
    for (int32_t g = 0; g < options.gen_tokens; ++g) {
      const auto t1 = Clock::now();
      for (int32_t i = 0; i < n; ++i) step[static_cast<size_t>(i)][0] = streams[static_cast<size_t>(i)].next;
      forward_streams(net, cache, streams, all, step, logits);
      for (int32_t i = 0; i < n; ++i)
        streams[static_cast<size_t>(i)].next = argmax(std::span<const float>(logits).subspan(
            static_cast<size_t>(i) * static_cast<size_t>(s.vocab_size), static_cast<size_t>(s.vocab_size)));
      decode_s += seconds_since(t1);
      if (read) read_s += read->pass();
    }
    const double decode_cpu = process_cpu_seconds() - c1;
    const double pp = static_cast<double>(n) * options.prompt_tokens / prompt_s;
    const double tg = options.gen_tokens > 0 ? static_cast<double>(n) * options.gen_tokens / decode_s : 0.0;
    report(fmt::format(
        "run {}: prompt {}x{} tokens in {:.3f} s = {:.1f} tok/s ({:.2f} cpu-s); decode {}x{} tokens in "
        "{:.3f} s = {:.2f} tok/s ({:.2f} cpu-s)",
        r + 1, n, options.prompt_tokens, prompt_s, pp, c1 - c0, n, options.gen_tokens, decode_s, tg,
        decode_cpu));
    if (read && options.gen_tokens > 0) {
      const double decode_gbs = static_cast<double>(step_bytes) * options.gen_tokens / decode_s / 1e9;
      const double read_gbs = static_cast<double>(read->bytes()) * options.gen_tokens / read_s / 1e9;
      report(
          fmt::format("run {}: decode weights {:.1f} GB/s, reads between the steps {:.1f} GB/s: {:.2f} of it",
                      r + 1, decode_gbs, read_gbs, decode_gbs / read_gbs));
      if (tg > best.decode_tokens_per_second) best.decode_of_bandwidth = decode_gbs / read_gbs;
    }
    best.prompt_tokens_per_second = std::max(best.prompt_tokens_per_second, pp);
    best.decode_tokens_per_second = std::max(best.decode_tokens_per_second, tg);
  }
  report(fmt::format(
      "best    prompt processing {:.1f} tok/s, decode {:.2f} tok/s ({} streams, {:.2f} tok/s each)",
      best.prompt_tokens_per_second, best.decode_tokens_per_second, n, best.decode_tokens_per_second / n));
  if (read)
    report(fmt::format("best    decode at {:.2f} of the read bandwidth measured between its steps",
                       best.decode_of_bandwidth));
  return best;
}

}  // namespace engine
