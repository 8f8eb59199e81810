// The Engine: an EngineCore on its own thread, fed through a mutex-protected inbox; outputs go
// to each request's RequestStream and optional callback. The loop thread owns all mutable
// serving state; callers only touch the inbox, their streams and the metrics copy.
#include <fmt/format.h>

#include <atomic>
#include <condition_variable>
#include <mutex>
#include <thread>
#include <unordered_map>
#include <vector>

#include "engine/api.h"
#include "engine/core/engine_core.h"
#include "engine/core/kv_budget.h"
#include "engine/core/request_stream.h"

namespace engine {

// What callers post to the engine thread.
struct EngineInbox {
  struct Incoming {
    std::unique_ptr<Sequence> seq;
    std::shared_ptr<RequestStream> stream;
    std::function<void(const StreamChunk&)> on_chunk;
    std::function<void(const GenerateResult&)> on_finish;
  };
  std::mutex mutex;
  std::condition_variable wake;
  std::vector<Incoming> incoming;
  std::vector<SeqId> cancels;
  int32_t num_waiting = 0;  // the core's waiting queue, as of the last loop iteration
  bool stop = false;

  // Posts a cancellation.
  void cancel(SeqId id) {
    {
      std::lock_guard lock(mutex);
      cancels.push_back(id);
    }
    wake.notify_one();
  }
};

struct Engine::Impl {
  Impl(LanguageModel& model, const Tokenizer& tok, EngineConfig cfg, KvBlocks blocks)
      : config(std::move(cfg)), tokenizer(tok), core(model, tok, config, blocks) {}

  // The engine thread: take the inbox, step, deliver, until stopped.
  void loop();
  // Hands outputs to their streams and callbacks.
  void deliver(std::vector<RequestOutput> outputs);

  struct Delivery {
    std::shared_ptr<RequestStream> stream;
    std::function<void(const StreamChunk&)> on_chunk;
    std::function<void(const GenerateResult&)> on_finish;
  };

  EngineConfig config;
  const Tokenizer& tokenizer;
  EngineCore core;
  std::shared_ptr<EngineInbox> inbox = std::make_shared<EngineInbox>();
  std::atomic<uint64_t> next_id{1};
  std::atomic<int64_t> num_rejected{0};
  mutable std::mutex metrics_mutex;
  MetricsSnapshot metrics;
  std::unordered_map<SeqId, Delivery> deliveries;  // engine thread only
  std::thread thread;
};

void Engine::Impl::deliver(std::vector<RequestOutput> outputs) {
  for (auto& out : outputs) {
    auto it = deliveries.find(out.id);
    if (it == deliveries.end()) continue;
    if (!out.tokens.empty() || !out.text.empty()) {
      StreamChunk chunk{out.id, std::move(out.tokens), std::move(out.text)};
      if (it->second.on_chunk) it->second.on_chunk(chunk);
      it->second.stream->push(std::move(chunk));
    }
    if (out.result) {
      auto on_finish = std::move(it->second.on_finish);
      if (on_finish) {
        const GenerateResult copy = *out.result;
        it->second.stream->finish(std::move(*out.result));
        on_finish(copy);
      } else {
        it->second.stream->finish(std::move(*out.result));
      }
      deliveries.erase(it);
    }
  }
}

void Engine::Impl::loop() {
  while (true) {
    std::vector<EngineInbox::Incoming> incoming;
    std::vector<SeqId> cancels;
    bool stop = false;
    {
      std::unique_lock lock(inbox->mutex);
      const bool busy = core.has_work();
      inbox->wake.wait(
          lock, [&] { return busy || inbox->stop || !inbox->incoming.empty() || !inbox->cancels.empty(); });
      incoming.swap(inbox->incoming);
      cancels.swap(inbox->cancels);
      stop = inbox->stop;
    }
    for (auto& in : incoming) {
      deliveries[in.seq->id()] =
          Delivery{std::move(in.stream), std::move(in.on_chunk), std::move(in.on_finish)};
      core.add(std::move(in.seq));
    }
    std::vector<RequestOutput> outputs;
    for (SeqId id : cancels)
      if (auto out = core.cancel(id)) outputs.push_back(std::move(*out));
    if (stop) {
      for (auto& out : core.cancel_all()) outputs.push_back(std::move(out));
    } else if (core.has_work()) {
      for (auto& out : core.step()) outputs.push_back(std::move(out));
    }
    // Metrics first, so a caller woken by its result sees them already counted.
    {
      std::lock_guard lock(metrics_mutex);
      metrics = core.metrics();
    }
    {
      std::lock_guard lock(inbox->mutex);
      inbox->num_waiting = core.num_waiting();
    }
    deliver(std::move(outputs));
    if (stop) break;
  }
}

RequestHandle::RequestHandle(RequestId id, std::shared_ptr<RequestStream> stream,
                             std::weak_ptr<EngineInbox> inbox)
    : id_(id), stream_(std::move(stream)), inbox_(std::move(inbox)) {}

std::optional<StreamChunk> RequestHandle::next() {
  return stream_->next();
}
std::optional<StreamChunk> RequestHandle::try_next() {
  return stream_->try_next();
}
GenerateResult RequestHandle::wait() {
  return stream_->wait();
}
bool RequestHandle::finished() const {
  return stream_->finished();
}

void RequestHandle::cancel() {
  if (stream_->finished()) return;
  if (auto inbox = inbox_.lock()) inbox->cancel(id_);
}

Engine::Engine(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}

std::expected<std::unique_ptr<Engine>, Error> Engine::create(LanguageModel& model, const Tokenizer& tokenizer,
                                                             EngineConfig config) {
  const auto& s = config.scheduler;
  if (s.max_num_seqs < 1 || s.max_num_batched_tokens < 1 || s.max_queue < 1)
    return std::unexpected(Error{
        fmt::format("max_num_seqs ({}), max_num_batched_tokens ({}) and max_queue ({}) must all be >= 1",
                    s.max_num_seqs, s.max_num_batched_tokens, s.max_queue)});
  if (model.shape().vocab_size < 1) return std::unexpected(Error{"the model has an empty vocabulary"});
  const auto blocks = kv_cache_blocks_for(model.shape(), config);
  if (!blocks) return std::unexpected(blocks.error());
  if (config.logger) {
    const auto shape = kv_cache_shape(model.shape(), config.cache);
    const size_t bs = static_cast<size_t>(config.cache.block_size);
    const size_t bytes = blocks->window_blocks > 0
                             ? shape.bytes_per_token(false) * bs * blocks->blocks +
                                   shape.bytes_per_token(true) * bs * blocks->window_blocks
                             : shape.bytes_per_block() * blocks->blocks;
    const std::string window = blocks->window_blocks > 0
                                   ? fmt::format(" (and {} for the {} sliding-window layers)",
                                                 blocks->window_blocks, shape.num_sliding_layers())
                                   : "";
    config.logger(
        fmt::format("KV cache: {} blocks of {} tokens{}, {} ({:.1f} MiB), prefix cache {}, {} batching",
                    blocks->blocks, config.cache.block_size, window, to_string(config.cache.dtype),
                    static_cast<double>(bytes) / (1 << 20), config.cache.enable_prefix_cache ? "on" : "off",
                    to_string(s.mode)));
  }
  auto impl = std::make_unique<Impl>(model, tokenizer, std::move(config), *blocks);
  Impl* raw = impl.get();
  std::unique_ptr<Engine> engine(new Engine(std::move(impl)));
  raw->thread = std::thread([raw] { raw->loop(); });
  return engine;
}

Engine::~Engine() {
  {
    std::lock_guard lock(impl_->inbox->mutex);
    impl_->inbox->stop = true;
  }
  impl_->inbox->wake.notify_one();
  if (impl_->thread.joinable()) impl_->thread.join();
}

std::expected<RequestHandle, Error> Engine::submit(GenerateRequest request) {
  const RequestId id{impl_->next_id.fetch_add(1)};
  auto seq = impl_->core.make_sequence(id, request, Clock::now());
  if (!seq) {
    ++impl_->num_rejected;
    return std::unexpected(Error{fmt::format("request rejected: {}", seq.error().message), seq.error().kind});
  }
  auto stream = std::make_shared<RequestStream>();
  {
    auto& inbox = *impl_->inbox;
    std::lock_guard lock(inbox.mutex);
    if (inbox.stop)
      return std::unexpected(
          Error{"request rejected: the engine is shutting down", ErrorKind::ResourceExhausted});
    const int32_t queued = inbox.num_waiting + static_cast<int32_t>(inbox.incoming.size());
    if (queued >= impl_->config.scheduler.max_queue) {
      ++impl_->num_rejected;
      return std::unexpected(
          Error{fmt::format("request rejected: the engine's waiting queue is full ({} requests, max_queue "
                            "{}); retry later",
                            queued, impl_->config.scheduler.max_queue),
                ErrorKind::ResourceExhausted});
    }
    inbox.incoming.push_back(
        {std::move(*seq), stream, std::move(request.on_chunk), std::move(request.on_finish)});
  }
  impl_->inbox->wake.notify_one();
  return RequestHandle(id, std::move(stream), impl_->inbox);
}

void Engine::cancel(RequestId id) {
  impl_->inbox->cancel(id);
}

MetricsSnapshot Engine::metrics() const {
  std::lock_guard lock(impl_->metrics_mutex);
  MetricsSnapshot m = impl_->metrics;
  m.num_requests_rejected = impl_->num_rejected.load();
  return m;
}

int32_t Engine::num_kv_blocks() const {
  return impl_->core.block_pool().num_blocks();
}
const EngineConfig& Engine::config() const {
  return impl_->config;
}
const Tokenizer& Engine::tokenizer() const {
  return impl_->tokenizer;
}

}  // namespace engine
