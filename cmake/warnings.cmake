# Compiler warnings and sanitizers for every project target, through one interface library.
add_library(arena_options INTERFACE)
target_compile_options(arena_options INTERFACE
  $<$<COMPILE_LANGUAGE:CXX>:-Wall -Wextra -Wpedantic -Wno-psabi>)
if(ARENA_WERROR)
  target_compile_options(arena_options INTERFACE $<$<COMPILE_LANGUAGE:CXX>:-Werror>)
endif()
if(ARENA_SANITIZE)
  target_compile_options(arena_options INTERFACE
    $<$<COMPILE_LANGUAGE:CXX>:-fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined>)
  target_link_options(arena_options INTERFACE -fsanitize=address,undefined)
endif()

# SIMD: the CPU kernels pick AVX2 / AVX-512 paths at run time, so the baseline stays portable.
include(CheckCXXCompilerFlag)
check_cxx_compiler_flag(-mavx2 ARENA_HAVE_AVX2_FLAG)
check_cxx_compiler_flag(-mavx512f ARENA_HAVE_AVX512_FLAG)
