# cmake --install: the geoalign command, the C++ library with its public headers
# (include/geoalign) and a CMake package, so that a project elsewhere builds against it with
#   find_package(geoalign REQUIRED)
#   target_link_libraries(app PRIVATE geoalign::geoalign)
# and the bundled model (models/default), whose parser serves folders without one.
include(CMakePackageConfigHelpers)

# geoalign::geoalign: matching and parsing (geoalign_core), the index and search
# (geoalign_index), and the public headers.
add_library(geoalign_package INTERFACE)
target_link_libraries(geoalign_package INTERFACE geoalign_core geoalign_index)
set_target_properties(geoalign_package PROPERTIES EXPORT_NAME geoalign)
set_target_properties(geoalign_core PROPERTIES EXPORT_NAME core)
set_target_properties(geoalign_index PROPERTIES EXPORT_NAME index)
install(TARGETS geoalign_package geoalign_core geoalign_index EXPORT geoalignTargets
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR})
install(DIRECTORY include/geoalign DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(TARGETS geoalign RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(DIRECTORY models/default DESTINATION ${CMAKE_INSTALL_DATADIR}/geoalign/models)

set(geoalign_package_dir ${CMAKE_INSTALL_LIBDIR}/cmake/geoalign)
install(EXPORT geoalignTargets NAMESPACE geoalign:: DESTINATION ${geoalign_package_dir})
# What the static library was built with, so the package finds the same dependencies.
set(GEOALIGN_PACKAGE_WITH_OPENCC ${OPENCC_FOUND})
set(GEOALIGN_PACKAGE_WITH_CUDA ${geoalign_with_cuda})
configure_package_config_file(cmake/geoalignConfig.cmake.in ${CMAKE_CURRENT_BINARY_DIR}/geoalignConfig.cmake
                              INSTALL_DESTINATION ${geoalign_package_dir} PATH_VARS CMAKE_INSTALL_DATADIR)
write_basic_package_version_file(${CMAKE_CURRENT_BINARY_DIR}/geoalignConfigVersion.cmake
                                 COMPATIBILITY SameMinorVersion)
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/geoalignConfig.cmake ${CMAKE_CURRENT_BINARY_DIR}/geoalignConfigVersion.cmake
        DESTINATION ${geoalign_package_dir})
