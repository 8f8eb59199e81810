// Locating ../shared/testdata for conformance tests, and skipping cleanly when it is absent; the
// inputs the fuzz targets found (tests/data/fuzz of the source tree).
#pragma once

#include <catch2/catch.hpp>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace arena::test {

// The shared test data folder: $ARENA_TESTDATA if set, else <source>/../shared/testdata;
// nullopt when that folder does not exist.
std::optional<std::filesystem::path> testdata_dir();

// <testdata>/<relative> when it exists, else nullopt.
std::optional<std::filesystem::path> testdata_file(const std::string& relative);

// <source>/tests/data: the project's own test data (reference answers, configs, fuzz inputs).
std::filesystem::path source_data_dir();

// <source>/tests/data/fuzz: the inputs the fuzz targets found (docs/reliability.md); an empty
// path when the folder is not there.
std::filesystem::path fuzz_data_dir();

// The files of tests/data/fuzz whose names start with `prefix`, sorted; fails the test when
// there is none.
std::vector<std::filesystem::path> fuzz_data_files(const std::string& prefix);

// The bytes of the file at `path` (empty when it cannot be read).
std::string read_bytes(const std::filesystem::path& path);

// The fuzz input tests/data/fuzz/<name> without its selector byte, or `fallback` when the folder
// is not there.
std::string fuzz_input(const std::string& name, const std::string& fallback);

}  // namespace arena::test

// Binds `var` to the test data path `relative`, or reports the test skipped (with the reason in
// the output) and returns from the test case when the data is absent.
#define ARENA_REQUIRE_TESTDATA(var, relative)                                  \
  const auto var##_opt = ::arena::test::testdata_file(relative);               \
  if (!var##_opt) {                                                            \
    WARN("SKIPPED: test data '" << (relative)                                  \
                                << "' not found (set ARENA_TESTDATA or put "   \
                                   "shared/testdata beside the source tree)"); \
    return;                                                                    \
  }                                                                            \
  const std::filesystem::path var = *var##_opt
