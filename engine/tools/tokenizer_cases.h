// llama.cpp's tokenizer test-vector files: a .inp holds texts, each followed by a line
// "__ggml_vocab_test__"; line k of the matching .out holds the ids of text k, each preceded by a
// space. Used by `arena tokenize --cases` and the conformance tests.
#pragma once

#include <expected>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "engine/error.h"
#include "engine/tokenizer/tokenizer.h"

namespace engine {

// The texts of a .inp file's contents.
std::vector<std::string> split_tokenizer_cases(std::string_view content);

// The texts of the .inp file at `path`, or an error naming the file.
std::expected<std::vector<std::string>, Error> read_tokenizer_cases(const std::string& path);

// `ids` as one .out line (without the newline): " 1 2 3".
std::string format_ids_line(std::span<const TokenId> ids);

}  // namespace engine
