// Durations, memory sizes and the nearest-key suggestion of the config loader.
#include <catch2/catch.hpp>

#include "arena/config/diagnostics.h"
#include "arena/config/units.h"

using namespace arena::config;
using std::chrono::milliseconds;

TEST_CASE("durations parse in ms, s, m, h, with decimals and several parts", "[arena]") {
  CHECK(parse_duration("500ms").value() == milliseconds(500));
  CHECK(parse_duration("2s").value() == milliseconds(2000));
  CHECK(parse_duration("1m").value() == milliseconds(60000));
  CHECK(parse_duration("1min").value() == milliseconds(60000));
  CHECK(parse_duration("1h").value() == milliseconds(3600000));
  CHECK(parse_duration("1.5s").value() == milliseconds(1500));
  CHECK(parse_duration("1m30s").value() == milliseconds(90000));
  CHECK(parse_duration(" 250ms ").value() == milliseconds(250));
  CHECK(parse_duration("0").value() == milliseconds(0));
  CHECK(parse_duration("0.0004s").value() == milliseconds(0));
}

TEST_CASE("bad durations say what is wrong", "[arena]") {
  CHECK_THAT(parse_duration("5").error(), Catch::Contains("needs a unit"));
  CHECK_THAT(parse_duration("5 parsecs").error(), Catch::Contains("needs a unit"));
  CHECK_THAT(parse_duration("5parsecs").error(), Catch::Contains("unknown unit 'parsecs'"));
  CHECK_THAT(parse_duration("-1s").error(), Catch::Contains("negative"));
  CHECK_THAT(parse_duration("").error(), Catch::Contains("empty"));
  CHECK_THAT(parse_duration("s").error(), Catch::Contains("expected a number"));
  CHECK_THAT(parse_duration("99999999999h").error(), Catch::Contains("too long"));
  CHECK_THAT(parse_duration("1.2.3s").error(), Catch::Contains("invalid duration '1.2.3s'"));
}

TEST_CASE("durations print in their largest whole unit and parse back", "[arena]") {
  for (const int64_t ms : {0, 1, 250, 1000, 1500, 60000, 90000, 3600000, 7200000}) {
    const std::string text = format_duration(milliseconds(ms));
    CHECK(parse_duration(text).value() == milliseconds(ms));
  }
  CHECK(format_duration(milliseconds(0)) == "0s");
  CHECK(format_duration(milliseconds(250)) == "250ms");
  CHECK(format_duration(milliseconds(2000)) == "2s");
  CHECK(format_duration(milliseconds(90000)) == "90s");
  CHECK(format_duration(milliseconds(300000)) == "5m");
  CHECK(format_duration(milliseconds(3600000)) == "1h");
}

TEST_CASE("memory sizes parse binary and decimal units", "[arena]") {
  CHECK(parse_memory_size("256MiB").value() == 256ull << 20);
  CHECK(parse_memory_size("1GiB").value() == 1ull << 30);
  CHECK(parse_memory_size("1.5GiB").value() == 3ull << 29);
  CHECK(parse_memory_size("512 KiB").value() == 512ull << 10);
  CHECK(parse_memory_size("2gb").value() == 2'000'000'000ull);
  CHECK(parse_memory_size("1000").value() == 1000);
  CHECK(parse_memory_size("64B").value() == 64);
  CHECK(format_memory_size(256ull << 20) == "256MiB");
  CHECK(format_memory_size(1ull << 30) == "1GiB");
  CHECK(format_memory_size(1000) == "1000B");
  CHECK(format_memory_size(0) == "0");
  CHECK(parse_memory_size(format_memory_size(3ull << 29)).value() == 3ull << 29);
  CHECK_THAT(parse_memory_size("256MiBs").error(), Catch::Contains("unknown unit 'mibs'"));
  CHECK_THAT(parse_memory_size("lots").error(), Catch::Contains("expected a number"));
  CHECK_THAT(parse_memory_size("5 MiB extra").error(), Catch::Contains("unexpected text"));
}

TEST_CASE("the nearest known name is suggested for typos only", "[arena]") {
  const std::vector<std::string> keys = {"concurrency", "games", "games_per_pairing", "seed", "tick"};
  CHECK(edit_distance("concurency", "concurrency") == 1);
  CHECK(edit_distance("", "abc") == 3);
  CHECK(edit_distance("Seed", "seed") == 0);
  CHECK(nearest_name("concurency", keys) == "concurrency");
  CHECK(nearest_name("game", keys) == "games");
  CHECK(nearest_name("games_per_paring", keys) == "games_per_pairing");
  CHECK(nearest_name("tik", keys) == "tick");
  CHECK_FALSE(nearest_name("colour", keys));
  CHECK_FALSE(nearest_name("xy", keys));
  CHECK(did_you_mean("sed", keys) == " (did you mean 'seed'?)");
  CHECK(did_you_mean("zzzzzz", keys).empty());
}

TEST_CASE("diagnostics print as file:line:col: message", "[arena]") {
  Diagnostics d("configs/x.yaml");
  d.error({3, 5}, "unknown key 'tik'");
  d.error_at("--concurrency", "must be at least 1, got 0");
  REQUIRE(d.errors().size() == 2);
  CHECK(format_diagnostics(d.errors()) ==
        "configs/x.yaml:3:5: unknown key 'tik'\n--concurrency: must be at least 1, got 0\n");
}
