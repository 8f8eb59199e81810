// The FEN piece-placement reader shared by chess and janggi (see fen_placement.h).
#include "games/fen_placement.h"

#include "base/strings.h"

namespace games {

std::expected<std::vector<PlacedLetter>, PlacementError> read_placement(std::string_view field,
                                                                        BoardSize size,
                                                                        bool (*is_piece_letter)(char)) {
  using Kind = PlacementError::Kind;
  const auto ranks = base::split(field, '/');
  if (static_cast<int>(ranks.size()) != size.ranks)
    return std::unexpected(PlacementError{Kind::RankCount, 0, field, static_cast<int>(ranks.size())});
  std::vector<PlacedLetter> letters;
  for (int i = 0; i < size.ranks; ++i) {
    const int rank = size.ranks - 1 - i;
    int file = 0;
    bool after_count = false;
    for (const char& c : ranks[i]) {
      const bool count = c >= '1' && c <= '0' + size.files;
      if (count && after_count && !size.adjacent_counts)
        return std::unexpected(PlacementError{Kind::AdjacentCounts, rank + 1, ranks[i], 0});
      after_count = count;
      if (count) {
        file += c - '0';
      } else if (is_piece_letter(c)) {
        if (file < size.files) letters.push_back({file, rank, c});
        ++file;
      } else {
        return std::unexpected(PlacementError{Kind::BadCharacter, rank + 1, std::string_view(&c, 1), 0});
      }
      if (file > size.files) break;
    }
    if (file != size.files) return std::unexpected(PlacementError{Kind::RankWidth, rank + 1, ranks[i], file});
  }
  return letters;
}

}  // namespace games
