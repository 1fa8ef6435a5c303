// The main of every test binary that runs its Catch2 cases and nothing else.
#include "tests/catch_session.h"

int main(int argc, char* argv[]) {
  return tensord::test::run_catch(argc, argv);
}
