# moac_add_kernel(NAME SOURCES a.moa [b.moa ...] TARGET c|openmp|openacc [OPTIONS option ...])
#
# A static library NAME whose sources are the kernels moac generates at build time from the .moa files:
# for each a.moa, `moac compile a.moa --target=TARGET -o NAME/a.c --header NAME/a.h --depfile NAME/a.d
# OPTIONS...` in the current binary folder. The library's users include "a.h" (the folder is a public
# include directory) and call moa_a(...) (docs/abi.md). A kernel is generated again when its .moa file,
# anything the depfile lists, or the moac executable changes. NAME links moac::rt publicly, and for openmp
# OpenMP::OpenMP_C, for openacc the OpenACC options of MoacOpenACC.cmake (GCC: -fopenacc with offloading to
# nvptx when an offload compiler is installed, else -foffload=disable), on compile and link lines.
#
# Works from an installed package (find_package(moac), where moac::moac is imported) and inside moac's own
# build tree (where moac::moac is an alias of the moac target). See docs/cmake.md.
include_guard(GLOBAL)
include(${CMAKE_CURRENT_LIST_DIR}/MoacOpenACC.cmake)

function(moac_add_kernel name)
  cmake_parse_arguments(PARSE_ARGV 1 arg "" "TARGET" "SOURCES;OPTIONS")
  if(arg_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "moac_add_kernel(${name}): unexpected arguments: ${arg_UNPARSED_ARGUMENTS}")
  endif()
  if(NOT arg_SOURCES)
    message(FATAL_ERROR "moac_add_kernel(${name}): no SOURCES given")
  endif()
  if(NOT arg_TARGET MATCHES "^(c|openmp|openacc)$")
    message(FATAL_ERROR "moac_add_kernel(${name}): TARGET must be c, openmp or openacc, not '${arg_TARGET}'")
  endif()
  if(NOT TARGET moac::moac)
    message(FATAL_ERROR "moac_add_kernel(${name}): no moac::moac target (find_package(moac) first)")
  endif()

  # In moac's own tree moac::moac is an alias; custom commands want the real target's name.
  set(moac moac::moac)
  get_target_property(aliased moac::moac ALIASED_TARGET)
  if(aliased)
    set(moac ${aliased})
  endif()

  set(outDir ${CMAKE_CURRENT_BINARY_DIR}/${name})
  file(MAKE_DIRECTORY ${outDir})
  set(generated)
  set(stems)
  foreach(src IN LISTS arg_SOURCES)
    get_filename_component(source ${src} ABSOLUTE BASE_DIR ${CMAKE_CURRENT_SOURCE_DIR})
    get_filename_component(stem ${src} NAME_WLE)
    if(stem IN_LIST stems)
      message(FATAL_ERROR "moac_add_kernel(${name}): two sources named ${stem}.moa")
    endif()
    list(APPEND stems ${stem})
    set(c ${outDir}/${stem}.c)
    set(h ${outDir}/${stem}.h)
    set(d ${outDir}/${stem}.d)
    # moac leaves an output that would not change untouched. Ninja then sees (restat) that nothing needs
    # rebuilding; Make would run the command at every build, the C being older than the .moa, so there the
    # output is a stamp and the kernel's files are byproducts (Ninja wants the depfile's target, the C, to
    # be the first output, which is why the two differ).
    if(CMAKE_GENERATOR MATCHES "Ninja")
      set(stamp)
      set(outputs OUTPUT ${c} ${h})
      set(touch)
    else()
      set(stamp ${outDir}/${stem}.stamp)
      set(outputs OUTPUT ${stamp} BYPRODUCTS ${c} ${h})
      set(touch COMMAND ${CMAKE_COMMAND} -E touch ${stamp})
    endif()
    add_custom_command(
      ${outputs}
      COMMAND ${moac} compile ${source} --target=${arg_TARGET} -o ${c} --header ${h} --depfile ${d} ${arg_OPTIONS}
      ${touch}
      DEPENDS ${source} ${moac} $<TARGET_FILE:${moac}>
      DEPFILE ${d}
      COMMENT "moac: generating ${name}/${stem}.c from ${src} (target ${arg_TARGET})"
      VERBATIM)
    list(APPEND generated ${stamp} ${c} ${h})
  endforeach()

  add_library(${name} STATIC ${generated})
  set_target_properties(${name} PROPERTIES C_STANDARD 99 C_STANDARD_REQUIRED ON POSITION_INDEPENDENT_CODE ON)
  target_include_directories(${name} PUBLIC $<BUILD_INTERFACE:${outDir}>)
  target_link_libraries(${name} PUBLIC moac::rt)
  if(arg_TARGET STREQUAL "openmp")
    find_package(OpenMP REQUIRED COMPONENTS C)
    target_link_libraries(${name} PUBLIC OpenMP::OpenMP_C)
  elseif(arg_TARGET STREQUAL "openacc")
    moac_openacc_flags(accFlags)
    target_compile_options(${name} PUBLIC ${accFlags})
    target_link_options(${name} PUBLIC ${accFlags})
  endif()
endfunction()
