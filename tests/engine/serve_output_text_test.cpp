// OutputText: stop strings found across piece boundaries and cut from the text, streamed text
// never holding the start of a possible stop string or half a UTF-8 character. Histogram
// quantiles of the metrics snapshot.
#include <catch2/catch.hpp>
#include <string>

#include "engine/core/metrics.h"
#include "engine/core/output_text.h"

using engine::Histogram;
using engine::OutputText;

TEST_CASE("OutputText finds stop strings across pieces and cuts them", "[engine]") {
  OutputText t({"</move>", "\n\n"});
  std::string streamed;
  CHECK_FALSE(t.append("e2e4"));
  streamed += t.take_ready();
  CHECK(streamed == "e2e4");
  CHECK_FALSE(t.append("</mo"));
  streamed += t.take_ready();
  CHECK(streamed == "e2e4");  // "</mo" may start the stop string: held back
  CHECK(t.append("ve> and more"));
  CHECK(t.text() == "e2e4");
  streamed += t.take_rest();
  CHECK(streamed == "e2e4");
}

TEST_CASE("OutputText releases held text once it cannot become a stop string", "[engine]") {
  OutputText t({"STOP"});
  CHECK_FALSE(t.append("abST"));
  CHECK(t.take_ready() == "ab");
  CHECK_FALSE(t.append("AR"));
  CHECK(t.take_ready() == "STAR");
  CHECK(t.take_rest().empty());
}

TEST_CASE("OutputText holds back an incomplete UTF-8 character", "[engine]") {
  OutputText t;
  const std::string euro = "\xE2\x82\xAC";  // U+20AC in three bytes
  std::string first = "a";
  first.append(euro, 0, 2);
  t.append(first);
  CHECK(t.take_ready() == "a");
  t.append(euro.substr(2));
  CHECK(t.take_ready() == euro);
  t.append("\xF0\x9F");  // first half of a 4-byte character, then the generation ends
  CHECK(t.take_ready().empty());
  CHECK(t.take_rest() == "\xF0\x9F");
}

TEST_CASE("Histogram counts, sums and estimates quantiles", "[engine]") {
  auto h = Histogram::with_bounds({1, 2, 4});
  for (double v : {0.5, 1.5, 1.5, 3.0, 10.0}) h.observe(v);
  CHECK(h.count == 5);
  CHECK(h.sum == Approx(16.5));
  CHECK(h.counts == std::vector<int64_t>{1, 2, 1, 1});
  CHECK(h.quantile(0.2) == Approx(1.0));   // the first value's bucket is [0, 1]
  CHECK(h.quantile(0.5) == Approx(1.75));  // rank 2.5: three quarters into (1, 2]
  CHECK(h.quantile(1.0) == Approx(4.0));   // beyond the last bound: the last bound
  CHECK(Histogram::with_bounds({1}).quantile(0.5) == 0.0);
}
