# [slow] The shipped default model beats random moves in a short match: configs/eval/model-vs-random.yaml
# (Fairy-Stockfish referees the resign rule, janggi is counted at the ply limit) with 4 games per
# game, and the model's score must be above 50%. The real figure (80 games) is in models/README.md.
#   cmake -DARENA=<arena> -DSOURCE=<source dir> -DWORK=<scratch dir> -P default_model_match_test.cmake
file(REMOVE_RECURSE ${WORK})
execute_process(COMMAND ${ARENA} run ${SOURCE}/configs/eval/model-vs-random.yaml --games 4 --output ${WORK} --quiet
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
