// Janggi FEN reading and writing, and the starting setups (see fen.h).
#include "games/janggi/fen.h"

#include <fmt/core.h>

#include <charconv>
#include <vector>

#include "base/strings.h"
#include "games/fen_placement.h"

namespace games::janggi {
namespace {

std::unexpected<GameError> fen_error(std::string message) {
  return std::unexpected(GameError{"invalid FEN: " + std::move(message)});
}

// Printable form of untrusted text for messages: at most 24 characters, odd bytes escaped.
std::string quoted(std::string_view text) {
  std::string out = "'";
  for (size_t i = 0; i < text.size() && i < 24; ++i) {
    const unsigned char c = static_cast<unsigned char>(text[i]);
    out += (c >= 0x20 && c < 0x7f) ? std::string(1, char(c)) : fmt::format("\\x{:02x}", c);
  }
  return out + (text.size() > 24 ? "...'" : "'");
}

std::optional<int> parse_count(std::string_view text, int max) {
  int value = 0;
  const auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || ptr != text.data() + text.size() || value < 0 || value > max) return std::nullopt;
  return value;
}

std::string_view side_name(Color c) {
  return c == Cho ? "Cho" : "Han";
}

// Most pieces of each type one side can have (janggi has no promotion).
constexpr int kMaxCount[kNumPieceTypes] = {0, 1, 2, 2, 2, 2, 2, 5};

bool is_piece_letter(char c) {
  return piece_from_char(c).has_value();
}

// The board field in janggi words (see games/fen_placement.h).
std::unexpected<GameError> placement_error(const PlacementError& e) {
  switch (e.kind) {
    case PlacementError::Kind::RankCount:
      return fen_error(fmt::format("the board needs 10 ranks separated by '/', found {}", e.count));
    case PlacementError::Kind::AdjacentCounts:
      // "5C111" could mean 1+1+1 or eleven; Fairy-Stockfish reads digit runs as one number.
      return fen_error(
          fmt::format("rank {} ({}) has two counts in a row; write each run of empty points as one digit 1-9",
                      e.rank, quoted(e.text)));
    case PlacementError::Kind::BadCharacter:
      return fen_error(
          fmt::format("rank {} has {} where a piece letter (KABNRCP, or kabnrcp for Han) or a "
                      "count 1-9 belongs",
                      e.rank, quoted(e.text)));
    case PlacementError::Kind::RankWidth:
      break;
  }
  return fen_error(fmt::format("rank {} ({}) covers {} files, expected 9", e.rank, quoted(e.text), e.count));
}

std::expected<void, GameError> parse_board(std::string_view board, Position& pos) {
  const auto letters = read_placement(board, BoardSize{kNumFiles, kNumRanks, false}, is_piece_letter);
  if (!letters) return placement_error(letters.error());
  for (const PlacedLetter& l : *letters)
    pos.put_piece(*piece_from_char(l.letter), make_square(l.file, l.rank));
  return {};
}

// The placement rules a FEN must respect: one general each, generals and guards inside their own
// palace, no more pieces than a janggi set has.
std::expected<void, GameError> check_placement(const Position& pos) {
  for (Color c : {Cho, Han}) {
    for (int t = General; t <= Soldier; ++t)
      if (pos.count(c, PieceType(t)) > kMaxCount[t])
        return fen_error(fmt::format("{} has {} {}s; a janggi side has at most {}", side_name(c),
                                     pos.count(c, PieceType(t)), piece_type_name(PieceType(t)),
                                     kMaxCount[t]));
    if (pos.count(c, General) != 1) return fen_error(fmt::format("{} has no general", side_name(c)));
    for (Square s = 0; s < kNumSquares; ++s) {
      const Piece p = pos.piece_on(s);
      if (p != NoPiece && color_of(p) == c && (type_of(p) == General || type_of(p) == Guard) &&
          !in_palace(c, s))
        return fen_error(fmt::format("the {} {} on {} must stand inside its palace ({})", side_name(c),
                                     piece_type_name(type_of(p)), square_name(s),
                                     c == Cho ? "d1-f3" : "d8-f10"));
    }
  }
  return {};
}

}  // namespace

std::expected<Position, GameError> parse_fen(std::string_view fen) {
  const std::vector<std::string_view> fields = base::split_words(fen);
  if (fields.empty()) return fen_error("it is empty");
  if (fields.size() < 2) return fen_error("the side to move is missing (expected e.g. '<board> w - - 0 1')");
  if (fields.size() > 6) return fen_error(fmt::format("it has {} fields, at most 6", fields.size()));
  Position pos;
  if (auto board = parse_board(fields[0], pos); !board) return std::unexpected(board.error());
  if (auto placement = check_placement(pos); !placement) return std::unexpected(placement.error());
  if (fields[1] != "w" && fields[1] != "b")
    return fen_error(
        fmt::format("the side to move must be 'w' (Cho) or 'b' (Han), got {}", quoted(fields[1])));
  const Color side = fields[1] == "w" ? Cho : Han;
  if (fields.size() > 2 && fields[2] != "-")
    return fen_error(
        fmt::format("the castling field must be '-' (janggi has no castling), got {}", quoted(fields[2])));
  if (fields.size() > 3 && fields[3] != "-")
    return fen_error(fmt::format("the en-passant field must be '-' (janggi has no en passant), got {}",
                                 quoted(fields[3])));
  int rule50 = 0, fullmove = 1;
  if (fields.size() > 4) {
    const auto value = parse_count(fields[4], 100000);
    if (!value)
      return fen_error(
          fmt::format("the halfmove clock must be a whole number 0-100000, got {}", quoted(fields[4])));
    rule50 = *value;
  }
  if (fields.size() > 5) {
    const auto value = parse_count(fields[5], 1000000);
    if (!value)
      return fen_error(
          fmt::format("the move number must be a whole number 1-1000000, got {}", quoted(fields[5])));
    fullmove = std::max(*value, 1);
  }
  pos.finish_setup(side, rule50, fullmove);
  // The side that just moved may not be left in check, except in bikjang: with the generals
  // facing, a player in check may pass (so such positions arise in play and must read back).
  if (pos.attacked(pos.king_square(~side), side) && !pos.generals_facing())
    return fen_error(
        fmt::format("{} is to move but {}'s general is already in check", side_name(side), side_name(~side)));
  return pos;
}

std::string format_fen(const Position& pos) {
  std::string fen;
  for (int rank = kNumRanks - 1; rank >= 0; --rank) {
    int empty = 0;
    for (int file = 0; file < kNumFiles; ++file) {
      const Piece p = pos.piece_on(make_square(file, rank));
      if (p == NoPiece) {
        ++empty;
        continue;
      }
      if (empty) fen += char('0' + empty);
      empty = 0;
      fen += piece_char(p);
    }
    if (empty) fen += char('0' + empty);
    if (rank) fen += '/';
  }
  return fmt::format("{} {} - - {} {}", fen, pos.side_to_move() == Cho ? 'w' : 'b', pos.state().rule50,
                     pos.fullmove());
}

std::string_view setup_name(Setup setup) {
  switch (setup) {
    case Setup::HorseElephantElephantHorse:
      return "마상상마";
    case Setup::ElephantHorseHorseElephant:
      return "상마마상";
    case Setup::HorseElephantHorseElephant:
      return "마상마상";
    case Setup::ElephantHorseElephantHorse:
      return "상마상마";
  }
  return "?";
}

std::string start_fen(Setup cho, Setup han) {
  // The four back-rank points of a setup, from the owner's left: N = horse, B = elephant.
  auto letters = [](Setup s) -> std::string_view {
    switch (s) {
      case Setup::HorseElephantElephantHorse:
        return "NBBN";
      case Setup::ElephantHorseHorseElephant:
        return "BNNB";
      case Setup::HorseElephantHorseElephant:
        return "NBNB";
      case Setup::ElephantHorseElephantHorse:
        return "BNBN";
    }
    return "NBBN";
  };
  const std::string_view c = letters(cho), h = letters(han);
  // Cho's left is file a; Han faces the other way, so its left is file i.
  const std::string cho_rank = fmt::format("R{}{}A1A{}{}R", c[0], c[1], c[2], c[3]);
  std::string han_rank = fmt::format("r{}{}a1a{}{}r", h[3], h[2], h[1], h[0]);
  for (char& ch : han_rank) ch = char(ch >= 'A' && ch <= 'Z' ? ch - 'A' + 'a' : ch);
  return han_rank + "/4k4/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/4K4/" + cho_rank + " w - - 0 1";
}

}  // namespace games::janggi
