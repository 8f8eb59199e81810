// Byte-level BPE tokenizer (tokenizer.ggml.model = "gpt2"): text is split into words by the
// pre-tokenizer's regex, each word's bytes are mapped to GPT-2's printable byte characters, and
// adjacent symbols merge in the order of tokenizer.ggml.merges (lowest rank first).
#pragma once

#include <expected>
#include <memory>

#include "engine/error.h"
#include "engine/tokenizer/pre_tokenizer.h"
#include "engine/tokenizer/tokenizer.h"
#include "engine/tokenizer/vocab.h"

namespace engine {

// What differs between the BPE pre-tokenizer types.
struct BpeOptions {
  PreTokenizer pre = PreTokenizer::Gpt2;
  bool ignore_merges = false;  // a word that is a whole token is taken as is (llama3)
  VocabDefaults defaults;      // add_bos, clean_spaces, ... before metadata overrides
};

// The byte-level BPE tokenizer of `file` (needs tokenizer.ggml.tokens and tokenizer.ggml.merges).
std::expected<std::unique_ptr<Tokenizer>, Error> make_bpe_tokenizer(const gguf::GgufFile& file,
                                                                    const BpeOptions& options);

}  // namespace engine
