// The one Catch2 main, compiled once and linked into every test binary.
#define CATCH_CONFIG_MAIN
#include <catch2/catch.hpp>
