// Vocabulary loading and special-token handling. The text lists of end-of-turn, FIM and
// end-of-generation tokens are llama.cpp's (it detects them by text when the metadata is silent).
#include "engine/tokenizer/vocab.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <initializer_list>

#include "base/strings.h"
#include "engine/gguf/gguf_file.h"

namespace engine {

namespace {

uint16_t prefix_key(char a, char b) {
  return static_cast<uint16_t>(static_cast<uint8_t>(a) << 8 | static_cast<uint8_t>(b));
}

constexpr const char* kTokensKey = "tokenizer.ggml.tokens";
constexpr const char* kScoresKey = "tokenizer.ggml.scores";
constexpr const char* kTypesKey = "tokenizer.ggml.token_type";

using TextList = std::initializer_list<std::string_view>;

const TextList kEotTexts = {
    "<|eot_id|>", "<|im_end|>", "<|end|>", "<end_of_turn>",         "<|endoftext|>",     "<|end_of_text|>",
    "<EOT>",      "_<EOT>",     "[EOT]",   "<｜end▁of▁sentence｜>", "<end_of_utterance>"};
const TextList kEomTexts = {"<|eom_id|>"};
const TextList kFimPreTexts = {"<|fim_prefix|>", "<fim-prefix>", "<fim_prefix>",    "<｜fim▁begin｜>",
                               "<PRE>",          "▁<PRE>",       "<|code_prefix|>", "<|prefix|>"};
const TextList kFimSufTexts = {"<|fim_suffix|>", "<fim-suffix>", "<fim_suffix>",    "<｜fim▁hole｜>",
                               "<SUF>",          "▁<SUF>",       "<|code_suffix|>", "<|suffix|>"};
const TextList kFimMidTexts = {"<|fim_middle|>", "<fim-middle>", "<fim_middle>",    "<｜fim▁end｜>",
                               "<MID>",          "▁<MID>",       "<|code_middle|>", "<|middle|>"};
const TextList kFimPadTexts = {"<|fim_pad|>", "<fim-pad>", "<fim_pad>", "<PAD>", "[PAD]"};
const TextList kFimRepTexts = {"<|fim_repo|>", "<|repo_name|>", "<fim-repo>", "<REPO>", "<reponame>"};
const TextList kFimSepTexts = {"<|file_sep|>"};
// "</s>" is deliberately absent (newer llama.cpp builds list it, for PaddleOCR): the reference
// llama.cpp build and the Hugging Face tokenizers leave a "</s>" that the vocabulary does not mark
// as control as it is. Phi-3's "</s>" is a user-defined token (split out of any text,
// special tokens parsed or not, and swallowing the whitespace after it) and Qwen's is a normal BPE
// token; making it control would leave Phi-3's spelled out as text and make Qwen's a single id.
// Where "</s>" is the EOS (Llama 2, Mistral) it is an end of generation as the EOS anyway.
const TextList kEogTexts = {"<|eot_id|>",
                            "<|im_end|>",
                            "<|end|>",
                            "<|return|>",
                            "<|call|>",
                            "<|flush|>",
                            "<|calls|>",
                            "<end_of_turn>",
                            "<|endoftext|>",
                            "<|eom_id|>",
                            "<EOT>",
                            "_<EOT>",
                            "[EOT]",
                            "[EOS]",
                            "<|end_of_text|>",
                            "<end_of_utterance>",
                            "<｜end▁of▁sentence｜>"};

uint32_t attr_from_type(int64_t type) {
  switch (type) {
    case 1:
      return kAttrNormal;
    case 2:
      return kAttrUnknown;
    case 3:
      return kAttrControl;
    case 4:
      return kAttrUserDefined;
    case 5:
      return kAttrUnused;
    case 6:
      return kAttrByte;
    default:
      return 0;  // undefined
  }
}

std::string missing_or_wrong(const gguf::GgufFile& file, const char* key, const char* expected) {
  const gguf::Value* value = file.find(key);
  if (!value) return fmt::format("{}: {} is missing", file.path(), key);
  return fmt::format("{}: {} is not {}", file.path(), key, expected);
}

}  // namespace

std::expected<Vocab, Error> Vocab::load(const gguf::GgufFile& file, const VocabDefaults& defaults) {
  Vocab vocab;
  if (auto ok = vocab.read_tokens(file); !ok) return std::unexpected(ok.error());
  if (auto ok = vocab.read_special_ids(file, defaults); !ok) return std::unexpected(ok.error());
  vocab.mark_special_tokens(file);
  return vocab;
}

std::expected<void, Error> Vocab::read_tokens(const gguf::GgufFile& file) {
  auto tokens = file.get_string_array(kTokensKey);
  if (!tokens) return std::unexpected(Error{missing_or_wrong(file, kTokensKey, "an array of strings")});
  if (tokens->empty()) return std::unexpected(Error{fmt::format("{}: {} is empty", file.path(), kTokensKey)});
  const size_t n = tokens->size();

  std::vector<double> scores;
  if (file.find(kScoresKey)) {
    auto s = file.get_float_array(kScoresKey);
    if (!s) return std::unexpected(Error{missing_or_wrong(file, kScoresKey, "a numeric array")});
    if (s->size() < n)
      return std::unexpected(
          Error{fmt::format("{}: {} has {} entries for {} tokens", file.path(), kScoresKey, s->size(), n)});
    scores = std::move(*s);
  }
  std::vector<int64_t> types;
  if (file.find(kTypesKey)) {
    auto t = file.get_int_array(kTypesKey);
    if (!t) return std::unexpected(Error{missing_or_wrong(file, kTypesKey, "an integer array")});
    if (t->size() < n)
      return std::unexpected(
          Error{fmt::format("{}: {} has {} entries for {} tokens", file.path(), kTypesKey, t->size(), n)});
    types = std::move(*t);
  }

  texts_ = std::move(*tokens);
  scores_.resize(n, 0.0f);
  attrs_.resize(n, kAttrNormal);
  for (size_t i = 0; i < n; ++i) {
    if (texts_[i].empty()) texts_[i] = fmt::format("[EMPTY_{}]", i);  // as llama.cpp names them
    if (!scores.empty()) scores_[i] = static_cast<float>(scores[i]);
    if (!types.empty()) attrs_[i] = attr_from_type(types[i]);
  }
  if (const auto duplicate = index_.build(texts_))
    return std::unexpected(
        Error{fmt::format("{}: {} has the token '{}' twice (ids {} and {})", file.path(), kTokensKey,
                          texts_[duplicate->first], duplicate->first, duplicate->second)});
  return {};
}

std::expected<void, Error> Vocab::read_special_ids(const gguf::GgufFile& file,
                                                   const VocabDefaults& defaults) {
  // A default id outside the vocabulary means "none"; a key outside it is ignored (as llama.cpp).
  const auto id_from = [&](const char* key, TokenId fallback) {
    TokenId id = valid(fallback) ? fallback : -1;
    if (auto v = file.get_int(key); v && *v >= 0 && *v < size()) id = static_cast<TokenId>(*v);
    return id;
  };
  bos_ = id_from("tokenizer.ggml.bos_token_id", defaults.bos);
  eos_ = id_from("tokenizer.ggml.eos_token_id", defaults.eos);
  unk_ = id_from("tokenizer.ggml.unknown_token_id", defaults.unk);

  const auto flag_from = [&](const char* key, bool fallback) {
    const auto v = file.get_int(key);
    return v ? *v != 0 : fallback;
  };
  add_bos_ = flag_from("tokenizer.ggml.add_bos_token", defaults.add_bos);
  add_eos_ = flag_from("tokenizer.ggml.add_eos_token", defaults.add_eos);
  add_space_prefix_ = flag_from("tokenizer.ggml.add_space_prefix", defaults.add_space_prefix);
  clean_spaces_ = defaults.clean_spaces;
  if (add_bos_ && bos_ < 0)
    return std::unexpected(Error{fmt::format(
        "{}: tokenizer.ggml.add_bos_token is true but tokenizer.ggml.bos_token_id is not set", file.path())});
  if (add_eos_ && eos_ < 0)
    return std::unexpected(Error{fmt::format(
        "{}: tokenizer.ggml.add_eos_token is true but tokenizer.ggml.eos_token_id is not set", file.path())});
  return {};
}

void Vocab::mark_special_tokens(const gguf::GgufFile& file) {
  // An id from `key`, else the first token (by id) whose text is in `texts`; found tokens
  // become control tokens.
  const auto special = [&](const char* key, const TextList& texts) {
    TokenId id = -1;
    if (auto v = file.get_int(key); v && *v >= 0 && *v < size()) id = static_cast<TokenId>(*v);
    if (id < 0) {
      for (const std::string_view text : texts) {
        const TokenId t = find(text);
        if (t >= 0 && (id < 0 || t < id)) id = t;
      }
    }
    if (id >= 0) attrs_[id] |= kAttrControl;
    return id;
  };
  const TokenId eot = special("tokenizer.ggml.eot_token_id", kEotTexts);
  const TokenId eom = special("tokenizer.ggml.eom_token_id", kEomTexts);
  special("tokenizer.ggml.fim_pre_token_id", kFimPreTexts);
  special("tokenizer.ggml.fim_suf_token_id", kFimSufTexts);
  special("tokenizer.ggml.fim_mid_token_id", kFimMidTexts);
  const TokenId fim_pad = special("tokenizer.ggml.fim_pad_token_id", kFimPadTexts);
  const TokenId fim_rep = special("tokenizer.ggml.fim_rep_token_id", kFimRepTexts);
  const TokenId fim_sep = special("tokenizer.ggml.fim_sep_token_id", kFimSepTexts);

  for (TokenId id : {eos_, eot, eom, fim_pad, fim_rep, fim_sep})
    if (id >= 0) eog_.insert(id);
  for (const std::string_view text : kEogTexts) {
    if (const TokenId t = find(text); t >= 0) {
      eog_.insert(t);
      attrs_[t] |= kAttrControl;
    }
  }

  for (TokenId t = 0; t < size(); ++t)
    if (attrs_[t] & (kAttrControl | kAttrUserDefined | kAttrUnknown)) special_tokens_.push_back(t);
  std::stable_sort(special_tokens_.begin(), special_tokens_.end(),
                   [&](TokenId a, TokenId b) { return texts_[a].size() > texts_[b].size(); });
  for (uint32_t k = 0; k < special_tokens_.size(); ++k) {
    const std::string& t = texts_[special_tokens_[k]];
    if (t.size() >= 2)
      specials_by_prefix_[prefix_key(t[0], t[1])].push_back(k);
    else if (t.size() == 1)
      one_byte_specials_.push_back(k);  // an empty text is never split out
  }

  // Phi-3's special tokens swallow the whitespace after them (llama.cpp keys this on the name).
  const std::string name = base::to_lower(file.get_string("general.name").value_or(""));
  if (name.find("phi-3") != std::string::npos || name.find("phi3") != std::string::npos) {
    for (TokenId t : special_tokens_) attrs_[t] |= kAttrRstrip;
    for (const char* text : {"</s>"})
      if (TokenId t = find(text); t >= 0) attrs_[t] |= kAttrRstrip;
    for (const char* text : {"<unk>", "<s>", "<|endoftext|>"})
      if (TokenId t = find(text); t >= 0) attrs_[t] &= ~kAttrRstrip;
  }
}

TokenId Vocab::find(std::string_view text) const {
  return index_.find(text, texts_);
}

std::vector<bool> Vocab::specials_in(std::string_view text) const {
  std::vector<bool> present(special_tokens_.size(), false);
  for (const uint32_t k : one_byte_specials_)
    present[k] = text.find(texts_[special_tokens_[k]][0]) != std::string_view::npos;
  if (specials_by_prefix_.empty()) return present;
  for (size_t i = 0; i + 1 < text.size(); ++i) {
    const auto bucket = specials_by_prefix_.find(prefix_key(text[i], text[i + 1]));
    if (bucket == specials_by_prefix_.end()) continue;
    for (const uint32_t k : bucket->second)
      if (!present[k] && text.substr(i).starts_with(texts_[special_tokens_[k]])) present[k] = true;
  }
  return present;
}

std::vector<TextFragment> Vocab::partition(std::string_view text, bool parse_special) const {
  std::vector<TextFragment> fragments;
  if (text.empty()) return fragments;
  fragments.push_back({-1, 0, text.size()});
  const auto is_space = [](char c) { return std::isspace(static_cast<unsigned char>(c)) != 0; };

  const std::vector<bool> present = specials_in(text);
  for (size_t k = 0; k < special_tokens_.size(); ++k) {
    const TokenId special = special_tokens_[k];
    const uint32_t attr = attrs_[special];
    if (!present[k] || (!parse_special && (attr & (kAttrControl | kAttrUnknown)))) continue;
    const std::string& needle = texts_[special];
    std::vector<TextFragment> next;
    next.reserve(fragments.size());
    for (const TextFragment& fragment : fragments) {
      if (fragment.is_token()) {
        next.push_back(fragment);
        continue;
      }
      size_t offset = fragment.offset;
      size_t length = fragment.length;
      while (true) {
        const size_t match = text.substr(0, offset + length).find(needle, offset);
        if (match == std::string_view::npos) {
          if (length > 0) next.push_back({-1, offset, length});
          break;
        }
        size_t left_length = match - offset;
        if (attr & kAttrLstrip)
          while (left_length > 0 && is_space(text[offset + left_length - 1])) --left_length;
        if (left_length > 0) next.push_back({-1, offset, left_length});
        next.push_back({special, 0, 0});
        const size_t right_offset = match + needle.size();
        if (right_offset >= offset + length) break;
        length = offset + length - right_offset;
        offset = right_offset;
        if (attr & kAttrRstrip)
          while (length > 0 && is_space(text[offset])) ++offset, --length;
      }
    }
    fragments = std::move(next);
  }
  return fragments;
}

}  // namespace engine
