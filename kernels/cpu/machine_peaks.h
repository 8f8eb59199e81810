// This machine's own limits, measured on the spot, for judging kernel speeds against them: the
// memory read bandwidth (a streaming sum over a buffer far larger than the caches), the F32 FMA
// peak and the int8 dot-product peak (with the instructions the quantized kernels of the SIMD
// level in use run: AVX-512 VNNI's vpdpbusd, else AVX2's vpmaddubsw then vpmaddwd), each over
// all threads of a pool.
#pragma once

#include <cstddef>
#include <cstdint>

#include "kernels/cpu/huge_buffer.h"

namespace kernels {

class ThreadPool;

// A buffer of about `bytes` (huge pages, each thread's share first touched by that thread) that
// pass() reads through once with every thread of `pool`: for timing memory reads between other
// work, as `arena bench forward --bandwidth` does between decode steps.
class ReadStream {
 public:
  ReadStream(ThreadPool& pool, size_t bytes);
  bool ok() const { return memory_ != nullptr; }  // false when the buffer could not be allocated
  size_t bytes() const { return words_ * sizeof(uint64_t); }
  double pass();  // seconds one read of the whole buffer took (0 if !ok())

 private:
  ThreadPool& pool_;
  size_t words_;
  HugeBuffer memory_;
  uint64_t sink_ = 0;  // the sums, kept so the reads are not optimized away
};

// Bytes per second read by every thread of `pool` streaming over its share of a `bytes` buffer
// (best of `repeats` passes).
double measure_read_bandwidth(ThreadPool& pool, size_t bytes, int repeats);

// F32 multiply-adds per second (an FMA counts once) over all threads, running about `seconds`;
// 0 when this CPU has no AVX2 + FMA.
double measure_fma_peak(ThreadPool& pool, double seconds);

// int8 multiply-adds per second over all threads, running about `seconds`, with the instruction
// the quantized kernels of this process's level use (int8_dot_instruction()); 0 when this CPU
// has no AVX2.
double measure_int8_dot_peak(ThreadPool& pool, double seconds);
// "vpdpbusd zmm" (AVX-512 VNNI) or "vpmaddubsw+vpmaddwd ymm" (AVX2).
const char* int8_dot_instruction();

// The per-thread loops behind the peaks (AVX2 builds; 0 elsewhere): `iterations` rounds of
// independent FMA (or int8 dot) chains; returns multiply-adds done.
double fma_peak_loop(long iterations);
double int8_dot_peak_loop(long iterations);
// The same with 512-bit FMAs and VNNI's vpdpbusd (AVX-512 builds; 0 elsewhere).
double avx512_fma_peak_loop(long iterations);
double avx512_int8_dot_peak_loop(long iterations);
// The sum of `words` words read in order (256-bit loads, four accumulators in AVX2 builds,
// only called when the CPU has AVX2; a plain loop elsewhere).
uint64_t read_stream_loop(const uint64_t* data, size_t words);

}  // namespace kernels
