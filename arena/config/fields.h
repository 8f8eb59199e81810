// Typed reading of one YAML mapping of the config: each getter knows its key, checks the
// value's type and range, and records an error at the value's line and column; finish() then
// flags every key nobody asked for, with the nearest known key. Absent keys keep the default
// already in the output; an explicit null clears an optional.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "arena/config/diagnostics.h"
#include "arena/config/yaml_tree.h"
#include "base/enum_names.h"

namespace arena::config {

class FieldReader {
 public:
  // Reads `node`, a mapping named `what` in messages ("tournament", "agent 'sf'"). A node that
  // is not a mapping is an error (a null one is an empty mapping).
  FieldReader(const YamlNode* node, std::string what, Diagnostics& diag);

  // The value of `key` (marked known), or nullptr when absent.
  const YamlNode* get(std::string_view key);
  // Marks `key` known without reading it.
  void accept(std::string_view key) { (void)get(key); }
  // Whether `key` is present (with any value, null included); does not mark it known.
  bool has(std::string_view key) const;
  // Where `key`'s value is, or the mapping itself when the key is absent.
  SourceMark mark(std::string_view key) const;
  SourceMark mark() const { return mark_; }
  const std::string& what() const { return what_; }
  // Renames the mapping in later messages (once its name is known).
  void set_what(std::string what) { what_ = std::move(what); }
  // The keys asked for so far (the mapping's known keys once every field was read).
  const std::vector<std::string>& known() const { return known_; }
  Diagnostics& diag() { return diag_; }

  void read(std::string_view key, std::string& out);
  void read(std::string_view key, bool& out);
  void read(std::string_view key, int32_t& out, int64_t min, int64_t max);
  void read(std::string_view key, int64_t& out, int64_t min, int64_t max);
  void read(std::string_view key, uint64_t& out);
  void read(std::string_view key, double& out, double min, double max);
  void read(std::string_view key, float& out, double min, double max);
  void read(std::string_view key, std::optional<int32_t>& out, int64_t min, int64_t max);
  void read(std::string_view key, std::optional<int64_t>& out, int64_t min, int64_t max);
  void read(std::string_view key, std::optional<uint64_t>& out);
  void read_duration(std::string_view key, std::chrono::milliseconds& out, std::chrono::milliseconds min);
  void read_duration(std::string_view key, std::optional<std::chrono::milliseconds>& out,
                     std::chrono::milliseconds min);
  void read_memory(std::string_view key, uint64_t& out, uint64_t min);
  // A list of names: one value or a list of values.
  void read_list(std::string_view key, std::vector<std::string>& out);

  // An enumeration by name: `names` lists the accepted spellings (for the error's suggestion).
  template <typename E, typename Parse>
  void read_enum(std::string_view key, E& out, Parse parse, std::span<const std::string> names) {
    const YamlNode* v = get(key);
    if (!v) return;
    if (!v->is_scalar()) return type_error(*v, "one of: " + join_names(names));
    if (const auto parsed = parse(v->scalar)) {
      out = *parsed;
      return;
    }
    diag_.error(v->mark, "unknown " + std::string(key) + " '" + v->scalar + "'" +
                             did_you_mean(v->scalar, names) + "; expected one of: " + join_names(names));
  }
  template <typename E, typename Parse>
  void read_enum(std::string_view key, std::optional<E>& out, Parse parse,
                 std::span<const std::string> names) {
    const YamlNode* v = get(key);
    if (!v) return;
    if (v->is_null()) {
      out.reset();
      return;
    }
    E value{};
    read_enum(key, value, parse, names);
    if (v->is_scalar() && parse(v->scalar)) out = value;
  }
  // An enumeration by the names of its table (base/enum_names.h); `E` is the value or an optional one.
  template <typename E, typename V, size_t N>
  void read_enum(std::string_view key, E& out, const base::EnumTable<V, N>& table) {
    read_enum(
        key, out, [&](std::string_view s) { return base::enum_value(table, s); }, base::enum_names(table));
  }

  // Flags every key not asked for. `explain` may give a better message for a key that is valid
  // elsewhere (e.g. "'depth' is a field of uci and search agents, not of llm agents").
  void finish(const std::function<std::optional<std::string>(const std::string& key)>& explain = {});

 private:
  void type_error(const YamlNode& v, std::string_view expected);
  // The scalar text of `v` or an error when it is not a scalar.
  const std::string* scalar(const YamlNode& v, std::string_view expected);

  const YamlNode* node_;
  std::string what_;
  Diagnostics& diag_;
  SourceMark mark_;
  std::vector<std::string> known_;
};

// The integer in `text` (decimal, optional sign), or nullopt.
std::optional<int64_t> parse_integer(std::string_view text);
// The boolean in `text` (true/false, yes/no, on/off), or nullopt.
std::optional<bool> parse_bool(std::string_view text);

}  // namespace arena::config
