// Catch2's implementation, compiled once (catch_session.cpp) for every test binary: each copy
// costs ~20 s of a clean build. Mains that decide more than Catch2 does (the gpu tests' skip)
// call run_catch.
#pragma once

namespace tensord::test {

// Catch::Session().run: runs the test cases the command line selects; the exit status.
int run_catch(int argc, char* argv[]);

}  // namespace tensord::test
