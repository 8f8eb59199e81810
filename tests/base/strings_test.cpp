// base/strings.h: trim, to_lower and split on the edge cases their callers rely on.
#include "base/strings.h"

#include <catch2/catch.hpp>
#include <string_view>
#include <vector>

TEST_CASE("base::trim drops ASCII whitespace at both ends only", "[base]") {
  CHECK(base::trim("  a b\t\r\n") == "a b");
  CHECK(base::trim("\v\fx\f\v") == "x");
  CHECK(base::trim(" \t\r\n").empty());
  CHECK(base::trim("").empty());
  CHECK(base::trim("\xC2\xA0x") == "\xC2\xA0x");  // a UTF-8 no-break space is not ASCII whitespace
}

TEST_CASE("base::to_lower lower-cases ASCII letters only", "[base]") {
  CHECK(base::to_lower("Q8_0 TRUE yes") == "q8_0 true yes");
  CHECK(base::to_lower("\xC3\x89t\xC3\xA9") == "\xC3\x89t\xC3\xA9");  // UTF-8 bytes unchanged
}

TEST_CASE("base::split keeps empty parts", "[base]") {
  using V = std::vector<std::string_view>;
  CHECK(base::split("a,,b", ',') == V{"a", "", "b"});
  CHECK(base::split("", '/') == V{""});
  CHECK(base::split("/x/", '/') == V{"", "x", ""});
  CHECK(base::split("rnbq", '/') == V{"rnbq"});
}

TEST_CASE("base::split_words splits on runs of whitespace", "[base]") {
  using V = std::vector<std::string_view>;
  CHECK(base::split_words("  8/8 w\t- -\r\n") == V{"8/8", "w", "-", "-"});
  CHECK(base::split_words(" \t ").empty());
  CHECK(base::split_words("one") == V{"one"});
}
