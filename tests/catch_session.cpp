#define CATCH_CONFIG_RUNNER
#include "tests/catch_session.h"

#include <catch2/catch.hpp>

namespace tensord::test {

int run_catch(int argc, char* argv[]) {
  return Catch::Session().run(argc, argv);
}

}  // namespace tensord::test
