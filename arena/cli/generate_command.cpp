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
  return cli::fail("generate", message);
}

int run_generate(const GenerateFlags& f) {
  engine::ModelOptions options;
  options.num_threads = f.threads;
  if (f.chat) options.chat_template = f.chat_template;
  auto model = engine::LoadedModel::open(f.model, options);
  if (!model) return fail(model.error().message);
  const engine::Tokenizer& tok = (*model)->tokenizer();

  std::vector<engine::TokenId> prompt;
  if (f.chat) {
    std::vector<engine::ChatMessage> messages;
    if (!f.system.empty()) messages.push_back({"system", f.system});
    messages.push_back({"user", f.prompt});
    auto text = (*model)->render_chat(messages);
    if (!text) return fail(text.error().message + " (or pass --chat-template)");
    prompt = (*model)->tokenize_prompt(*text);
  } else {
    prompt = tok.encode(f.prompt, /*add_special=*/true, /*parse_special=*/true);
  }
  if (prompt.empty()) return fail("the prompt encodes to no tokens");

  // A KV cache just large enough for this one request (the engine ends it at the model's context).
  engine::EngineConfig config;
  config.cache.dtype = *engine::parse_kv_dtype(f.kv_dtype);
  int64_t tokens = static_cast<int64_t>(prompt.size()) + f.max_tokens;
  const int32_t context = (*model)->shape().context_length;
  if (context > 0) tokens = std::min<int64_t>(tokens, context);
  const size_t block_bytes =
      (*model)->kv_bytes_per_token(config.cache) * static_cast<size_t>(config.cache.block_size);
  config.cache.kv_cache_bytes = block_bytes * static_cast<size_t>(tokens / config.cache.block_size + 1);
  config.logger = [](std::string_view line) { spdlog::debug("engine: {}", line); };
  auto engine = (*model)->create_engine(config);
  if (!engine) return fail(engine.error().message);

  engine::GenerateRequest request;
  request.prompt_tokens = std::move(prompt);
  request.sampling.max_tokens = f.max_tokens;
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
  cmd->add_option("--temp", f.temperature, "Sampling temperature (0 = greedy)")->check(number_in(0, 100));
  cmd->add_option("--seed", f.seed, "Random seed for sampling");
  cmd->add_option("--top-k", f.top_k, "Keep the k most likely tokens (0 = off)")->check(number_at_least(0));
  cmd->add_option("--top-p", f.top_p, "Nucleus sampling mass (1 = off)")->check(number_in(1e-6, 1));
  cmd->add_option("--min-p", f.min_p, "Drop tokens below min-p x the best one's probability")
      ->check(number_in(0, 1));
  cmd->add_option("--threads", f.threads, "Compute threads (0 = all cores)")->check(CLI::NonNegativeNumber);
  cmd->add_option("--kv-dtype", f.kv_dtype, "KV cache value type: f16 (default), q8_0 or f32")
      ->check(CLI::IsMember(engine::kv_dtype_names()));
  cmd->add_flag("--ignore-eos", f.ignore_eos, "Keep generating past end-of-generation tokens");
  cmd->callback([flags, &action] { action = [flags] { return run_generate(*flags); }; });
}

}  // namespace arena::cli
