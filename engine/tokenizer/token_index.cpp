// Linear-probing table for TokenIndex; FNV-1a hash with a final mix.
#include "engine/tokenizer/token_index.h"

#include <algorithm>
#include <bit>

namespace engine {

uint64_t TokenIndex::hash_of(std::string_view text) {
  uint64_t h = 0xcbf29ce484222325ull;
  for (const char c : text) h = (h ^ static_cast<unsigned char>(c)) * 0x100000001b3ull;
  h ^= h >> 33;
  h *= 0xff51afd7ed558ccdull;
  h ^= h >> 33;
  return h;
}

std::optional<std::pair<int32_t, int32_t>> TokenIndex::build(const std::vector<std::string>& texts) {
  const size_t num_slots = std::bit_ceil(std::max<size_t>(16, texts.size() * 2));
  slots_.assign(num_slots, Slot{});
  mask_ = num_slots - 1;
  std::optional<std::pair<int32_t, int32_t>> duplicate;
  for (size_t id = 0; id < texts.size(); ++id) {
    const uint64_t h = hash_of(texts[id]);
    const auto fragment = static_cast<uint32_t>(h >> 32);
    for (uint64_t i = h & mask_;; i = (i + 1) & mask_) {
      Slot& slot = slots_[i];
      if (slot.id < 0) {
        slot = {fragment, static_cast<int32_t>(id)};
        break;
      }
      if (slot.hash == fragment && texts[slot.id] == texts[id]) {
        if (!duplicate) duplicate = {slot.id, static_cast<int32_t>(id)};
        break;
      }
    }
  }
  return duplicate;
}

int32_t TokenIndex::find(std::string_view text, const std::vector<std::string>& texts) const {
  if (slots_.empty()) return -1;
  const uint64_t h = hash_of(text);
  const auto fragment = static_cast<uint32_t>(h >> 32);
  for (uint64_t i = h & mask_;; i = (i + 1) & mask_) {
    const Slot& slot = slots_[i];
    if (slot.id < 0) return -1;
    if (slot.hash == fragment && texts[slot.id] == text) return slot.id;
  }
}

}  // namespace engine
