// search_position(): picks the chess or janggi search for the variant (see search.h).
#include "agents/search/search.h"

#include "agents/search/variant_search.h"
#include "games/janggi/rules.h"

namespace agents::search {

bool search_supports(std::string_view variant) {
  return variant == "chess" || games::janggi::rules_for_variant(variant).has_value();
}

std::expected<SearchReport, std::string> search_position(std::string_view variant, std::string_view start_fen,
                                                         const std::vector<std::string>& moves,
                                                         const SearchLimits& limits) {
  if (variant == "chess") return search_chess(start_fen, moves, limits);
  if (games::janggi::rules_for_variant(variant)) return search_janggi(variant, start_fen, moves, limits);
  return std::unexpected("the search does not play '" + std::string(variant) +
                         "' (it plays chess, janggi, janggimodern, janggicasual, janggitraditional)");
}

}  // namespace agents::search
