// ChessGame: the games::Game interface over a Position, with the move history that undo,
// repetition and the board view need.
#include "games/chess/chess_game.h"

#include <fmt/format.h>

#include <algorithm>

#include "games/chess/fen.h"
#include "games/chess/movegen.h"
#include "games/chess/notation.h"
#include "games/chess/perft.h"
#include "games/chess/rules.h"

namespace games::chess {

namespace {

const char* const kPieceNames[] = {"pawn", "knight", "bishop", "rook", "queen", "king"};

// A GameError of `kind` with the message of `error`.
GameError with_kind(GameError error, GameError::Kind kind) {
  error.kind = kind;
  return error;
}

class ChessGame final : public Game {
 public:
  explicit ChessGame(const Position& start) : start_(start), pos_(start), keys_{start.key()} {}

  using Game::side_name;
  std::string variant() const override { return "chess"; }
  std::string fen() const override { return to_fen(pos_); }
  std::string start_fen() const override { return to_fen(start_); }
  Side side_to_move() const override { return pos_.side_to_move() == White ? Side::First : Side::Second; }
  std::string side_name(Side side) const override { return side == Side::First ? "White" : "Black"; }
  int ply() const override { return int(moves_.size()); }

  std::vector<std::string> moves() const override {
    std::vector<std::string> out;
    for (Move m : moves_) out.push_back(to_uci(m));
    return out;
  }

  std::vector<std::string> moves_human() const override {
    std::vector<std::string> out;
    Position replay = start_;
    UndoInfo undo;
    for (Move m : moves_) {
      out.push_back(to_san(replay, m));
      replay.make_move(m, undo);
    }
    return out;
  }

  std::vector<std::string> legal_moves() const override {
    MoveList list;
    generate_legal(pos_, list);
    std::vector<std::string> moves;
    for (Move m : list) moves.push_back(to_uci(m));
    return moves;
  }

  std::vector<std::string> legal_moves_human() const override {
    MoveList list;
    generate_legal(pos_, list);
    std::vector<std::string> moves;
    for (Move m : list) moves.push_back(to_san(pos_, m));
    return moves;
  }

  std::expected<std::string, GameError> parse_move(std::string_view text) const override {
    const auto move = read_move(text);
    if (!move) return std::unexpected(move.error());
    return to_uci(*move);
  }

  std::expected<std::string, GameError> to_human(std::string_view text) const override {
    const auto move = read_move(text);
    if (!move) return std::unexpected(move.error());
    return to_san(pos_, *move);
  }

  std::expected<void, GameError> apply(std::string_view text) override {
    const auto move = read_move(text);
    if (!move) return std::unexpected(move.error());
    undos_.emplace_back();
    pos_.make_move(*move, undos_.back());
    moves_.push_back(*move);
    keys_.push_back(pos_.key());
    return {};
  }

  bool undo() override {
    if (moves_.empty()) return false;
    pos_.unmake_move(moves_.back(), undos_.back());
    moves_.pop_back();
    undos_.pop_back();
    keys_.pop_back();
    return true;
  }

  Outcome outcome() const override { return automatic_outcome(pos_, keys_); }
  Outcome claimable_draw() const override { return chess::claimable_draw(pos_, keys_); }

  std::string render_text() const override {
    std::string text = "  a b c d e f g h\n";
    for (int rank = 7; rank >= 0; --rank) {
      text += char('1' + rank);
      for (int file = 0; file < 8; ++file)
        text += fmt::format(" {}", piece_char(pos_.piece_on(make_square(file, rank))));
      text += fmt::format(" {}\n", rank + 1);
    }
    text += "  a b c d e f g h\n";
    const bool white = pos_.side_to_move() == White;
    text +=
        "Uppercase letters are white pieces, lowercase black (K king, Q queen, R rook, B bishop, N knight, "
        "P pawn); '.' is an empty square.\n";
    text += fmt::format("{} to move{}.\n", white ? "White" : "Black", pos_.in_check() ? " (in check)" : "");
    if (!moves_.empty()) text += fmt::format("Last move: {}.\n", last_move_san());
    std::string rights;
    const uint8_t r = pos_.castling_rights();
    for (auto [bit, name] : {std::pair{WhiteKingSide, "white O-O"},
                             {WhiteQueenSide, "white O-O-O"},
                             {BlackKingSide, "black O-O"},
                             {BlackQueenSide, "black O-O-O"}})
      if (r & bit) {
        if (!rights.empty()) rights += ", ";
        rights += name;
      }
    text += fmt::format("Castling rights: {}.\n", rights.empty() ? "none" : rights);
    if (pos_.ep_square() != kNoSquare)
      text += fmt::format("En passant capture possible on {}.\n", square_name(pos_.ep_square()));
    text += fmt::format("Halfmove clock: {}. Move number: {}.\n", pos_.rule50(), pos_.fullmove());
    return text;
  }

  BoardView board_view() const override {
    BoardView view;
    view.variant = "chess";
    view.fen = fen();
    view.files = 8;
    view.ranks = 8;
    for (int rank = 7; rank >= 0; --rank)
      for (int file = 0; file < 8; ++file) {
        const Square s = make_square(file, rank);
        SquareView square{square_name(s), std::nullopt};
        if (const Piece p = pos_.piece_on(s); p != NoPiece)
          square.piece = PieceView{color_of(p) == White ? Side::First : Side::Second, piece_char(p),
                                   kPieceNames[type_of(p)]};
        view.squares.push_back(std::move(square));
      }
    view.side_names = {side_name(Side::First), side_name(Side::Second)};
    view.side_to_move = side_to_move();
    view.ply = ply();
    if (!moves_.empty()) {
      view.last_move = to_uci(moves_.back());
      view.last_move_human = last_move_san();
    }
    view.check_square = check_square();
    view.outcome = outcome();
    if (const Outcome claim = claimable_draw(); claim.finished()) view.claimable_draw = claim.reason;
    view.legal_moves = legal_moves();
    view.legal_moves_human = legal_moves_human();
    return view;
  }

  std::optional<std::string> check_square() const override {
    if (!pos_.in_check()) return std::nullopt;
    return square_name(pos_.king_square(pos_.side_to_move()));
  }

  uint64_t perft(int depth) const override { return chess::perft(pos_, depth); }

  std::vector<std::pair<std::string, uint64_t>> perft_divide(int depth) const override {
    std::vector<std::pair<std::string, uint64_t>> result;
    for (const auto& [move, nodes] : chess::perft_divide(pos_, depth))
      result.emplace_back(to_uci(move), nodes);
    std::sort(result.begin(), result.end());
    return result;
  }

  std::unique_ptr<Game> clone() const override { return std::make_unique<ChessGame>(*this); }

 private:
  // The legal move `text` (UCI or SAN) names, or why there is none.
  std::expected<Move, GameError> read_move(std::string_view text) const {
    auto move = chess::parse_move(pos_, text);
    if (!move) return std::unexpected(with_kind(move.error(), GameError::Kind::InvalidMove));
    return *move;
  }

  // The last move in SAN, from the position before it.
  std::string last_move_san() const {
    Position before = pos_;
    before.unmake_move(moves_.back(), undos_.back());
    return to_san(before, moves_.back());
  }

  Position start_;
  Position pos_;
  std::vector<Move> moves_;
  std::vector<UndoInfo> undos_;
  std::vector<uint64_t> keys_;  // the key of every position so far, the current one last
};

}  // namespace

std::expected<std::unique_ptr<Game>, GameError> make_chess_game(std::string_view fen) {
  auto pos = parse_fen(fen.empty() ? kStartFen : fen);
  if (!pos) return std::unexpected(with_kind(pos.error(), GameError::Kind::InvalidPosition));
  return std::make_unique<ChessGame>(*pos);
}

}  // namespace games::chess
