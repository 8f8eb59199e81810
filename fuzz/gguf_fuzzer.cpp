// Fuzz target: the GGUF reader on whole-file bytes. Properties: a file that opens has every
// tensor's bytes inside the file, each tensor's size is what its dims and type need, the bytes
// are the file's own (compared with the input), and every metadata accessor is safe to call.
// An error message is one printable line of bounded length.
#include <cstddef>
#include <cstdint>
#include <cstring>

#include "engine/gguf/gguf_file.h"
#include "fuzz/fuzz_check.h"
#include "fuzz/memfd_file.h"
#include "kernels/quant/ggml_type.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const fuzz::MemFile mem(data, size);
  const auto file = engine::gguf::GgufFile::open(mem.path());
  if (!file) {
    const auto& msg = file.error().message;
    FUZZ_CHECK(msg.size() < 1024);
    for (unsigned char c : msg) FUZZ_CHECK(c >= 0x20 && c < 0x7f);
    return 0;
  }
  FUZZ_CHECK(file->file_size() == size);
  const auto bytes = file->bytes();
  FUZZ_CHECK(bytes.size() == size);
  for (const auto& t : file->tensors()) {
    const auto traits = kernels::traits(t.type);
    FUZZ_CHECK(static_cast<uint64_t>(t.num_elements() / traits.block_size) * traits.block_bytes ==
               t.data.size());
    FUZZ_CHECK(t.data.data() >= bytes.data());
    FUZZ_CHECK(t.data.data() + t.data.size() <= bytes.data() + bytes.size());
    const size_t at = static_cast<size_t>(t.data.data() - bytes.data());
    FUZZ_CHECK(t.data.empty() || std::memcmp(t.data.data(), data + at, t.data.size()) == 0);
    FUZZ_CHECK(file->find_tensor(t.name) != nullptr);
  }
  for (const auto& [key, value] : file->metadata()) {
    (void)file->get_int(key);
    (void)file->get_float(key);
    (void)file->get_string(key);
    (void)file->get_string_array(key);
    (void)file->get_float_array(key);
    (void)file->get_int_array(key);
  }
  return 0;
}
