// The prompt-defined LLM agent (`type: llm`): the user's system prompt and per-move template
// filled from the position, sent to a backend (the in-process engine or an OpenAI-compatible
// server), the answer read in one of three output modes (constrained, free, reason), with or
// without the game's conversation so far. make_llm_agent() is what the agent factory calls.
#pragma once

#include <expected>
#include <memory>

#include "agents/agent.h"
#include "agents/agent_config.h"
#include "agents/backend/backend.h"

namespace agents {

// The LLM agent `config` describes (its params must hold an LlmAgentConfig): its model resolved
// through env.find_model (backend engine) or its server settings checked (backend openai, the key
// read through env.get_env), its prompts checked for unknown placeholders.
std::expected<std::unique_ptr<Agent>, AgentError> make_llm_agent(const AgentConfig& config,
                                                                 const AgentEnvironment& env);

// The same agent over a backend the caller made (tests feed scripted answers through one).
std::expected<std::unique_ptr<Agent>, AgentError> make_llm_agent(
    const AgentConfig& config, std::shared_ptr<backend::LlmBackend> backend);

}  // namespace agents
