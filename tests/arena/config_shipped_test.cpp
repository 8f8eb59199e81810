// Every config shipped in configs/ (and its eval/ folder) loads without an error or warning (the default
// model and two-models.yaml's ARENA_MODEL_B stand in with a shared test model), and its resolved form loads
// back to the same hash.
#include <catch2/catch.hpp>
#include <cstdlib>

#include "arena/config/loader.h"
#include "arena/config/resolved.h"
#include "tests/arena/config_test_paths.h"
#include "tests/common/testdata.h"

using namespace arena::config;

TEST_CASE("every shipped config is valid", "[arena]") {
  const auto source = arena::test::source_dir();
  REQUIRE(source);
  ARENA_REQUIRE_TESTDATA(model, "models/qwen2-bpe-tied-f32.gguf");
  std::vector<std::filesystem::path> files;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(*source / "configs"))
    if (entry.path().extension() == ".yaml") files.push_back(entry.path());
  std::sort(files.begin(), files.end());
  REQUIRE(files.size() >= 9);
  for (const auto& file : files) {
    SECTION(file.filename().string()) {
      LoadOptions options;
      options.default_model_path = model.string();
      const std::string testdata = arena::test::testdata_dir()->string();
      options.get_env = [testdata](const std::string& name) -> std::optional<std::string> {
        if (name == "ARENA_TESTDATA") return testdata;
        if (name == "ARENA_MODEL_B") return testdata + "/models/qwen2-bpe-tied-f32.gguf";
        if (const char* v = std::getenv(name.c_str())) return std::string(v);
        return std::nullopt;
      };
      std::vector<Diagnostic> warnings;
      options.warnings = &warnings;
      const auto r = load_config(file, options);
      INFO((r ? std::string() : format_diagnostics(r.error())));
      REQUIRE(r);
      CHECK(format_diagnostics(warnings) == "");
      CHECK(r->tournament.agents.size() >= 2);
      const auto again = load_config_from_string(resolved_yaml(*r), file.string(), options);
      INFO((again ? std::string() : format_diagnostics(again.error())));
      REQUIRE(again);
      CHECK(config_hash(*again) == config_hash(*r));
    }
  }
}
