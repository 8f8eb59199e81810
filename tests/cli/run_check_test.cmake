# `arena run --check` on every shipped config and on the broken ones of tests/data/configs, plus
# the command's usage errors and resume refusals. Run by CTest as:
#   cmake -DARENA=<arena> -DSOURCE=<source dir> -DWORK=<scratch dir> -P run_check_test.cmake
# The default model (ARENA_DEFAULT_MODEL) and two-models.yaml's ARENA_MODEL_B are a tiny model
# synthesized here; test_tiny.yaml finds the shared test data through ARENA_TESTDATA.
file(MAKE_DIRECTORY ${WORK})
set(model ${WORK}/run_check_default.gguf)
if(NOT EXISTS ${model})
  execute_process(COMMAND ${ARENA} synth --shape tiny --dtype f32 --seed 1 -o ${model} RESULT_VARIABLE code)
  if(NOT code EQUAL 0)
    message(FATAL_ERROR "arena synth failed (${code})")
  endif()
endif()
set(env ARENA_DEFAULT_MODEL=${model} ARENA_MODEL_B=${model})
if(DEFINED ENV{ARENA_TESTDATA})
  list(APPEND env ARENA_TESTDATA=$ENV{ARENA_TESTDATA})
endif()

function(expect_run)
  cmake_parse_arguments(ARG "" "CODE;MATCH" "ARGS" ${ARGN})
  execute_process(COMMAND ${CMAKE_COMMAND} -E env ${env} ${ARENA} ${ARG_ARGS} WORKING_DIRECTORY ${WORK}
                  RESULT_VARIABLE code OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT code EQUAL ARG_CODE)
    message(FATAL_ERROR "arena ${ARG_ARGS}: exit code ${code}, expected ${ARG_CODE}\nstdout:\n${out}\nstderr:\n${err}")
  endif()
  if(NOT "${out}${err}" MATCHES "${ARG_MATCH}")
    message(FATAL_ERROR "arena ${ARG_ARGS}: output does not match '${ARG_MATCH}'\nstdout:\n${out}\nstderr:\n${err}")
  endif()
  message(STATUS "ok: arena ${ARG_ARGS} -> ${code}")
endfunction()

# Every shipped config is valid.
file(GLOB_RECURSE shipped ${SOURCE}/configs/*.yaml)
list(LENGTH shipped num_shipped)
if(num_shipped LESS 6)
  message(FATAL_ERROR "expected at least 6 configs in ${SOURCE}/configs, found ${num_shipped}")
endif()
foreach(config IN LISTS shipped)
  expect_run(ARGS run --check ${config} CODE 0 MATCH "ok: [0-9]+ agents \\([0-9]+ playing\\).*hash [0-9a-f]+\n$")
endforeach()
expect_run(ARGS run --check ${SOURCE}/configs/quickstart.yaml CODE 0
           MATCH "ok: 6 agents \\(5 playing\\), 1 model, games: chess, janggi, format round_robin, 2 games per pairing")

# Broken configs: exit 2, every error with file:line:col, the count at the end.
set(bad ${SOURCE}/tests/data/configs)
expect_run(ARGS run --check ${bad}/unknown_keys.yaml CODE 2
           MATCH "unknown_keys.yaml:10:5: unknown key 'max_num_seq' in models\\[0\\] \\(did you mean 'max_num_seqs'\\?\\)\n.*unknown_keys.yaml:19:3: unknown key 'concurency' in tournament \\(did you mean 'concurrency'\\?\\)\n.*arena run: 5 errors in .*unknown_keys.yaml")
expect_run(ARGS run --check ${bad}/bad_references.yaml CODE 2
           MATCH "bad_references.yaml:20:15: unknown participant 'stokfish' \\(did you mean 'stockfish'\\?\\)")
expect_run(ARGS run --check ${bad}/variants.yaml CODE 2
           MATCH "variants.yaml:6:5: agent 'korean' plays none of this tournament's games")
expect_run(ARGS run --check ${bad}/syntax_error.yaml CODE 2 MATCH "syntax_error.yaml:6:4: YAML syntax: .*1 error in")
expect_run(ARGS run --check no-such-config.yaml CODE 2 MATCH "no-such-config.yaml: cannot open the config file")

# Overrides are checked like the file's values.
set(tiny ${SOURCE}/configs/test_tiny.yaml)
expect_run(ARGS run --check ${tiny} --concurrency 0 --games 3 CODE 2
           MATCH "--concurrency: must be at least 1, got 0\n--games: must be an even number >= 2")
expect_run(ARGS run --check ${tiny} --games 4 --seed 9 CODE 0 MATCH "4 games per pairing")

# Usage errors.
expect_run(ARGS run CODE 2 MATCH "config is required")
expect_run(ARGS run ${tiny} --log-level loud CODE 2 MATCH "log-level")
expect_run(ARGS run ${tiny} --resume a --output b CODE 2 MATCH "give --resume DIR alone")
expect_run(ARGS run ${tiny} --linger nan CODE 2 MATCH "--linger: nan is not a finite number")
expect_run(ARGS run ${tiny} --linger -2 CODE 2 MATCH "--linger")

# Resume needs the results folder of an earlier run, and the same tournament.
file(REMOVE_RECURSE ${WORK}/not_results)
file(MAKE_DIRECTORY ${WORK}/not_results)
expect_run(ARGS run ${tiny} --resume ${WORK}/not_results CODE 1 MATCH "cannot resume: .*not_results has no config.yaml")

# A real run of a two-agent config (a second or so): results written, the folder never reused,
# resume refused when a field that changes results differs, allowed when only concurrency does.
file(REMOVE_RECURSE ${WORK}/mini ${WORK}/mini_results)
file(MAKE_DIRECTORY ${WORK}/mini)
file(WRITE ${WORK}/mini/mini.yaml [=[
agents:
  - {name: r1, type: random, seed: 1}
  - {name: r2, type: random, seed: 2}
tournament: {games: chess, tick: 10ms, adjudication: {max_plies: 6}}
web: {port: 0}
]=])
set(mini ${WORK}/mini/mini.yaml)
expect_run(ARGS run ${mini} --output mini_results --quiet CODE 0 MATCH "2 games played; results in mini_results")
foreach(file config.yaml events.jsonl games.pgn)
  if(NOT EXISTS ${WORK}/mini_results/${file})
    message(FATAL_ERROR "arena run left no mini_results/${file}")
  endif()
endforeach()
file(READ ${WORK}/mini_results/config.yaml resolved)
if(NOT resolved MATCHES "agents: \\[\"r1\", \"r2\"\\]" OR NOT resolved MATCHES "max_plies: 6")
  message(FATAL_ERROR "the resolved config lacks the participants or max_plies:\n${resolved}")
endif()
expect_run(ARGS run ${mini} --output mini_results CODE 1 MATCH "mini_results already holds a tournament: resume it with `arena run .*mini.yaml --resume mini_results`")
expect_run(ARGS run ${mini} --resume mini_results --seed 5 CODE 1
           MATCH "cannot resume mini_results: the config differs .* in 1 field .*\n  tournament.seed: 1 -> 5\n")
expect_run(ARGS run ${mini} --resume mini_results --concurrency 2 --quiet CODE 0 MATCH "2 games played")

# With the board view up, the view outlives the run for --linger seconds, then the run exits.
string(RANDOM LENGTH 4 ALPHABET 123456789 port_suffix)
math(EXPR port "20000 + ${port_suffix}")
file(REMOVE_RECURSE ${WORK}/mini_board)
expect_run(ARGS run ${mini} --output mini_board --quiet --web-port ${port} --linger 1 CODE 0
           MATCH "2 games played.*board view at http://127.0.0.1:${port}/.*the board view stays at http://127.0.0.1:${port}/ for 1 s")
