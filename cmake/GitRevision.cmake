# Writes the header that `moac --version` prints from: the project version and `git describe --always
# --dirty` of the source tree. Runs at configure time and again at every build (cmake -P), and rewrites
# the header only when its text changes, so an unchanged revision rebuilds nothing. Outside a git checkout
# (a release tarball) the revision is empty and --version prints the version alone.
#   cmake -DSOURCE_DIR=... -DINPUT=Version.h.in -DOUTPUT=.../Version.h -DPROJECT_VERSION=x.y.z -P GitRevision.cmake
set(MOAC_GIT_REVISION "")
find_package(Git QUIET)
if(GIT_FOUND)
  execute_process(COMMAND ${GIT_EXECUTABLE} describe --always --dirty WORKING_DIRECTORY ${SOURCE_DIR}
                  OUTPUT_VARIABLE rev OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET RESULT_VARIABLE rc)
  if(rc EQUAL 0 AND rev)
    set(MOAC_GIT_REVISION "${rev}")
  endif()
endif()
configure_file(${INPUT} ${OUTPUT} @ONLY)
