// The piece-placement field of a FEN, read once for every variant: ranks from the top down,
// separated by '/', each a run of piece letters and counts of empty squares (chess: 8 ranks of 8
// files; janggi: 10 ranks of 9 files, so a count may be 9). The variant says which letters are
// pieces and places them; the reader reports what is wrong in a structured error that each
// variant words as its FEN messages do.
#pragma once

#include <expected>
#include <string_view>
#include <vector>

namespace games {

struct BoardSize {
  int files = 8;
  int ranks = 8;
  bool adjacent_counts = true;  // "44" means 8 empty squares (chess); false: refused (janggi)
};

// A piece letter of the field at its square (file 0 = a, rank 0 = the bottom rank).
struct PlacedLetter {
  int file = 0;
  int rank = 0;
  char letter = 0;
};

struct PlacementError {
  enum class Kind {
    RankCount,       // not size.ranks ranks: `count` ranks in `text` (the whole field)
    BadCharacter,    // `text` (one character) is neither a piece letter nor a count, in rank `rank`
    AdjacentCounts,  // two counts in a row in rank `rank` (`text`), where size refuses them
    RankWidth,       // rank `rank` (`text`) covers `count` files (more than size.files: it stopped there)
  };
  Kind kind = Kind::RankCount;
  int rank = 0;  // 1-based, from the bottom
  std::string_view text;
  int count = 0;
};

// The letters of `field` with their squares, or the first thing wrong with it. `is_piece_letter`
// tells a piece letter of the variant; counts are the digits 1 to size.files.
std::expected<std::vector<PlacedLetter>, PlacementError> read_placement(std::string_view field,
                                                                        BoardSize size,
                                                                        bool (*is_piece_letter)(char));

}  // namespace games
