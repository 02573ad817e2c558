# cmake -DNM=nm -DLIBS="a.a;b.a" -P check.cmake: lists every writable data symbol of the libraries
# (nm's System V format names each symbol's section) and fails on any the allow list does not excuse.
#
# The allow list, each entry with its reason. It names code that is not moac's: state of the libraries'
# headers instantiated in moac's objects, which holds no compilation's data.
#   DW.ref.*        GCC's indirection cells for exception handling (DW.ref.__gxx_personality_v0, the typeinfo
#                   of a caught type): written once by the dynamic loader's relocation, never by moac.
#   std::           libstdc++: <iostream>'s std::__ioinit, <regex>'s constant tables (function-local statics
#                   with guards, never changed after their first use).
#   CLI::           CLI11 (the driver's command line): its validators (CLI::ExistingFile, …) and separator
#                   strings, header-only globals set up once before main.
#   llvm::          LLVM's ABI-check variable (llvm::VerifyDisableABIBreakingChecks) that its headers define in
#                   every object including them; cformat/ links Clang.
#   moac::(anonymous namespace)::{armedFolder,armed,previous}  (driver/TemporaryFolder.cpp) moac check's
#                   temporary folder as its SIGINT/SIGTERM handler sees it: a signal handler can reach no
#                   context, so the folder to remove and the handlers to restore are process state by nature
#                   (sig_atomic_t and a fixed buffer, set around one check, never read by a compilation).
# Everything else (moac::…, or a file-level static outside any namespace) fails.
set(allowed "^(DW\\.ref\\.|(guard variable for )?(std|CLI|llvm)::|moac::\\(anonymous namespace\\)::(armedFolder|armed|previous)$)")

set(found "")
foreach(lib IN LISTS LIBS)
  execute_process(COMMAND ${NM} -f sysv -C ${lib} OUTPUT_VARIABLE table RESULT_VARIABLE rc ERROR_QUIET)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "${NM} failed on ${lib}")
  endif()
  string(REPLACE ";" "," table "${table}") # no list separators inside demangled names
  string(REPLACE "\n" ";" lines "${table}")
  foreach(line IN LISTS lines)
    string(REPLACE "|" ";" fields "${line}")
    list(LENGTH fields n)
    if(n LESS 7)
      continue()
    endif()
    list(GET fields 0 name)
    list(GET fields 6 section)
    string(STRIP "${name}" name)
    string(STRIP "${section}" section)
    set(writable OFF)
    if(section MATCHES "^\\.(data|bss|tdata|tbss)(\\.|$)" AND NOT section MATCHES "^\\.data\\.rel\\.ro(\\.|$)")
      set(writable ON)
    endif()
    if(name MATCHES "^guard variable for ")
      set(writable ON)
    endif()
    if(writable AND NOT name MATCHES "${allowed}")
      get_filename_component(libname ${lib} NAME)
      string(APPEND found "  ${libname}: ${name} (${section})\n")
    endif()
  endforeach()
endforeach()
if(found)
  message(FATAL_ERROR "static mutable state in compiler/ (it belongs in the CompilationContext):\n${found}")
endif()
list(LENGTH LIBS count)
message(STATUS "no writable data symbols in ${count} stage libraries")
