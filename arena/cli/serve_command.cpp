// `arena serve --model M [--name NAME] [--host H] [--port P] ...`: one engine behind an
// OpenAI-compatible API (/v1/models, /v1/completions, /v1/chat/completions), with the serving
// dashboard, /metrics and /health on the same port. Runs until SIGINT / SIGTERM. Parses flags
// and calls the layers: engine::LoadedModel, arena::server::OpenAiApi, arena::server::BoardServer.
#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <CLI/CLI.hpp>
#include <atomic>
#include <chrono>
#include <csignal>
#include <filesystem>
#include <memory>
#include <string>
#include <thread>

#include "arena/cli/command.h"
#include "arena/server/board_server.h"
#include "arena/server/openai_api.h"
#include "engine/api.h"

namespace arena::cli {

namespace {

struct ServeFlags {
  std::string model, name, host = "127.0.0.1", chat_template, assets, kv_dtype = "f16";
  int32_t port = 8000;
  int threads = 0;
  int32_t max_num_seqs = 64, max_queue = 256, max_batched_tokens = 2048, max_tokens = 256;
  int32_t max_connections = 256;
  double kv_cache_mb = 0;
};

std::atomic<bool> g_stop{false};

void on_signal(int) {
  g_stop.store(true);
}

int fail(const std::string& message) {
  fmt::print(stderr, "arena serve: error: {}\n", message);
  return 1;
}

int run_serve(const ServeFlags& f) {
  auto model = engine::LoadedModel::open(f.model, engine::ModelOptions{f.threads, f.chat_template});
  if (!model) return fail(model.error().message);
  engine::EngineConfig config;
  config.scheduler.max_num_seqs = f.max_num_seqs;
  config.scheduler.max_queue = f.max_queue;
  config.scheduler.max_num_batched_tokens = f.max_batched_tokens;
  config.cache.dtype = f.kv_dtype == "q8_0"  ? engine::KvDtype::Q8_0
                       : f.kv_dtype == "f32" ? engine::KvDtype::F32
                                             : engine::KvDtype::F16;
  config.cache.kv_cache_bytes = static_cast<size_t>(f.kv_cache_mb * 1024 * 1024);
  config.logger = [](std::string_view line) { spdlog::debug("engine: {}", line); };
  auto engine = (*model)->create_engine(config);
  if (!engine) return fail(engine.error().message);

  const std::string name = f.name.empty() ? std::filesystem::path(f.model).stem().string() : f.name;
  server::ServerOptions options;
  options.limits.max_connections = f.max_connections;
  options.api =
      std::make_shared<server::OpenAiApi>(server::OpenAiOptions{name, f.max_tokens, 1}, **model, **engine);
  const std::filesystem::path assets =
      f.assets.empty() ? server::find_assets_dir() : std::filesystem::path(f.assets);
  if (assets.empty()) spdlog::warn("the board view's assets were not found: the dashboard pages will be 404");
  config::WebConfig web;
  web.bind = f.host;
  web.port = f.port;
  auto board = server::BoardServer::start(web, assets, {{name, engine->get()}}, options);
  if (!board) return fail(board.error());

  std::signal(SIGINT, on_signal);
  std::signal(SIGTERM, on_signal);
  fmt::print(stderr,
             "arena serve: model '{}' ({} KV blocks) at {}v1 (dashboard {}dashboard, metrics {}metrics)\n",
             name, (*engine)->num_kv_blocks(), (*board)->url(), (*board)->url(), (*board)->url());
  while (!g_stop.load()) std::this_thread::sleep_for(std::chrono::milliseconds(100));
  fmt::print(stderr, "arena serve: stopping\n");
  board->reset();   // no request reaches the engine any more
  engine->reset();  // cancels what is left
  return 0;
}

}  // namespace

void add_serve_command(CLI::App& root, Action& action) {
  auto flags = std::make_shared<ServeFlags>();
  ServeFlags& f = *flags;
  auto* cmd = root.add_subcommand(
      "serve", "Serve a model through an OpenAI-compatible API (with /metrics and a dashboard)");
  cmd->add_option("--model", f.model, "GGUF model file")->required()->check(CLI::ExistingFile);
  cmd->add_option("--name", f.name, "Model id in the API (default: the file name without .gguf)");
  cmd->add_option("--host", f.host, "Address to bind (default 127.0.0.1)");
  cmd->add_option("--port", f.port, "Port (default 8000; 0 = any free port)")->check(CLI::Range(0, 65535));
  cmd->add_option("--threads", f.threads, "Compute threads (0 = all cores)")->check(CLI::NonNegativeNumber);
  cmd->add_option("--chat-template", f.chat_template,
                  std::string("Chat template family or format string (default: the model's): ") +
                      engine::kChatFamilyNames);
  cmd->add_option("--max-num-seqs", f.max_num_seqs, "Running sequences at most")->check(CLI::Range(1, 4096));
  cmd->add_option("--max-queue", f.max_queue, "Waiting requests at most; beyond it requests get 429")
      ->check(CLI::Range(1, 1 << 20));
  cmd->add_option("--max-num-batched-tokens", f.max_batched_tokens, "Token budget of one engine step")
      ->check(CLI::Range(1, 1 << 20));
  cmd->add_option("--default-max-tokens", f.max_tokens, "max_tokens of a request that gives none")
      ->check(CLI::Range(1, 1 << 20));
  cmd->add_option("--kv-cache-mb", f.kv_cache_mb, "KV cache size in MiB (0 = a fraction of free memory)")
      ->check(CLI::NonNegativeNumber);
  cmd->add_option("--kv-dtype", f.kv_dtype, "KV cache value type: f16 (default), q8_0 or f32")
      ->check(CLI::IsMember({"f16", "q8_0", "f32"}));
  cmd->add_option("--max-connections", f.max_connections, "Open connections at most (503 beyond)")
      ->check(CLI::Range(1, 100000));
  cmd->add_option("--assets", f.assets, "The board view's asset folder (default: beside the binary)");
  cmd->callback([flags, &action] { action = [flags] { return run_serve(*flags); }; });
}

}  // namespace arena::cli
