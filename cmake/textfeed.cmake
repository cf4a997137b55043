# Helpers that keep each module's CMakeLists.txt to a few lines.
include(GNUInstallDirs)

add_library(textfeed_warnings INTERFACE)
add_library(textfeed::warnings ALIAS textfeed_warnings)
target_compile_options(textfeed_warnings INTERFACE -Wall -Wextra -Wpedantic -Wshadow
                       -Wnon-virtual-dtor -Wno-missing-field-initializers)
if(TEXTFEED_WERROR)
  target_compile_options(textfeed_warnings INTERFACE -Werror)
endif()

# textfeed_module(NAME SOURCES ... PUBLIC_DEPS ... PRIVATE_DEPS ...)
# One static library textfeed_<NAME>, alias textfeed::<NAME>. The repository root is
# the include root ("base/status.h"); the build tree holds generated headers. Installed, the
# library is textfeed::<NAME> of find_package(textfeed) and <prefix>/include/textfeed is the
# include root (cmake/install.cmake installs the module folder's headers, not detail/).
function(textfeed_module NAME)
  cmake_parse_arguments(M "" "" "SOURCES;PUBLIC_DEPS;PRIVATE_DEPS" ${ARGN})
  add_library(textfeed_${NAME} STATIC ${M_SOURCES})
  add_library(textfeed::${NAME} ALIAS textfeed_${NAME})
  set_target_properties(textfeed_${NAME} PROPERTIES EXPORT_NAME ${NAME})
  target_include_directories(textfeed_${NAME} PUBLIC
    $<BUILD_INTERFACE:${PROJECT_SOURCE_DIR}> $<BUILD_INTERFACE:${PROJECT_BINARY_DIR}>
    $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}/textfeed>)
  # The warning flags are ours to build with, not a user's: build tree only.
  target_link_libraries(textfeed_${NAME} PUBLIC ${M_PUBLIC_DEPS}
                        PRIVATE ${M_PRIVATE_DEPS} $<BUILD_INTERFACE:textfeed::warnings>)
  install(TARGETS textfeed_${NAME} EXPORT textfeedTargets
          ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT dev)
  set_property(GLOBAL APPEND PROPERTY TEXTFEED_MODULE_DIRS ${CMAKE_CURRENT_SOURCE_DIR})
endfunction()

# A C++ test still running after this many seconds is stopped and reported as failed, with its
# name and output, instead of holding `make test` for ever (far longer than any test runs, under
# the sanitizers too).
set(TEXTFEED_TEST_TIMEOUT 1500)

# textfeed_test(MODULE SOURCES ... DEPS ... [LABELS ...])
# One GoogleTest binary per module, tests discovered by CTest. Tests find the sample data
# (data/icdar15-sample) through TEXTFEED_DATA_DIR, the source and build trees through
# TEXTFEED_SOURCE_DIR and TEXTFEED_BINARY_DIR. LABELS name a group `ctest -L` selects (`timing`:
# tests that run a daemon on real time).
function(textfeed_test MODULE)
  cmake_parse_arguments(T "" "" "SOURCES;DEPS;LABELS" ${ARGN})
  set(target textfeed_${MODULE}_tests)
  add_executable(${target} ${T_SOURCES})
  target_link_libraries(${target} PRIVATE textfeed::${MODULE} ${T_DEPS} GTest::gtest GTest::gtest_main
                        textfeed::warnings)
  target_compile_definitions(${target} PRIVATE
    TEXTFEED_DATA_DIR="${TEXTFEED_DATA_DIR}"
    TEXTFEED_SOURCE_DIR="${PROJECT_SOURCE_DIR}"
    TEXTFEED_BINARY_DIR="${PROJECT_BINARY_DIR}")
  set(properties TIMEOUT ${TEXTFEED_TEST_TIMEOUT})
  if(T_LABELS)
    list(APPEND properties LABELS ${T_LABELS})
  endif()
  gtest_discover_tests(${target} DISCOVERY_TIMEOUT 60 PROPERTIES ${properties})
endfunction()
