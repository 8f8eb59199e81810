// Chat templates: each family's prompt for a system + user + assistant + user conversation with
// the generation prompt, written out by hand from the Jinja templates (Qwen3's and Llama 3's in
// the test vocabularies; Llama-2-chat, Mistral v0.3 / v1, Gemma 3 and the updated Phi-3 from their
// published templates); detection from template text; format strings; prompt tokenization.
#include "engine/tokenizer/chat_template.h"

#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "engine/gguf/gguf_file.h"
#include "engine/tokenizer/tokenizer.h"
#include "tests/common/testdata.h"

namespace {

using Catch::Matchers::Contains;
using engine::ChatMessage;
using engine::ChatTemplate;

// The assistant turn has whitespace around it so the families that trim show it.
const std::vector<ChatMessage> kConversation = {
    {"system", "You play chess."},
    {"user", "Your move."},
    {"assistant", " e2e4\n"},
    {"user", "Reply to e7e5."},
};
const std::vector<ChatMessage> kHi = {{"user", "Hi"}};

std::string format(std::string_view family, const std::vector<ChatMessage>& messages = kConversation,
                   engine::ChatOptions options = {}, std::string bos = "<s>", std::string eos = "</s>") {
  auto chat = ChatTemplate::from_spec(family, bos, eos);
  if (!chat) FAIL(chat.error().message);
  return chat->apply(messages, options);
}

struct Model {
  std::unique_ptr<engine::gguf::GgufFile> file;
  std::unique_ptr<engine::Tokenizer> tokenizer;
};

Model load(const std::filesystem::path& path) {
  auto file = engine::gguf::GgufFile::open(path.string());
  REQUIRE(file.has_value());
  Model model{std::make_unique<engine::gguf::GgufFile>(std::move(*file)), nullptr};
  auto tokenizer = engine::Tokenizer::from_gguf(*model.file);
  REQUIRE(tokenizer.has_value());
  model.tokenizer = std::move(*tokenizer);
  return model;
}

}  // namespace

TEST_CASE("Chat families format a conversation exactly as their Jinja templates", "[engine]") {
  const std::string chatml =
      "<|im_start|>system\nYou play chess.<|im_end|>\n<|im_start|>user\nYour move.<|im_end|>\n"
      "<|im_start|>assistant\n e2e4\n<|im_end|>\n<|im_start|>user\nReply to e7e5.<|im_end|>\n"
      "<|im_start|>assistant\n";
  CHECK(format("chatml") == chatml);
  CHECK(format("qwen3") == chatml);
  CHECK(format("llama3", kConversation, {}, "<|begin_of_text|>", "<|end_of_text|>") ==
        "<|begin_of_text|><|start_header_id|>system<|end_header_id|>\n\nYou play chess.<|eot_id|>"
        "<|start_header_id|>user<|end_header_id|>\n\nYour move.<|eot_id|>"
        "<|start_header_id|>assistant<|end_header_id|>\n\ne2e4<|eot_id|>"
        "<|start_header_id|>user<|end_header_id|>\n\nReply to e7e5.<|eot_id|>"
        "<|start_header_id|>assistant<|end_header_id|>\n\n");
  CHECK(format("llama2") ==
        "<s>[INST] <<SYS>>\nYou play chess.\n<</SYS>>\n\nYour move. [/INST] e2e4 </s>"
        "<s>[INST] Reply to e7e5. [/INST]");
  CHECK(format("mistral") ==
        "<s>[INST] Your move.[/INST] e2e4</s>[INST] You play chess.\n\nReply to e7e5.[/INST]");
  CHECK(format("mistral-v1") ==
        "<s> [INST] You play chess.\n\nYour move. [/INST]  e2e4\n</s> [INST] Reply to e7e5. [/INST]");
  CHECK(format("gemma", kConversation, {}, "<bos>", "<eos>") ==
        "<bos><start_of_turn>user\nYou play chess.\n\nYour move.<end_of_turn>\n"
        "<start_of_turn>model\ne2e4<end_of_turn>\n<start_of_turn>user\nReply to e7e5.<end_of_turn>\n"
        "<start_of_turn>model\n");
  CHECK(format("phi3", kConversation, {}, "<s>", "<|endoftext|>") ==
        "<|system|>\nYou play chess.<|end|>\n<|user|>\nYour move.<|end|>\n<|assistant|>\n e2e4\n<|end|>\n"
        "<|user|>\nReply to e7e5.<|end|>\n<|assistant|>\n");
}

TEST_CASE("Chat families without the generation prompt", "[engine]") {
  const std::vector<ChatMessage> one = {{"user", "Hi"}};
  const engine::ChatOptions no_prompt{.add_generation_prompt = false};
  CHECK(format("chatml", one, no_prompt) == "<|im_start|>user\nHi<|im_end|>\n");
  CHECK(format("phi3", one, no_prompt, "<s>", "<|endoftext|>") == "<|user|>\nHi<|end|>\n<|endoftext|>");
  CHECK(format("gemma", one, no_prompt, "<bos>") == "<bos><start_of_turn>user\nHi<end_of_turn>\n");
  CHECK(format("llama3", one, no_prompt, "<B>") ==
        "<B><|start_header_id|>user<|end_header_id|>\n\nHi<|eot_id|>");
}

TEST_CASE("Qwen3 drops earlier reasoning and can switch thinking off", "[engine]") {
  const std::vector<ChatMessage> history = {
      {"user", "Move?"}, {"assistant", "<think>\nopen with e4\n</think>\n\ne2e4"}, {"user", "Again?"}};
  CHECK(format("qwen3", history) ==
        "<|im_start|>user\nMove?<|im_end|>\n<|im_start|>assistant\ne2e4<|im_end|>\n"
        "<|im_start|>user\nAgain?<|im_end|>\n<|im_start|>assistant\n");
  CHECK(format("qwen3", {{"user", "Move?"}}, {.enable_thinking = false}) ==
        "<|im_start|>user\nMove?<|im_end|>\n<|im_start|>assistant\n<think>\n\n</think>\n\n");
  // An assistant turn after the last user turn keeps its reasoning.
  CHECK(
      format("qwen3", {{"user", "Move?"}, {"assistant", "<think>\nhmm\n</think>\ne2e4"}}, {false}) ==
      "<|im_start|>user\nMove?<|im_end|>\n<|im_start|>assistant\n<think>\nhmm\n</think>\n\ne2e4<|im_end|>\n");
}

TEST_CASE("Chat family detection from template text", "[engine]") {
  const auto family = [](std::string_view jinja) {
    auto chat = ChatTemplate::detect(jinja, "<s>", "</s>");
    return chat ? chat->name() : "error: " + chat.error().message;
  };
  CHECK(family("{% for m in messages %}<|im_start|>{{ m.role }}{% endfor %}") == "chatml");
  CHECK(family("<|im_start|>... {%- if '</think>' in content %}") == "qwen3");
  CHECK(family("{{ bos_token + '[INST] ' + '<<SYS>>\\n' }}") == "llama2");
  CHECK(family("{{ '[INST] ' + message['content'] + '[/INST]' }}[AVAILABLE_TOOLS]") == "mistral");
  CHECK(family("{{- ' [INST] ' + system_message + '\\n\\n' }}") == "mistral-v1");
  CHECK(family("{{ '<start_of_turn>' + role }}") == "gemma");
  CHECK(family("{{'<|user|>'}}{{'<|end|>'}}{{'<|assistant|>'}}") == "phi3");
  CHECK(family("<|start_header_id|>{{ role }}<|end_header_id|>") == "llama3");
  const std::string unknown = family("{% for m in messages %}### Human: {{ m.content }}{% endfor %}");
  CHECK_THAT(unknown, Contains("error: ") && Contains("chat_template option") && Contains("chatml, qwen3"));
  CHECK_THAT(family("[SYSTEM_PROMPT][INST]"), Contains("error: "));
}

TEST_CASE("Chat templates of the test vocabularies are detected", "[engine]") {
  ARENA_REQUIRE_TESTDATA(dir, "tokenizers");
  const auto qwen = load(dir / "vocab-qwen3.gguf");
  auto qwen_chat = ChatTemplate::for_model(*qwen.file, *qwen.tokenizer);
  REQUIRE(qwen_chat.has_value());
  CHECK(qwen_chat->name() == "qwen3");

  const auto llama3 = load(dir / "vocab-llama3.gguf");
  auto llama3_chat = ChatTemplate::for_model(*llama3.file, *llama3.tokenizer);
  REQUIRE(llama3_chat.has_value());
  CHECK(llama3_chat->name() == "llama3");
  CHECK(llama3_chat->apply(kHi) ==
        "<|begin_of_text|><|start_header_id|>user<|end_header_id|>\n\nHi<|eot_id|>"
        "<|start_header_id|>assistant<|end_header_id|>\n\n");

  const auto phi3 = load(dir / "ggml-vocab-phi-3.gguf");
  auto phi3_chat = ChatTemplate::for_model(*phi3.file, *phi3.tokenizer);
  REQUIRE(phi3_chat.has_value());
  CHECK(phi3_chat->name() == "phi3");
  CHECK(phi3_chat->apply(kHi, {.add_generation_prompt = false}) == "<|user|>\nHi<|end|>\n<|endoftext|>");

  // No template in the file: the error says how to supply one; a given spec overrides.
  const auto spm = load(dir / "ggml-vocab-llama-spm.gguf");
  auto none = ChatTemplate::for_model(*spm.file, *spm.tokenizer);
  REQUIRE_FALSE(none.has_value());
  CHECK_THAT(none.error().message,
             Contains("has no tokenizer.chat_template") && Contains("chat_template option"));
  auto named = ChatTemplate::for_model(*spm.file, *spm.tokenizer, "llama2");
  REQUIRE(named.has_value());
  CHECK(named->apply(kHi) == "<s>[INST] Hi [/INST]");
}

TEST_CASE("Chat format strings", "[engine]") {
  const std::string chatml_format =
      "{system}<|im_start|>system\\n{content}<|im_end|>\\n{user}<|im_start|>user\\n{content}<|im_end|>\\n"
      "{assistant}<|im_start|>assistant\\n{content}<|im_end|>\\n{generation}<|im_start|>assistant\\n";
  CHECK(format(chatml_format) == format("chatml"));
  CHECK(format(chatml_format, kConversation, {.add_generation_prompt = false}) ==
        format("chatml", kConversation, {.add_generation_prompt = false}));

  // No {system} part: the system text goes before the first user message. {bos}/{eos} expand.
  CHECK(format("{bos}{user}U: {content}\\n{assistant}A: {content}{eos}\\n{generation}A:") ==
        "<s>U: You play chess.\n\nYour move.\nA:  e2e4\n</s>\nU: Reply to e7e5.\nA:");
  // Message text containing a marker is not expanded again.
  CHECK(format("{user}[{content}]{assistant}<{content}>", {{"user", "{content}{eos}"}}) ==
        "[{content}{eos}]");

  const auto error = [](std::string_view spec) {
    auto chat = ChatTemplate::from_spec(spec, "<s>", "</s>");
    REQUIRE_FALSE(chat.has_value());
    return chat.error().message;
  };
  CHECK_THAT(error("{user}U: {content}"), Contains("no {assistant} part"));
  CHECK_THAT(error("{user}U: {content}{assistant}A:"), Contains("the {assistant} part has no {content}"));
  CHECK_THAT(error("{user}{content}{assistant}{content}{user}{content}"), Contains("{user} twice"));
  CHECK_THAT(error("vicuna"), Contains("unknown chat template 'vicuna'") && Contains("chat_template option"));
}

TEST_CASE("Chat prompts tokenize with exactly one BOS", "[engine]") {
  ARENA_REQUIRE_TESTDATA(dir, "tokenizers");
  const std::vector<ChatMessage> hi = {{"system", "Be brief."}, {"user", "Hi"}};

  const auto llama3 = load(dir / "vocab-llama3.gguf");
  auto llama3_chat = ChatTemplate::for_model(*llama3.file, *llama3.tokenizer);
  REQUIRE(llama3_chat.has_value());
  const auto ids = engine::tokenize_chat_prompt(*llama3.tokenizer, llama3_chat->apply(hi));
  REQUIRE(ids.size() > 3);
  CHECK(ids[0] == 128000);
  CHECK(ids[1] == 128006);  // <|start_header_id|> parsed, not doubled BOS
  CHECK(std::count(ids.begin(), ids.end(), 128000) == 1);

  const auto spm = load(dir / "ggml-vocab-llama-spm.gguf");
  auto llama2 = ChatTemplate::for_model(*spm.file, *spm.tokenizer, "llama2");
  REQUIRE(llama2.has_value());
  const auto spm_ids = engine::tokenize_chat_prompt(*spm.tokenizer, llama2->apply(hi));
  CHECK(spm_ids[0] == 1);
  CHECK(std::count(spm_ids.begin(), spm_ids.end(), 1) == 1);
  CHECK(spm.tokenizer->decode(spm_ids, true) == "<s> [INST] <<SYS>>\nBe brief.\n<</SYS>>\n\nHi [/INST]");

  const auto qwen = load(dir / "vocab-qwen3.gguf");
  auto qwen_chat = ChatTemplate::for_model(*qwen.file, *qwen.tokenizer);
  REQUIRE(qwen_chat.has_value());
  const auto qwen_ids = engine::tokenize_chat_prompt(*qwen.tokenizer, qwen_chat->apply(hi));
  CHECK(qwen_ids.front() == 151644);
  CHECK(qwen_ids.back() == 198);  // "\n" after "assistant"
  CHECK(qwen.tokenizer->decode(qwen_ids, true) == qwen_chat->apply(hi));
}
