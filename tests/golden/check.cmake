# Runs moac once and checks what it did; used by the golden and fail tests (cmake -P check.cmake).
#   MOAC       the driver
#   ARGS       its arguments, separated by '|' (a CMake list would be split by add_test)
#   WORKDIR    where it runs: file names in diagnostics are relative to it
#   STDIN      optional: a file fed to its standard input
#   GENERATOR  optional: a CMake script run first with -DOUT=<WORKDIR>/<GENERATED>, writing the input
#   GENERATED  the file name the generator writes
#   RC         the exit status it must return
#   STREAM     stdout or stderr: the stream compared byte for byte with EXPECTED (optional)
#   EXPECTED   the golden file
#   ACTUAL     where the output is kept, for the diff and for inspection
#   QUIET      ON: the other stream must be empty
#   MATCH      optional: a regular expression that stderr must contain (usage errors, whose wording is CLI11's)
# Whatever else it checks, stderr must never contain "internal error" (that is a bug in moac).
cmake_minimum_required(VERSION 3.25)

foreach(var MOAC ARGS WORKDIR RC ACTUAL)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "check.cmake: -D${var}= is required")
  endif()
endforeach()

if(GENERATOR)
  execute_process(COMMAND ${CMAKE_COMMAND} -DOUT=${WORKDIR}/${GENERATED} -P ${GENERATOR}
                  RESULT_VARIABLE genRc)
  if(NOT genRc EQUAL 0)
    message(FATAL_ERROR "generator ${GENERATOR} failed: ${genRc}")
  endif()
endif()

string(REPLACE "|" ";" args "${ARGS}")
get_filename_component(actualDir "${ACTUAL}" DIRECTORY)
file(MAKE_DIRECTORY "${actualDir}")
set(stdinArgs)
if(STDIN)
  set(stdinArgs INPUT_FILE ${STDIN})
endif()
execute_process(COMMAND ${MOAC} ${args}
                WORKING_DIRECTORY ${WORKDIR}
                ${stdinArgs}
                OUTPUT_FILE ${ACTUAL}.stdout
                ERROR_FILE ${ACTUAL}.stderr
                RESULT_VARIABLE rc)

set(failures)
if(NOT "${rc}" STREQUAL "${RC}")
  list(APPEND failures "exit status ${rc}, expected ${RC}")
endif()
file(STRINGS ${ACTUAL}.stderr internal REGEX "internal error")
if(internal)
  list(APPEND failures "moac reported an internal error")
endif()
if(MATCH)
  file(READ ${ACTUAL}.stderr err)
  if(NOT err MATCHES "${MATCH}")
    list(APPEND failures "stderr does not match '${MATCH}'")
  endif()
endif()
if(STREAM)
  if(STREAM STREQUAL "stdout")
    set(other stderr)
  else()
    set(other stdout)
  endif()
  if(QUIET)
    file(SIZE ${ACTUAL}.${other} otherSize)
    if(otherSize GREATER 0)
      file(READ ${ACTUAL}.${other} text)
      list(APPEND failures "unexpected ${other}:\n${text}")
    endif()
  endif()
  if(NOT EXISTS ${EXPECTED})
    list(APPEND failures "no expected file ${EXPECTED}: run scripts/update-golden")
  else()
    execute_process(COMMAND ${CMAKE_COMMAND} -E compare_files ${EXPECTED} ${ACTUAL}.${STREAM}
                    RESULT_VARIABLE differs)
    if(differs)
      list(APPEND failures "${STREAM} differs from ${EXPECTED} (scripts/update-golden rewrites it)")
      find_program(DIFF diff)
      if(DIFF)
        execute_process(COMMAND ${DIFF} -u --label expected --label actual ${EXPECTED} ${ACTUAL}.${STREAM})
      else()
        file(READ ${ACTUAL}.${STREAM} text)
        message("actual ${STREAM}:\n${text}")
      endif()
    endif()
  endif()
endif()

if(failures)
  string(REPLACE ";" "\n  " failures "${failures}")
  string(REPLACE "|" " " shown "${ARGS}")
  message(FATAL_ERROR "moac ${shown} (in ${WORKDIR}):\n  ${failures}")
endif()
