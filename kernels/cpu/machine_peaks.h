// This machine's own limits, measured on the spot, for judging kernel speeds against them: the
// memory read bandwidth (a streaming sum over a buffer far larger than the caches), the F32 FMA
// peak and the int8 dot-product peak (the instruction sequence the AVX2 quantized kernels use:
// vpmaddubsw then vpmaddwd into int32), each over all threads of a pool.
#pragma once

#include <cstddef>
#include <cstdint>

namespace kernels {

class ThreadPool;

// Bytes per second read by every thread of `pool` streaming over its share of a `bytes` buffer
// (best of `repeats` passes).
double measure_read_bandwidth(ThreadPool& pool, size_t bytes, int repeats);

// F32 multiply-adds per second (an FMA counts once) over all threads, running about `seconds`;
// 0 when this CPU has no AVX2 + FMA.
double measure_fma_peak(ThreadPool& pool, double seconds);

// int8 multiply-adds per second over all threads (vpmaddubsw + vpmaddwd, 32 per pair), running
// about `seconds`; 0 when this CPU has no AVX2.
double measure_int8_dot_peak(ThreadPool& pool, double seconds);

// The per-thread loops behind the peaks (AVX2 builds; 0 elsewhere): `iterations` rounds of
// independent FMA (or int8 dot) chains; returns multiply-adds done.
double fma_peak_loop(long iterations);
double int8_dot_peak_loop(long iterations);
// The sum of `words` words read in order (256-bit loads, four accumulators in AVX2 builds,
// only called when the CPU has AVX2; a plain loop elsewhere).
uint64_t read_stream_loop(const uint64_t* data, size_t words);

}  // namespace kernels
