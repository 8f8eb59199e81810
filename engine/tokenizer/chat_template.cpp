// Chat template families written out by hand from their Jinja sources, family detection by
// marker strings, and the user's format strings.
#include "engine/tokenizer/chat_template.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <utility>

#include "base/strings.h"
#include "engine/gguf/gguf_file.h"

namespace engine {

namespace {

std::string_view lstrip_newlines(std::string_view s) {
  while (!s.empty() && s.front() == '\n') s.remove_prefix(1);
  return s;
}

std::string_view rstrip_newlines(std::string_view s) {
  while (!s.empty() && s.back() == '\n') s.remove_suffix(1);
  return s;
}

bool contains(std::string_view haystack, std::string_view needle) {
  return haystack.find(needle) != std::string_view::npos;
}

std::string how_to_supply() {
  return fmt::format(
      "set the model's chat_template option to one of {} or to a format string such as "
      "'{{user}}User: {{content}}\\n{{assistant}}Assistant: {{content}}\\n{{generation}}Assistant:' "
      "(see engine/tokenizer/chat_template.h)",
      kChatFamilyNames);
}

// `part` with each {content} replaced by `content`.
std::string fill(std::string_view part, std::string_view content) {
  constexpr std::string_view kContent = "{content}";
  std::string out;
  size_t pos = 0;
  for (size_t at; (at = part.find(kContent, pos)) != std::string_view::npos; pos = at + kContent.size()) {
    out.append(part.substr(pos, at - pos));
    out.append(content);
  }
  out.append(part.substr(pos));
  return out;
}

std::string unescape(std::string_view s) {
  std::string out;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '\\' && i + 1 < s.size() && (s[i + 1] == 'n' || s[i + 1] == 't' || s[i + 1] == '\\')) {
      out += s[i + 1] == 'n' ? '\n' : s[i + 1] == 't' ? '\t' : '\\';
      ++i;
    } else {
      out += s[i];
    }
  }
  return out;
}

void replace_all(std::string& s, std::string_view from, std::string_view to) {
  for (size_t at = 0; (at = s.find(from, at)) != std::string::npos; at += to.size())
    s.replace(at, from.size(), to);
}

}  // namespace

std::expected<ChatTemplate, Error> ChatTemplate::from_spec(std::string_view spec, std::string bos_text,
                                                           std::string eos_text) {
  static constexpr std::array<std::pair<std::string_view, Family>, 8> kFamilies = {{
      {"chatml", Family::ChatMl},
      {"qwen3", Family::Qwen3},
      {"llama3", Family::Llama3},
      {"llama2", Family::Llama2},
      {"mistral", Family::Mistral},
      {"mistral-v1", Family::MistralV1},
      {"gemma", Family::Gemma},
      {"phi3", Family::Phi3},
  }};
  if (!contains(spec, "{")) {
    for (const auto& [name, family] : kFamilies)
      if (spec == name)
        return ChatTemplate(family, std::string(name), std::move(bos_text), std::move(eos_text));
    return std::unexpected(Error{fmt::format("unknown chat template '{}': {}", spec, how_to_supply())});
  }

  // A format string: split at the part markers.
  std::string text = unescape(spec);
  replace_all(text, "{bos}", bos_text);
  replace_all(text, "{eos}", eos_text);
  static constexpr std::array<std::string_view, 4> kMarkers = {"{system}", "{user}", "{assistant}",
                                                               "{generation}"};
  std::array<size_t, 4> at{};
  for (size_t m = 0; m < kMarkers.size(); ++m) {
    at[m] = text.find(kMarkers[m]);
    if (at[m] != std::string::npos && text.find(kMarkers[m], at[m] + 1) != std::string::npos)
      return std::unexpected(Error{fmt::format("chat template format string has {} twice", kMarkers[m])});
  }
  const auto part = [&](size_t m) -> std::string {
    if (at[m] == std::string::npos) return {};
    const size_t begin = at[m] + kMarkers[m].size();
    size_t end = text.size();
    for (size_t other : at)
      if (other != std::string::npos && other > at[m]) end = std::min(end, other);
    return text.substr(begin, end - begin);
  };
  ChatTemplate result(Family::Custom, "custom", std::move(bos_text), std::move(eos_text));
  CustomFormat& f = result.custom_;
  f.prefix = text.substr(0, std::min({at[0], at[1], at[2], at[3], text.size()}));
  f.has_system = at[0] != std::string::npos;
  f.system = part(0);
  f.user = part(1);
  f.assistant = part(2);
  f.generation = part(3);
  for (size_t m : {size_t{1}, size_t{2}})
    if (at[m] == std::string::npos)
      return std::unexpected(
          Error{fmt::format("chat template format string has no {} part: {}", kMarkers[m], how_to_supply())});
  for (size_t m : {size_t{0}, size_t{1}, size_t{2}})
    if (at[m] != std::string::npos && !contains(part(m), "{content}"))
      return std::unexpected(Error{fmt::format(
          "chat template format string: the {} part has no {{content}} (the message text goes there)",
          kMarkers[m])});
  return result;
}

std::expected<ChatTemplate, Error> ChatTemplate::detect(std::string_view jinja, std::string bos_text,
                                                        std::string eos_text) {
  const auto has = [&](std::string_view s) { return contains(jinja, s); };
  std::string_view family;
  if (has("<|im_start|>")) {
    if (!has("<|im_sep|>") && !has("<end_of_utterance>")) family = has("</think>") ? "qwen3" : "chatml";
  } else if (jinja.starts_with("mistral") || has("[INST]")) {
    if (has("<<SYS>>")) {
      family = "llama2";
    } else if (has("' [INST] ' + system_message")) {
      family = "mistral-v1";
    } else if (!has("[SYSTEM_PROMPT]")) {
      family = "mistral";
    }
  } else if (has("<|assistant|>") && has("<|end|>")) {
    family = "phi3";
  } else if (has("<start_of_turn>")) {
    family = "gemma";
  } else if (has("<|start_header_id|>") && has("<|end_header_id|>")) {
    family = "llama3";
  }
  if (family.empty())
    return std::unexpected(
        Error{fmt::format("the chat template is not one of the known families; {}", how_to_supply())});
  return from_spec(family, std::move(bos_text), std::move(eos_text));
}

std::expected<ChatTemplate, Error> ChatTemplate::for_model(const gguf::GgufFile& file,
                                                           const Tokenizer& tokenizer,
                                                           std::string_view spec) {
  std::string bos = tokenizer.bos() >= 0 ? tokenizer.token_to_piece(tokenizer.bos(), true) : "";
  std::string eos = tokenizer.eos() >= 0 ? tokenizer.token_to_piece(tokenizer.eos(), true) : "";
  if (!spec.empty()) return from_spec(spec, std::move(bos), std::move(eos));
  const auto jinja = file.get_string("tokenizer.chat_template");
  if (!jinja)
    return std::unexpected(
        Error{fmt::format("{} has no tokenizer.chat_template; {}", file.path(), how_to_supply())});
  auto result = detect(*jinja, std::move(bos), std::move(eos));
  if (!result) return std::unexpected(Error{fmt::format("{}: {}", file.path(), result.error().message)});
  return result;
}

std::string ChatTemplate::apply(std::span<const ChatMessage> messages, const ChatOptions& options) const {
  switch (family_) {
    case Family::ChatMl:
      return apply_chatml(messages, options);
    case Family::Qwen3:
      return apply_qwen3(messages, options);
    case Family::Llama3:
      return apply_llama3(messages, options);
    case Family::Llama2:
      return apply_llama2(messages);
    case Family::Mistral:
      return apply_mistral(messages);
    case Family::MistralV1:
      return apply_mistral_v1(messages);
    case Family::Gemma:
      return apply_gemma(messages, options);
    case Family::Phi3:
      return apply_phi3(messages, options);
    case Family::Custom:
      return apply_custom(messages, options);
  }
  return {};
}

std::string ChatTemplate::apply_chatml(std::span<const ChatMessage> messages,
                                       const ChatOptions& options) const {
  std::string out;
  for (const ChatMessage& m : messages) out += "<|im_start|>" + m.role + "\n" + m.content + "<|im_end|>\n";
  if (options.add_generation_prompt) out += "<|im_start|>assistant\n";
  return out;
}

std::string ChatTemplate::apply_qwen3(std::span<const ChatMessage> messages,
                                      const ChatOptions& options) const {
  std::string out;
  // The last user turn that is not a tool response; reasoning is kept only after it.
  size_t last_query = messages.empty() ? 0 : messages.size() - 1;
  for (size_t i = messages.size(); i-- > 0;) {
    const std::string& c = messages[i].content;
    if (messages[i].role == "user" &&
        !(c.starts_with("<tool_response>") && c.ends_with("</tool_response>"))) {
      last_query = i;
      break;
    }
  }
  for (size_t i = 0; i < messages.size(); ++i) {
    const ChatMessage& m = messages[i];
    if (m.role == "assistant") {
      std::string_view content = m.content;
      std::string_view reasoning;
      if (const size_t end = content.find("</think>"); end != std::string_view::npos) {
        reasoning = rstrip_newlines(content.substr(0, end));
        if (const size_t start = reasoning.rfind("<think>"); start != std::string_view::npos)
          reasoning.remove_prefix(start + std::string_view("<think>").size());
        reasoning = lstrip_newlines(reasoning);
        content =
            lstrip_newlines(content.substr(content.rfind("</think>") + std::string_view("</think>").size()));
      }
      out += "<|im_start|>assistant\n";
      if (i > last_query && (i + 1 == messages.size() || !reasoning.empty())) {
        out += "<think>\n";
        out += lstrip_newlines(rstrip_newlines(reasoning));
        out += "\n</think>\n\n";
      }
      out += content;
      out += "<|im_end|>\n";
    } else if (m.role == "tool") {
      if (i == 0 || messages[i - 1].role != "tool") out += "<|im_start|>user";
      out += "\n<tool_response>\n" + m.content + "\n</tool_response>";
      if (i + 1 == messages.size() || messages[i + 1].role != "tool") out += "<|im_end|>\n";
    } else {
      out += "<|im_start|>" + m.role + "\n" + m.content + "<|im_end|>\n";
    }
  }
  if (options.add_generation_prompt) {
    out += "<|im_start|>assistant\n";
    if (!options.enable_thinking) out += "<think>\n\n</think>\n\n";
  }
  return out;
}

std::string ChatTemplate::apply_llama3(std::span<const ChatMessage> messages,
                                       const ChatOptions& options) const {
  std::string out;
  for (size_t i = 0; i < messages.size(); ++i) {
    if (i == 0) out += bos_;
    out += "<|start_header_id|>" + messages[i].role + "<|end_header_id|>\n\n" +
           std::string(base::trim(messages[i].content)) + "<|eot_id|>";
  }
  if (options.add_generation_prompt) out += "<|start_header_id|>assistant<|end_header_id|>\n\n";
  return out;
}

std::string ChatTemplate::apply_llama2(std::span<const ChatMessage> messages) const {
  const bool has_system = !messages.empty() && messages[0].role == "system";
  const auto turns = has_system ? messages.subspan(1) : messages;
  std::string out;
  for (size_t i = 0; i < turns.size(); ++i) {
    std::string content = turns[i].content;
    if (i == 0 && has_system) content = "<<SYS>>\n" + messages[0].content + "\n<</SYS>>\n\n" + content;
    if (turns[i].role == "assistant") {
      out.append(" ").append(base::trim(content)).append(" ").append(eos_);
    } else {
      out += bos_ + "[INST] " + std::string(base::trim(content)) + " [/INST]";
    }
  }
  return out;
}

std::string ChatTemplate::apply_mistral(std::span<const ChatMessage> messages) const {
  const bool has_system = !messages.empty() && messages[0].role == "system";
  const auto turns = has_system ? messages.subspan(1) : messages;
  std::string out = bos_;
  for (size_t i = 0; i < turns.size(); ++i) {
    if (turns[i].role == "assistant") {
      out.append(" ").append(base::trim(turns[i].content)).append(eos_);
    } else if (i + 1 == turns.size() && has_system) {
      out += "[INST] " + messages[0].content + "\n\n" + turns[i].content + "[/INST]";
    } else {
      out += "[INST] " + turns[i].content + "[/INST]";
    }
  }
  return out;
}

std::string ChatTemplate::apply_mistral_v1(std::span<const ChatMessage> messages) const {
  const bool has_system = !messages.empty() && messages[0].role == "system";
  const auto turns = has_system ? messages.subspan(1) : messages;
  std::string out = bos_;
  for (size_t i = 0; i < turns.size(); ++i) {
    if (turns[i].role == "assistant") {
      out += " " + turns[i].content + eos_;
    } else if (i == 0 && has_system) {
      out += " [INST] " + messages[0].content + "\n\n" + turns[i].content + " [/INST]";
    } else {
      out += " [INST] " + turns[i].content + " [/INST]";
    }
  }
  return out;
}

std::string ChatTemplate::apply_gemma(std::span<const ChatMessage> messages,
                                      const ChatOptions& options) const {
  const bool has_system = !messages.empty() && messages[0].role == "system";
  const auto turns = has_system ? messages.subspan(1) : messages;
  std::string out = bos_;
  for (size_t i = 0; i < turns.size(); ++i) {
    const std::string role = turns[i].role == "assistant" ? "model" : turns[i].role;
    out += "<start_of_turn>" + role + "\n";
    if (i == 0 && has_system) out += messages[0].content + "\n\n";
    out += std::string(base::trim(turns[i].content)) + "<end_of_turn>\n";
  }
  if (options.add_generation_prompt) out += "<start_of_turn>model\n";
  return out;
}

std::string ChatTemplate::apply_phi3(std::span<const ChatMessage> messages,
                                     const ChatOptions& options) const {
  std::string out;
  for (const ChatMessage& m : messages) out += "<|" + m.role + "|>\n" + m.content + "<|end|>\n";
  out += options.add_generation_prompt ? "<|assistant|>\n" : eos_;
  return out;
}

std::string ChatTemplate::apply_custom(std::span<const ChatMessage> messages,
                                       const ChatOptions& options) const {
  const CustomFormat& f = custom_;
  std::string out = f.prefix;
  std::string pending_system;  // system text waiting for the next user message
  for (const ChatMessage& m : messages) {
    if (m.role == "system" && f.has_system) {
      out += fill(f.system, m.content);
    } else if (m.role == "system") {
      pending_system += m.content + "\n\n";
    } else if (m.role == "assistant") {
      out += fill(f.assistant, m.content);
    } else {
      out += fill(f.user, pending_system + m.content);
      pending_system.clear();
    }
  }
  if (options.add_generation_prompt) out += f.generation;
  return out;
}

std::vector<TokenId> tokenize_chat_prompt(const Tokenizer& tokenizer, std::string_view prompt) {
  if (tokenizer.adds_bos() && tokenizer.bos() >= 0) {
    const std::string bos = tokenizer.token_to_piece(tokenizer.bos(), true);
    if (!bos.empty() && prompt.starts_with(bos)) prompt.remove_prefix(bos.size());
  }
  return tokenizer.encode(prompt, true, true);
}

}  // namespace engine
