// Chat prompts: a list of {role, content} messages formatted the way a model family's Jinja
// chat template formats them (no Jinja engine: each family is written out by hand). The family
// is detected from a GGUF's tokenizer.chat_template by its marker strings (as llama.cpp's
// llm_chat_detect_template does), or chosen by the user by name or with a format string.
//
// Families (S system, U user, A assistant; {bos}/{eos} are the vocabulary's BOS/EOS texts):
//   chatml      <|im_start|>system\nS<|im_end|>\n<|im_start|>user\nU<|im_end|>\n
//               <|im_start|>assistant\nA<|im_end|>\n ... generation: <|im_start|>assistant\n
//   qwen3       chatml, plus Qwen3's reasoning rules: "<think>...</think>" is dropped from
//               assistant turns before the last user turn; enable_thinking = false appends
//               "<think>\n\n</think>\n\n" to the generation prompt
//   llama3      {bos}<|start_header_id|>system<|end_header_id|>\n\nS<|eot_id|> ... (content
//               trimmed) ... generation: <|start_header_id|>assistant<|end_header_id|>\n\n
//   llama2      {bos}[INST] <<SYS>>\nS\n<</SYS>>\n\nU [/INST] A {eos}{bos}[INST] U [/INST]
//               (Llama-2-chat: system folded into the first turn, turns stripped)
//   mistral     {bos}[INST] U[/INST] A{eos}[INST] S\n\nU[/INST] (Mistral v0.3: the system prompt
//               goes before the last user message, assistant turns trimmed)
//   mistral-v1  {bos} [INST] S\n\nU [/INST] A{eos} [INST] U [/INST] (system before the first)
//   gemma       {bos}<start_of_turn>user\nS\n\nU<end_of_turn>\n<start_of_turn>model\nA<end_of_turn>\n
//               ... generation: <start_of_turn>model\n (Gemma 3: system before the first turn)
//   phi3        <|system|>\nS<|end|>\n<|user|>\nU<|end|>\n<|assistant|>\nA<|end|>\n ...
//               generation: <|assistant|>\n, else {eos} (the updated Phi-3 template)
// llama2, mistral and format strings write roles other than system/assistant as user turns; the
// other families write the role name as given (qwen3 groups "tool" messages as its template does).
// Templates that emit {bos} do so in the text; tokenize prompts with tokenize_chat_prompt() so
// BOS is not doubled.
//
// Format strings (for models whose template is not one of the above): text with part markers.
// {system}, {user}, {assistant} and {generation} each start the template of that part, which runs
// to the next marker; inside a part {content} is the message text. Text before the first marker
// is written once at the start. {bos} and {eos} stand for the BOS/EOS token texts anywhere, and
// the escapes \n, \t and \\ are understood so a format fits on one line. {user} and {assistant}
// are required and must contain {content}; without a {system} part a system message is put
// before the first user message's content, followed by a blank line. Example (ChatML):
//   {system}<|im_start|>system\n{content}<|im_end|>\n{user}<|im_start|>user\n{content}<|im_end|>\n
//   {assistant}<|im_start|>assistant\n{content}<|im_end|>\n{generation}<|im_start|>assistant\n
#pragma once

#include <expected>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "engine/error.h"
#include "engine/tokenizer/tokenizer.h"

namespace engine {

struct ChatMessage {
  std::string role;  // "system", "user", "assistant", ...
  std::string content;
};

struct ChatOptions {
  bool add_generation_prompt = true;  // end with the opening of an assistant turn
  bool enable_thinking = true;        // qwen3 only: false asks for no reasoning
};

// The names from_spec() accepts, comma separated (for messages).
inline constexpr const char* kChatFamilyNames =
    "chatml, qwen3, llama3, llama2, mistral, mistral-v1, gemma, phi3";

class ChatTemplate {
 public:
  // A family by name (see kChatFamilyNames), or a format string (any spec containing '{').
  static std::expected<ChatTemplate, Error> from_spec(std::string_view spec, std::string bos_text,
                                                      std::string eos_text);
  // The family of a Jinja template, or an error saying how to supply one.
  static std::expected<ChatTemplate, Error> detect(std::string_view jinja, std::string bos_text,
                                                   std::string eos_text);
  // For a model: `spec` when not empty (the user's chat_template setting), else the family of the
  // file's tokenizer.chat_template. BOS/EOS texts come from `tokenizer`.
  static std::expected<ChatTemplate, Error> for_model(const gguf::GgufFile& file, const Tokenizer& tokenizer,
                                                      std::string_view spec = {});

  // The family name, or "custom" for a format string.
  const std::string& name() const { return name_; }

  // The prompt text for `messages`, exactly as the family's template writes it.
  std::string apply(std::span<const ChatMessage> messages, const ChatOptions& options = {}) const;

 private:
  enum class Family { ChatMl, Qwen3, Llama3, Llama2, Mistral, MistralV1, Gemma, Phi3, Custom };
  struct CustomFormat {
    std::string prefix, system, user, assistant, generation;
    bool has_system = false;
  };

  ChatTemplate(Family family, std::string name, std::string bos, std::string eos)
      : family_(family), name_(std::move(name)), bos_(std::move(bos)), eos_(std::move(eos)) {}

  std::string apply_chatml(std::span<const ChatMessage> messages, const ChatOptions& options) const;
  std::string apply_qwen3(std::span<const ChatMessage> messages, const ChatOptions& options) const;
  std::string apply_llama3(std::span<const ChatMessage> messages, const ChatOptions& options) const;
  std::string apply_llama2(std::span<const ChatMessage> messages) const;
  std::string apply_mistral(std::span<const ChatMessage> messages) const;
  std::string apply_mistral_v1(std::span<const ChatMessage> messages) const;
  std::string apply_gemma(std::span<const ChatMessage> messages, const ChatOptions& options) const;
  std::string apply_phi3(std::span<const ChatMessage> messages, const ChatOptions& options) const;
  std::string apply_custom(std::span<const ChatMessage> messages, const ChatOptions& options) const;

  Family family_;
  std::string name_;
  std::string bos_, eos_;
  CustomFormat custom_;
};

// Token ids of a prompt from ChatTemplate::apply: special tokens parsed, BOS added when the
// vocabulary adds one, and a BOS the template already wrote at the start not doubled (as
// llama.cpp strips it).
std::vector<TokenId> tokenize_chat_prompt(const Tokenizer& tokenizer, std::string_view prompt);

}  // namespace engine
