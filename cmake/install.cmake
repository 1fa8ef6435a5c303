# `cmake --install build --prefix P`:
#   P/bin/tensord                       the daemon
#   P/lib/libtensord_client.a           the client, with the project libraries it needs
#   P/include/tensord/*.h               the client's public headers (#include <tensord/client.h>)
#   P/include/tensord/engine/ir/*.h     the IR headers they include, under their usual path
#   P/share/tensord/tensord.capnp       the schema (installed by protocol/)
#   P/lib/cmake/tensord/                a CMake package: find_package(tensord) -> tensord::client
include(CMakePackageConfigHelpers)

if(TARGET tensord)
  install(TARGETS tensord RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
endif()

if(TARGET tensord_client)
  set(TENSORD_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/tensord)

  # Installed headers resolve "engine/ir/..." from include/tensord and <tensord/...> from
  # include; in the build tree the repository root and client/cpp/include do the same.
  target_include_directories(tensord_client
    PUBLIC $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}>)
  target_include_directories(tensord_ir
    PUBLIC $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}/tensord>)
  set_target_properties(tensord_client PROPERTIES EXPORT_NAME client)
  set_target_properties(tensord_ir PROPERTIES EXPORT_NAME ir)
  set_target_properties(tensord_protocol PROPERTIES EXPORT_NAME protocol)
  set_target_properties(tensord_profiler PROPERTIES EXPORT_NAME profiler)
  target_include_directories(tensord_profiler
    PUBLIC $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}/tensord>)
  # Static libraries list their private dependencies for linking: the warnings target is one
  # (an interface target that adds nothing at link time), so it is exported too.
  set_target_properties(tensord_warnings PROPERTIES EXPORT_NAME warnings)
  install(TARGETS tensord_client tensord_ir tensord_protocol tensord_profiler tensord_warnings
    EXPORT tensordTargets
    ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR})
  install(EXPORT tensordTargets NAMESPACE tensord:: DESTINATION ${TENSORD_CMAKE_DIR})

  install(DIRECTORY ${PROJECT_SOURCE_DIR}/client/cpp/include/tensord
    DESTINATION ${CMAKE_INSTALL_INCLUDEDIR} FILES_MATCHING PATTERN "*.h")
  # The IR headers the public headers include (directly or through each other).
  install(FILES
      ${PROJECT_SOURCE_DIR}/engine/ir/dtype.h
      ${PROJECT_SOURCE_DIR}/engine/ir/error.h
      ${PROJECT_SOURCE_DIR}/engine/ir/half.h
      ${PROJECT_SOURCE_DIR}/engine/ir/shape.h
    DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/tensord/engine/ir)
  # The profiler's trace types (tensord/profile.h includes them).
  install(FILES
      ${PROJECT_SOURCE_DIR}/engine/profiler/advice.h
      ${PROJECT_SOURCE_DIR}/engine/profiler/compact.h
      ${PROJECT_SOURCE_DIR}/engine/profiler/memory_ledger.h
      ${PROJECT_SOURCE_DIR}/engine/profiler/profiler.h
      ${PROJECT_SOURCE_DIR}/engine/profiler/record.h
      ${PROJECT_SOURCE_DIR}/engine/profiler/record_codec.h
      ${PROJECT_SOURCE_DIR}/engine/profiler/segment_observer.h
      ${PROJECT_SOURCE_DIR}/engine/profiler/summary.h
    DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/tensord/engine/profiler)

  configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/tensordConfig.cmake.in
    ${CMAKE_CURRENT_BINARY_DIR}/tensordConfig.cmake
    INSTALL_DESTINATION ${TENSORD_CMAKE_DIR})
  write_basic_package_version_file(${CMAKE_CURRENT_BINARY_DIR}/tensordConfigVersion.cmake
    COMPATIBILITY SameMinorVersion)
  install(FILES
      ${CMAKE_CURRENT_BINARY_DIR}/tensordConfig.cmake
      ${CMAKE_CURRENT_BINARY_DIR}/tensordConfigVersion.cmake
    DESTINATION ${TENSORD_CMAKE_DIR})
endif()
