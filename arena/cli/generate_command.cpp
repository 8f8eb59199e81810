// `arena generate --model M --prompt TEXT [--chat] [--system TEXT] [-n N] [--temp T] [--seed S]
// [--top-k K] [--top-p P] [--min-p P]`: one request through the Engine API, its text streamed
// to stdout as it is produced, then a one-line summary (TTFT, tokens/s) on stderr. --chat
// formats the prompt with the model's chat template.
#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <CLI/CLI.hpp>
#include <cstdio>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "arena/cli/command.h"
#include "engine/api.h"
#include "engine/core/kv_budget.h"
#include "engine/model/model.h"
#include "engine/tokenizer/chat_template.h"

namespace arena::cli {

namespace {

struct GenerateFlags {
  std::string model, prompt, system, chat_template;
  bool chat = false;
  int32_t max_tokens = 128;
  float temperature = 0.0f;
  std::optional<uint64_t> seed;
  int32_t top_k = 0;
  float top_p = 1.0f, min_p = 0.0f;
  int threads = 0;
  std::string kv_dtype = "f16";
  bool ignore_eos = false;
};

int fail(const std::string& message) {
  fmt::print(stderr, "arena generate: error: {}\n", message);
  return 1;
}

int run_generate(const GenerateFlags& f) {
  auto model = engine::Model::load(f.model, f.threads);
  if (!model) return fail(model.error().message);
  const engine::Tokenizer& tok = (*model)->tokenizer();

  std::vector<engine::TokenId> prompt;
  if (f.chat) {
    auto tmpl = engine::ChatTemplate::for_model((*model)->file(), tok, f.chat_template);
    if (!tmpl) return fail(tmpl.error().message + " (or pass --chat-template)");
    std::vector<engine::ChatMessage> messages;
    if (!f.system.empty()) messages.push_back({"system", f.system});
    messages.push_back({"user", f.prompt});
    prompt = engine::tokenize_chat_prompt(tok, tmpl->apply(messages));
  } else {
    prompt = tok.encode(f.prompt, /*add_special=*/true, /*parse_special=*/true);
  }
  if (prompt.empty()) return fail("the prompt encodes to no tokens");

  // A KV cache just large enough for this one request.
  engine::EngineConfig config;
  config.cache.dtype = f.kv_dtype == "q8_0"  ? engine::KvDtype::Q8_0
                       : f.kv_dtype == "f32" ? engine::KvDtype::F32
                                             : engine::KvDtype::F16;
  int64_t tokens = static_cast<int64_t>(prompt.size()) + f.max_tokens;
  const int32_t context = (*model)->shape().context_length;
  if (context > 0) tokens = std::min<int64_t>(tokens, context);
  const auto shape = engine::kv_cache_shape((*model)->shape(), config.cache);
  config.cache.kv_cache_bytes =
      shape.bytes_per_block() * static_cast<size_t>(tokens / config.cache.block_size + 1);
  config.logger = [](std::string_view line) { spdlog::debug("engine: {}", line); };
  auto engine = engine::Engine::create((*model)->network(), tok, config);
  if (!engine) return fail(engine.error().message);

  engine::GenerateRequest request;
  request.prompt_tokens = std::move(prompt);
  request.sampling.max_tokens =
      context > 0
          ? std::min<int32_t>(f.max_tokens, context - static_cast<int32_t>(request.prompt_tokens.size()))
          : f.max_tokens;
  request.sampling.temperature = f.temperature;
  request.sampling.seed = f.seed;
  request.sampling.top_k = f.top_k;
  request.sampling.top_p = f.top_p;
  request.sampling.min_p = f.min_p;
  request.sampling.ignore_eos = f.ignore_eos;
  auto handle = (*engine)->submit(std::move(request));
  if (!handle) return fail(handle.error().message);
  while (auto chunk = handle->next()) {
    fmt::print("{}", chunk->text);
    std::fflush(stdout);
  }
  const engine::GenerateResult r = handle->wait();
  fmt::print("\n");
  if (r.reason == engine::FinishReason::Error) return fail(r.error);
  const double decode_s = r.total_seconds - r.ttft_seconds;
  const size_t n = r.tokens.size();
  fmt::print(stderr,
             "prompt {} tokens, generated {} tokens ({}); TTFT {:.1f} ms ({:.1f} prompt tok/s), decode "
             "{:.2f} tok/s, "
             "total {:.2f} s\n",
             r.num_prompt_tokens, n, engine::to_string(r.reason), r.ttft_seconds * 1e3,
             r.ttft_seconds > 0 ? r.num_prompt_tokens / r.ttft_seconds : 0.0,
             n > 1 && decode_s > 0 ? static_cast<double>(n - 1) / decode_s : 0.0, r.total_seconds);
  return 0;
}

}  // namespace

void add_generate_command(CLI::App& root, Action& action) {
  auto flags = std::make_shared<GenerateFlags>();
  auto* cmd =
      root.add_subcommand("generate", "Generate text from a prompt through the serving engine (streamed)");
  GenerateFlags& f = *flags;
  cmd->add_option("--model", f.model, "GGUF model file")->required();
  cmd->add_option("--prompt", f.prompt, "Prompt text")->required();
  cmd->add_flag("--chat", f.chat, "Format the prompt as a user message with the model's chat template");
  cmd->add_option("--system", f.system, "System message (with --chat)");
  cmd->add_option("--chat-template", f.chat_template,
                  std::string("Chat template family or format string (with --chat; default: the model's): ") +
                      engine::kChatFamilyNames);
  cmd->add_option("-n,--max-tokens", f.max_tokens, "Tokens to generate at most")
      ->check(CLI::Range(1, 1 << 20));
  cmd->add_option("--temp", f.temperature, "Sampling temperature (0 = greedy)")
      ->check(CLI::Range(0.0, 100.0));
  cmd->add_option("--seed", f.seed, "Random seed for sampling");
  cmd->add_option("--top-k", f.top_k, "Keep the k most likely tokens (0 = off)")
      ->check(CLI::NonNegativeNumber);
  cmd->add_option("--top-p", f.top_p, "Nucleus sampling mass (1 = off)")->check(CLI::Range(0.000001, 1.0));
  cmd->add_option("--min-p", f.min_p, "Drop tokens below min-p x the best one's probability")
      ->check(CLI::Range(0.0, 1.0));
  cmd->add_option("--threads", f.threads, "Compute threads (0 = all cores)")->check(CLI::NonNegativeNumber);
  cmd->add_option("--kv-dtype", f.kv_dtype, "KV cache value type: f16 (default), q8_0 or f32")
      ->check(CLI::IsMember({"f16", "q8_0", "f32"}));
  cmd->add_flag("--ignore-eos", f.ignore_eos, "Keep generating past end-of-generation tokens");
  cmd->callback([flags, &action] { action = [flags] { return run_generate(*flags); }; });
}

}  // namespace arena::cli
