# Regenerates generated/ into OUT and fails, with a diff, when a checked-in file differs.
file(REMOVE_RECURSE ${OUT})
execute_process(COMMAND ${CMAKE_COMMAND} -E env MOAC=${MOAC} ${ROOT}/scripts/regenerate ${OUT}
                WORKING_DIRECTORY ${ROOT} RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "scripts/regenerate failed")
endif()
execute_process(COMMAND diff -ru ${ROOT}/generated ${OUT} RESULT_VARIABLE rc OUTPUT_VARIABLE out)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "generated/ is stale: run scripts/regenerate and commit the result\n${out}")
endif()
