// The per-game entry points behind search_position() (search.cpp dispatches on the variant).
#pragma once

#include <expected>
#include <string>
#include <string_view>
#include <vector>

#include "agents/search/search.h"

namespace agents::search {

// Chess from `start_fen` (standard start when empty) after `moves`.
std::expected<SearchReport, std::string> search_chess(std::string_view start_fen,
                                                      const std::vector<std::string>& moves,
                                                      const SearchLimits& limits);

// Janggi under the rule set `variant` from `start_fen` (standard start when empty) after `moves`.
std::expected<SearchReport, std::string> search_janggi(std::string_view variant, std::string_view start_fen,
                                                       const std::vector<std::string>& moves,
                                                       const SearchLimits& limits);

}  // namespace agents::search
