# `cmake --install build --prefix P`: the moac driver, its manual page, libmoart and its headers, bash completion,
# moac.torch, and the
# CMake package P/lib/cmake/moac (moacConfig.cmake, its version file, the exported targets moac::moac
# and moac::rt, and moac_add_kernel). docs/cmake.md describes the package.
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

set(MOAC_INSTALL_CMAKEDIR ${CMAKE_INSTALL_LIBDIR}/cmake/moac)
install(TARGETS moac EXPORT moacTargets RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(EXPORT moacTargets NAMESPACE moac:: DESTINATION ${MOAC_INSTALL_CMAKEDIR})
configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/moacConfig.cmake.in
                              ${PROJECT_BINARY_DIR}/moacConfig.cmake INSTALL_DESTINATION ${MOAC_INSTALL_CMAKEDIR})
write_basic_package_version_file(${PROJECT_BINARY_DIR}/moacConfigVersion.cmake COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/moacConfig.cmake ${PROJECT_BINARY_DIR}/moacConfigVersion.cmake
              ${PROJECT_SOURCE_DIR}/cmake/MoacAddKernel.cmake ${PROJECT_SOURCE_DIR}/cmake/MoacOpenACC.cmake
        DESTINATION ${MOAC_INSTALL_CMAKEDIR})
install(FILES ${PROJECT_SOURCE_DIR}/scripts/moac-completion.bash RENAME moac
        DESTINATION ${CMAKE_INSTALL_DATADIR}/bash-completion/completions)
# moac.torch (docs/pytorch.md): with P/share/moac/python on PYTHONPATH, `import moac.torch` finds this moac.
install(FILES ${PROJECT_SOURCE_DIR}/python/moac/__init__.py ${PROJECT_SOURCE_DIR}/python/moac/torch.py
        DESTINATION ${CMAKE_INSTALL_DATADIR}/moac/python/moac)
install(FILES ${PROJECT_BINARY_DIR}/moac.1 DESTINATION ${CMAKE_INSTALL_MANDIR}/man1)
