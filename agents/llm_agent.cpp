// LLM agent prompts and answers: board text + legal moves in, one constrained move out.
#include "agents/llm_agent.h"

#include <fmt/format.h>

#include <algorithm>

namespace agents {

namespace {

const char* side_name(const games::Game& game) {
  const bool first = game.side_to_move() == games::Side::First;
  if (game.variant() == "chess") return first ? "White" : "Black";
  return first ? "Cho (blue)" : "Han (red)";
}

}  // namespace

std::string default_system_prompt(const std::string& variant) {
  const std::string game = variant == "chess" ? "chess" : "janggi (Korean chess)";
  return fmt::format(
      "You are a strong {} player in a tournament. Each turn you receive the current board, "
      "whose move it is and the list of legal moves. Think about threats against your pieces, "
      "captures you can make and the safety of your king, then answer with exactly one move "
      "from the list, written as it appears there, and nothing else.",
      game);
}

LlmAgent::LlmAgent(engine::Engine& engine, const engine::ChatTemplate& chat, LlmAgentConfig config)
    : engine_(engine), chat_(chat), config_(std::move(config)) {}

std::vector<engine::ChatMessage> LlmAgent::messages(const games::Game& game) const {
  const auto moves = config_.human_notation ? game.legal_moves_human() : game.legal_moves();
  std::string list;
  for (const auto& m : moves) list += (list.empty() ? "" : " ") + m;
  const std::string system =
      config_.system_prompt.empty() ? default_system_prompt(game.variant()) : config_.system_prompt;
  const std::string user =
      fmt::format("{}\nFEN: {}\nYou play {}. Legal moves: {}\nYour move:", game.render_text(), game.fen(),
                  side_name(game), list);
  return {{"system", system}, {"user", user}};
}

std::expected<engine::RequestHandle, engine::Error> LlmAgent::request_move(const games::Game& game,
                                                                           int32_t priority) const {
  engine::GenerateRequest request;
  const auto msgs = messages(game);
  request.prompt_tokens = engine::tokenize_chat_prompt(engine_.tokenizer(), chat_.apply(msgs));
  request.allowed_completions = config_.human_notation ? game.legal_moves_human() : game.legal_moves();
  request.sampling = config_.sampling;
  size_t longest = 0;
  for (const auto& m : request.allowed_completions) longest = std::max(longest, m.size());
  // A move never needs more tokens than bytes, plus one for the end-of-turn token.
  request.sampling.max_tokens =
      std::max<int32_t>(request.sampling.max_tokens, static_cast<int32_t>(longest) + 1);
  request.priority = priority;
  return engine_.submit(std::move(request));
}

std::expected<std::string, std::string> LlmAgent::read_move(const games::Game& game,
                                                            const engine::GenerateResult& result) const {
  if (result.reason == engine::FinishReason::Error) return std::unexpected("engine error: " + result.error);
  if (result.reason == engine::FinishReason::Cancelled)
    return std::unexpected(std::string("request cancelled"));
  auto move = game.parse_move(result.text);
  if (!move)
    return std::unexpected(
        fmt::format("answer '{}' is not a legal move: {}", result.text, move.error().message));
  return *move;
}

}  // namespace agents
