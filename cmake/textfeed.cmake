# Helpers that keep each module's CMakeLists.txt to a few lines.

add_library(textfeed_warnings INTERFACE)
add_library(textfeed::warnings ALIAS textfeed_warnings)
target_compile_options(textfeed_warnings INTERFACE -Wall -Wextra -Wpedantic -Wshadow
                       -Wnon-virtual-dtor -Wno-missing-field-initializers)
if(TEXTFEED_WERROR)
  target_compile_options(textfeed_warnings INTERFACE -Werror)
endif()

# textfeed_module(NAME SOURCES ... PUBLIC_DEPS ... PRIVATE_DEPS ...)
# One static library textfeed_<NAME>, alias textfeed::<NAME>. The repository root is
# the include root ("base/status.h"); the build tree holds generated headers.
function(textfeed_module NAME)
  cmake_parse_arguments(M "" "" "SOURCES;PUBLIC_DEPS;PRIVATE_DEPS" ${ARGN})
  add_library(textfeed_${NAME} STATIC ${M_SOURCES})
  add_library(textfeed::${NAME} ALIAS textfeed_${NAME})
  target_include_directories(textfeed_${NAME} PUBLIC ${PROJECT_SOURCE_DIR} ${PROJECT_BINARY_DIR})
  target_link_libraries(textfeed_${NAME} PUBLIC ${M_PUBLIC_DEPS}
                        PRIVATE ${M_PRIVATE_DEPS} textfeed::warnings)
endfunction()

# textfeed_test(MODULE SOURCES ... DEPS ...)
# One GoogleTest binary per module, tests discovered by CTest. Tests find the sample data
# (data/icdar15-sample) through TEXTFEED_DATA_DIR, the source and build trees through
# TEXTFEED_SOURCE_DIR and TEXTFEED_BINARY_DIR.
function(textfeed_test MODULE)
  cmake_parse_arguments(T "" "" "SOURCES;DEPS" ${ARGN})
  set(target textfeed_${MODULE}_tests)
  add_executable(${target} ${T_SOURCES})
  target_link_libraries(${target} PRIVATE textfeed::${MODULE} ${T_DEPS} GTest::gtest GTest::gtest_main
                        textfeed::warnings)
  target_compile_definitions(${target} PRIVATE
    TEXTFEED_DATA_DIR="${TEXTFEED_DATA_DIR}"
    TEXTFEED_SOURCE_DIR="${PROJECT_SOURCE_DIR}"
    TEXTFEED_BINARY_DIR="${PROJECT_BINARY_DIR}")
  gtest_discover_tests(${target} DISCOVERY_TIMEOUT 60)
endfunction()
