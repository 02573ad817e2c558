# Clang libTooling, the lean way (see shared/ENVIRONMENT.md): LLVMConfig for the include and library
# folders, then the clang-cpp dylib as an imported target. Debian's ClangConfig.cmake pulls in every
# clang tool package and its static libraries crash next to the LLVM dylib, so it is not used.
find_package(LLVM 14 CONFIG REQUIRED)
find_library(MOAC_CLANG_CPP clang-cpp HINTS ${LLVM_LIBRARY_DIR} NO_DEFAULT_PATH REQUIRED)
find_library(MOAC_LLVM_DYLIB LLVM HINTS ${LLVM_LIBRARY_DIR} NO_DEFAULT_PATH REQUIRED)
add_library(moac_clang INTERFACE)
target_include_directories(moac_clang SYSTEM INTERFACE ${LLVM_INCLUDE_DIRS})
target_compile_definitions(moac_clang INTERFACE ${LLVM_DEFINITIONS})
target_link_libraries(moac_clang INTERFACE ${MOAC_CLANG_CPP} ${MOAC_LLVM_DYLIB})
message(STATUS "moac: LLVM ${LLVM_PACKAGE_VERSION} from ${LLVM_LIBRARY_DIR}")

# Clang's own headers (stddef.h, …) for the in-process syntax check of generated code (CVerify.cpp);
# Debian ships them in libclang-common-14-dev.
set(MOAC_CLANG_RESOURCE_DIR "${LLVM_LIBRARY_DIR}/clang/${LLVM_PACKAGE_VERSION}")
if(NOT EXISTS "${MOAC_CLANG_RESOURCE_DIR}/include/stddef.h")
  message(FATAL_ERROR "moac: no Clang resource headers in ${MOAC_CLANG_RESOURCE_DIR} (install libclang-common-14-dev)")
endif()
