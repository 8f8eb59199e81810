# End-to-end regression checks for bad input that used to crash, hang or answer wrongly
# (issue 11): overflowing plan figures, unbounded --threads, a tiny temperature, EPD counts that
# overflow and files that never end a line, UCI engines that never answer, synth writing through
# FIFOs and symlinks or leaving its .part behind when killed, janggi FEN digit runs.
# Run by CTest as: cmake -DARENA=<path to arena> -DWORK=<scratch folder> -P reliability_test.cmake
if(NOT WORK)
  set(WORK ${CMAKE_CURRENT_BINARY_DIR}/reliability_work)
endif()
file(REMOVE_RECURSE ${WORK})
file(MAKE_DIRECTORY ${WORK})

# Runs arena ARGS (under TIMEOUT seconds, default 60) and checks the exit code and output.
function(expect_run)
  cmake_parse_arguments(ARG "" "CODE;MATCH;TIMEOUT" "ARGS" ${ARGN})
  if(NOT ARG_TIMEOUT)
    set(ARG_TIMEOUT 60)
  endif()
  execute_process(COMMAND ${ARENA} ${ARG_ARGS} RESULT_VARIABLE code OUTPUT_VARIABLE out ERROR_VARIABLE err
                  TIMEOUT ${ARG_TIMEOUT})
  if(NOT code STREQUAL ARG_CODE)
    message(FATAL_ERROR "arena ${ARG_ARGS}: exit code '${code}', expected ${ARG_CODE}\nstdout:\n${out}\nstderr:\n${err}")
  endif()
  if(NOT "${out}${err}" MATCHES "${ARG_MATCH}")
    message(FATAL_ERROR "arena ${ARG_ARGS}: output does not match '${ARG_MATCH}'\nstdout:\n${out}\nstderr:\n${err}")
  endif()
  set(last_out "${out}" PARENT_SCOPE)
  message(STATUS "ok: arena ${ARG_ARGS} -> ${code}")
endfunction()

# A tiny random model for the commands that need one.
set(model ${WORK}/tiny.gguf)
expect_run(ARGS synth --shape tiny --dtype f32 -o ${model} CODE 0 MATCH "wrote")

# arena plan: KV bytes that overflow 64 bits are refused (this was a SIGFPE).
expect_run(ARGS plan --model ${model} --context 36028797018963968 --memory 8GiB CODE 1
           MATCH "does not fit in 64 bits")
expect_run(ARGS plan --model ${model} --context 1099511627776 --agents 2000000000 CODE 1
           MATCH "2000000000 agents at context 1099511627776 need more than 2\\^64 bytes")
expect_run(ARGS plan --model ${model} --context 4096 --memory 8GiB CODE 0 MATCH "concurrent requests")

# Requests longer than the model's context (2048 tokens for the tiny shape) are refused before
# anything is allocated, naming both numbers (issue 25: --prompt-tokens 1048576 allocated 5.8 GB
# and died in std::bad_alloc).
expect_run(ARGS bench forward --model ${model} --prompt-tokens 1048576 --gen-tokens 0 --repeat 1 CODE 1
           MATCH "1048576 prompt \\+ 0 generated tokens per stream = 1048576 is more than the model's context of 2048")
expect_run(ARGS bench serve --model ${model} --agents 1 --ticks 2 --system-tokens 4000 --modes continuous
           CODE 2 MATCH "every agent needs 4144 tokens of context .* more than the model's context of 2048")
string(REPEAT "a b c d " 1200 long_prompt)
expect_run(ARGS generate --model ${model} --prompt "${long_prompt}" -n 4 CODE 1
           MATCH "prompt of [0-9]+ tokens exceeds the model's context of 2048")
string(REPEAT "1 " 3000 ids)
file(WRITE ${WORK}/long.cases "logits ${ids}|1\n")
expect_run(ARGS eval --model ${model} --cases ${WORK}/long.cases CODE 1
           MATCH "long.cases:1: 3000 tokens and 1 greedy steps need 3000 positions, more than the model's context of 2048")

# --threads is bounded (4 x the hardware threads) wherever a model is loaded, and for synth.
expect_run(ARGS generate --model ${model} --prompt hi -n 1 --threads 100000 CODE 1
           MATCH "--threads 100000 is more than 4 x the [0-9]+ hardware threads")
expect_run(ARGS synth --shape tiny --dtype f32 --threads 100000 -o ${WORK}/never.gguf CODE 2 MATCH "use at most")

# A tiny positive temperature gives the greedy answer, not garbage.
expect_run(ARGS generate --model ${model} --prompt "Hello there" -n 12 --ignore-eos --temp 0 CODE 0 MATCH "")
set(greedy "${last_out}")
expect_run(ARGS generate --model ${model} --prompt "Hello there" -n 12 --ignore-eos --temp 1e-38 --seed 3 CODE 0
           MATCH "")
if(NOT last_out STREQUAL greedy)
  message(FATAL_ERROR "--temp 1e-38 differs from greedy:\n${last_out}\nvs\n${greedy}")
endif()

# EPD: a count that overflows is refused, and a file that never ends a line fails fast.
file(WRITE ${WORK}/overflow.epd "4k3/8/8/8/8/8/8/4K2R w K - 0 1 ;D1 99999999999999999999999\n")
expect_run(ARGS perft --epd ${WORK}/overflow.epd CODE 1 MATCH "overflow.epd:1: .*does not fit in 64 bits")
expect_run(ARGS perft --epd /dev/zero CODE 1 MATCH "/dev/zero:1: line longer than 4096 bytes" TIMEOUT 10)

# Janggi FEN: two counts in a row are refused.
expect_run(ARGS perft --game janggi --depth 1
           --fen "rnba1abnr/4k4/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/4K4/RNBA1ABN11 w - - 0 1" CODE 1
           MATCH "two counts in a row")

# bench perft: an engine that never answers (cat echoes), or floods lines (yes), times out.
expect_run(ARGS bench perft --stockfish /bin/cat --fairy-stockfish /usr/bin/yes --chess-depth 1
           --janggi-depth 1 --repeat 1 --engine-timeout 1 CODE 0
           MATCH "chess +1 .*did not answer 'uci'.*janggi +1 .*did not answer 'uci'" TIMEOUT 30)

# synth writes only regular files: a FIFO, a symlink, a device or a directory is refused.
execute_process(COMMAND mkfifo ${WORK}/fifo RESULT_VARIABLE fifo_code)
if(fifo_code EQUAL 0)
  expect_run(ARGS synth --shape tiny --dtype f32 -o ${WORK}/fifo CODE 1 MATCH "is not a regular file \\(a FIFO\\)")
endif()
file(WRITE ${WORK}/target.txt "keep me")
file(CREATE_LINK ${WORK}/target.txt ${WORK}/link.gguf SYMBOLIC)
expect_run(ARGS synth --shape tiny --dtype f32 -o ${WORK}/link.gguf CODE 1 MATCH "a symbolic link")
file(READ ${WORK}/target.txt kept)
if(NOT IS_SYMLINK ${WORK}/link.gguf OR NOT kept STREQUAL "keep me")
  message(FATAL_ERROR "synth changed the symlink or its target")
endif()
expect_run(ARGS synth --shape tiny --dtype f32 -o /dev/null CODE 1 MATCH "a device")
expect_run(ARGS synth --shape tiny --dtype f32 -o ${WORK} CODE 1 MATCH "a directory")

# synth killed while writing leaves no .part behind (SIGTERM and SIGINT).
foreach(sig TERM INT)
  set(big ${WORK}/big-${sig}.gguf)
  execute_process(COMMAND timeout -s ${sig} 3 ${ARENA} synth --shape llama-3.2-1b --dtype q4_k --threads 1 -o ${big}
                  RESULT_VARIABLE code OUTPUT_QUIET ERROR_QUIET TIMEOUT 60)
  if(NOT code EQUAL 124 OR EXISTS ${big}.part OR EXISTS ${big})
    message(FATAL_ERROR "synth killed by SIG${sig}: exit ${code}; ${big}.part or ${big} left behind")
  endif()
  message(STATUS "ok: synth killed by SIG${sig} left nothing behind")
endforeach()

file(REMOVE_RECURSE ${WORK})
