// The default prompt texts (see default_prompts.h).
#include "agents/llm/default_prompts.h"

namespace agents::llm {

namespace {

const std::string kChessSystem =
    "You are a strong chess player in a tournament. Each turn you get the board (rank 8 at the top, "
    "files a-h; uppercase = White, lowercase = Black: K king, Q queen, R rook, B bishop, N knight, "
    "P pawn; '.' = empty), the FEN, the last move and the legal moves in SAN. Mind threats, captures "
    "and your king's safety, then answer with exactly one move from the list, written as there, and "
    "nothing else.";

const std::string kJanggiSystem =
    "You are a strong janggi (Korean chess) player in a tournament. Each turn you get the board "
    "(row 10 at the top, Han's side; files a-i; uppercase = Cho, lowercase = Han: K general, A "
    "guard, B elephant, N horse, R chariot, C cannon, P soldier; '.' = empty), the last move and the "
    "legal moves in Korean numeric notation (from-point, piece, to-point; moves from one point share "
    "it: 02마83 73 means 02마83 or 02마73; 한수쉼 = pass). Mind "
    "threats, captures and your general's safety, then answer with exactly one move from the list, "
    "written as there, and nothing else.";

const std::string kChessMove =
    "{board}\nFEN: {fen}\n{side} to move. Last move: {last_move}.\nLegal moves: {legal_moves}\n"
    "{illegal_reason}Your move:";

const std::string kJanggiMove =
    "{board}\n{side} to move. Last move: {last_move}.\nLegal moves: {legal_moves_grouped}\n"
    "{illegal_reason}Your move:";

}  // namespace

const std::string& default_system_prompt(std::string_view game) {
  return game == "chess" ? kChessSystem : kJanggiSystem;
}

const std::string& default_move_template(std::string_view game) {
  return game == "chess" ? kChessMove : kJanggiMove;
}

}  // namespace agents::llm
