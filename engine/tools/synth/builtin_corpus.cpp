// The built-in vocabulary's training text. The prose is written for this project; the move text
// is a well-known opening line in SAN and UCI; the square lists are generated.
#include "engine/tools/synth/builtin_corpus.h"

#include <string_view>

namespace engine::synth {

namespace {

constexpr std::string_view kProse =
    R"(Chess is a board game for two players, White and Black, who move in turn.
Each side starts with sixteen pieces: one king, one queen, two rooks, two bishops, two knights and
eight pawns. The goal of the game is to checkmate the opposing king, which means the king is
attacked and there is no legal move that removes the attack. A game can also end in a draw by
stalemate, by agreement, by threefold repetition, by the fifty-move rule, or when neither side has
enough material left to force checkmate.

The board has sixty-four squares in eight files and eight ranks. Files are named with the letters
a to h from White's left to right, and ranks with the numbers 1 to 8 from White's side of the
board. A square is written as its file and rank, such as e4 or g7. In standard algebraic notation
a move names the piece and the square it moves to: Nf3 moves a knight to f3, Bb5 moves a bishop to
b5, and a pawn move is written with the square alone, as in e4 or d5. A capture adds an x, as in
Bxc6 or exd5, a check adds a plus sign, and checkmate adds a hash. Castling on the king's side is
written O-O and castling on the queen's side O-O-O. A pawn that reaches the last rank promotes, as
in e8=Q.

In UCI notation a move is written as the square the piece leaves followed by the square it reaches,
so the same opening moves are e2e4, g1f3 and f1b5. Promotion adds the new piece in lower case, as in
e7e8q, and castling is the king's move, such as e1g1 or e8c8. A position is given in FEN: the pieces
rank by rank from the eighth, the side to move, the castling rights, the en passant square, and the
move counters.

Janggi is the Korean relative of chess, played on a board of nine files and ten ranks. The two
sides are Cho, who plays blue or green and moves first, and Han, who plays red. Each side has a
general, two guards, two elephants, two horses, two chariots, two cannons and five soldiers. The
general and the guards stay inside the palace, a square of nine points marked with diagonal lines.
The chariot moves like a rook, the horse moves one point straight and then one point diagonally,
and the elephant moves one point straight and then two points diagonally. The cannon must jump over
exactly one piece to move or to capture, and it may never jump over or capture another cannon.
Soldiers move forward or sideways one point at a time. A player may pass instead of moving. When the
two generals face each other on an open file, the position is called bikjang, and the game may end
in a draw counted by the material on the board.

You are playing chess as White. It is your turn to move. The current position is shown below,
followed by the list of legal moves. Think about the position, then reply with exactly one legal
move in UCI notation and nothing else. If your answer is not a legal move, you lose the game.
You are playing janggi as Cho. Reply with your move as the square of the piece and the square it
moves to, for example h1g3 or a4a5. To pass, write the square of your general twice.
The opponent played e7e5. Your move:
Good moves control the center, develop the knights and bishops early, keep the king safe by
castling, and connect the rooks. A strong player looks for checks, captures and threats first, and
asks what the opponent wants to do next. In the endgame the king becomes an active piece, and
passed pawns must be pushed.

Final result: White wins by checkmate. Black resigned. The game is drawn by repetition.
Score: 1-0, 0-1, 1/2-1/2. Rating: 1500, elo 2000. Time control: 5 minutes per side.
rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1
rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1
rnbqkbnr/pp1ppppp/8/2p5/4P3/5N2/PPPP1PPP/RNBQKB1R b KQkq - 1 2
rnba1abnr/4k4/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/4K4/RNBA1ABNR w - - 0 1
)";

// The Ruy Lopez, Morphy Defence, closed line: SAN then the same moves in UCI.
constexpr std::string_view kMoves =
    R"(1. e4 e5 2. Nf3 Nc6 3. Bb5 a6 4. Ba4 Nf6 5. O-O Be7 6. Re1 b5 7. Bb3 d6 8. c3 O-O
9. h3 Nb8 10. d4 Nbd7 11. Nbd2 Bb7 12. Bc2 Re8 13. Nf1 Bf8 14. Ng3 g6 15. a4 c5 16. d5 c4
e2e4 e7e5 g1f3 b8c6 f1b5 a7a6 b5a4 g8f6 e1g1 f8e7 f1e1 b7b5 a4b3 d7d6 c2c3 e8g8
h2h3 c6b8 d2d4 b8d7 b1d2 c8b7 b3c2 f8e8 d2f1 e7f8 f1g3 g7g6 a2a4 c7c5 d4d5 c5c4
1. d4 d5 2. c4 e6 3. Nc3 Nf6 4. Bg5 Be7 5. e3 O-O 6. Nf3 Nbd7 7. Rc1 c6 8. Bd3 dxc4 9. Bxc4 Nd5
1. e4 c5 2. Nf3 d6 3. d4 cxd4 4. Nxd4 Nf6 5. Nc3 a6 6. Be3 e5 7. Nb3 Be6 8. f3 Be7 9. Qd2 O-O
10. O-O-O Nbd7 11. g4 b5 12. g5 b4 13. Ne2 Ne8 14. f4 a5 15. f5 a4 16. fxe6 axb3 17. exf7+ Rxf7
Legal moves: e2e4 d2d4 g1f3 b1c3 c2c4 g2g3 b2b3 f2f4 a2a3 h2h3 e2e3 d2d3 g1h3 b1a3
Cho moves: a4a5 c4c5 e4e5 g4g5 i4i5 b3e3 h3e3 b1c3 h1g3 a1a2 i1i2 e2e2 d1d2 f1f2
)";

std::string build() {
  std::string text(kProse);
  text += kMoves;
  // Every chess square, then every janggi point (files a-i, ranks 1-10), one rank per line.
  for (char rank = '1'; rank <= '8'; ++rank) {
    for (char file = 'a'; file <= 'h'; ++file) text += std::string{' ', file, rank};
    text += '\n';
  }
  for (int rank = 1; rank <= 10; ++rank) {
    for (char file = 'a'; file <= 'i'; ++file) text += ' ' + std::string(1, file) + std::to_string(rank);
    text += '\n';
  }
  return text;
}

}  // namespace

const std::string& builtin_corpus() {
  static const std::string kCorpus = build();
  return kCorpus;
}

}  // namespace engine::synth
