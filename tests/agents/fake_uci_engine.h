// Test helper: a scriptable fake UCI engine (a small bash script written to a temporary file), to
// make an engine misbehave on purpose. Its first argument picks the behaviour on `go`:
//   answer MOVE     info + "bestmove MOVE"        garbage TEXT   prints TEXT instead of a bestmove
//   silent          never answers go              exit CODE      exits with CODE
//   flood           info lines without end         stop / kill    SIGSTOP / SIGKILL to itself
// and an optional second argument N makes it answer only the first N `isready` (then never).
#pragma once

#include <sys/stat.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <string>

namespace agents::test {

inline constexpr const char* kFakeEngineScript = R"(#!/bin/bash
mode="$1"; arg="$2"; ready_limit="${3:--1}"; ready_count=0
while IFS= read -r line; do
  case "$line" in
    uci) echo "id name FakeEngine $mode"; echo "option name Hash type spin default 16 min 1 max 64"; echo uciok ;;
    isready)
      if [ "$ready_limit" -lt 0 ] || [ "$ready_count" -lt "$ready_limit" ]; then echo readyok; fi
      ready_count=$((ready_count + 1)) ;;
    go*)
      case "$mode" in
        answer) echo "info depth 1 score cp 12 pv $arg"; echo "bestmove $arg" ;;
        garbage) echo "$arg" ;;
        exit) exit "$arg" ;;
        silent) ;;
        flood) while :; do echo "info depth 1 score cp 0 nodes 1 string flooding the pipe"; done ;;
        stop) kill -STOP $$ ;;
        kill) kill -KILL $$ ;;
      esac ;;
    quit) exit 0 ;;
  esac
done
)";

// The path of the fake engine script (written once per test process into a temporary folder, which
// goes away when the process ends).
inline std::string fake_engine_path() {
  struct Script {
    std::filesystem::path dir =
        std::filesystem::temp_directory_path() / ("arena-fake-uci-" + std::to_string(::getpid()));
    std::string path;
    Script() {
      std::filesystem::create_directories(dir);
      const auto file = dir / "fake_uci_engine.sh";
      std::ofstream(file) << kFakeEngineScript;
      ::chmod(file.c_str(), 0755);
      path = file.string();
    }
    ~Script() {
      std::error_code ec;
      std::filesystem::remove_all(dir, ec);
    }
  };
  static const Script script;
  return script.path;
}

}  // namespace agents::test
