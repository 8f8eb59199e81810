// A broken invariant that must stop the program in every build (an assert vanishes under NDEBUG
// and would let the code run on with garbage): prints where and what to stderr, then aborts.
// For "cannot happen" branches whose inputs were validated upstream (e.g. a tensor type the
// model loader accepted); bad input itself is reported with an error value, never with this.
#pragma once

#include <cstdio>
#include <cstdlib>

namespace kernels {

// Prints "arena: internal error at FILE:LINE: WHAT" and aborts.
[[noreturn]] inline void unreachable(const char* what, const char* file, int line) {
  std::fprintf(stderr, "arena: internal error at %s:%d: %s\n", file, line, what);
  std::fflush(stderr);
  std::abort();
}

}  // namespace kernels

// kernels::unreachable at the current source line.
#define ARENA_UNREACHABLE(what) ::kernels::unreachable((what), __FILE__, __LINE__)
