// The result files beside the event log: games.pgn (appended as games finish, rewritten in
// schedule order from the log at the start of a resumed run and at the end), and standings.json /
// standings.md / standings.txt (replaced atomically after every game).
#pragma once

#include <expected>
#include <filesystem>
#include <string>

#include "arena/tournament/game_record.h"
#include "arena/tournament/pgn_writer.h"
#include "arena/tournament/standings.h"

namespace arena::tournament {

// Writes `text` to `path` through a temporary file and a rename.
std::expected<void, std::string> write_file_atomic(const std::filesystem::path& path,
                                                   const std::string& text);

// Appends one game to games.pgn in `dir`.
std::expected<void, std::string> append_pgn(const std::filesystem::path& dir, const GameRecord& game,
                                            const PgnContext& context);

// Rewrites games.pgn in `dir` with every finished game of `book`, in schedule order.
std::expected<void, std::string> rewrite_pgn(const std::filesystem::path& dir, const GameBook& book,
                                             const PgnContext& context);

// Writes standings.json, standings.md and standings.txt in `dir`.
std::expected<void, std::string> write_standings(const std::filesystem::path& dir,
                                                 const Standings& standings);

}  // namespace arena::tournament
