// Broken configs: each file of tests/data/configs/ lists the errors it must produce
// (`# expect: LINE:COL: MESSAGE`); the loader must report exactly those, all at once, with
// their places and the nearest-key suggestions. Plus inline cases for the fuzz entry point.
#include <catch2/catch.hpp>
#include <fstream>

#include "arena/config/loader.h"
#include "tests/arena/config_test_paths.h"
#include "tests/common/testdata.h"

using namespace arena::config;

namespace {

struct Expected {
  int32_t line = 0, column = 0;
  std::string message;
};

std::vector<Expected> expectations(const std::filesystem::path& file) {
  std::vector<Expected> out;
  std::ifstream in(file);
  const std::string tag = "# expect: ";
  for (std::string line; std::getline(in, line);) {
    if (!line.starts_with(tag)) continue;
    Expected e;
    const std::string rest = line.substr(tag.size());
    const size_t colon1 = rest.find(':'), colon2 = rest.find(':', colon1 + 1);
    e.line = std::stoi(rest.substr(0, colon1));
    e.column = std::stoi(rest.substr(colon1 + 1, colon2 - colon1 - 1));
    e.message = rest.substr(colon2 + 2);
    // {dir} stands for the folder of the config file, so expectations hold in any checkout.
    for (size_t at; (at = e.message.find("{dir}")) != std::string::npos;)
      e.message.replace(at, 5, file.parent_path().string());
    out.push_back(e);
  }
  return out;
}

}  // namespace

TEST_CASE("every broken config reports exactly its expected errors", "[arena]") {
  const auto source = arena::test::source_dir();
  REQUIRE(source);
  const auto dir = *source / "tests" / "data" / "configs";
  std::vector<std::filesystem::path> files;
  for (const auto& entry : std::filesystem::directory_iterator(dir))
    if (entry.path().extension() == ".yaml") files.push_back(entry.path());
  std::sort(files.begin(), files.end());
  REQUIRE(files.size() >= 10);
  for (const auto& file : files) {
    SECTION(file.filename().string()) {
      LoadOptions options;
      options.default_model_path = file.string();  // any existing file stands in for a model
      const auto expected = expectations(file);
      REQUIRE_FALSE(expected.empty());
      const auto r = load_config(file, options);
      REQUIRE_FALSE(r);
      const std::string all = format_diagnostics(r.error());
      INFO(all);
      REQUIRE(r.error().size() == expected.size());
      for (size_t i = 0; i < expected.size(); ++i) {
        const Diagnostic& d = r.error()[i];
        CHECK(d.file == file.string());
        CHECK(d.mark.line == expected[i].line);
        CHECK(d.mark.column == expected[i].column);
        CHECK_THAT(d.message, Catch::Contains(expected[i].message));
      }
    }
  }
}

TEST_CASE("hostile or empty text gives an error, never a crash", "[arena]") {
  const LoadOptions options;
  const std::vector<std::string> texts = {"",
                                          "~",
                                          "[]",
                                          "42",
                                          "agents: 7",
                                          "agents: [1, 2]",
                                          "agents: [{name: [x]}]",
                                          "tournament: {games: {a: b}}",
                                          "a: &x [*x]",
                                          "a: !!binary foo",
                                          "agents: [{name: a, type: llm, temperature: 1e999}]",
                                          "models: [{name: m, kv_cache_size: 99999999TiB}]",
                                          std::string(200, '[') + std::string(200, ']'),
                                          "agents: [{name: a, type: uci, command: '${A', movetime: 1s}]",
                                          "\t\x01\xff: x"};
  for (const std::string& text : texts) {
    const auto r = load_config_from_string(text, "fuzz.yaml", options);
    CHECK_FALSE(r);
    if (!r) CHECK_FALSE(r.error().empty());
  }
}

TEST_CASE("an empty config says what it needs", "[arena]") {
  const auto r = load_config_from_string("# nothing yet\n", "empty.yaml", {});
  REQUIRE_FALSE(r);
  CHECK(format_diagnostics(r.error()) ==
        "empty.yaml:1:1: the config is empty: it needs at least `agents:` (see docs/config.md)\n");
}

TEST_CASE("a missing config file is one clear error", "[arena]") {
  const auto r = load_config("no/such/config.yaml");
  REQUIRE_FALSE(r);
  CHECK(format_diagnostics(r.error()) == "no/such/config.yaml: cannot open the config file (no such file)\n");
}

TEST_CASE("text that is not UTF-8 is refused at its first bad byte", "[arena]") {
  const auto r = load_config_from_string("agents:\n  - {name: \"a\xff\", type: random}\n", "bytes.yaml", {});
  REQUIRE_FALSE(r);
  CHECK(format_diagnostics(r.error()) == "bytes.yaml:2:14: the config is not valid UTF-8 text here\n");
  const auto overlong = load_config_from_string("agents: \xc0\xaf\n", "overlong.yaml", {});
  REQUIRE_FALSE(overlong);
  CHECK(overlong.error().front().mark.column == 9);
  LoadOptions options;
  options.default_model_path = "/dev/null";
  options.check_files = false;
  CHECK(load_config_from_string(
            "agents: [{name: a, type: llm, system_prompt: \"장기 한수\"}, {name: b, type: random}]\n",
            "ko.yaml", options)
            .has_value());
}

TEST_CASE("a raw control character is refused where it stands", "[arena]") {
  // Found by config_fuzzer: yaml-cpp read a NUL inside a value as a line break.
  const std::string nul = std::string("agents:\n  - {name: \"a") + '\0' + "b\", type: random}\n";
  const auto r = load_config_from_string(nul, "nul.yaml", {});
  REQUIRE_FALSE(r);
  CHECK(format_diagnostics(r.error()) ==
        "nul.yaml:2:14: the config holds the control character U+0000, which YAML text cannot contain\n");
  for (const char* text :
       {"agents: [\x01]\n", "agents: x\x7f\n", "agents: \xc2\x9b\n", "agents: \xef\xbf\xbe\n"}) {
    INFO(text);
    const auto bad = load_config_from_string(text, "c.yaml", {});
    REQUIRE_FALSE(bad);
    CHECK_THAT(bad.error().front().message, Catch::Contains("control character"));
  }
  // The fuzz input itself: a model name holding a NUL, which came back as two lines.
  const auto found = load_config_from_string(
      arena::test::read_bytes(arena::test::fuzz_data_dir() / "config-nul-in-value.yaml"), "fuzz.yaml", {});
  REQUIRE_FALSE(found);
  CHECK(found.error().front().to_string().starts_with(
      "fuzz.yaml:18:22: the config holds the control character U+0000"));
  // Tabs, CR LF line ends and a byte-order mark are YAML text.
  CHECK(load_config_from_string("\xef\xbb\xbf"
                                "agents:\r\n  - {name: a,\ttype: random}\r\n  - {name: b, type: random}\r\n",
                                "ok.yaml", {})
            .has_value());
}

TEST_CASE("malformed ${...} in paths is an error, never a half-expanded path", "[arena]") {
  LoadOptions options;
  options.check_files = false;
  options.get_env = [](const std::string& name) -> std::optional<std::string> {
    if (name == "WEIRD") return std::string("${HOME}");
    return std::nullopt;
  };
  for (const std::string path :
       {"${X", "${1X}/m.gguf", "${A:-${B}}/m.gguf", "${}/m.gguf", "${WEIRD}/m.gguf"}) {
    const auto r = load_config_from_string("models: [{name: m, path: '" + path +
                                               "'}]\nagents: [{name: a, type: llm}, "
                                               "{name: b, type: random}]\n",
                                           "env.yaml", options);
    INFO(path);
    REQUIRE_FALSE(r);
    REQUIRE(r.error().size() == 1);
    CHECK(r.error().front().mark.line == 1);
    CHECK_THAT(r.error().front().message, Catch::Contains("'" + path + "'"));
  }
}

TEST_CASE("an unknown placeholder on a block's first line is placed in the block", "[arena]") {
  // Found by config_fuzzer: the placeholder's offset in the value was looked up on the `|` line
  // itself, past its end (a std::out_of_range that became "cannot load the config").
  const std::string text =
      "agents:\n  - {name: r, type: random}\n  - name: a\n    type: llm\n    move_template: |\n"
      "      a long first line of the block before the {zz} placeholder\n";
  const auto r = load_config_from_string(text, "block.yaml", {});
  REQUIRE_FALSE(r);
  const std::string all = format_diagnostics(r.error());
  CHECK_THAT(all, Catch::Contains("block.yaml:6:49: move_template: unknown placeholder {zz}"));
  CHECK_THAT(all, !Catch::Contains("cannot load the config"));
}
