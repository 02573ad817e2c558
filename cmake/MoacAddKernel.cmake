# moac_add_kernel(NAME SOURCES a.moa [b.moa ...] TARGET c|openmp|openacc|cuda
#                 [FUNCTION_NAME IDENT] [OUTPUT_DIRECTORY DIR] [ADD_TO EXISTING_TARGET]
#                 [HEADER VAR] [OUT_VAR VAR] [INCLUDE_DESTINATION DIR] [OPTIONS option ...])
#
# The kernels moac generates at build time from the .moa files: for each a.moa, `moac compile a.moa
# --target=TARGET -o DIR/a.c --header DIR/a.h --depfile DIR/a.d [--name=IDENT] OPTIONS...`, run in the
# top-level source folder (so that the generated files record the .moa path relative to it, never an
# absolute path). DIR is OUTPUT_DIRECTORY, by default the binary folder's NAME/. FUNCTION_NAME (one source
# only) names the kernel (moac compile --name) and its files, IDENT.c and IDENT.h, so that two builds of one
# program coexist. By default NAME is a new static library of the kernels; with ADD_TO the generated
# sources, the include folder and the libraries below are added to an existing target instead (privately).
# HEADER and OUT_VAR name variables set, in the caller's scope, to the generated headers and to every
# generated file (.c and .h). The include folder is DIR in the build tree and INCLUDE_DESTINATION (default
# CMAKE_INSTALL_INCLUDEDIR) once installed, so a library NAME can be exported with install(EXPORT).
# A kernel is generated again when its .moa file, anything the depfile lists, or the moac executable
# changes; moac leaves an output that would not change untouched. The kernels link moac::rt, and for openmp
# OpenMP::OpenMP_C, for openacc the OpenACC options of MoacOpenACC.cmake (GCC: -fopenacc with offloading to
# nvptx when an offload compiler is installed, else -foffload=disable), on compile and link lines. TARGET
# cuda generates a.cu (and the C header a.h) and needs the CUDA language, enabled by the caller
# (enable_language(CUDA), with CMAKE_CUDA_ARCHITECTURES, e.g. 90): the kernels are then CUDA sources
# (C++17) and link CUDA::cudart; moac never enables CUDA for a project that does not ask for it.
#
# Works from an installed package (find_package(moac), where moac::moac is imported) and inside moac's own
# build tree (where moac::moac is an alias of the moac target). See docs/cmake.md.
include_guard(GLOBAL)
include(${CMAKE_CURRENT_LIST_DIR}/MoacOpenACC.cmake)

include(GNUInstallDirs)

# The custom command of one kernel; sets `${outVar}` to its outputs (with the stamp under Make).
function(_moac_kernel_command moac source stem outDir target functionName options outVar)
  set(c ${outDir}/${stem}.c)
  if(target STREQUAL "cuda")
    set(c ${outDir}/${stem}.cu)
  endif()
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
  set(name)
  if(functionName)
    set(name --name=${functionName})
  endif()
  file(RELATIVE_PATH shown ${CMAKE_BINARY_DIR} ${outDir})
  get_filename_component(ext ${c} LAST_EXT)
  add_custom_command(
    ${outputs}
    COMMAND ${moac} compile ${source} --target=${target} -o ${c} --header ${h} --depfile ${d} ${name} ${options}
    ${touch}
    DEPENDS ${source} ${moac} $<TARGET_FILE:${moac}>
    DEPFILE ${d}
    WORKING_DIRECTORY ${CMAKE_SOURCE_DIR}
    COMMENT "moac: generating ${shown}/${stem}${ext} from ${source} (target ${target})"
    VERBATIM)
  set(${outVar} ${stamp} ${c} ${h} PARENT_SCOPE)
endfunction()

function(moac_add_kernel name)
  cmake_parse_arguments(PARSE_ARGV 1 arg ""
                        "TARGET;FUNCTION_NAME;OUTPUT_DIRECTORY;ADD_TO;HEADER;OUT_VAR;INCLUDE_DESTINATION"
                        "SOURCES;OPTIONS")
  if(arg_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "moac_add_kernel(${name}): unexpected arguments: ${arg_UNPARSED_ARGUMENTS}")
  endif()
  if(NOT arg_SOURCES)
    message(FATAL_ERROR "moac_add_kernel(${name}): no SOURCES given")
  endif()
  if(NOT arg_TARGET MATCHES "^(c|openmp|openacc|cuda)$")
    message(FATAL_ERROR "moac_add_kernel(${name}): TARGET must be c, openmp, openacc or cuda, not '${arg_TARGET}'")
  endif()
  get_property(languages GLOBAL PROPERTY ENABLED_LANGUAGES)
  if(arg_TARGET STREQUAL "cuda" AND NOT "CUDA" IN_LIST languages)
    message(FATAL_ERROR "moac_add_kernel(${name}): TARGET cuda needs the CUDA language: call enable_language(CUDA) "
                        "first (with CMAKE_CUDA_COMPILER=/usr/local/cuda/bin/nvcc and CMAKE_CUDA_ARCHITECTURES=90)")
  endif()
  set(ext .c)
  if(arg_TARGET STREQUAL "cuda")
    set(ext .cu)
  endif()
  list(LENGTH arg_SOURCES nsources)
  if(arg_FUNCTION_NAME AND nsources GREATER 1)
    message(FATAL_ERROR "moac_add_kernel(${name}): FUNCTION_NAME names one kernel: give one source")
  endif()
  if(arg_ADD_TO AND NOT TARGET ${arg_ADD_TO})
    message(FATAL_ERROR "moac_add_kernel(${name}): ADD_TO ${arg_ADD_TO} is not a target")
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
  if(arg_OUTPUT_DIRECTORY)
    get_filename_component(outDir ${arg_OUTPUT_DIRECTORY} ABSOLUTE BASE_DIR ${CMAKE_CURRENT_BINARY_DIR})
  endif()
  set(includeDestination ${CMAKE_INSTALL_INCLUDEDIR})
  if(arg_INCLUDE_DESTINATION)
    set(includeDestination ${arg_INCLUDE_DESTINATION})
  endif()
  file(MAKE_DIRECTORY ${outDir})
  set(generated)
  set(files)
  set(headers)
  set(stems)
  foreach(src IN LISTS arg_SOURCES)
    get_filename_component(source ${src} ABSOLUTE BASE_DIR ${CMAKE_CURRENT_SOURCE_DIR})
    get_filename_component(stem ${src} NAME_WLE)
    if(arg_FUNCTION_NAME)
      set(stem ${arg_FUNCTION_NAME})
    endif()
    if(stem IN_LIST stems)
      message(FATAL_ERROR "moac_add_kernel(${name}): two sources named ${stem}.moa")
    endif()
    list(APPEND stems ${stem})
    _moac_kernel_command(${moac} ${source} ${stem} ${outDir} ${arg_TARGET} "${arg_FUNCTION_NAME}" "${arg_OPTIONS}"
                         outputs)
    list(APPEND generated ${outputs})
    list(APPEND files ${outDir}/${stem}${ext} ${outDir}/${stem}.h)
    list(APPEND headers ${outDir}/${stem}.h)
  endforeach()
  if(arg_HEADER)
    set(${arg_HEADER} ${headers} PARENT_SCOPE)
  endif()
  if(arg_OUT_VAR)
    set(${arg_OUT_VAR} ${files} PARENT_SCOPE)
  endif()

  set(scope PUBLIC)
  set(kernels ${name})
  if(arg_ADD_TO)
    set(scope PRIVATE)
    set(kernels ${arg_ADD_TO})
    target_sources(${kernels} PRIVATE ${generated})
    set_source_files_properties(${files} TARGET_DIRECTORY ${kernels} PROPERTIES GENERATED ON)
  else()
    add_library(${name} STATIC ${generated})
    # ISO C99, not GNU: GCC then contracts no a * b + c into a fused multiply-add (it would in GNU mode, in
    # the kernel's AVX2 clone: docs/abi.md, "CPU clones"), so the library rounds as `moac check` builds it.
    set_target_properties(${name} PROPERTIES C_STANDARD 99 C_STANDARD_REQUIRED ON C_EXTENSIONS OFF
                                             POSITION_INDEPENDENT_CODE ON)
  endif()
  target_include_directories(${kernels} ${scope} $<BUILD_INTERFACE:${outDir}>
                                                 $<INSTALL_INTERFACE:${includeDestination}>)
  target_link_libraries(${kernels} ${scope} moac::rt)
  if(arg_TARGET STREQUAL "openmp")
    find_package(OpenMP REQUIRED COMPONENTS C)
    target_link_libraries(${kernels} ${scope} OpenMP::OpenMP_C)
  elseif(arg_TARGET STREQUAL "cuda")
    find_package(CUDAToolkit REQUIRED)
    if(NOT arg_ADD_TO)
      set_target_properties(${name} PROPERTIES CUDA_STANDARD 17 CUDA_STANDARD_REQUIRED ON)
    endif()
    target_link_libraries(${kernels} ${scope} CUDA::cudart)
  elseif(arg_TARGET STREQUAL "openacc")
    moac_openacc_flags(accFlags)
    target_compile_options(${kernels} ${scope} ${accFlags})
    target_link_options(${kernels} ${scope} ${accFlags})
  endif()
endfunction()
