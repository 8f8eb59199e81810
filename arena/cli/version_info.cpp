// Version and feature report: what this binary was built with and what this machine offers.
#include "arena/cli/version_info.h"

#include <fmt/format.h>

#include <CLI/CLI.hpp>

#include "arena/build_info.h"
#include "arena/cli/command.h"
#include "engine/api.h"

namespace arena::cli {

namespace {

std::string cuda_feature(const engine::BuildFeatures& features) {
  if (!features.cuda_compiled) return "off (built without nvcc)";
  const auto& devices = features.cuda_devices;
  if (devices.empty()) return "on (compiled in; no device found)";
  std::string text = fmt::format("on ({} device{}:", devices.size(), devices.size() == 1 ? "" : "s");
  for (const auto& d : devices)
    text += fmt::format(" [{}] {} sm_{}{} {:.1f} GiB", d.index, d.name, d.compute_major, d.compute_minor,
                        static_cast<double>(d.total_memory_bytes) / (1 << 30));
  return text + ")";
}

}  // namespace

std::string version_text() {
  const engine::BuildFeatures features = engine::build_features();
  std::string simd = features.simd;
  if (features.simd != features.simd_cpu)
    simd += fmt::format(" (ARENA_SIMD; this CPU: {})", features.simd_cpu);
  return fmt::format("arena {}\n  cuda: {}\n  simd: {}\n  build: {} ({})\n", build::version,
                     cuda_feature(features), simd, build::build_type, build::compiler);
}

void add_version_command(CLI::App& root, Action& action) {
  auto* cmd = root.add_subcommand("version", "Print the version and the build's features");
  cmd->callback([&action] {
    action = [] {
      fmt::print("{}", version_text());
      return 0;
    };
  });
}

}  // namespace arena::cli
