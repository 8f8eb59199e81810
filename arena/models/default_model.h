// The project's default model: what a config's LLM agents use when it names no model file.
// Until an embedded model ships this is the small random-weight model scripts/quickstart.sh
// synthesizes at set-up (models/demo-qwen2-tiny-q8_0.gguf in the checkout).
#pragma once

#include <string>

namespace arena::models {

// The file name of the default model inside the checkout's models/ folder.
inline constexpr const char* kDefaultModelFile = "models/demo-qwen2-tiny-q8_0.gguf";

// Where the default model is: $ARENA_DEFAULT_MODEL when set; else the first
// models/demo-qwen2-tiny-q8_0.gguf found in the folders above the arena executable (the
// checkout of build/bin/arena); else where quickstart.sh would make it for that executable.
std::string default_model_path();

}  // namespace arena::models
