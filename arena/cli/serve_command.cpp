// `arena serve --model M [--name NAME] [--host H] [--port P] ...`: one engine behind an
// OpenAI-compatible API (/v1/models, /v1/completions, /v1/chat/completions), with the serving
// dashboard, /metrics and /health on the same port. Runs until SIGINT / SIGTERM. Parses flags
// and calls the layers: engine::LoadedModel, arena::server::OpenAiApi, arena::server::BoardServer.
// The Host / Origin rules and the API key (--allowed-host, --allowed-origin, --api-key or
// ARENA_API_KEY) are described in docs/security.md; a non-loopback --host needs a key or
// --allow-unauthenticated.
#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <atomic>
#include <chrono>
#include <csignal>
#include <filesystem>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "arena/cli/command.h"
#include "arena/cli/process_env.h"
#include "arena/config/web_names.h"
#include "arena/server/access_policy.h"
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
  std::vector<std::string> allowed_hosts, allowed_origins;
  std::string api_key;  // --api-key, else ARENA_API_KEY; never printed
  bool allow_unauthenticated = false;
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
  // Refused before the model loads: an open API beyond this machine is a choice to make explicitly.
  if (auto refusal = server::exposure_refusal(f.host, !f.api_key.empty(), f.allow_unauthenticated))
    return usage_error("serve", *refusal);
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
  options.api_key = f.api_key;
  options.api =
      std::make_shared<server::OpenAiApi>(server::OpenAiOptions{name, f.max_tokens, 1}, **model, **engine);
  const std::filesystem::path assets =
      f.assets.empty() ? server::find_assets_dir() : std::filesystem::path(f.assets);
  if (assets.empty()) spdlog::warn("the board view's assets were not found: the dashboard pages will be 404");
  config::WebConfig web;
  web.bind = f.host;
  web.port = f.port;
  web.allowed_hosts = f.allowed_hosts;
  web.allowed_origins = f.allowed_origins;
  auto board = server::BoardServer::start(web, assets, {{name, engine->get()}}, options);
  if (!board) return fail(board.error());

  std::signal(SIGINT, on_signal);
  std::signal(SIGTERM, on_signal);
  fmt::print(stderr,
             "arena serve: model '{}' ({} KV blocks) at {}v1 (dashboard {}dashboard, metrics {}metrics)\n",
             name, (*engine)->num_kv_blocks(), (*board)->url(), (*board)->url(), (*board)->url());
  if (!f.api_key.empty()) fmt::print(stderr, "arena serve: /v1 needs the API key (Authorization: Bearer)\n");
  while (!g_stop.load()) std::this_thread::sleep_for(std::chrono::milliseconds(100));
  fmt::print(stderr, "arena serve: stopping\n");
  board->reset();   // no request reaches the engine any more
  engine->reset();  // cancels what is left
  return 0;
}

// Whether `key` can travel in an `Authorization: Bearer` header: printable ASCII, no spaces.
bool printable_key(const std::string& key) {
  return std::all_of(key.begin(), key.end(), [](char c) { return c > ' ' && c < 127; });
}

// The flags of docs/security.md: Host names, origins, the API key.
void add_access_flags(CLI::App& cmd, ServeFlags& f) {
  cmd.add_option("--allowed-host", f.allowed_hosts,
                 "A host name the server also answers to (repeatable; e.g. the name a reverse proxy "
                 "forwards); others get 421")
      ->check(name_check(&config::check_allowed_host, "HOST"))
      ->expected(1)
      ->allow_extra_args(false)
      ->take_all();
  cmd.add_option("--allowed-origin", f.allowed_origins,
                 "A browser origin whose pages may POST and open /ws (repeatable; e.g. https://x.org)")
      ->check(name_check(&config::check_allowed_origin, "ORIGIN"))
      ->expected(1)
      ->allow_extra_args(false)
      ->take_all();
  cmd.add_option(
      "--api-key", f.api_key,
      "Require `Authorization: Bearer KEY` on /v1 (default: $ARENA_API_KEY, which `ps` does not show)");
  cmd.add_flag("--allow-unauthenticated", f.allow_unauthenticated,
               "Allow --host beyond loopback without an API key");
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
  add_access_flags(*cmd, f);
  cmd->callback([flags, &action] {
    // The environment's key unless the command line gives one (it is then visible to `ps`).
    const bool from_env = flags->api_key.empty();
    if (from_env) flags->api_key = process_env("ARENA_API_KEY").value_or("");
    if (!flags->api_key.empty() && !printable_key(flags->api_key))
      throw CLI::ValidationError(from_env ? "ARENA_API_KEY" : "--api-key",
                                 "the API key must be printable ASCII without spaces");
    action = [flags] { return run_serve(*flags); };
  });
}

}  // namespace arena::cli
