# GCC's OpenACC options: the one definition behind `moac check --offload=none|nvptx` (compiled into moac),
# moac_add_kernel(... TARGET openacc) and the tests that build OpenACC (docs/cmake.md, "OpenACC").
# moac_openacc_gcc_flags(OFFLOAD VAR):
#   none   for the host only. Plain -fopenacc would also build PTX whenever GCC's nvptx offload compiler is
#          installed (Debian's gcc-12-offload-nvptx), for GCC's default sm_35, which the ptxas of CUDA 12
#          and later rejects.
#   nvptx  for NVIDIA GPUs: sm_80 PTX (the driver JIT-compiles it for newer GPUs) and the device's libm
#          (expf, sqrtf in offloaded code).
# No option holds a space, so each list reads the same as a CMake list, a shell word list and a C string.
# (Functions, not variables: a function is seen in every directory that includes this file once.)
include_guard(GLOBAL)
function(moac_openacc_gcc_flags offload var)
  if(offload STREQUAL "none")
    set(${var} -fopenacc -foffload=disable PARENT_SCOPE)
  elseif(offload STREQUAL "nvptx")
    set(${var} -fopenacc -foffload=nvptx-none -foffload-options=nvptx-none=-misa=sm_80
               -foffload-options=nvptx-none=-lm PARENT_SCOPE)
  else()
    message(FATAL_ERROR "moac_openacc_gcc_flags: no offload '${offload}' (none or nvptx)")
  endif()
endfunction()

# moac_openacc_offload(VAR): MOAC_OPENACC_OFFLOAD (cache: auto, none or nvptx); auto is nvptx when the C
# compiler links an OpenACC program with the nvptx options (an offload compiler is installed), else none.
function(moac_openacc_offload var)
  set(MOAC_OPENACC_OFFLOAD auto CACHE STRING "OpenACC offloading of moac_add_kernel(... TARGET openacc): auto, none, nvptx")
  set_property(CACHE MOAC_OPENACC_OFFLOAD PROPERTY STRINGS auto none nvptx)
  if(NOT MOAC_OPENACC_OFFLOAD MATCHES "^(auto|none|nvptx)$")
    message(FATAL_ERROR "MOAC_OPENACC_OFFLOAD must be auto, none or nvptx, not '${MOAC_OPENACC_OFFLOAD}'")
  endif()
  if(NOT MOAC_OPENACC_OFFLOAD STREQUAL "auto")
    set(${var} ${MOAC_OPENACC_OFFLOAD} PARENT_SCOPE)
    return()
  endif()
  # Probed on every configure, once: an offload compiler installed or removed since is seen at the next
  # cmake run, with no stale cache entry to clear.
  get_property(probed GLOBAL PROPERTY MOAC_OPENACC_NVPTX_LINKS SET)
  get_property(links GLOBAL PROPERTY MOAC_OPENACC_NVPTX_LINKS)
  if(NOT probed)
    set(probe ${CMAKE_BINARY_DIR}/CMakeFiles/moac-openacc-probe)
    file(WRITE ${probe}.c "int main(void) {\n  int x = 0;\n#pragma acc parallel copy(x)\n  x = 1;\n  return !x;\n}\n")
    moac_openacc_gcc_flags(nvptx flags)
    execute_process(COMMAND ${CMAKE_C_COMPILER} ${flags} ${probe}.c -o ${probe}
                    RESULT_VARIABLE rc OUTPUT_QUIET ERROR_QUIET)
    if(rc EQUAL 0)
      set(links ON)
    else()
      set(links OFF)
    endif()
    set_property(GLOBAL PROPERTY MOAC_OPENACC_NVPTX_LINKS ${links})
    message(STATUS "moac: OpenACC offload to nvptx links: ${links}")
  endif()
  if(links)
    set(${var} nvptx PARENT_SCOPE)
  else()
    set(${var} none PARENT_SCOPE)
  endif()
endfunction()

# moac_openacc_flags(VAR): the compile and link options of OpenACC code: GCC's for moac_openacc_offload,
# another compiler's from find_package(OpenACC).
function(moac_openacc_flags var)
  if(CMAKE_C_COMPILER_ID STREQUAL "GNU")
    moac_openacc_offload(offload)
    moac_openacc_gcc_flags(${offload} flags)
    set(${var} ${flags} PARENT_SCOPE)
  else()
    find_package(OpenACC REQUIRED COMPONENTS C)
    separate_arguments(flags NATIVE_COMMAND "${OpenACC_C_FLAGS}")
    set(${var} ${flags} PARENT_SCOPE)
  endif()
endfunction()
