// Fuzz target: janggi FEN (see fen_fuzz.h for the property).
#include "fuzz/fen_fuzz.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  return fuzz::run_fen("janggi", data, size);
}
