// The serving engine's public face, the only engine header the agents and arena layers use:
// submit a GenerateRequest (prompt text or token ids) from any thread, get a handle that
// streams tokens and text and then the final result; cancel; read a metrics snapshot.
// One engine thread runs every step; submit and cancel only post to its inbox and never wait
// for a step, and the engine never waits on a caller. The engine knows nothing about games.
//
// This header and the ones it includes (engine/CMakeLists.txt: ENGINE_API_HEADERS) are all that
// agents/ and arena/ can include of the engine: their include path holds nothing else.
#pragma once

#include <cstdint>
#include <expected>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "engine/core/engine_config.h"
#include "engine/core/kv_dtype.h"
#include "engine/core/metrics.h"
#include "engine/core/request.h"
#include "engine/error.h"
#include "engine/model/model_shape.h"
#include "engine/tokenizer/chat_template.h"
#include "engine/tokenizer/tokenizer.h"

namespace engine {

class LanguageModel;  // engine/model/language_model.h (for engine tools and tests)
class Model;
class RequestStream;
struct EngineInbox;

// A submitted request: its streamed chunks and final result. Copyable; thread-safe.
class RequestHandle {
 public:
  RequestId id() const { return id_; }
  // The next chunk of tokens and text, waiting for it; nullopt once the request has finished
  // and every chunk was taken.
  std::optional<StreamChunk> next();
  // The next chunk if one is ready now (never waits).
  std::optional<StreamChunk> try_next();
  // Waits for the final result (chunks not taken stay queued).
  GenerateResult wait();
  // Whether the final result is in.
  bool finished() const;
  // Asks the engine to cancel the request (no effect once it has finished).
  void cancel();

 private:
  friend class Engine;
  RequestHandle(RequestId id, std::shared_ptr<RequestStream> stream, std::weak_ptr<EngineInbox> inbox);

  RequestId id_;
  std::shared_ptr<RequestStream> stream_;
  std::weak_ptr<EngineInbox> inbox_;
};

class Engine {
 public:
  // An engine serving `model` with `tokenizer` (both must outlive it): sizes the KV cache from
  // config.cache and starts the engine thread; an error when the configuration cannot work.
  static std::expected<std::unique_ptr<Engine>, Error> create(LanguageModel& model,
                                                              const Tokenizer& tokenizer,
                                                              EngineConfig config);
  // Cancels every unfinished request and stops the engine thread.
  ~Engine();
  Engine(const Engine&) = delete;
  Engine& operator=(const Engine&) = delete;

  // Queues a request; an error at once when it is invalid, can never fit in the KV cache, or
  // the waiting queue is full (max_queue).
  std::expected<RequestHandle, Error> submit(GenerateRequest request);
  // Cancels a request: it finishes with FinishReason::Cancelled and its blocks are freed.
  void cancel(RequestId id);
  // A copy of the current metrics.
  MetricsSnapshot metrics() const;

  // Blocks in the KV cache and tokens per block.
  int32_t num_kv_blocks() const;
  const EngineConfig& config() const;
  const Tokenizer& tokenizer() const;

 private:
  struct Impl;
  explicit Engine(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

// How to open a model.
struct ModelOptions {
  int num_threads = 0;        // compute threads for its kernels (0 = all cores)
  std::string chat_template;  // a family name or format string (ChatTemplate::from_spec); "" = the file's
  int64_t context = 0;  // the longest sequence to serve: picks LongRoPE's factors (0 = the trained context)
};

// A GGUF model opened for serving: the network, its tokenizer and its chat template, so callers
// never include model or tokenizer internals. Engines created from it must not outlive it.
class LoadedModel {
 public:
  // Maps and binds `path`; an Error naming the file and what is wrong. A model whose chat template
  // cannot be detected (and none is given in options) still opens: chat() then says why.
  static std::expected<std::unique_ptr<LoadedModel>, Error> open(const std::string& path,
                                                                 ModelOptions options = {});
  ~LoadedModel();
  LoadedModel(const LoadedModel&) = delete;
  LoadedModel& operator=(const LoadedModel&) = delete;

  const std::string& path() const { return path_; }
  // The network's shape (architecture, dimensions, trained context length).
  const ModelShape& shape() const;
  const Tokenizer& tokenizer() const;
  // The chat template, or why the model has none usable (with how to set one).
  const std::expected<ChatTemplate, Error>& chat() const { return chat_; }

  // The prompt text the chat template writes for `messages`, or chat()'s error.
  std::expected<std::string, Error> render_chat(std::span<const ChatMessage> messages,
                                                const ChatOptions& options = {}) const;
  // Token ids of a prompt: special tokens parsed, BOS added once (a rendered chat prompt or plain text).
  std::vector<TokenId> tokenize_prompt(std::string_view text) const;

  // Bytes of KV cache one token takes in this model under `cache` (its dtype; all layers, K and V),
  // for sizing CacheConfig::kv_cache_bytes.
  size_t kv_bytes_per_token(const CacheConfig& cache) const;

  // An engine serving this model (Engine::create on its network and tokenizer).
  std::expected<std::unique_ptr<Engine>, Error> create_engine(EngineConfig config);

 private:
  LoadedModel(std::string path, std::unique_ptr<Model> model, std::expected<ChatTemplate, Error> chat);

  std::string path_;
  std::unique_ptr<Model> model_;
  std::expected<ChatTemplate, Error> chat_;
};

// A CUDA device the kernels can use.
struct AcceleratorInfo {
  int index = 0;
  std::string name;
  int compute_major = 0, compute_minor = 0;
  size_t total_memory_bytes = 0;
};

// What this build and this machine give the engine's kernels.
struct BuildFeatures {
  std::string simd;            // the SIMD level the CPU kernels use here: "scalar", "avx2", "avx512"
  std::string simd_cpu;        // the widest level this CPU runs (simd is lower after set_simd_level)
  bool cuda_compiled = false;  // whether the CUDA kernels were compiled in
  std::vector<AcceleratorInfo> cuda_devices;  // the devices found (empty without CUDA or a driver)
};

// Detects the features once per call (cheap: CPUID and, with CUDA, the driver's device list).
BuildFeatures build_features();

// Turns the CPU matmul's repacked weight layout off (or on again) for the whole process, before
// models load: every matrix then keeps its file layout, for comparing the two layouts' kernels
// (arena's main sets it from ARENA_NO_REPACK=1). On by default.
void set_weight_repack(bool enabled);

// Makes the CPU kernels of the whole process use a lower SIMD level ("scalar", "avx2", "avx512")
// than the CPU's, before any model loads (arena's main sets it from ARENA_SIMD); an error, and no
// change, for an unknown name or a level this CPU cannot run.
std::optional<std::string> set_simd_level(std::string_view level);

}  // namespace engine
