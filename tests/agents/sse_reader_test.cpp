// SseReader: events split across arbitrary pieces come out whole, line by line, with the value's
// one leading space dropped, "\r\n" line ends, comments skipped and a last unterminated event
// passed on by finish().
#include "agents/backend/sse_reader.h"

#include <catch2/catch.hpp>
#include <string>
#include <utility>
#include <vector>

namespace {

using Lines = std::vector<std::pair<std::string, std::string>>;

agents::backend::SseLine collect(Lines& out) {
  return [&out](std::string_view field, std::string_view value) { out.emplace_back(field, value); };
}

}  // namespace

TEST_CASE("SseReader passes each line of every complete event, however the bytes are split", "[agents]") {
  const std::string stream =
      "data: {\"a\":1}\n\n: a comment\r\ndata:{\"b\":2}\r\nid: 7\n\nerror: {\"c\":3}\n\ndata: [DONE]";
  const Lines expected = {
      {"data", "{\"a\":1}"}, {"data", "{\"b\":2}"}, {"id", "7"}, {"error", "{\"c\":3}"}, {"data", "[DONE]"}};
  for (size_t piece : {size_t{1}, size_t{3}, size_t{7}, stream.size()}) {
    INFO("pieces of " << piece << " bytes");
    Lines lines;
    agents::backend::SseReader reader;
    for (size_t i = 0; i < stream.size(); i += piece) reader.feed(stream.substr(i, piece), collect(lines));
    CHECK(lines.size() == 4);  // the last event has no blank line after it yet
    reader.finish(collect(lines));
    CHECK(lines == expected);
  }
}

TEST_CASE("SseReader gives a line without a colon as a field with an empty value", "[agents]") {
  Lines lines;
  agents::backend::SseReader reader;
  reader.feed("retry\n\n\n\n", collect(lines));
  reader.finish(collect(lines));
  CHECK(lines == Lines{{"retry", ""}});
}
