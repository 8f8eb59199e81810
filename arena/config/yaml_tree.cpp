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

// The first control character of a value (an escape in a double-quoted string makes any): C0
// controls other than tab, line feed and CR, DEL, C1 controls (NEL included) and U+FFFE/U+FFFF;
// nullopt when there is none. No config value needs one, and yaml-cpp neither writes nor reads
// them back faithfully.
std::optional<uint32_t> control_character(std::string_view s) {
  for (size_t i = 0; i < s.size(); ++i) {
    const auto c = static_cast<unsigned char>(s[i]);
    const auto next = i + 1 < s.size() ? static_cast<unsigned char>(s[i + 1]) : 0;
    const auto third = i + 2 < s.size() ? static_cast<unsigned char>(s[i + 2]) : 0;
    if ((c < 0x20 && c != '\t' && c != '\n' && c != '\r') || c == 0x7F) return c;
    if (c == 0xC2 && next >= 0x80 && next <= 0x9F) return next;
    if (c == 0xEF && next == 0xBF && (third == 0xBE || third == 0xBF)) return 0xFF00u | third;
  }
  return std::nullopt;
}

struct BadValue : std::runtime_error {
  SourceMark mark;
  BadValue(const std::string& what, SourceMark m) : std::runtime_error(what), mark(m) {}
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
      if (const auto cp = control_character(out.scalar))
        throw BadValue(fmt::format("the value holds the control character U+{:04X}; config values cannot "
                                   "contain control characters other than tab and line breaks",
                                   *cp),
                       out.mark);
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

// Whether YAML text may hold code point `cp` (YAML 1.2 c-printable: tab, line breaks and the
// printable characters; no other C0 or C1 control, no DEL, no U+FFFE/U+FFFF).
bool yaml_printable(uint32_t cp) {
  return cp == 0x9 || cp == 0xA || cp == 0xD || (cp >= 0x20 && cp <= 0x7E) || cp == 0x85 ||
         (cp >= 0xA0 && cp <= 0xD7FF) || (cp >= 0xE000 && cp <= 0xFFFD) || (cp >= 0x10000 && cp <= 0x10FFFF);
}

struct BadText {
  SourceMark mark;
  std::string message;
};

// The place of the first byte that is not valid UTF-8 (overlong forms and surrogates included) or
// of the first character YAML does not allow, or nullopt: a stray byte or a raw control character
// would not survive writing the resolved config (yaml-cpp reads a NUL as a line break).
std::optional<BadText> invalid_text(std::string_view text) {
  int32_t line = 1, column = 1;
  for (size_t i = 0; i < text.size();) {
    const auto c = static_cast<unsigned char>(text[i]);
    size_t len = c < 0x80 ? 1 : (c >> 5) == 0x6 ? 2 : (c >> 4) == 0xE ? 3 : (c >> 3) == 0x1E ? 4 : 0;
    const BadText not_utf8{{line, column}, "the config is not valid UTF-8 text here"};
    if (len == 0 || i + len > text.size()) return not_utf8;
    uint32_t cp = len == 1 ? c : c & (0x7F >> len);
    for (size_t k = 1; k < len; ++k) {
      const auto cc = static_cast<unsigned char>(text[i + k]);
      if ((cc >> 6) != 0x2) return not_utf8;
      cp = (cp << 6) | (cc & 0x3F);
    }
    static constexpr uint32_t kMin[] = {0, 0, 0x80, 0x800, 0x10000};
    if (cp < kMin[len] || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return not_utf8;
    if (!yaml_printable(cp))
      return BadText{
          {line, column},
          fmt::format("the config holds the control character U+{:04X}, which YAML text cannot contain", cp)};
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

// Whether a multi-line string reads back the same from the literal block yaml-cpp writes ("|":
// one final line break kept, indentation taken from the first non-empty line): it ends in exactly
// one line feed, it has a non-empty line and the first one does not start with a space or tab,
// and it holds no CR, NEL, U+2028/2029 (read as line breaks) or U+FEFF. Anything else is written
// double-quoted.
bool literal_block_safe(std::string_view s) {
  if (!s.ends_with('\n') || s.ends_with("\n\n")) return false;
  const size_t first = s.find_first_not_of('\n');
  if (first == std::string_view::npos || s[first] == ' ' || s[first] == '\t') return false;
  for (const std::string_view bad : {"\r", "\u0085", "\u2028", "\u2029", "\ufeff"})
    if (s.find(bad) != std::string_view::npos) return false;
  return true;
}

void emit(YAML::Emitter& e, const YamlNode& node) {
  switch (node.kind) {
    case YamlNode::Kind::Null:
      e << YAML::Null;
      break;
    case YamlNode::Kind::Scalar:
      if (node.quoted && node.scalar.find('\n') != std::string::npos && literal_block_safe(node.scalar))
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
  if (const auto bad = invalid_text(text))
    return std::unexpected(Diagnostic{source_name, bad->mark, bad->message});
  try {
    const YAML::Node root = YAML::Load(std::string(text));
    size_t count = 0;
    return convert(root, 0, count);
  } catch (const YAML::Exception& e) {
    return std::unexpected(Diagnostic{source_name, mark_of(e.mark), fmt::format("YAML syntax: {}", e.msg)});
  } catch (const TooLarge& e) {
    return std::unexpected(Diagnostic{source_name, e.mark, fmt::format("config too large: {}", e.what())});
  } catch (const BadValue& e) {
    return std::unexpected(Diagnostic{source_name, e.mark, e.what()});
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
