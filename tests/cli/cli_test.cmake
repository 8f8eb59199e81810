# End-to-end checks of the arena executable's command line: help, version, usage errors.
# Run by CTest as: cmake -DARENA=<path to arena> -P cli_test.cmake
function(expect_run)
  cmake_parse_arguments(ARG "" "CODE;MATCH" "ARGS" ${ARGN})
  execute_process(COMMAND ${ARENA} ${ARG_ARGS} RESULT_VARIABLE code OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT code EQUAL ARG_CODE)
    message(FATAL_ERROR "arena ${ARG_ARGS}: exit code ${code}, expected ${ARG_CODE}\nstdout:\n${out}\nstderr:\n${err}")
  endif()
  if(NOT "${out}${err}" MATCHES "${ARG_MATCH}")
    message(FATAL_ERROR "arena ${ARG_ARGS}: output does not match '${ARG_MATCH}'\nstdout:\n${out}\nstderr:\n${err}")
  endif()
  message(STATUS "ok: arena ${ARG_ARGS} -> ${code}")
endfunction()

expect_run(ARGS --help CODE 0 MATCH "Subcommands:")
expect_run(ARGS --version CODE 0 MATCH "arena [0-9]+\\.[0-9]+\\.[0-9]+.*cuda: (on|off).*simd: (scalar|avx2|avx512)")
expect_run(ARGS version CODE 0 MATCH "simd:")
# ARENA_SIMD: a lower level is used and reported; an unknown one is refused before any work.
set(ENV{ARENA_SIMD} scalar)
expect_run(ARGS version CODE 0 MATCH "simd: scalar( \\(ARENA_SIMD. this CPU: (avx2|avx512)\\))?\n")
set(ENV{ARENA_SIMD} avx3)
expect_run(ARGS perft --depth 1 CODE 2 MATCH "error: ARENA_SIMD=avx3 is not a SIMD level \\(scalar, avx2, avx512\\)")
unset(ENV{ARENA_SIMD})
expect_run(ARGS no-such-command CODE 2 MATCH "^arena: error: unknown subcommand 'no-such-command'.*Usage: arena ")
expect_run(ARGS --no-such-flag CODE 2 MATCH "error: .*no-such-flag.*Usage:")
expect_run(ARGS version --bogus CODE 2 MATCH "error: .*bogus")
expect_run(ARGS "" CODE 2 MATCH "error: ")

# arena perft (chess): one position, divide, EPD suites, bad input.
expect_run(ARGS perft --game chess --depth 3 CODE 0 MATCH "^Nodes searched: 8902\n$")
expect_run(ARGS perft --depth 2 --divide CODE 0 MATCH "^a2a3: 20\na2a4: 20\nb1a3: 20\n.*g2g4: 20\nh2h3: 20\nh2h4: 20\n\nNodes searched: 400\n$")
expect_run(ARGS perft --fen "4k3/8/8/8/8/8/8/4K2R w K - 0 1" --depth 1 CODE 0 MATCH "Nodes searched: 15")
expect_run(ARGS perft --fen "4k3/8/8/8/8/8/8/4K3 x - - 0 1" --depth 1 CODE 1
           MATCH "FEN field 2 \\(side to move\\): expected 'w' or 'b', got 'x'")
expect_run(ARGS perft --game checkers --depth 1 CODE 2 MATCH "error: .*checkers")
expect_run(ARGS perft --game chess CODE 2 MATCH "error: --depth or --epd")
file(WRITE ${CMAKE_CURRENT_BINARY_DIR}/perft_cli_test.epd
     "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1 ;D1 20 ;D2 401 ;D3 8902\n\n"
     "4k3/8/8/8/8/8/8/4K2R w K - 0 1 ;D1 15 ;D4 99999999\n")
expect_run(ARGS perft --epd ${CMAKE_CURRENT_BINARY_DIR}/perft_cli_test.epd --max-depth 3 CODE 1
           MATCH "mismatch: line 1: rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1 depth 2: expected 401, found 400\n3 passed, 1 failed\n$")
file(WRITE ${CMAKE_CURRENT_BINARY_DIR}/perft_cli_bad.epd "4k3/8/8/8/8/8/8/4K2R w K - 0 1 ;D1 15\n4k3/8/8/8/8/8/8/4K2R w K - 0 1 ;D1 fifteen\n")
expect_run(ARGS perft --epd ${CMAKE_CURRENT_BINARY_DIR}/perft_cli_bad.epd CODE 1 MATCH "perft_cli_bad.epd:2: malformed line")
file(WRITE ${CMAKE_CURRENT_BINARY_DIR}/perft_cli_badfen.epd "4k3/8/8/8/8/8/8/4K2R w X - 0 1 ;D1 15\n")
expect_run(ARGS perft --epd ${CMAKE_CURRENT_BINARY_DIR}/perft_cli_badfen.epd CODE 1
           MATCH "perft_cli_badfen.epd:1: FEN field 3 \\(castling\\)")
expect_run(ARGS perft --epd no-such-file.epd CODE 1 MATCH "cannot read EPD file 'no-such-file.epd'")

# arena bench perft: runs with or without the reference engines installed.
expect_run(ARGS bench CODE 2 MATCH "error: .*Subcommands:.*perft")
expect_run(ARGS bench perft --repeat 1 --chess-depth 3 --janggi-depth 2 --stockfish /no/such/stockfish CODE 0
           MATCH "chess +3  arena +8902 .*chess +3  /no/such/stockfish +not installed")

# arena tokenize: usage and input errors; with the shared test data, ids of a text and a whole
# llama.cpp test file reproduced byte for byte.
expect_run(ARGS tokenize "x" CODE 2 MATCH "error: --model is required")
expect_run(ARGS tokenize --model no-such-model.gguf CODE 2 MATCH "error: give either TEXT or --cases FILE")
expect_run(ARGS tokenize --model no-such-model.gguf "x" CODE 1 MATCH "no-such-model.gguf: cannot open")
if(DEFINED ENV{ARENA_TESTDATA})
  set(tokenize_data "$ENV{ARENA_TESTDATA}/tokenizers")
else()
  set(tokenize_data "${CMAKE_CURRENT_LIST_DIR}/../../../shared/testdata/tokenizers")
endif()
if(EXISTS "${tokenize_data}/vocab-qwen3.gguf")
  expect_run(ARGS tokenize --model ${tokenize_data}/vocab-qwen3.gguf "Hello world" CODE 0 MATCH "^9707 1879\n$")
  expect_run(ARGS tokenize --model ${tokenize_data}/vocab-qwen3.gguf --parse-special "<|im_start|>user" CODE 0
             MATCH "^151644 872\n$")
  expect_run(ARGS tokenize --model ${tokenize_data}/vocab-qwen3.gguf --cases no-such-file.inp CODE 1
             MATCH "cannot open tokenizer cases file 'no-such-file.inp'")
  execute_process(COMMAND ${ARENA} tokenize --model ${tokenize_data}/ggml-vocab-gpt-2.gguf
                          --cases ${tokenize_data}/ggml-vocab-gpt-2.inp
                  RESULT_VARIABLE code OUTPUT_VARIABLE out)
  file(READ "${tokenize_data}/ggml-vocab-gpt-2.out" expected)
  if(NOT code EQUAL 0 OR NOT out STREQUAL expected)
    message(FATAL_ERROR "arena tokenize --cases ggml-vocab-gpt-2.inp: exit ${code}, output differs from the .out file")
  endif()
  message(STATUS "ok: arena tokenize --cases ggml-vocab-gpt-2.inp reproduces ggml-vocab-gpt-2.out")
else()
  message(STATUS "skipped: arena tokenize on test vocabularies (no ${tokenize_data})")
endif()
expect_run(ARGS bench perft --json --repeat 1 --chess-depth 2 --janggi-depth 1 --stockfish /no/sf --fairy-stockfish /no/fsf
           CODE 0 MATCH "\"benchmark\": \"perft\".*\"nodes\": 400.*\"status\": \"not installed\"")

# arena bench serve on a tiny synthetic model: every mode runs, the modes take turns tick by
# tick, and the JSON holds each mode's requests.
set(serve_model ${CMAKE_CURRENT_BINARY_DIR}/serve_cli_tiny.gguf)
expect_run(ARGS synth --shape tiny --dtype f32 -o ${serve_model} CODE 0 MATCH "")
set(serve_args bench serve --model ${serve_model} --agents 3 --system-tokens 32 --prompt-tokens 8 --gen-tokens 3 --ticks 2)
expect_run(ARGS ${serve_args} --json ${CMAKE_CURRENT_BINARY_DIR}/serve_cli.json CODE 0
           MATCH "sequential .*static .*continuous .*continuous\\+prefix .*requests/s vs sequential: static [0-9.]+x continuous [0-9.]+x continuous\\+prefix [0-9.]+x.*tick 1/2: sequential [0-9.]+ s static [0-9.]+ s continuous [0-9.]+ s continuous\\+prefix [0-9.]+ s\ntick 2/2: ")
file(READ ${CMAKE_CURRENT_BINARY_DIR}/serve_cli.json serve_json)
string(REGEX MATCHALL "\"requests\": 6," serve_requests "${serve_json}")
list(LENGTH serve_requests serve_modes)
if(NOT serve_modes EQUAL 4)
  message(FATAL_ERROR "arena bench serve --json: ${serve_modes} modes with 6 requests, expected 4:\n${serve_json}")
endif()
expect_run(ARGS ${serve_args} --modes continuous,batched CODE 2
           MATCH "^arena bench serve: error: --modes: unknown mode 'batched'")
# A KV budget that holds no block is refused at once (0 does not mean "the machine's memory").
expect_run(ARGS ${serve_args} --kv-memory 0 CODE 2
           MATCH "^arena bench serve: error: --kv-memory 0 holds no KV block: one block of 8 tokens takes ")
expect_run(ARGS ${serve_args} --kv-memory 12 CODE 2 MATCH "error: --kv-memory 12 holds no KV block")

# One error style: "arena CMD: error: ...", the usage of CMD ("Usage: arena CMD"), exit 2 for every
# bad argument (NaN and out-of-range numbers with readable bounds included).
expect_run(ARGS generate --model m.gguf --prompt hi --temp nan CODE 2
           MATCH "^arena generate: error: --temp: nan is not a finite number\n\n.*\nUsage: arena generate ")
expect_run(ARGS generate --model m.gguf --prompt hi --temp 1000 CODE 2 MATCH "--temp: 1000 is above the maximum 100\n")
expect_run(ARGS generate --model m.gguf --prompt hi --top-k -1 CODE 2 MATCH "--top-k: -1 is below the minimum 0\n")
expect_run(ARGS generate --model m.gguf --prompt hi --kv-dtype q4 CODE 2 MATCH "^arena generate: error: --kv-dtype: ")
expect_run(ARGS bench serve --bogus CODE 2 MATCH "^arena bench serve: error: .*bogus.*Usage: arena bench serve ")
expect_run(ARGS generate --model no-such-model.gguf --prompt hi CODE 1
           MATCH "^arena generate: error: no-such-model.gguf: cannot open")
expect_run(ARGS eval --model no-such-model.gguf --cases no-such-cases.txt CODE 1 MATCH "^arena eval: error: ")
expect_run(ARGS bench forward --model no-such-model.gguf CODE 1
           MATCH "^arena bench forward: error: no-such-model.gguf: cannot open")
# arena dataset: training examples through the default model's agent (its prompts, the tiny
# model's tokenizer); a label arena refuses ends that game; a broken line names file and line.
set(dataset_config ${CMAKE_CURRENT_LIST_DIR}/../../configs/eval/model-vs-random.yaml)
set(games ${CMAKE_CURRENT_BINARY_DIR}/dataset_games.jsonl)
file(WRITE ${games} "{\"variant\": \"chess\", \"fen\": \"rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1\", \"moves\": [\"e2e4\", \"e7e5\"], \"labels\": [\"d2d4\", \"e7e5\", \"g1f3\"]}
{\"variant\": \"janggimodern\", \"fen\": \"\", \"moves\": [\"a4a5\"], \"labels\": [\"a4a5\", \"a1a9\"]}
")
set(dataset_args dataset --config ${dataset_config} --model ${serve_model})
expect_run(ARGS ${dataset_args} --agent model ${games} -o ${CMAKE_CURRENT_BINARY_DIR}/dataset.jsonl --text CODE 0
           MATCH "2 games, 4 examples; 1 games cut short by a move arena refused.*the label a1a9 is not a legal move")
file(READ ${CMAKE_CURRENT_BINARY_DIR}/dataset.jsonl dataset_out)
string(REGEX MATCHALL "\"answer\":\\[[0-9,]+\\]" answers "${dataset_out}")
list(LENGTH answers num_answers)
if(NOT num_answers EQUAL 4 OR NOT dataset_out MATCHES "\"move\":\"d4\".*\"move\":\"Nf3\".*\"move\":\"71졸61\".*Legal moves:\\\\n[0-9]")  # one move a line, spelled out
  message(FATAL_ERROR "arena dataset wrote:\n${dataset_out}")
endif()
# every legal move's tokens, as an answer is written: the start position's 20, the label among them
file(STRINGS ${CMAKE_CURRENT_BINARY_DIR}/dataset.jsonl dataset_lines)
list(GET dataset_lines 0 first_example)
string(JSON num_legal LENGTH "${first_example}" legal)
string(JSON first_answer GET "${first_example}" answer)
string(JSON first_legal GET "${first_example}" legal)
string(REGEX REPLACE "[ \n]" "" first_answer "${first_answer}")
string(REGEX REPLACE "[ \n]" "" first_legal "${first_legal}")
string(FIND "${first_legal}" "${first_answer}" answer_at)
if(NOT num_legal EQUAL 20 OR answer_at EQUAL -1)
  message(FATAL_ERROR "arena dataset's legal moves: ${num_legal}, ${first_legal} (answer ${first_answer})")
endif()
file(WRITE ${games}.bad "{\"variant\": \"chess\"}\n")
expect_run(ARGS ${dataset_args} --agent model ${games}.bad -o ${CMAKE_CURRENT_BINARY_DIR}/dataset.jsonl CODE 1
           MATCH "dataset_games.jsonl.bad:1: not a game line")
expect_run(ARGS ${dataset_args} --agent random ${games} -o ${CMAKE_CURRENT_BINARY_DIR}/dataset.jsonl CODE 1
           MATCH "has no LLM agent named 'random'")

# arena bench forward on the tiny synthetic model: single-stream and 3 streams decoded in one
# batch (F16 KV), every run reported; a bad stream count or KV dtype is a usage error.
expect_run(ARGS bench forward --model ${serve_model} --prompt-tokens 5 --gen-tokens 3 --repeat 1 CODE 0
           MATCH "streams 1, kv f32 in blocks of 8\nrun 1: prompt 1x5 tokens in .* decode 1x3 tokens in .*\nbest .*\\(1 streams, ")
expect_run(ARGS bench forward --model ${serve_model} --prompt-tokens 7 --gen-tokens 2 --streams 3 --kv-dtype f16
           --block-size 4 --repeat 2 CODE 0
           MATCH "streams 3, kv f16 in blocks of 4\nrun 1: prompt 3x7 tokens .* decode 3x2 tokens .*\nrun 2: .*\\(3 streams, [0-9.]+ tok/s each\\)")
# --bandwidth: the read between the decode steps, as many bytes as a step's weights, each run's
# fraction and the best's.
expect_run(ARGS bench forward --model ${serve_model} --prompt-tokens 3 --gen-tokens 4 --repeat 1 --bandwidth CODE 0
           MATCH "bandwidth: each decode step reads [0-9.]+ MB of weights, then [0-9]+ threads read [0-9.]+ MB\n.*run 1: decode weights [0-9.]+ GB/s, reads between the steps [0-9.]+ GB/s: [0-9.]+ of it\n.*best    decode at [0-9.]+ of the read bandwidth")
expect_run(ARGS bench forward --model ${serve_model} --streams 0 CODE 2 MATCH "^arena bench forward: error: --streams")
expect_run(ARGS bench forward --model ${serve_model} --kv-dtype q4 CODE 2 MATCH "^arena bench forward: error: --kv-dtype")

# arena serve refuses an open API beyond loopback (docs/security.md) before loading the model,
# and checks the names it is told to answer to.
expect_run(ARGS serve --model ${serve_model} --host 0.0.0.0 CODE 2
           MATCH "^arena serve: error: --host 0.0.0.0 serves the API to other machines, and no API key is set: give one with --api-key KEY")
expect_run(ARGS serve --model ${serve_model} --allowed-host http://x.example CODE 2
           MATCH "^arena serve: error: --allowed-host: 'http://x.example' cannot be an allowed host")
expect_run(ARGS serve --model ${serve_model} --api-key "a b" CODE 2
           MATCH "^arena serve: error: --api-key: the API key must be printable ASCII without spaces")
set(ENV{ARENA_API_KEY} "key with spaces")  # the environment's key is read, and checked the same
expect_run(ARGS serve --model ${serve_model} --host 0.0.0.0 CODE 2
           MATCH "^arena serve: error: ARENA_API_KEY: the API key must be printable")
unset(ENV{ARENA_API_KEY})

# arena view: a results folder of a short `arena run` (search against random moves, no model)
# served from its event log alone for a second; a folder without a log and a missing folder are
# errors naming them. tests/server/view_server_test.cpp checks the pages and API it serves.
set(view_dir ${CMAKE_CURRENT_BINARY_DIR}/view_cli_results)
file(REMOVE_RECURSE ${view_dir})
file(WRITE ${CMAKE_CURRENT_BINARY_DIR}/view_cli.yaml "agents:
  - {name: search, type: search, depth: 1, seed: 1}
  - {name: random, type: random, seed: 2}
tournament:
  games: [chess]
  games_per_pairing: 2
  adjudication:
    max_plies: 12
  seed: 7
web:
  port: 0
")
expect_run(ARGS run ${CMAKE_CURRENT_BINARY_DIR}/view_cli.yaml --output ${view_dir} --quiet CODE 0 MATCH "2 games played")
expect_run(ARGS view --help CODE 0 MATCH "Usage: arena view \\[OPTIONS\\] dirs\\.\\.\\..*--port.*--bind")
expect_run(ARGS view ${view_dir} --port 0 --for 0.5 CODE 0
           MATCH "arena view: 1 tournament at http://127.0.0.1:[0-9]+/\narena view:   view_cli_results at http://127.0.0.1:[0-9]+/t/view_cli_results/\n")
expect_run(ARGS view ${CMAKE_CURRENT_BINARY_DIR}/no-such-results CODE 1
           MATCH "^arena view: error: '.*no-such-results' is not a folder")
expect_run(ARGS view ${CMAKE_CURRENT_BINARY_DIR} --port 0 CODE 1
           MATCH "^arena view: error: '.*' has no event log '.*/events.jsonl'")
expect_run(ARGS view CODE 2 MATCH "^arena view: error: dirs is required")
expect_run(ARGS view ${view_dir} --bind not-an-ip --port 0 CODE 1 MATCH "web.bind 'not-an-ip' is not an IP address")
