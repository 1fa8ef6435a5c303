#include "tests/conformance/runner.h"

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <utility>

#include "tests/conformance/reference.h"

namespace tensord::conformance {

namespace {

std::string fmt(double v, DType t) {
  char buf[64];
  std::snprintf(buf, sizeof buf, t == DType::Float64 ? "%.17g" : "%.9g", v);
  return buf;
}

std::string value_str(const RefTensor& t, int64_t k) {
  return t.floating() ? fmt(t.f[k], t.dtype) : std::to_string(t.i[k]);
}

std::string type_str(DType t, const Shape& s) {
  return std::string(ir::name(t)) + shape_str(s);
}

// Inputs of a case, as generated (base) and as the op sees them (logical).
struct MaterializedInput {
  LayoutPlan plan;
  RefTensor base;
  RefTensor logical;
};

MaterializedInput materialize(const InputSpec& spec, Rng& rng) {
  std::optional<LayoutPlan> plan = plan_layout(spec.layout, spec.shape);
  if (!plan) {
    throw std::logic_error("table bug: layout " + std::string(name(spec.layout)) +
                           " does not apply to " + shape_str(spec.shape));
  }
  RefTensor base =
      generate(spec.dtype, plan->base, spec.values, rng, spec.bound, spec.explicit_values);
  RefTensor logical = base;
  for (const ViewStep& step : plan->steps) {
    logical = ref_view(step.op, logical, step.attrs).value;
  }
  return {std::move(*plan), std::move(base), std::move(logical)};
}

// "name = [v0, v1, ...]" for small tensors, so a failure can be reproduced by hand.
std::string dump(const std::string& label, const RefTensor& t) {
  std::string s = "\n    " + label + " " + type_str(t.dtype, t.shape) + " = [";
  for (int64_t k = 0; k < t.numel(); ++k) s += (k ? ", " : "") + value_str(t, k);
  return s + "]";
}

// TENSORD_CONFORMANCE_DUMP=1 prints the inputs and both outputs of failing cases (up to 256
// elements each).
bool dump_requested() {
  const char* v = std::getenv("TENSORD_CONFORMANCE_DUMP");
  return v && *v == '1';
}

std::string error_str(const Error& e) {
  return std::string(name(e.code())) + " error: " + e.what();
}

}  // namespace

std::string compare(const Expected& expected, const RefTensor& got, Accuracy accuracy) {
  const RefTensor& want = expected.value;
  const Tolerance tol = tolerance(accuracy, want.dtype);
  const double spread = std::sqrt(static_cast<double>(std::max<int64_t>(expected.terms, 1)));
  int64_t bad = 0, first = -1;
  double first_allowed = 0;
  for (int64_t k = 0; k < want.numel(); ++k) {
    bool ok;
    double allowed = 0;
    if (!want.floating()) {
      ok = got.i[k] == want.i[k];
    } else {
      double x = got.f[k], y = want.f[k];
      if (std::isnan(y)) {
        ok = std::isnan(x);
      } else if (std::isinf(y) || !std::isfinite(x)) {
        ok = x == y;
      } else {
        double scale = expected.scale.empty() ? 0.0 : expected.scale[k] * spread;
        allowed = tol.rtol * (std::fabs(y) + scale) + tol.atol;
        ok = std::fabs(x - y) <= allowed;
      }
    }
    if (!ok && bad++ == 0) first = k, first_allowed = allowed;
  }
  if (bad == 0) return {};
  std::string msg = "value mismatch at " + index_str(unravel(first, want.shape)) + " (flat " +
                    std::to_string(first) + "): got " + value_str(got, first) + ", expected " +
                    value_str(want, first);
  if (want.floating() && first_allowed > 0)
    msg += " (allowed error " + fmt(first_allowed, DType::Float32) + ")";
  return msg + "; " + std::to_string(bad) + " of " + std::to_string(want.numel()) +
         " elements differ";
}

namespace {

// Thrown inside a case run; becomes the case's failure description.
struct Failed {
  std::string why;
};

// What the reference says a case must give: a value, or an error.
struct Verdict {
  std::optional<Expected> expected;
  std::optional<RefError> rejected;

  std::string describe_error() const {
    return "a " + std::string(name(rejected->code)) + " error (" + rejected->why + ")" +
           (rejected->at_run ? " at run time" : "");
  }
  std::string describe_type() const {
    return type_str(expected->value.dtype, expected->value.shape);
  }
};

Verdict judge(const Case& c, const std::vector<MaterializedInput>& inputs) {
  std::vector<RefTensor> logical;
  for (const MaterializedInput& in : inputs) logical.push_back(in.logical);
  Verdict v;
  try {
    v.expected = reference(c.op, std::span(logical).first(op_input_count(c)), c.attrs, c.output);
    for (const Then& t : c.then) {
      std::vector<RefTensor> args = {v.expected->value};
      if (t.input >= 0) args.push_back(logical.at(static_cast<size_t>(t.input)));
      Expected next = reference(t.op, args, t.attrs, 0);
      if (next.value.shape == v.expected->value.shape) {
        next.scale = std::move(v.expected->scale);
        next.terms = v.expected->terms + 1;
      }
      v.expected = std::move(next);
    }
  } catch (const RefError& e) {
    v.rejected = e;
  }
  if (c.error && (!v.rejected || v.rejected->code != *c.error)) {
    throw Failed{"table bug: the row expects a " + std::string(name(*c.error)) +
                 " error but the reference " +
                 (v.rejected ? "says " + std::string(name(v.rejected->code)) : "computes a value")};
  }
  // Rows with `then` ops are there for their values: one the reference rejects (a `then` input
  // index inside the op's own inputs, say) would pass as an error row without running a chain.
  if (!c.error && !c.then.empty() && v.rejected) {
    throw Failed{"table bug: a row with `then` ops that the reference rejects (" +
                 std::string(name(v.rejected->code)) + ": " + v.rejected->why + ")"};
  }
  return v;
}

// A constant input's `full` node: an integer value for integer dtypes, as clients record it.
ir::Attrs constant_attrs(const InputSpec& spec) {
  const double v = spec.explicit_values.at(0);
  ir::AttrValue value = v;
  if (!ir::is_floating(spec.dtype) && spec.dtype != DType::Bool) value = static_cast<int64_t>(v);
  return {{ir::Attr::shape, Shape{}}, {ir::Attr::value, value}, {ir::Attr::dtype, spec.dtype}};
}

// Input nodes (constants as `full` nodes), their layout views, then the op. Returns nullopt
// when graph.add rejected the op as the reference expects.
std::optional<ir::ValueRef> build_graph(const Case& c, const std::vector<MaterializedInput>& inputs,
                                        const Verdict& verdict, ir::Graph& graph) {
  std::vector<ir::ValueRef> op_inputs;
  uint32_t uploaded = 0;
  for (size_t i = 0; i < inputs.size(); ++i) {
    try {
      if (c.inputs[i].constant) {
        op_inputs.push_back(graph.add(ir::Op::full, {}, constant_attrs(c.inputs[i])));
        continue;
      }
      ir::ValueRef v =
          graph.add_input(uploaded++, ir::TensorType{c.inputs[i].dtype, inputs[i].plan.base});
      for (const ViewStep& step : inputs[i].plan.steps) v = graph.add(step.op, {v}, step.attrs);
      op_inputs.push_back(v);
    } catch (const Error& e) {
      throw Failed{"building the input layout failed: " + error_str(e)};
    }
  }
  ir::ValueRef out;
  try {
    out = graph.add(
        c.op, std::vector<ir::ValueRef>(op_inputs.begin(), op_inputs.begin() + op_input_count(c)),
        c.attrs);
    out.output = c.output;
    for (const Then& t : c.then) {
      std::vector<ir::ValueRef> args = {out};
      if (t.input >= 0) args.push_back(op_inputs.at(static_cast<size_t>(t.input)));
      out = graph.add(t.op, args, t.attrs);
    }
  } catch (const Error& e) {
    const RefError* r = verdict.rejected ? &*verdict.rejected : nullptr;
    if (r && !r->at_run && e.code() == r->code) return std::nullopt;
    throw Failed{"graph.add threw " + error_str(e) + "; expected " +
                 (r ? verdict.describe_error() : verdict.describe_type())};
  }
  if (out.output >= graph.nodes[out.node].outputs.size()) {
    throw Failed{"the op has " + std::to_string(graph.nodes[out.node].outputs.size()) +
                 " outputs; the row checks output " + std::to_string(out.output)};
  }
  const ir::TensorType& type = graph.type(out);
  if (verdict.rejected && !verdict.rejected->at_run) {
    throw Failed{"expected " + verdict.describe_error() + ", graph.add accepted it as " +
                 type_str(type.dtype, type.shape)};
  }
  // A data-dependent dimension (kDynamic, -1) is inferred as unknown: any size matches it.
  auto same_shape = [](const Shape& inferred, const Shape& want) {
    if (inferred.size() != want.size()) return false;
    for (size_t d = 0; d < want.size(); ++d) {
      if (inferred[d] != -1 && inferred[d] != want[d]) return false;
    }
    return true;
  };
  if (verdict.expected && (type.dtype != verdict.expected->value.dtype ||
                           !same_shape(type.shape, verdict.expected->value.shape))) {
    throw Failed{"inferred type " + type_str(type.dtype, type.shape) + ", expected " +
                 verdict.describe_type()};
  }
  return out;
}

}  // namespace

Runner::Runner(engine::Backend& backend, engine::EngineOptions options)
    : backend_(backend), engine_(backend, std::move(options)) {}

std::optional<CaseFailure> Runner::run(const Case& c) {
  const std::string op(ir::name(c.op));
  std::string why;
  try {
    (run_case(c) ? coverage_[op].values : coverage_[op].errors)++;
    return std::nullopt;
  } catch (const Failed& f) {
    why = f.why;
  } catch (const Error& e) {
    why = "unexpected " + error_str(e);
  } catch (const std::exception& e) {
    why = std::string("unexpected exception: ") + e.what();
  }
  return CaseFailure{op, describe(c) + ": " + why};
}

bool Runner::run_case(const Case& c) {
  Rng rng(hash_string(describe(c)));
  std::vector<MaterializedInput> inputs;
  for (const InputSpec& spec : c.inputs) inputs.push_back(materialize(spec, rng));
  const Verdict verdict = judge(c, inputs);

  ir::Graph graph;
  std::optional<ir::ValueRef> out = build_graph(c, inputs, verdict, graph);
  if (!out) return false;

  std::vector<engine::TensorValue> values;
  for (size_t i = 0; i < inputs.size(); ++i) {
    if (!c.inputs[i].constant) values.push_back(upload(inputs[i].base));
  }

  std::vector<ir::ValueRef> outputs = {*out};
  if (c.identities) {  // every output, the row's own first
    for (uint32_t k = 0; k < graph.nodes[out->node].outputs.size(); ++k) {
      if (k != out->output) outputs.push_back({out->node, k});
    }
  }
  for (int r = 0; r < c.repeat; ++r) {
    std::vector<engine::TensorValue> result;
    try {
      result = engine_.run(graph, values, outputs);
    } catch (const Error& e) {
      if (verdict.rejected && e.code() == verdict.rejected->code) return false;
      throw Failed{"Engine::run threw " + error_str(e) +
                   (verdict.rejected ? "; expected " + verdict.describe_error() : std::string())};
    }
    if (verdict.rejected) throw Failed{"expected " + verdict.describe_error() + ", got a value"};
    if (result.size() != outputs.size()) {
      throw Failed{"Engine::run returned " + std::to_string(result.size()) + " values"};
    }
    std::string broken = check_output(c, *verdict.expected, result[0]);
    if (broken.empty() && c.identities) {
      std::vector<RefTensor> got(graph.nodes[out->node].outputs.size());
      for (size_t i = 0; i < outputs.size(); ++i) got[outputs[i].output] = read_back(result[i]);
      std::vector<RefTensor> logical;
      for (const MaterializedInput& in : inputs) logical.push_back(in.logical);
      broken = c.identities(logical, got);
    }
    if (!broken.empty()) {
      if (dump_requested()) {
        for (size_t i = 0; i < inputs.size(); ++i) {
          if (inputs[i].logical.numel() <= 256) {
            broken += dump("input " + std::to_string(i), inputs[i].logical);
          }
        }
      }
      throw Failed{(c.repeat > 1 ? "run " + std::to_string(r + 1) + ": " : std::string()) + broken};
    }
  }
  return true;
}

engine::TensorValue Runner::upload(const RefTensor& t) {
  std::vector<std::byte> bytes = encode(t);
  std::shared_ptr<engine::Buffer> buffer = backend_.allocate(bytes.size());
  if (!bytes.empty()) backend_.write(*buffer, 0, bytes.data(), bytes.size());
  return engine::TensorValue::contiguous(std::move(buffer), ir::TensorType{t.dtype, t.shape});
}

RefTensor Runner::read_back(const engine::TensorValue& v) {
  if (!v.is_contiguous()) throw Failed{"Engine::run returned a non-contiguous value"};
  std::vector<std::byte> bytes(v.nbytes());
  if (!bytes.empty()) {
    backend_.read(*v.buffer, static_cast<size_t>(v.offset) * ir::itemsize(v.type.dtype),
                  bytes.data(), bytes.size());
  }
  return decode(v.type.dtype, v.type.shape, bytes);
}

std::string Runner::check_output(const Case& c, const Expected& expected,
                                 const engine::TensorValue& v) {
  if (v.type.dtype != expected.value.dtype || v.type.shape != expected.value.shape) {
    return "output type " + type_str(v.type.dtype, v.type.shape) + ", expected " +
           type_str(expected.value.dtype, expected.value.shape);
  }
  if (!v.is_contiguous()) return "Engine::run returned a non-contiguous value";
  if (c.identities) return {};  // values unique only up to signs: the identities check them
  RefTensor got = read_back(v);
  std::string mismatch = compare(expected, got, c.accuracy);
  if (!mismatch.empty()) {
    if (dump_requested() && got.numel() <= 256) {
      mismatch += dump("expected", expected.value) + dump("got", got);
    }
    return mismatch;
  }
  return c.property ? c.property(got) : std::string();
}

void compile_ahead_if_wanted(const BackendUnderTest& backend, engine::Backend& device,
                             std::string_view table, const RunCases& run_cases) {
  // TENSORD_CONFORMANCE_COMPILE_AHEAD=0 compiles each case's kernels when it runs, as a daemon
  // does (to time that, or to see which case a kernel that fails to compile belongs to).
  const char* env = std::getenv("TENSORD_CONFORMANCE_COMPILE_AHEAD");
  if (!backend.compile_ahead || (env && std::string(env) == "0")) return;
  const std::string log = backend.compile_ahead(device, table, run_cases);
  std::printf("conformance %s: %s\n", backend.name.c_str(), log.c_str());
  std::fflush(stdout);
}

Summary run_table(const BackendUnderTest& backend, const std::vector<Case>& cases) {
  Summary s;
  s.backend = backend.name;
  std::unique_ptr<engine::Backend> device;
  try {
    device = backend.open(s.skip_reason);
  } catch (const std::exception& e) {
    s.skip_reason = std::string("failed to open: ") + e.what();
  }
  if (!device) {
    s.skipped = static_cast<int>(cases.size());
    return s;
  }
  compile_ahead_if_wanted(backend, *device, "main", [&cases](engine::Backend& recording) {
    engine::EngineOptions options;
    options.unfused_on_compile_error = true;
    Runner runner(recording, std::move(options));
    for (const Case& c : cases) (void)runner.run(c);
  });
  // A generated kernel that does not compile fails its case: the engine's default (run the
  // graph unfused) would pass it on the eager kernels' values.
  engine::EngineOptions options;
  options.unfused_on_compile_error = false;
  Runner runner(*device, std::move(options));
  // TENSORD_CONFORMANCE_DEADLINE_S=N stops after N seconds and reports the cases left as
  // skipped: a lent GPU's time is short, and a partial table with its failures beats none.
  const char* deadline_env = std::getenv("TENSORD_CONFORMANCE_DEADLINE_S");
  const double deadline = deadline_env ? std::atof(deadline_env) : 0;
  const auto start = std::chrono::steady_clock::now();
  for (const Case& c : cases) {
    if (deadline > 0 &&
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() >
            deadline) {
      s.skipped = static_cast<int>(cases.size()) - s.cases;
      s.skip_reason = "the deadline of TENSORD_CONFORMANCE_DEADLINE_S passed";
      break;
    }
    ++s.cases;
    if (std::optional<CaseFailure> f = runner.run(c)) {
      ++s.failed;
      s.failures.push_back(std::move(*f));
    }
  }
  s.coverage = runner.coverage();
  return s;
}

}  // namespace tensord::conformance
