# [slow] The shipped default model beats random moves in a short chess match (default_model_chess.yaml:
# 8 games, Fairy-Stockfish referees the resign rule): its score must be above 50% with no illegal
# answer. The real figures (40 games per game; janggi too) are in models/README.md.
#   cmake -DARENA=<arena> -DSOURCE=<source dir> -DWORK=<scratch dir> -P default_model_match_test.cmake
file(REMOVE_RECURSE ${WORK})
execute_process(COMMAND ${ARENA} run ${CMAKE_CURRENT_LIST_DIR}/default_model_chess.yaml --output ${WORK} --quiet
                RESULT_VARIABLE code OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT code EQUAL 0)
  message(FATAL_ERROR "arena run: exit code ${code}\n${out}\n${err}")
endif()
file(READ ${WORK}/standings.json standings)
string(JSON rows LENGTH ${standings} rows)
set(score "")
math(EXPR last "${rows} - 1")
foreach(i RANGE ${last})
  string(JSON agent GET ${standings} rows ${i} agent)
  if(agent STREQUAL "model")
    string(JSON score GET ${standings} rows ${i} score)
    string(JSON illegal GET ${standings} rows ${i} illegal_answers)
  endif()
endforeach()
if(score STREQUAL "")
  message(FATAL_ERROR "standings.json has no row for the agent 'model':\n${standings}")
endif()
message(STATUS "model vs random: score ${score}, illegal answers ${illegal}")
if(score LESS_EQUAL 0.5 OR NOT illegal EQUAL 0)
  message(FATAL_ERROR "the default model scored ${score} against random (illegal answers: ${illegal}); expected more than 0.5\n${out}")
endif()
