// EPD perft-suite reader: the shared suites read back, and bad input is refused with a message
// naming the line: counts that overflow 64 bits (no silent 2^64-1), depths out of range, lines
// without counts, and a stream that never ends a line (read only up to the line bound).
#include "games/epd.h"

#include <array>
#include <catch2/catch.hpp>
#include <fstream>
#include <sstream>
#include <streambuf>

#include "tests/common/testdata.h"

using games::parse_epd_line;
using games::read_epd;

TEST_CASE("EPD lines give the FEN and every count", "[games]") {
  auto e = parse_epd_line("  8/8/8/8/8/8/8/K6k w - - 0 1 ;D1 3 ;D2\t9 ; D3 18446744073709551615  ");
  REQUIRE(e);
  REQUIRE(*e);
  CHECK((*e)->fen == "8/8/8/8/8/8/8/K6k w - - 0 1");
  CHECK((*e)->counts == std::vector<std::pair<int, uint64_t>>{{1, 3}, {2, 9}, {3, 18446744073709551615u}});
  for (const char* blank : {"", "  \t", "# comment"}) {
    const auto none = parse_epd_line(blank);
    REQUIRE(none);
    CHECK_FALSE(none->has_value());
  }
}

TEST_CASE("EPD counts that do not fit or are malformed are refused", "[games]") {
  const auto error = [](std::string_view line) {
    auto e = parse_epd_line(line);
    REQUIRE_FALSE(e);
    return e.error();
  };
  CHECK(error("K6k/8/8/8/8/8/8/8 w - - 0 1 ;D1 99999999999999999999999").find("does not fit in 64 bits") !=
        std::string::npos);
  CHECK(error("K6k/8/8/8/8/8/8/8 w - - 0 1 ;D1 18446744073709551616").find("does not fit") !=
        std::string::npos);
  CHECK(error("K6k/8/8/8/8/8/8/8 w - - 0 1 ;D0 5").find("out of range") != std::string::npos);
  CHECK(error("K6k/8/8/8/8/8/8/8 w - - 0 1 ;D21 5").find("out of range") != std::string::npos);
  CHECK(error("K6k/8/8/8/8/8/8/8 w - - 0 1 ;D99999999999 5").find("out of range") != std::string::npos);
  for (const char* bad : {"K6k/8/8/8/8/8/8/8 w - - 0 1 ;D1 -5", "K6k/8/8/8/8/8/8/8 w - - 0 1 ;D1 +5",
                          "K6k/8/8/8/8/8/8/8 w - - 0 1 ;D1 fifteen", "K6k/8/8/8/8/8/8/8 w - - 0 1 ;D1",
                          "K6k/8/8/8/8/8/8/8 w - - 0 1 ;D1 5 6", "K6k/8/8/8/8/8/8/8 w - - 0 1 ;E1 5"}) {
    INFO(bad);
    CHECK(error(bad).find("is not of the form 'Dk n'") != std::string::npos);
  }
  CHECK(error("K6k/8/8/8/8/8/8/8 w - - 0 1").find("malformed line") != std::string::npos);
  CHECK(error(";D1 5").find("malformed line") != std::string::npos);
  CHECK(error("K6k/8/8/8/8/8/8/8 w - - 0 1 ; ;").find("no ';Dk n' counts") != std::string::npos);
}

namespace {

// An endless stream of NUL bytes, like /dev/zero, counting what was read.
class Zeros : public std::streambuf {
 public:
  size_t served = 0;

 protected:
  int_type underflow() override {
    served += buffer_.size();
    setg(buffer_.data(), buffer_.data(), buffer_.data() + buffer_.size());
    return 0;
  }

 private:
  std::array<char, 256> buffer_{};
};

}  // namespace

TEST_CASE("EPD reader bounds the line length", "[games]") {
  Zeros zeros;
  std::istream in(&zeros);
  const auto r = read_epd(in, "zeros");
  REQUIRE_FALSE(r);
  CHECK(r.error() == "zeros:1: line longer than 4096 bytes (is this an EPD file?)");
  CHECK(zeros.served <= games::kMaxEpdLineBytes + 512);

  std::istringstream lines(
      "\n# suite\nK6k/8/8/8/8/8/8/8 w - - 0 1 ;D1 3\n\nK6k/8/8/8/8/8/8/8 w - - 0 1 ;D1 x\n");
  const auto bad = read_epd(lines, "s.epd");
  REQUIRE_FALSE(bad);
  CHECK(bad.error().starts_with("s.epd:5: malformed line"));
  std::istringstream last("K6k/8/8/8/8/8/8/8 w - - 0 1 ;D1 3\n8/8/8/8/8/8/8/K6k b - - 0 1 ;D1 3");
  const auto ok = read_epd(last, "t.epd");
  REQUIRE(ok);
  REQUIRE(ok->size() == 2);
  CHECK((*ok)[1].line == 2);
}

TEST_CASE("EPD reader reads the shared perft suites", "[games]") {
  for (const char* name : {"perft/chess-standard.epd", "perft/janggi-random.epd"}) {
    ARENA_REQUIRE_TESTDATA(path, name);
    std::ifstream in(path);
    const auto entries = read_epd(in, path.string());
    REQUIRE(entries);
    CHECK(entries->size() >= 5);
    for (const auto& e : *entries) CHECK_FALSE(e.counts.empty());
  }
}
