// The project's default model: what a config's LLM agents use when it names no model file. It is
// models/arena-chess-janggi.gguf, trained by models/train/train.sh on chess and janggi prompts and
// committed (models/README.md is its card).
#pragma once

#include <filesystem>
#include <string>

#include "agents/agent_config.h"

namespace arena::models {

// The file name of the default model inside a checkout (and, under share/arena/, an install).
inline constexpr const char* kDefaultModelFile = "models/arena-chess-janggi.gguf";

// Where the default model is: ARENA_DEFAULT_MODEL as `get_env` reads it, when set; else the first that exists
// of models/arena-chess-janggi.gguf in `config_file`'s folder or a folder above it (a checkout's configs/),
// in a folder above the arena executable (build/bin/arena in a checkout), share/arena/models/ beside an
// installed bin/arena, and in the checkout the executable was built from (a build folder outside the
// checkout); else the checkout's path, for the error message.
std::string default_model_path(const std::filesystem::path& config_file, const agents::EnvReader& get_env);

}  // namespace arena::models
