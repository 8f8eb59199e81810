// Janggi behind games::Game: a Position with its whole history since the starting FEN, and the
// rule set chosen by the variant name. Const methods work on copies, so they are safe to call
// from several threads as long as nobody applies or undoes a move meanwhile.
#include "games/janggi/janggi_game.h"

#include <fmt/core.h>

#include <algorithm>

#include "games/janggi/fen.h"
#include "games/janggi/movegen.h"
#include "games/janggi/notation.h"
#include "games/janggi/rules.h"

namespace games::janggi {
namespace {

std::string json_string(std::string_view text) {
  std::string out = "\"";
  for (char c : text) {
    const unsigned char u = static_cast<unsigned char>(c);
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (u < 0x20) {
      out += fmt::format("\\u{:04x}", u);
    } else {
      out += c;
    }
  }
  return out + "\"";
}

std::string json_list(const std::vector<std::string>& items) {
  std::string out = "[";
  for (size_t i = 0; i < items.size(); ++i) {
    if (i) out += ',';
    out += json_string(items[i]);
  }
  return out + "]";
}

std::string_view result_name(Outcome::Result r) {
  switch (r) {
    case Outcome::Result::Ongoing:
      return "ongoing";
    case Outcome::Result::FirstWins:
      return "cho_wins";
    case Outcome::Result::SecondWins:
      return "han_wins";
    case Outcome::Result::Draw:
      return "draw";
  }
  return "ongoing";
}

std::string_view side_name(Color c) {
  return c == Cho ? "Cho" : "Han";
}

class JanggiGame final : public Game {
 public:
  JanggiGame(std::string variant, Rules rules, Position pos)
      : variant_(std::move(variant)), rules_(rules), pos_(std::move(pos)) {}

  std::string variant() const override { return variant_; }
  std::string fen() const override { return format_fen(pos_); }
  Side side_to_move() const override { return pos_.side_to_move() == Cho ? Side::First : Side::Second; }
  int ply() const override { return pos_.plies_played(); }

  // The moves apply() accepts: none once the game is over (also by the no-capture limit or
  // repetition, which Fairy-Stockfish's move generator and perft ignore).
  std::vector<std::string> legal_moves() const override {
    std::vector<std::string> out;
    if (outcome().finished()) return out;
    for (Move m : legal()) out.push_back(move_name(m));
    return out;
  }

  std::vector<std::string> legal_moves_human() const override {
    std::vector<std::string> out;
    if (outcome().finished()) return out;
    for (Move m : legal()) out.push_back(numeric_move(pos_, m));
    return out;
  }

  std::expected<std::string, GameError> parse_move(std::string_view text) const override {
    auto m = read_move(text);
    if (!m) return std::unexpected(m.error());
    return move_name(*m);
  }

  std::expected<void, GameError> apply(std::string_view move) override {
    auto m = read_move(move);
    if (!m) return std::unexpected(m.error());
    pos_.do_move(*m);
    return {};
  }

  bool undo() override {
    if (pos_.plies_played() == 0) return false;
    pos_.undo_move();
    return true;
  }

  Outcome outcome() const override { return evaluate_outcome(pos_, rules_, legal().size); }
  // Janggi has no draw to claim: its rule endings are automatic (see outcome()).
  Outcome claimable_draw() const override { return Outcome{}; }

  std::string render_text() const override;
  std::string to_json() const override;

  uint64_t perft(int depth) const override {
    Position scratch = pos_;
    return janggi::perft(scratch, rules_, depth);
  }

  std::vector<std::pair<std::string, uint64_t>> perft_divide(int depth) const override {
    std::vector<std::pair<std::string, uint64_t>> out;
    if (depth < 1) return out;
    Position scratch = pos_;
    for (Move m : legal()) {
      scratch.do_move(m);
      out.emplace_back(move_name(m), janggi::perft(scratch, rules_, depth - 1));
      scratch.undo_move();
    }
    std::sort(out.begin(), out.end());
    return out;
  }

  std::unique_ptr<Game> clone() const override { return std::make_unique<JanggiGame>(*this); }

 private:
  std::expected<Move, GameError> read_move(std::string_view text) const {
    if (const Outcome o = outcome(); o.finished())
      return std::unexpected(GameError{"no move can be played: the game is over (" + o.reason + ")"});
    return parse_move_text(pos_, rules_, text);
  }

  MoveList legal() const {
    Position scratch = pos_;
    MoveList list;
    generate_legal(scratch, rules_, list);
    return list;
  }

  // The last move in numeric notation, from the position before it (there must be one).
  std::string last_move_numeric() const {
    Position before = pos_;
    before.undo_move();
    return numeric_move(before, pos_.state().move);
  }

  std::string variant_;
  Rules rules_;
  Position pos_;
};

std::string JanggiGame::render_text() const {
  const Color us = pos_.side_to_move();
  std::string out =
      fmt::format("Janggi ({} rules). {} to move ({}); ply {}, move {}.\n", rules_.name, side_name(us),
                  us == Cho ? "uppercase, bottom" : "lowercase, top", ply(), pos_.fullmove());
  const std::string files = "     a b c d e f g h i\n";
  out += files;
  for (int rank = kNumRanks - 1; rank >= 0; --rank) {
    out += fmt::format("{:>3}  ", rank + 1);
    for (int file = 0; file < kNumFiles; ++file) {
      out += piece_char(pos_.piece_on(make_square(file, rank)));
      out += ' ';
    }
    out += fmt::format(" {}\n", rank + 1);
  }
  out += files;
  out +=
      "Pieces: K general, A guard, B elephant, N horse, R chariot, C cannon, P soldier; "
      "uppercase = Cho, lowercase = Han; '.' = empty point.\n";
  if (pos_.plies_played() > 0)
    out += fmt::format("Last move: {} ({}).\n", move_name(pos_.state().move), last_move_numeric());
  if (pos_.state().in_check) out += fmt::format("{}'s general is in check.\n", side_name(us));
  if (pos_.state().facing)
    out += rules_.bikjang ? "The generals face each other (bikjang): break the facing or pass.\n"
                          : "The generals face each other.\n";
  out += fmt::format("Material points: Cho {:g}, Han {:g} (Han's includes 1.5 for moving second).\n",
                     counting_points(pos_, Cho), counting_points(pos_, Han));
  if (const Outcome o = outcome(); o.finished()) out += "Game over: " + o.reason + ".\n";
  return out;
}

std::string JanggiGame::to_json() const {
  // squares: 90 points, rank 10 (top, Han's back rank) down to rank 1, each from file a to file i,
  // holding the FEN letter of the piece or "" when empty (the layout of the chess view).
  std::vector<std::string> squares;
  for (int rank = kNumRanks - 1; rank >= 0; --rank)
    for (int file = 0; file < kNumFiles; ++file) {
      const Piece p = pos_.piece_on(make_square(file, rank));
      squares.push_back(p == NoPiece ? "" : std::string(1, piece_char(p)));
    }
  const Outcome o = outcome();
  const bool moved = pos_.plies_played() > 0;
  return fmt::format(
      "{{\"variant\":{},\"fen\":{},\"files\":9,\"ranks\":10,\"squares\":{},\"side_to_move\":\"{}\","
      "\"ply\":{},\"last_move\":{},\"last_move_numeric\":{},\"in_check\":{},\"generals_facing\":{},"
      "\"points\":{{\"cho\":{:g},\"han\":{:g}}},\"outcome\":{{\"result\":\"{}\",\"reason\":{}}},"
      "\"claimable_draw\":null,\"legal_moves\":{},\"legal_moves_numeric\":{}}}",
      json_string(variant_), json_string(fen()), json_list(squares),
      pos_.side_to_move() == Cho ? "cho" : "han", ply(),
      moved ? json_string(move_name(pos_.state().move)) : "null",
      moved ? json_string(last_move_numeric()) : "null", pos_.state().in_check, pos_.state().facing,
      counting_points(pos_, Cho), counting_points(pos_, Han), result_name(o.result), json_string(o.reason),
      json_list(legal_moves()), json_list(legal_moves_human()));
}

}  // namespace

std::expected<std::unique_ptr<Game>, GameError> make_janggi_game(std::string_view variant,
                                                                 std::string_view fen) {
  const std::optional<Rules> rules = rules_for_variant(variant);
  if (!rules)
    return std::unexpected(GameError{"unknown janggi rule set '" + std::string(variant) +
                                     "' (known: janggi, janggimodern, janggicasual, janggitraditional)"});
  const std::string standard = start_fen();
  auto pos = parse_fen(fen.empty() ? std::string_view(standard) : fen);
  if (!pos) return std::unexpected(pos.error());
  return std::make_unique<JanggiGame>(std::string(variant), *rules, std::move(*pos));
}

}  // namespace games::janggi
