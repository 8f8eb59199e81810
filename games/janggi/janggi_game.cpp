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

// A GameError of `kind` with the message of `error`.
GameError with_kind(GameError error, GameError::Kind kind) {
  error.kind = kind;
  return error;
}

std::string_view color_name(Color c) {
  return c == Cho ? "Cho" : "Han";
}

class JanggiGame final : public Game {
 public:
  JanggiGame(std::string variant, Rules rules, Position pos)
      : variant_(std::move(variant)), rules_(rules), start_(pos), pos_(std::move(pos)) {}

  using Game::side_name;
  std::string variant() const override { return variant_; }
  std::string fen() const override { return format_fen(pos_); }
  std::string start_fen() const override { return format_fen(start_); }
  Side side_to_move() const override { return pos_.side_to_move() == Cho ? Side::First : Side::Second; }
  std::string side_name(Side side) const override {
    return std::string(color_name(side == Side::First ? Cho : Han));
  }
  int ply() const override { return pos_.plies_played(); }

  std::vector<std::string> moves() const override {
    std::vector<std::string> out;
    for (int back = pos_.plies_played() - 1; back >= 0; --back)
      out.push_back(move_name(pos_.state_back(back).move));
    return out;
  }

  std::vector<std::string> moves_human() const override {
    std::vector<std::string> out;
    Position replay = start_;
    for (int back = pos_.plies_played() - 1; back >= 0; --back) {
      const Move m = pos_.state_back(back).move;
      out.push_back(numeric_move(replay, m));
      replay.do_move(m);
    }
    return out;
  }

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

  std::expected<std::string, GameError> to_human(std::string_view text) const override {
    auto m = read_move(text);
    if (!m) return std::unexpected(m.error());
    return numeric_move(pos_, *m);
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
  BoardView board_view() const override;
  std::optional<std::string> check_square() const override {
    if (!pos_.state().in_check) return std::nullopt;
    return square_name(pos_.king_square(pos_.side_to_move()));
  }

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
      return std::unexpected(
          GameError{"no move can be played: the game is over (" + o.reason + ")", GameError::Kind::GameOver});
    auto m = parse_move_text(pos_, rules_, text);
    if (!m) return std::unexpected(with_kind(m.error(), GameError::Kind::InvalidMove));
    return *m;
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
  Position start_;  // the position given to make_janggi_game (history empty)
  Position pos_;
};

std::string JanggiGame::render_text() const {
  const Color us = pos_.side_to_move();
  std::string out =
      fmt::format("Janggi ({} rules). {} to move ({}); ply {}, move {}.\n", rules_.name, color_name(us),
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
  if (pos_.state().in_check) out += fmt::format("{}'s general is in check.\n", color_name(us));
  if (pos_.state().facing)
    out += rules_.bikjang ? "The generals face each other (bikjang): break the facing or pass.\n"
                          : "The generals face each other.\n";
  out += fmt::format("Material points: Cho {:g}, Han {:g} (Han's includes 1.5 for moving second).\n",
                     counting_points(pos_, Cho), counting_points(pos_, Han));
  if (const Outcome o = outcome(); o.finished()) out += "Game over: " + o.reason + ".\n";
  return out;
}

BoardView JanggiGame::board_view() const {
  BoardView view;
  view.variant = variant_;
  view.fen = fen();
  view.files = kNumFiles;
  view.ranks = kNumRanks;
  // Rank 10 (top, Han's back rank) down to rank 1, each from file a to file i.
  for (int rank = kNumRanks - 1; rank >= 0; --rank)
    for (int file = 0; file < kNumFiles; ++file) {
      const Square s = make_square(file, rank);
      SquareView square{square_name(s), std::nullopt};
      if (const Piece p = pos_.piece_on(s); p != NoPiece)
        square.piece = PieceView{color_of(p) == Cho ? Side::First : Side::Second, piece_char(p),
                                 std::string(piece_type_name(type_of(p)))};
      view.squares.push_back(std::move(square));
    }
  view.side_names = {side_name(Side::First), side_name(Side::Second)};
  view.side_to_move = side_to_move();
  view.ply = ply();
  if (pos_.plies_played() > 0) {
    view.last_move = move_name(pos_.state().move);
    view.last_move_human = last_move_numeric();
  }
  view.check_square = check_square();
  view.outcome = outcome();
  view.legal_moves = legal_moves();
  view.legal_moves_human = legal_moves_human();
  view.generals_facing = pos_.state().facing;
  view.points = std::array<double, 2>{counting_points(pos_, Cho), counting_points(pos_, Han)};
  return view;
}

}  // namespace

std::expected<std::unique_ptr<Game>, GameError> make_janggi_game(std::string_view variant,
                                                                 std::string_view fen) {
  const std::optional<Rules> rules = rules_for_variant(variant);
  if (!rules)
    return std::unexpected(GameError{"unknown janggi rule set '" + std::string(variant) +
                                         "' (known: janggi, janggimodern, janggicasual, janggitraditional)",
                                     GameError::Kind::UnknownVariant});
  const std::string standard = start_fen();
  auto pos = parse_fen(fen.empty() ? std::string_view(standard) : fen);
  if (!pos) return std::unexpected(with_kind(pos.error(), GameError::Kind::InvalidPosition));
  return std::make_unique<JanggiGame>(std::string(variant), *rules, std::move(*pos));
}

}  // namespace games::janggi
