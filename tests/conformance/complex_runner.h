// Issue 4: the complex conformance table's rows (cases_complex.cpp) and their runner: each row
// goes through the real Engine on one backend and is compared with the complex reference
// (reference_complex.h). The main table's runner (runner.h) works on RefTensor, which holds real
// values only, hence a runner of its own. run_complex_table is what another binary (an emulated
// backend's) calls to run the table on its backend.
#pragma once

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "engine/exec/backend.h"
#include "engine/exec/engine.h"
#include "tests/conformance/reference_complex.h"

namespace tensord::conformance::complex_table {

struct CCase {
  std::string name;
  ir::Op op;
  ir::Attrs attrs;
  std::vector<CTensor> inputs;
  std::vector<bool> transposed;  // input given as the permute of a contiguous (reversed) base
  std::function<CTensor(const std::vector<CTensor>&)> ref;  // null: error expected
  std::optional<ErrorCode> error;
  double rtol64 = 4e-6, rtol128 = 1e-12;
  bool l2_scale = false;         // FFT/matmul: allowed error grows with the inputs' L2 norm
  std::vector<bool> conjugated;  // input given as conj(base): a conj view (after the permute)
  bool error_at_run = false;     // `error` is raised by Engine::run (the data reveals it)
};

// Every row of the table (cases_complex.cpp), complex_math_cases() among them.
std::vector<CCase> complex_cases();
// The rows of sin ... isfinite and pow (cases_complex_math.cpp).
std::vector<CCase> complex_math_cases();
// The rows of the movement and indexing ops and their composites (cases_complex_movement.cpp).
std::vector<CCase> complex_movement_cases();

// Runs one row: "" when it passed, else what is wrong.
std::string run_complex_case(engine::Backend& backend, engine::Engine& engine, const CCase& c);

struct ComplexTableRun {
  int ran = 0;
  int failed = 0;
  std::vector<std::string> failures;     // "name: what is wrong", the first 40
  std::map<ir::Op, int> passing_values;  // per op, rows that matched the reference's values
};

// Runs the rows whose name contains `filter` (all when empty) on `backend`. A generated kernel
// that does not compile fails its row unless `unfused_on_compile_error` (a recording run).
ComplexTableRun run_complex_table(engine::Backend& backend, std::string_view filter = {},
                                  bool unfused_on_compile_error = false);

}  // namespace tensord::conformance::complex_table
