// The element type of the paged KV cache, with its name and the parser for it (CLI flags and
// configs read it by name, never by a chain of comparisons).
#pragma once

#include <expected>
#include <string>
#include <string_view>
#include <vector>

#include "base/enum_names.h"
#include "engine/error.h"

namespace engine {

enum class KvDtype { F32, F16, Q8_0 };

// Each dtype's name: the one table that to_string and parse_kv_dtype read.
inline constexpr base::EnumTable<KvDtype, 3> kKvDtypeNames{
    {{KvDtype::F32, "f32"}, {KvDtype::F16, "f16"}, {KvDtype::Q8_0, "q8_0"}}};

// "f32", "f16", "q8_0".
const char* to_string(KvDtype dtype);

// The dtype named `name` (as to_string writes it), or an error listing the names.
std::expected<KvDtype, Error> parse_kv_dtype(std::string_view name);

// Every dtype's name, in the order of the enum.
std::vector<std::string> kv_dtype_names();

}  // namespace engine
