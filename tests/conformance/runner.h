// Runs table cases through the real engine on one backend and compares with the reference.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "engine/exec/backend.h"
#include "engine/exec/engine.h"
#include "tests/conformance/case.h"
#include "tests/conformance/reference.h"

namespace tensord::conformance {

// Runs a table's cases on the backend given, for what they make the backend do: results
// unchecked, the engine's unfused_on_compile_error on (tests/support/backend/compile_ahead.h's
// recording runs).
using RunCases = std::function<void(engine::Backend&)>;

// A backend the table runs on. `open` returns the backend, or nullptr with the reason it is
// not available here (then every case counts as skipped, never as passed).
struct BackendUnderTest {
  std::string name;
  std::function<std::unique_ptr<engine::Backend>(std::string& why_not)> open;
  // Work before a table's cases run: compiling the kernels they need in batches
  // (tests/support/backend/compile_ahead.h), given the backend, the table ("main" or "complex") and
  // a way to run its cases. Returns a line for the log.
  std::function<std::string(engine::Backend&, std::string_view table, const RunCases&)>
      compile_ahead = {};
};

// The list every backend joins by adding one entry (backends.cpp).
std::vector<BackendUnderTest> backends_under_test();

// Result of one case: empty when it passed, else a precise description of the failure.
struct CaseFailure {
  std::string op;
  std::string message;
};

// Per op: cases that passed by matching the reference's values, and by raising its error.
struct OpCoverage {
  int values = 0;
  int errors = 0;
};

class Runner {
 public:
  explicit Runner(engine::Backend& backend, engine::EngineOptions options = {});
  // Runs `c` (graph build, Engine::run, read back, compare); nullopt when it passed.
  std::optional<CaseFailure> run(const Case& c);
  const std::map<std::string, OpCoverage>& coverage() const { return coverage_; }

 private:
  bool run_case(const Case& c);  // true: values matched; false: the expected error came
  engine::TensorValue upload(const RefTensor& t);
  RefTensor read_back(const engine::TensorValue& v);
  std::string check_output(const Case& c, const Expected& expected, const engine::TensorValue& v);

  engine::Backend& backend_;
  engine::Engine engine_;
  std::map<std::string, OpCoverage> coverage_;
};

struct Summary {
  std::string backend;
  int cases = 0;
  int failed = 0;
  int skipped = 0;
  std::string skip_reason;
  std::vector<CaseFailure> failures;
  std::map<std::string, OpCoverage> coverage;  // passed cases by op
};

// Runs backend.compile_ahead, if it has one and TENSORD_CONFORMANCE_COMPILE_AHEAD is not 0,
// and prints its line.
void compile_ahead_if_wanted(const BackendUnderTest& backend, engine::Backend& device,
                             std::string_view table, const RunCases& run_cases);

// Runs every case on one backend.
Summary run_table(const BackendUnderTest& backend, const std::vector<Case>& cases);

// Compares a backend's output with the reference; "" when within tolerance.
std::string compare(const Expected& expected, const RefTensor& got, Accuracy accuracy);

}  // namespace tensord::conformance
