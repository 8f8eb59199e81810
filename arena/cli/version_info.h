// The version line and the build's features, as `arena --version` prints them.
#pragma once

#include <string>

namespace arena::cli {

// "arena 0.1.0" followed by lines naming the build's features (CUDA, SIMD level, build type).
std::string version_text();

}  // namespace arena::cli
