// The text the built-in vocabulary is trained on: a few KB of English prose about chess and
// janggi, the prompt phrasing agents use, and move text (SAN, UCI, every board square).
#pragma once

#include <string>

namespace engine::synth {

// The whole training corpus (deterministic; the same on every call).
const std::string& builtin_corpus();

}  // namespace engine::synth
