// A YAML document as a plain tree with the line and column of every node: the only place the
// config layer touches yaml-cpp (yaml_tree.cpp parses and emits), so the section readers, the
// resolved-config writer and the diff work on this value type.
#pragma once

#include <cstddef>
#include <expected>
#include <string>
#include <string_view>
#include <vector>

#include "arena/config/diagnostics.h"

namespace arena::config {

struct YamlEntry;

struct YamlNode {
  enum class Kind { Null, Scalar, Sequence, Map };
  Kind kind = Kind::Null;
  std::string scalar;              // Scalar: its text
  bool quoted = false;             // Scalar: written in quotes (a string, even if it reads as a number)
  SourceMark mark;                 // where the node starts
  std::vector<YamlNode> items;     // Sequence
  std::vector<YamlEntry> entries;  // Map, in file order (duplicates kept; readers report them)

  bool is_null() const { return kind == Kind::Null; }
  bool is_scalar() const { return kind == Kind::Scalar; }
  bool is_sequence() const { return kind == Kind::Sequence; }
  bool is_map() const { return kind == Kind::Map; }
  // "a mapping", "a list", "a value", "nothing": for "expected X, got Y" messages.
  const char* kind_name() const;

  // Builders for the resolved-config writer.
  static YamlNode string(std::string text);  // quoted when emitted
  static YamlNode plain(std::string text);   // numbers, booleans: emitted as written
  static YamlNode null();
  static YamlNode sequence();
  static YamlNode map();
  // Appends `key: value` to a map node; returns *this.
  YamlNode& add(std::string key, YamlNode value);
  // Appends an item to a sequence node; returns *this.
  YamlNode& push(YamlNode value);
};

struct YamlEntry {
  YamlNode key;
  YamlNode value;
};

// Limits that keep a hostile file from exhausting memory (aliases can multiply a document).
inline constexpr int kMaxYamlDepth = 64;
inline constexpr size_t kMaxYamlNodes = 200'000;

// Parses one YAML document (an empty text is a Null node); the error has the place and what
// yaml-cpp found wrong. Never throws.
std::expected<YamlNode, Diagnostic> parse_yaml(std::string_view text, const std::string& source_name);

// Writes `root` as block-style YAML (quoted strings double-quoted, multi-line strings as
// literal blocks), ending in a newline.
std::string emit_yaml(const YamlNode& root);

}  // namespace arena::config
