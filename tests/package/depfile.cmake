# moac compile --depfile: a make rule naming both outputs as targets and the .moa source as prerequisite,
# with make's escaping of a space in a path; and a usage error (exit 2) without -o FILE.
file(REMOVE_RECURSE ${WORK})
file(MAKE_DIRECTORY "${WORK}/with space")
configure_file(${SOURCE} "${WORK}/with space/decode.moa" COPYONLY)
execute_process(COMMAND ${MOAC} compile "with space/decode.moa" -o k.c --header k.h --depfile k.d
                WORKING_DIRECTORY ${WORK} RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "moac compile --depfile failed: ${rc}")
endif()
file(READ ${WORK}/k.d text)
set(expected "k.c k.h: with\\ space/decode.moa\n")
if(NOT text STREQUAL expected)
  message(FATAL_ERROR "depfile is\n[${text}]\nexpected\n[${expected}]")
endif()
execute_process(COMMAND ${MOAC} compile "with space/decode.moa" --depfile k2.d WORKING_DIRECTORY ${WORK}
                RESULT_VARIABLE rc ERROR_VARIABLE err)
if(NOT rc EQUAL 2 OR NOT err MATCHES "--depfile needs -o FILE" OR EXISTS ${WORK}/k2.d)
  message(FATAL_ERROR "--depfile to standard output: status ${rc}, '${err}'; expected 2 and a usage message")
endif()
