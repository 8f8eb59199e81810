// Text -> token id lookup for a vocabulary: an open-addressing hash table of ids (with a hash
// fragment per slot to skip most string compares) over the vocabulary's own text array, so a
// lookup touches one slot array and one string instead of a chain of map nodes.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace engine {

class TokenIndex {
 public:
  // Indexes texts[0..n); when a text appears twice, returns the ids of its first two
  // occurrences (the later one is not indexed).
  std::optional<std::pair<int32_t, int32_t>> build(const std::vector<std::string>& texts);

  // The id of `text` in the `texts` the index was built from, or -1.
  int32_t find(std::string_view text, const std::vector<std::string>& texts) const;

 private:
  struct Slot {
    uint32_t hash = 0;  // upper bits of the text's hash
    int32_t id = -1;    // -1: empty
  };
  static uint64_t hash_of(std::string_view text);

  std::vector<Slot> slots_;  // size is a power of two, at most half full
  uint64_t mask_ = 0;
};

}  // namespace engine
