// Reading fields of event JSON that may be missing or null (nlohmann's value() throws on a null
// field of another type): each getter returns the default unless the field has the right type.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>

namespace arena::server {

// j[key] as a string, or `fallback` when absent or not a string.
inline std::string string_field(const nlohmann::json& j, const char* key, const std::string& fallback = {}) {
  if (!j.is_object()) return fallback;
  auto it = j.find(key);
  return it != j.end() && it->is_string() ? it->get<std::string>() : fallback;
}

// j[key] as a number, or `fallback`.
inline double number_field(const nlohmann::json& j, const char* key, double fallback = 0) {
  if (!j.is_object()) return fallback;
  auto it = j.find(key);
  return it != j.end() && it->is_number() ? it->get<double>() : fallback;
}

// j[key] as an integer, or `fallback`.
inline int64_t integer_field(const nlohmann::json& j, const char* key, int64_t fallback = 0) {
  if (!j.is_object()) return fallback;
  auto it = j.find(key);
  return it != j.end() && it->is_number() ? it->get<int64_t>() : fallback;
}

// j[key] as a boolean, or `fallback`.
inline bool bool_field(const nlohmann::json& j, const char* key, bool fallback = false) {
  if (!j.is_object()) return fallback;
  auto it = j.find(key);
  return it != j.end() && it->is_boolean() ? it->get<bool>() : fallback;
}

}  // namespace arena::server
