// SentencePiece-style tokenizer (tokenizer.ggml.model = "llama"): spaces become U+2581, a space
// is prefixed to the text, adjacent pieces merge greedily by the score of the token they form,
// and characters no token covers fall back to <0xXX> byte tokens.
#pragma once

#include <expected>
#include <memory>

#include "engine/error.h"
#include "engine/tokenizer/tokenizer.h"

namespace engine {

// The SentencePiece tokenizer of `file` (needs tokenizer.ggml.tokens and tokenizer.ggml.scores).
std::expected<std::unique_ptr<Tokenizer>, Error> make_spm_tokenizer(const gguf::GgufFile& file);

}  // namespace engine
