# Warnings on for our own code; sanitizers with -DTENSORD_SANITIZE=ON.
add_library(tensord_warnings INTERFACE)
target_compile_options(tensord_warnings INTERFACE
  -Wall -Wextra -Wpedantic -Wshadow=local -Wnon-virtual-dtor -Wno-unused-parameter
  $<$<BOOL:${TENSORD_WERROR}>:-Werror>)

if(TENSORD_SANITIZE)
  add_compile_options(-fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined)
  add_link_options(-fsanitize=address,undefined)
  # GCC 12 with ASan warns "may be used uninitialized" inside Cap'n Proto's kj::Maybe (copying
  # getResults()' MessageSize); the Release build keeps the warning.
  add_compile_options($<$<CXX_COMPILER_ID:GNU>:-Wno-maybe-uninitialized>)
  # What a report of either sanitizer starts with, for ctest's FAIL_REGULAR_EXPRESSION.
  set(TENSORD_SANITIZER_REPORT "ERROR: AddressSanitizer;ERROR: LeakSanitizer;runtime error: ")
endif()

# Every library of the project links this: warnings on, include paths from the repository root.
function(tensord_library name)
  cmake_parse_arguments(ARG "" "" "SOURCES;DEPS;PUBLIC_DEPS" ${ARGN})
  add_library(${name} STATIC ${ARG_SOURCES})
  target_include_directories(${name} PUBLIC $<BUILD_INTERFACE:${PROJECT_SOURCE_DIR}>)
  target_link_libraries(${name} PRIVATE tensord_warnings ${ARG_DEPS} PUBLIC ${ARG_PUBLIC_DEPS})
endfunction()
