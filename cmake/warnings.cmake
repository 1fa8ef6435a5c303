# Warnings on for our own code; sanitizers with -DTENSORD_SANITIZE=ON.
add_library(tensord_warnings INTERFACE)
target_compile_options(tensord_warnings INTERFACE
  -Wall -Wextra -Wpedantic -Wshadow=local -Wnon-virtual-dtor -Wno-unused-parameter
  $<$<BOOL:${TENSORD_WERROR}>:-Werror>)

if(TENSORD_SANITIZE)
  add_compile_options(-fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined)
  # Debian's GCC links --as-needed, except with -fsanitize; without it every shared library
  # on the line is recorded, the toolkit's placeholder libcuda.so.1 too, and the daemon would not
  # start on a machine without the NVIDIA driver. The sanitizer runtimes stay (GCC's specs link
  # them --no-as-needed).
  add_link_options(-fsanitize=address,undefined LINKER:--as-needed)
  # GCC 12 with ASan warns "may be used uninitialized" inside Cap'n Proto's kj::Maybe (copying
  # getResults()' MessageSize); the Release build keeps the warning.
  add_compile_options($<$<CXX_COMPILER_ID:GNU>:-Wno-maybe-uninitialized>)
  # What a report of either sanitizer starts with, for ctest's FAIL_REGULAR_EXPRESSION.
  set(TENSORD_SANITIZER_REPORT "ERROR: AddressSanitizer;ERROR: LeakSanitizer;runtime error: ")
  # The runtime options of every test (ctest ENVIRONMENT, so a plain `ctest` in the build folder
  # runs as scripts/test does). The daemons and tools the tests start inherit them. UBSan stops
  # at its first report (compiled -fno-sanitize-recover; halt_on_error says so again for code
  # built without it) with a stack; leaks are checked, with suppressions for third-party
  # libraries only (tests/sanitizer/lsan.supp says why each is there).
  # allocator_may_return_null: the daemon turns a failed allocation into an out-of-memory error
  # value (host_buffer.cpp), which tests check with impossible sizes; ASan would abort instead.
  set(TENSORD_ASAN_OPTIONS
    "detect_leaks=1:check_initialization_order=1:strict_init_order=1:allocator_may_return_null=1")
  set(TENSORD_SANITIZER_ENV "ASAN_OPTIONS=${TENSORD_ASAN_OPTIONS}"
    "UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1"
    "LSAN_OPTIONS=suppressions=${PROJECT_SOURCE_DIR}/tests/sanitizer/lsan.supp")
endif()

# Every library of the project links this: warnings on, include paths from the repository root.
function(tensord_library name)
  cmake_parse_arguments(ARG "" "" "SOURCES;DEPS;PUBLIC_DEPS" ${ARGN})
  add_library(${name} STATIC ${ARG_SOURCES})
  target_include_directories(${name} PUBLIC $<BUILD_INTERFACE:${PROJECT_SOURCE_DIR}>)
  target_link_libraries(${name} PRIVATE tensord_warnings ${ARG_DEPS} PUBLIC ${ARG_PUBLIC_DEPS})
endfunction()
