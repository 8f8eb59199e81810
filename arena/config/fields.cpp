// FieldReader: typed getters over one mapping, with range checks and unknown-key detection.
#include "arena/config/fields.h"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cmath>

#include "arena/config/units.h"
#include "base/strings.h"

namespace arena::config {

std::optional<int64_t> parse_integer(std::string_view text) {
  if (!text.empty() && text.front() == '+') text.remove_prefix(1);
  int64_t value = 0;
  const auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty() || ec != std::errc() || ptr != text.data() + text.size()) return std::nullopt;
  return value;
}

std::optional<bool> parse_bool(std::string_view text) {
  const std::string lower = base::to_lower(text);
  if (lower == "true" || lower == "yes" || lower == "on") return true;
  if (lower == "false" || lower == "no" || lower == "off") return false;
  return std::nullopt;
}

FieldReader::FieldReader(const YamlNode* node, std::string what, Diagnostics& diag)
    : node_(node), what_(std::move(what)), diag_(diag), mark_(node ? node->mark : SourceMark{}) {
  if (node_ && !node_->is_map() && !node_->is_null()) {
    diag_.error(node_->mark,
                fmt::format("{} must be a mapping of keys to values, got {}", what_, node_->kind_name()));
    node_ = nullptr;
    return;
  }
  if (!node_) return;
  // A repeated key would silently win or lose: report it.
  for (size_t i = 0; i < node_->entries.size(); ++i) {
    const YamlNode& key = node_->entries[i].key;
    if (!key.is_scalar()) {
      diag_.error(key.mark, fmt::format("a key in {} must be a plain name, got {}", what_, key.kind_name()));
      continue;
    }
    for (size_t j = 0; j < i; ++j)
      if (node_->entries[j].key.is_scalar() && node_->entries[j].key.scalar == key.scalar) {
        diag_.error(key.mark, fmt::format("duplicate key '{}' in {} (first given at line {})", key.scalar,
                                          what_, node_->entries[j].key.mark.line));
        break;
      }
  }
}

const YamlNode* FieldReader::get(std::string_view key) {
  if (std::find(known_.begin(), known_.end(), key) == known_.end()) known_.emplace_back(key);
  if (!node_) return nullptr;
  for (const auto& e : node_->entries)
    if (e.key.is_scalar() && e.key.scalar == key) return &e.value;
  return nullptr;
}

bool FieldReader::has(std::string_view key) const {
  if (!node_) return false;
  for (const auto& e : node_->entries)
    if (e.key.is_scalar() && e.key.scalar == key) return true;
  return false;
}

SourceMark FieldReader::mark(std::string_view key) const {
  if (node_)
    for (const auto& e : node_->entries)
      if (e.key.is_scalar() && e.key.scalar == key) return e.value.is_null() ? e.key.mark : e.value.mark;
  return mark_;
}

void FieldReader::type_error(const YamlNode& v, std::string_view expected) {
  diag_.error(v.mark,
              fmt::format("expected {}, got {}", expected,
                          v.is_scalar() ? fmt::format("'{}'", v.scalar) : std::string(v.kind_name())));
}

const std::string* FieldReader::scalar(const YamlNode& v, std::string_view expected) {
  if (v.is_scalar()) return &v.scalar;
  type_error(v, expected);
  return nullptr;
}

void FieldReader::read(std::string_view key, std::string& out) {
  const YamlNode* v = get(key);
  if (!v) return;
  if (v->is_null()) {
    out.clear();
    return;
  }
  if (const auto* s = scalar(*v, "a text value")) out = *s;
}

void FieldReader::read(std::string_view key, bool& out) {
  const YamlNode* v = get(key);
  if (!v) return;
  const auto* s = scalar(*v, "true or false");
  if (!s) return;
  if (const auto b = parse_bool(*s))
    out = *b;
  else
    type_error(*v, "true or false");
}

void FieldReader::read(std::string_view key, int64_t& out, int64_t min, int64_t max) {
  const YamlNode* v = get(key);
  if (!v) return;
  const auto* s = scalar(*v, "an integer");
  if (!s) return;
  const auto n = parse_integer(*s);
  if (!n) return type_error(*v, "an integer");
  if (*n < min || *n > max) {
    const std::string range = max == INT64_MAX   ? fmt::format(">= {}", min)
                              : max == INT32_MAX ? fmt::format(">= {}", min)
                                                 : fmt::format("between {} and {}", min, max);
    return diag_.error(v->mark, fmt::format("{} must be {}, got {}", key, range, *n));
  }
  out = *n;
}

void FieldReader::read(std::string_view key, int32_t& out, int64_t min, int64_t max) {
  int64_t value = out;
  read(key, value, min, std::min<int64_t>(max, INT32_MAX));
  out = static_cast<int32_t>(value);
}

void FieldReader::read(std::string_view key, uint64_t& out) {
  const YamlNode* v = get(key);
  if (!v) return;
  const auto* s = scalar(*v, "a non-negative integer");
  if (!s) return;
  uint64_t value = 0;
  const auto [ptr, ec] = std::from_chars(s->data(), s->data() + s->size(), value);
  if (s->empty() || ec != std::errc() || ptr != s->data() + s->size())
    return type_error(*v, "a non-negative integer");
  out = value;
}

void FieldReader::read(std::string_view key, double& out, double min, double max) {
  const YamlNode* v = get(key);
  if (!v) return;
  const auto* s = scalar(*v, "a number");
  if (!s) return;
  double value = 0;
  const auto [ptr, ec] = std::from_chars(s->data(), s->data() + s->size(), value);
  if (s->empty() || ec != std::errc() || ptr != s->data() + s->size() || !std::isfinite(value))
    return type_error(*v, "a number");
  if (value < min || value > max)
    return diag_.error(v->mark, fmt::format("{} must be between {} and {}, got {}", key, min, max, value));
  out = value;
}

void FieldReader::read(std::string_view key, float& out, double min, double max) {
  double value = out;
  read(key, value, min, max);
  out = static_cast<float>(value);
}

void FieldReader::read(std::string_view key, std::optional<int32_t>& out, int64_t min, int64_t max) {
  const YamlNode* v = get(key);
  if (!v) return;
  if (v->is_null()) return out.reset();
  int32_t value = out.value_or(static_cast<int32_t>(std::max<int64_t>(min, INT32_MIN)));
  const size_t before = diag_.errors().size();
  read(key, value, min, max);
  if (diag_.errors().size() == before) out = value;
}

void FieldReader::read(std::string_view key, std::optional<int64_t>& out, int64_t min, int64_t max) {
  const YamlNode* v = get(key);
  if (!v) return;
  if (v->is_null()) return out.reset();
  int64_t value = out.value_or(min);
  const size_t before = diag_.errors().size();
  read(key, value, min, max);
  if (diag_.errors().size() == before) out = value;
}

void FieldReader::read(std::string_view key, std::optional<uint64_t>& out) {
  const YamlNode* v = get(key);
  if (!v) return;
  if (v->is_null()) return out.reset();
  uint64_t value = out.value_or(0);
  const size_t before = diag_.errors().size();
  read(key, value);
  if (diag_.errors().size() == before) out = value;
}

void FieldReader::read_duration(std::string_view key, std::chrono::milliseconds& out,
                                std::chrono::milliseconds min) {
  const YamlNode* v = get(key);
  if (!v) return;
  const auto* s = scalar(*v, "a duration (e.g. 500ms, 2s, 1m)");
  if (!s) return;
  const auto d = parse_duration(*s);
  if (!d) return diag_.error(v->mark, d.error());
  if (*d < min)
    return diag_.error(v->mark, fmt::format("{} must be at least {}, got {}", key, format_duration(min), *s));
  out = *d;
}

void FieldReader::read_duration(std::string_view key, std::optional<std::chrono::milliseconds>& out,
                                std::chrono::milliseconds min) {
  const YamlNode* v = get(key);
  if (!v) return;
  if (v->is_null()) return out.reset();
  std::chrono::milliseconds value = out.value_or(min);
  const size_t before = diag_.errors().size();
  read_duration(key, value, min);
  if (diag_.errors().size() == before) out = value;
}

void FieldReader::read_memory(std::string_view key, uint64_t& out, uint64_t min) {
  const YamlNode* v = get(key);
  if (!v) return;
  const auto* s = scalar(*v, "a memory size (e.g. 256MiB)");
  if (!s) return;
  const auto bytes = parse_memory_size(*s);
  if (!bytes) return diag_.error(v->mark, bytes.error());
  if (*bytes < min && *bytes != 0)
    return diag_.error(v->mark,
                       fmt::format("{} must be at least {}, got {}", key, format_memory_size(min), *s));
  out = *bytes;
}

void FieldReader::read_list(std::string_view key, std::vector<std::string>& out) {
  const YamlNode* v = get(key);
  if (!v) return;
  if (v->is_null()) {
    out.clear();
    return;
  }
  if (v->is_scalar()) {
    out = {v->scalar};
    return;
  }
  if (!v->is_sequence()) return type_error(*v, "a name or a list of names");
  out.clear();
  for (const auto& item : v->items) {
    if (item.is_scalar())
      out.push_back(item.scalar);
    else
      type_error(item, "a name");
  }
}

void FieldReader::finish(const std::function<std::optional<std::string>(const std::string& key)>& explain) {
  if (!node_) return;
  for (const auto& e : node_->entries) {
    if (!e.key.is_scalar() || std::find(known_.begin(), known_.end(), e.key.scalar) != known_.end()) continue;
    if (explain)
      if (auto why = explain(e.key.scalar)) {
        diag_.error(e.key.mark, *why);
        continue;
      }
    std::string hint = did_you_mean(e.key.scalar, known_);
    if (hint.empty()) hint = fmt::format(" (known keys: {})", join_names(known_));
    diag_.error(e.key.mark, fmt::format("unknown key '{}' in {}{}", e.key.scalar, what_, hint));
  }
}

}  // namespace arena::config
