// yaml-cpp behind the YamlNode tree: parsing with marks, depth and size limits, and emitting.
#include "arena/config/yaml_tree.h"

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include <optional>
#include <stdexcept>

namespace arena::config {
namespace {

SourceMark mark_of(const YAML::Mark& m) {
  if (m.line < 0) return {};
  return {m.line + 1, m.column + 1};
}

struct TooLarge : std::runtime_error {
  SourceMark mark;
  TooLarge(const std::string& what, SourceMark m) : std::runtime_error(what), mark(m) {}
};

// Converts a yaml-cpp node; `count` guards against alias bombs, `depth` against cycles.
YamlNode convert(const YAML::Node& node, int depth, size_t& count) {
  YamlNode out;
  out.mark = mark_of(node.Mark());
  if (depth > kMaxYamlDepth)
    throw TooLarge(fmt::format("nested deeper than {} levels", kMaxYamlDepth), out.mark);
  if (++count > kMaxYamlNodes)
    throw TooLarge(fmt::format("more than {} values (aliases?)", kMaxYamlNodes), out.mark);
  switch (node.Type()) {
    case YAML::NodeType::Undefined:
    case YAML::NodeType::Null:
      out.kind = YamlNode::Kind::Null;
      break;
    case YAML::NodeType::Scalar:
      out.kind = YamlNode::Kind::Scalar;
      out.scalar = node.Scalar();
      out.quoted = node.Tag() == "!";
      break;
    case YAML::NodeType::Sequence:
      out.kind = YamlNode::Kind::Sequence;
      for (const auto& item : node) out.items.push_back(convert(item, depth + 1, count));
      break;
    case YAML::NodeType::Map:
      out.kind = YamlNode::Kind::Map;
      for (const auto& kv : node)
        out.entries.push_back({convert(kv.first, depth + 1, count), convert(kv.second, depth + 1, count)});
      break;
  }
  return out;
}

// The place of the first byte that is not valid UTF-8 (overlong forms and surrogates included), or
// nullopt: YAML is UTF-8 text, and a stray byte would not survive writing the resolved config.
std::optional<SourceMark> invalid_utf8(std::string_view text) {
  int32_t line = 1, column = 1;
  for (size_t i = 0; i < text.size();) {
    const auto c = static_cast<unsigned char>(text[i]);
    size_t len = c < 0x80 ? 1 : (c >> 5) == 0x6 ? 2 : (c >> 4) == 0xE ? 3 : (c >> 3) == 0x1E ? 4 : 0;
    if (len == 0 || i + len > text.size()) return SourceMark{line, column};
    uint32_t cp = len == 1 ? c : c & (0x7F >> len);
    for (size_t k = 1; k < len; ++k) {
      const auto cc = static_cast<unsigned char>(text[i + k]);
      if ((cc >> 6) != 0x2) return SourceMark{line, column};
      cp = (cp << 6) | (cc & 0x3F);
    }
    static constexpr uint32_t kMin[] = {0, 0, 0x80, 0x800, 0x10000};
    if (cp < kMin[len] || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return SourceMark{line, column};
    if (c == '\n') {
      ++line;
      column = 1;
    } else {
      ++column;
    }
    i += len;
  }
  return std::nullopt;
}

void emit(YAML::Emitter& e, const YamlNode& node) {
  switch (node.kind) {
    case YamlNode::Kind::Null:
      e << YAML::Null;
      break;
    case YamlNode::Kind::Scalar:
      if (node.quoted && node.scalar.find('\n') != std::string::npos)
        e << YAML::Literal << node.scalar;
      else if (node.quoted)
        e << YAML::DoubleQuoted << node.scalar;
      else
        e << node.scalar;
      break;
    case YamlNode::Kind::Sequence: {
      // Short lists of plain values read best on one line: games: [chess, janggi].
      bool flat = node.items.size() <= 8;
      for (const auto& item : node.items)
        flat = flat && item.is_scalar() && item.scalar.find('\n') == std::string::npos;
      if (node.items.empty() || flat) e << YAML::Flow;
      e << YAML::BeginSeq;
      for (const auto& item : node.items) emit(e, item);
      e << YAML::EndSeq;
      break;
    }
    case YamlNode::Kind::Map:
      if (node.entries.empty()) e << YAML::Flow;
      e << YAML::BeginMap;
      for (const auto& entry : node.entries) {
        e << YAML::Key;
        emit(e, entry.key);
        e << YAML::Value;
        emit(e, entry.value);
      }
      e << YAML::EndMap;
      break;
  }
}

}  // namespace

const char* YamlNode::kind_name() const {
  switch (kind) {
    case Kind::Null:
      return "nothing";
    case Kind::Scalar:
      return "a value";
    case Kind::Sequence:
      return "a list";
    case Kind::Map:
      return "a mapping";
  }
  return "?";
}

YamlNode YamlNode::string(std::string text) {
  YamlNode n;
  n.kind = Kind::Scalar;
  n.scalar = std::move(text);
  n.quoted = true;
  return n;
}

YamlNode YamlNode::plain(std::string text) {
  YamlNode n;
  n.kind = Kind::Scalar;
  n.scalar = std::move(text);
  return n;
}

YamlNode YamlNode::null() {
  return YamlNode{};
}

YamlNode YamlNode::sequence() {
  YamlNode n;
  n.kind = Kind::Sequence;
  return n;
}

YamlNode YamlNode::map() {
  YamlNode n;
  n.kind = Kind::Map;
  return n;
}

YamlNode& YamlNode::add(std::string key, YamlNode value) {
  entries.push_back({plain(std::move(key)), std::move(value)});
  return *this;
}

YamlNode& YamlNode::push(YamlNode value) {
  items.push_back(std::move(value));
  return *this;
}

std::expected<YamlNode, Diagnostic> parse_yaml(std::string_view text, const std::string& source_name) {
  if (const auto bad = invalid_utf8(text))
    return std::unexpected(Diagnostic{source_name, *bad, "the config is not valid UTF-8 text here"});
  try {
    const YAML::Node root = YAML::Load(std::string(text));
    size_t count = 0;
    return convert(root, 0, count);
  } catch (const YAML::Exception& e) {
    return std::unexpected(Diagnostic{source_name, mark_of(e.mark), fmt::format("YAML syntax: {}", e.msg)});
  } catch (const TooLarge& e) {
    return std::unexpected(Diagnostic{source_name, e.mark, fmt::format("config too large: {}", e.what())});
  } catch (const std::exception& e) {
    return std::unexpected(Diagnostic{source_name, {}, fmt::format("cannot read YAML: {}", e.what())});
  }
}

std::string emit_yaml(const YamlNode& root) {
  YAML::Emitter e;
  e.SetIndent(2);
  emit(e, root);
  std::string out = e.c_str();
  if (out.empty() || out.back() != '\n') out += '\n';
  return out;
}

}  // namespace arena::config
