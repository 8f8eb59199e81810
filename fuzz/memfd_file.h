// A fuzz input as a file: GgufFile reads paths (it maps them), so the bytes go into an
// anonymous in-memory file (memfd) opened through /proc/self/fd. No disk is touched.
#pragma once

#include <sys/mman.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <string>

#include "fuzz/fuzz_check.h"

namespace fuzz {

class MemFile {
 public:
  MemFile(const uint8_t* data, size_t size) : fd_(memfd_create("fuzz", MFD_CLOEXEC)) {
    FUZZ_CHECK(fd_ >= 0);
    for (size_t done = 0; done < size;) {
      const ssize_t n = write(fd_, data + done, size - done);
      FUZZ_CHECK(n > 0);
      done += static_cast<size_t>(n);
    }
    path_ = "/proc/self/fd/" + std::to_string(fd_);
  }
  ~MemFile() { close(fd_); }
  MemFile(const MemFile&) = delete;
  MemFile& operator=(const MemFile&) = delete;

  const std::string& path() const { return path_; }

 private:
  int fd_;
  std::string path_;
};

}  // namespace fuzz
