# cmake -DBUILD_DIR=... -DWORK_DIR=... -DCONSUMER_DIR=... -DGENERATOR=... [-DSANITIZE=ON]
#       -P install_test.cmake
# Installs the build into WORK_DIR/prefix, checks the layout, builds the consumer project with
# find_package(tensord) and runs it against the installed daemon.

function(run)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE result OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT result EQUAL 0)
    message(FATAL_ERROR "failed (${result}): ${ARGN}\n${out}\n${err}")
  endif()
  set(run_output "${out}" PARENT_SCOPE)
endfunction()

set(prefix ${WORK_DIR}/prefix)
file(REMOVE_RECURSE ${WORK_DIR})
run(${CMAKE_COMMAND} --install ${BUILD_DIR} --prefix ${prefix})

foreach(path
    bin/tensord
    include/tensord/client.h
    include/tensord/engine/ir/dtype.h
    include/tensord/engine/ir/error.h
    share/tensord/tensord.capnp)
  if(NOT EXISTS ${prefix}/${path})
    message(FATAL_ERROR "not installed: ${path}")
  endif()
endforeach()
if(DASHBOARD AND NOT EXISTS ${prefix}/share/tensord/dashboard/index.html)
  message(FATAL_ERROR "not installed: share/tensord/dashboard/index.html")
endif()
file(GLOB_RECURSE configs ${prefix}/*/tensordConfig.cmake)
file(GLOB_RECURSE clients ${prefix}/*/libtensord_client.a)
if(NOT configs OR NOT clients)
  message(FATAL_ERROR "no tensordConfig.cmake or libtensord_client.a under ${prefix}")
endif()

set(consumer_flags "")
if(SANITIZE)
  # The installed libraries carry sanitizer calls; the consumer must link the runtimes.
  set(consumer_flags -DCMAKE_EXE_LINKER_FLAGS=-fsanitize=address,undefined)
endif()
run(${CMAKE_COMMAND} -S ${CONSUMER_DIR} -B ${WORK_DIR}/consumer -G ${GENERATOR}
    -DCMAKE_PREFIX_PATH=${prefix} ${consumer_flags})
run(${CMAKE_COMMAND} --build ${WORK_DIR}/consumer)

# The installed daemon on a socket of its own (in /tmp: socket paths are short), the consumer
# against it, then SIGTERM, on which it exits 0 (a sanitizer build's reports exit otherwise).
# With the dashboard built, the installed daemon serves its installed page (found beside its
# bin/, server/dashboard.h): the consumer ran, so the banner with the URL is in the log.
set(dashboard_flag "")
set(page_check "")
if(DASHBOARD)
  set(dashboard_flag "--dashboard tcp:127.0.0.1:0")
  set(page_check "url=$(sed -n 's/.* dashboard on //p' '${WORK_DIR}/daemon.log')
           /usr/bin/python3 -c 'import sys, urllib.request
assert b\"<html\" in urllib.request.urlopen(sys.argv[1]).read()' \"$url\" || status=98")
endif()
# No ';' in the script: run() passes it through a CMake list, which a ';' would split, and sh
# would take everything after the first one as positional arguments (the daemon then leaked).
run(sh -c "dir=$(mktemp -d /tmp/tensord-install-XXXXXX) || exit 1
           '${prefix}/bin/tensord' --listen unix:$dir/tensord.sock ${dashboard_flag} \
             > '${WORK_DIR}/daemon.log' 2>&1 &
           pid=$!
           '${WORK_DIR}/consumer/consumer' unix:$dir/tensord.sock
           status=$?
           ${page_check}
           kill $pid
           wait $pid
           daemon_status=$?
           rm -rf $dir
           [ $status -eq 0 ] && [ $daemon_status -eq 0 ] || cat '${WORK_DIR}/daemon.log' >&2
           [ $status -eq 0 ] || exit $status
           [ $daemon_status -eq 0 ] || exit $daemon_status
           echo daemon stopped")
# The last line shows the script ran to its end (a split script would still exit 0).
if(NOT run_output STREQUAL "16 34\ndaemon stopped\n")
  message(FATAL_ERROR "printed '${run_output}', expected '16 34' then 'daemon stopped'")
endif()
message(STATUS "install test passed: ${run_output}")
