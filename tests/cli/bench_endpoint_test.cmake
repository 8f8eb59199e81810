# `arena bench serve --endpoint URL` end to end (issue 14): `arena serve` runs in the background
# on a tiny synthetic model; bench serve runs the same workload in-process and over HTTP against
# it (identical work: the same prompt token count, answers appended as the server's token ids),
# then against a dead port (a clear error, exit 1), a server that never answers (the request
# timeout, not a hang), a bad URL (exit 2) and a server whose vocabulary is smaller than the
# prompts' (each 400 counted as a failure, its message shown once, exit 1).
# Run by CTest as: cmake -DARENA=<path to arena> -DWORK=<scratch folder> -P bench_endpoint_test.cmake
if(NOT WORK)
  set(WORK ${CMAKE_CURRENT_BINARY_DIR}/bench_endpoint_work)
endif()
file(REMOVE_RECURSE ${WORK})
file(MAKE_DIRECTORY ${WORK})
set(server_pid "")

# Stops the background server (if any) and fails the test.
function(fail message)
  if(server_pid)
    execute_process(COMMAND kill ${server_pid})
  endif()
  message(FATAL_ERROR "${message}")
endfunction()

# Runs arena ARGS (under 60 s) and checks the exit code and output; the output is left in last_out.
function(expect_run)
  cmake_parse_arguments(ARG "" "CODE;MATCH" "ARGS" ${ARGN})
  execute_process(COMMAND ${ARENA} ${ARG_ARGS} RESULT_VARIABLE code OUTPUT_VARIABLE out ERROR_VARIABLE err
                  TIMEOUT 60)
  if(NOT code STREQUAL ARG_CODE)
    fail("arena ${ARG_ARGS}: exit code '${code}', expected ${ARG_CODE}\nstdout:\n${out}\nstderr:\n${err}")
  endif()
  if(NOT "${out}${err}" MATCHES "${ARG_MATCH}")
    fail("arena ${ARG_ARGS}: output does not match '${ARG_MATCH}'\nstdout:\n${out}\nstderr:\n${err}")
  endif()
  set(last_out "${out}${err}" PARENT_SCOPE)
  message(STATUS "ok: arena ${ARG_ARGS} -> ${code}")
endfunction()

set(model ${WORK}/tiny.gguf)
expect_run(ARGS synth --shape tiny --dtype f32 -o ${model} CODE 0 MATCH "")

# arena serve on any free port, in the background (at most 60 s, whatever happens to this script).
set(log ${WORK}/serve.log)
execute_process(
  COMMAND sh -c "timeout 60 \"$1\" serve --model \"$2\" --port 0 --kv-cache-mb 16 --threads 1 >\"$3\" 2>&1 </dev/null & echo $!"
          sh ${ARENA} ${model} ${log}
  OUTPUT_VARIABLE server_pid OUTPUT_STRIP_TRAILING_WHITESPACE)
set(url "")
foreach(i RANGE 100)
  if(EXISTS ${log})
    file(READ ${log} serve_out)
    if(serve_out MATCHES "at (http://127\\.0\\.0\\.1:[0-9]+)/v1")
      set(url ${CMAKE_MATCH_1})
      break()
    endif()
  endif()
  execute_process(COMMAND sleep 0.1)
endforeach()
if(NOT url)
  fail("arena serve did not print its URL within 10 s:\n${serve_out}")
endif()

set(work_args --agents 4 --ticks 2 --gen-tokens 4 --system-tokens 32 --prompt-tokens 8)
string(REPLACE "." "\\." url_re "${url}")
expect_run(ARGS bench serve --model ${model} --endpoint ${url} ${work_args} --modes continuous+prefix
                --json ${WORK}/bench.json
           CODE 0
           MATCH "endpoint ${url_re}: model 'tiny' \\(owned by arena\\), /v1/completions, context [0-9]+.*\ncontinuous\\+prefix .* 0\n${url_re} +[0-9.]+ .* - +0\n${url_re}: answers appended as the server's token ids\ncontinuous\\+prefix vs ${url_re}: requests/s [0-9.]+x, TTFT p50 [0-9.]+x, p99 [0-9.]+x\n.*tick 2/2: continuous\\+prefix [0-9.]+ s ${url_re} [0-9.]+ s\n")
file(READ ${WORK}/bench.json json)
string(JSON requests GET "${json}" endpoints ${url} requests)
string(JSON failed GET "${json}" endpoints ${url} failed_requests)
string(JSON http_prompt GET "${json}" endpoints ${url} prompt_tokens)
string(JSON http_generated GET "${json}" endpoints ${url} generated_tokens)
string(JSON local_prompt GET "${json}" modes continuous+prefix prompt_tokens)
string(JSON hit GET "${json}" endpoints ${url} prefix_hit_rate)
# 4 agents x 2 ticks; prompts 4 x (32 + 8) then 4 x (40 + 4 + 8): the same in-process and over HTTP.
if(NOT requests EQUAL 8 OR NOT failed EQUAL 0 OR NOT http_prompt EQUAL 368 OR NOT local_prompt EQUAL 368
   OR NOT http_generated EQUAL 32 OR hit STREQUAL "null")
  fail("bench serve --endpoint: requests ${requests} (8), failed ${failed} (0), prompt tokens ${http_prompt} "
       "and ${local_prompt} in-process (368), generated ${http_generated} (32), hit rate ${hit}:\n${json}")
endif()

# Prompts with ids beyond the server's vocabulary: each 400 is a failure, the message shown once.
set(big ${WORK}/big_vocab.gguf)
expect_run(ARGS synth --shape tiny --vocab 4096 --dtype f32 -o ${big} CODE 0 MATCH "")
expect_run(ARGS bench serve --model ${big} --endpoint ${url} ${work_args} --modes none CODE 1
           MATCH "${url_re}: 8 failed: HTTP 400: token ids must be integers in \\[0, 1024\\)\n.*error: ${url_re}: 8 of 8 requests failed")

execute_process(COMMAND kill ${server_pid})
# The server is gone (once it has stopped): its port refuses connections.
foreach(i RANGE 100)
  execute_process(COMMAND sh -c "kill -0 $1 2>/dev/null" sh ${server_pid} RESULT_VARIABLE alive)
  if(NOT alive EQUAL 0)
    break()
  endif()
  execute_process(COMMAND sleep 0.1)
endforeach()
set(server_pid "")
expect_run(ARGS bench serve --model ${model} --endpoint ${url} ${work_args} --modes none CODE 1
           MATCH "^arena bench serve: error: ${url_re} does not answer \\(GET /v1/models: connecting: Connection refused\\); is the server running\\?")
expect_run(ARGS bench serve --model ${model} --endpoint ftp://127.0.0.1:1 ${work_args} CODE 2
           MATCH "^arena bench serve: error: --endpoint ftp://127.0.0.1:1: not an http://HOST\\[:PORT\\] address")

# A server that accepts connections and never answers: the request timeout ends the wait.
find_program(PYTHON3 python3)
if(PYTHON3)
  execute_process(
    COMMAND sh -c "timeout 20 \"$1\" -c 'import socket,time\ns=socket.socket()\ns.bind((\"127.0.0.1\",0))\ns.listen(16)\nprint(s.getsockname()[1],flush=True)\ntime.sleep(20)' >\"$2\" </dev/null 2>&1 & echo $!"
            sh ${PYTHON3} ${WORK}/mute.port
    OUTPUT_VARIABLE server_pid OUTPUT_STRIP_TRAILING_WHITESPACE)
  set(port "")
  foreach(i RANGE 50)
    if(EXISTS ${WORK}/mute.port)
      file(READ ${WORK}/mute.port port)
      string(STRIP "${port}" port)
    endif()
    if(port MATCHES "^[0-9]+$")
      break()
    endif()
    execute_process(COMMAND sleep 0.1)
  endforeach()
  expect_run(ARGS bench serve --model ${model} --endpoint http://127.0.0.1:${port} --request-timeout 0.5
                  ${work_args} --modes none
             CODE 1 MATCH "error: http://127.0.0.1:${port} does not answer \\(GET /v1/models: timed out reading the answer's header\\)")
  execute_process(COMMAND kill ${server_pid})
else()
  message(STATUS "skipped: the never-answering server (no python3)")
endif()
