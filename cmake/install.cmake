# `cmake --install <build> --prefix P`: what goes where, in three components.
#   runtime  P/bin/textfeed
#   python   P/<TEXTFEED_PYTHON_INSTALL_DIR>/textfeed: the pure-Python files, stubs, _core
#   dev      P/include/textfeed/<module>/*.h (not detail/), P/lib/libtextfeed_*.a and
#            P/lib/cmake/textfeed: find_package(textfeed) gives textfeed::client and every module
# cmake/package.cmake packs them as Debian packages; scripts/wheel_backend.py as a wheel.
include(CMakePackageConfigHelpers)

install(TARGETS textfeed RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR} COMPONENT runtime)

if(TEXTFEED_BUILD_PYTHON)
  # The interpreter's own layout under the prefix, relative to it: Debian's deb_system scheme
  # (lib/python3/dist-packages, which /usr/bin/python3 reads under /usr), else posix_prefix.
  if(NOT DEFINED TEXTFEED_PYTHON_INSTALL_DIR)
    execute_process(
      COMMAND ${TEXTFEED_PYTHON} -c [[
import os, sysconfig
scheme = "deb_system" if "deb_system" in sysconfig.get_scheme_names() else "posix_prefix"
print(os.path.relpath(sysconfig.get_path("platlib", scheme, vars={"base": "/P", "platbase": "/P"}), "/P"))
]]
      OUTPUT_VARIABLE platlib OUTPUT_STRIP_TRAILING_WHITESPACE RESULT_VARIABLE rc)
    if(NOT rc EQUAL 0 OR platlib STREQUAL "")
      message(FATAL_ERROR "${TEXTFEED_PYTHON} did not name its site-packages folder; "
                          "set TEXTFEED_PYTHON_INSTALL_DIR")
    endif()
    set(TEXTFEED_PYTHON_INSTALL_DIR ${platlib})
  endif()
  set(TEXTFEED_PYTHON_INSTALL_DIR ${TEXTFEED_PYTHON_INSTALL_DIR} CACHE STRING
      "Folder (relative to the install prefix) that receives the Python package textfeed/")
  get_directory_property(py_files DIRECTORY client/python DEFINITION TEXTFEED_PY_SOURCES)
  get_directory_property(py_typing DIRECTORY client/python DEFINITION TEXTFEED_PY_TYPING)
  list(TRANSFORM py_files PREPEND ${PROJECT_BINARY_DIR}/python/textfeed/)
  list(TRANSFORM py_typing PREPEND ${PROJECT_BINARY_DIR}/python/textfeed/)
  install(FILES ${py_files} ${py_typing} DESTINATION ${TEXTFEED_PYTHON_INSTALL_DIR}/textfeed
          COMPONENT python)
  install(TARGETS textfeed_core LIBRARY DESTINATION ${TEXTFEED_PYTHON_INSTALL_DIR}/textfeed
          COMPONENT python)
endif()

# Public headers: each module folder's own, keeping the include root ("base/status.h"); detail/
# is private (STYLE.md: nothing outside a module includes it) and client/python is the extension.
get_property(module_dirs GLOBAL PROPERTY TEXTFEED_MODULE_DIRS)
list(REMOVE_DUPLICATES module_dirs)
foreach(dir ${module_dirs})
  file(RELATIVE_PATH rel ${PROJECT_SOURCE_DIR} ${dir})
  install(DIRECTORY ${dir}/ DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/textfeed/${rel} COMPONENT dev
          FILES_MATCHING PATTERN "*.h" PATTERN "detail" EXCLUDE PATTERN "python" EXCLUDE)
endforeach()
install(FILES ${PROJECT_BINARY_DIR}/base/version.h DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/textfeed/base
        COMPONENT dev)

set(config_dir ${CMAKE_INSTALL_LIBDIR}/cmake/textfeed)
install(EXPORT textfeedTargets NAMESPACE textfeed:: DESTINATION ${config_dir} COMPONENT dev)
configure_package_config_file(cmake/textfeedConfig.cmake.in ${PROJECT_BINARY_DIR}/textfeedConfig.cmake
                              INSTALL_DESTINATION ${config_dir})
# 0.x: a minor version may break the API.
write_basic_package_version_file(${PROJECT_BINARY_DIR}/textfeedConfigVersion.cmake
                                 COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/textfeedConfig.cmake ${PROJECT_BINARY_DIR}/textfeedConfigVersion.cmake
        DESTINATION ${config_dir} COMPONENT dev)
