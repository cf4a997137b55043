# `cmake --install <build> --prefix P`: what goes where, in three components.
#   runtime  P/bin/textfeed
#   python   P/<site>/textfeed: the pure-Python files, stubs, _core; <site> is where the
#            interpreter imports from under P (cmake/python_site.py), or TEXTFEED_PYTHON_INSTALL_DIR
#   dev      P/include/textfeed/<module>/*.h (not detail/), P/lib/libtextfeed_*.a and
#            P/lib/cmake/textfeed: find_package(textfeed) gives textfeed::client and every module
# cmake/package.cmake packs them as Debian packages; scripts/wheel_backend.py as a wheel.
include(CMakePackageConfigHelpers)

install(TARGETS textfeed RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR} COMPONENT runtime)

if(TEXTFEED_BUILD_PYTHON)
  # Build folders configured before the folder was chosen at install time cached the one computed
  # then (for /usr, whatever the prefix); it was no choice of the user's, so it is dropped.
  get_property(py_dir_help CACHE TEXTFEED_PYTHON_INSTALL_DIR PROPERTY HELPSTRING)
  if(py_dir_help STREQUAL "Folder (relative to the install prefix) that receives the Python \
package textfeed/")
    unset(TEXTFEED_PYTHON_INSTALL_DIR CACHE)
  endif()
  set(TEXTFEED_PYTHON_INSTALL_DIR "" CACHE STRING "Folder under the install prefix that receives \
the Python package textfeed/; empty: the one TEXTFEED_PYTHON imports from under that prefix")
  if(TEXTFEED_PYTHON_INSTALL_DIR)
    set(py_dir ${TEXTFEED_PYTHON_INSTALL_DIR})
  else()
    # The prefix is known only when installing (--prefix, CPack's /usr): there the interpreter
    # names its folder under it (cmake/python_site.py), and the two rules below read it, since
    # their destinations are expanded in cmake_install.cmake.
    install(CODE "set(textfeed_python [[${TEXTFEED_PYTHON}]])
                  set(textfeed_python_site [[${PROJECT_SOURCE_DIR}/cmake/python_site.py]])"
            COMPONENT python)
    install(CODE [[
      execute_process(COMMAND "${textfeed_python}" "${textfeed_python_site}" "${CMAKE_INSTALL_PREFIX}"
                      OUTPUT_VARIABLE textfeed_python_dir OUTPUT_STRIP_TRAILING_WHITESPACE
                      RESULT_VARIABLE rc)
      if(NOT rc EQUAL 0 OR textfeed_python_dir STREQUAL "")
        message(FATAL_ERROR "${textfeed_python} did not name its site-packages folder under "
                            "${CMAKE_INSTALL_PREFIX}: configure with "
                            "-DTEXTFEED_PYTHON_INSTALL_DIR=<folder relative to the prefix>")
      endif()
      message(STATUS "Python package textfeed: ${CMAKE_INSTALL_PREFIX}/${textfeed_python_dir}")
    ]] COMPONENT python)
    set(py_dir "\${textfeed_python_dir}")
  endif()
  get_directory_property(py_files DIRECTORY client/python DEFINITION TEXTFEED_PY_SOURCES)
  get_directory_property(py_typing DIRECTORY client/python DEFINITION TEXTFEED_PY_TYPING)
  list(TRANSFORM py_files PREPEND ${PROJECT_BINARY_DIR}/python/textfeed/)
  list(TRANSFORM py_typing PREPEND ${PROJECT_BINARY_DIR}/python/textfeed/)
  install(FILES ${py_files} ${py_typing} DESTINATION ${py_dir}/textfeed COMPONENT python)
  install(TARGETS textfeed_core LIBRARY DESTINATION ${py_dir}/textfeed COMPONENT python)
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
