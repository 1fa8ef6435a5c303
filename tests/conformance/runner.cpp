#include "tests/conformance/runner.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <exception>

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

Runner::Runner(engine::Backend& backend) : backend_(backend), engine_(backend) {}

std::optional<CaseFailure> Runner::run(const Case& c) {
  const std::string op(ir::name(c.op));
  auto fail = [&](std::string why) {
    return std::optional<CaseFailure>(CaseFailure{op, describe(c) + ": " + why});
  };
  try {
    Rng rng(hash_string(describe(c)));
    std::vector<MaterializedInput> inputs;
    std::vector<RefTensor> logical;
    for (const InputSpec& spec : c.inputs) {
      inputs.push_back(materialize(spec, rng));
      logical.push_back(inputs.back().logical);
    }

    std::optional<Expected> expected;
    std::optional<RefError> rejected;
    try {
      expected = reference(c.op, logical, c.attrs);
    } catch (const RefError& e) {
      rejected = e;
    }
    if (c.error && (!rejected || rejected->code != *c.error)) {
      return fail("table bug: the row expects a " + std::string(name(*c.error)) +
                  " error but the reference " +
                  (rejected ? "says " + std::string(name(rejected->code)) : "computes a value"));
    }

    ir::Graph graph;
    std::vector<ir::ValueRef> op_inputs;
    for (size_t i = 0; i < inputs.size(); ++i) {
      ir::TensorType type{c.inputs[i].dtype, inputs[i].plan.base};
      try {
        ir::ValueRef v = graph.add_input(static_cast<uint32_t>(i), type);
        for (const ViewStep& step : inputs[i].plan.steps) v = graph.add(step.op, {v}, step.attrs);
        op_inputs.push_back(v);
      } catch (const Error& e) {
        return fail("building the input layout failed: " + error_str(e));
      }
    }
    ir::ValueRef out;
    try {
      out = graph.add(c.op, op_inputs, c.attrs);
    } catch (const Error& e) {
      if (rejected && !rejected->at_run && e.code() == rejected->code) {
        ++coverage_[op].errors;
        return std::nullopt;
      }
      if (rejected) {
        return fail("expected a " + std::string(name(rejected->code)) + " error (" + rejected->why +
                    ")" + (rejected->at_run ? " at run time" : "") + ", graph.add threw " +
                    error_str(e));
      }
      return fail("graph.add threw " + error_str(e) + "; expected " +
                  type_str(expected->value.dtype, expected->value.shape));
    }
    if (rejected && !rejected->at_run) {
      return fail("expected a " + std::string(name(rejected->code)) + " error at inference (" +
                  rejected->why + "), graph.add accepted it as " +
                  type_str(graph.type(out).dtype, graph.type(out).shape));
    }
    if (expected && (graph.type(out).dtype != expected->value.dtype ||
                     graph.type(out).shape != expected->value.shape)) {
      return fail("inferred type " + type_str(graph.type(out).dtype, graph.type(out).shape) +
                  ", expected " + type_str(expected->value.dtype, expected->value.shape));
    }

    std::vector<engine::TensorValue> values;
    for (size_t i = 0; i < inputs.size(); ++i) {
      std::vector<std::byte> bytes = encode(inputs[i].base);
      std::shared_ptr<engine::Buffer> buffer = backend_.allocate(bytes.size());
      if (!bytes.empty()) backend_.write(*buffer, 0, bytes.data(), bytes.size());
      values.push_back(engine::TensorValue::contiguous(
          std::move(buffer), ir::TensorType{c.inputs[i].dtype, inputs[i].plan.base}));
    }

    const ir::ValueRef outputs[] = {out};
    for (int r = 0; r < c.repeat; ++r) {
      std::vector<engine::TensorValue> result;
      try {
        result = engine_.run(graph, values, outputs);
      } catch (const Error& e) {
        if (rejected && e.code() == rejected->code) {
          ++coverage_[op].errors;
          return std::nullopt;
        }
        if (rejected) {
          return fail("expected a " + std::string(name(rejected->code)) + " error (" +
                      rejected->why + "), Engine::run threw " + error_str(e));
        }
        return fail("Engine::run threw " + error_str(e));
      }
      if (rejected) {
        return fail("expected a " + std::string(name(rejected->code)) + " error at run time (" +
                    rejected->why + "), Engine::run returned a value");
      }
      if (result.size() != 1)
        return fail("Engine::run returned " + std::to_string(result.size()) + " values");
      const engine::TensorValue& v = result[0];
      if (v.type.dtype != expected->value.dtype || v.type.shape != expected->value.shape) {
        return fail("output type " + type_str(v.type.dtype, v.type.shape) + ", expected " +
                    type_str(expected->value.dtype, expected->value.shape));
      }
      if (!v.is_contiguous()) return fail("Engine::run returned a non-contiguous value");
      std::vector<std::byte> bytes(v.nbytes());
      if (!bytes.empty()) {
        backend_.read(*v.buffer, static_cast<size_t>(v.offset) * ir::itemsize(v.type.dtype),
                      bytes.data(), bytes.size());
      }
      RefTensor got = decode(v.type.dtype, v.type.shape, bytes);
      std::string mismatch = compare(*expected, got, c.accuracy);
      if (!mismatch.empty()) {
        if (dump_requested()) {
          for (size_t i = 0; i < logical.size(); ++i) {
            if (logical[i].numel() <= 256)
              mismatch += dump("input " + std::to_string(i), logical[i]);
          }
          if (got.numel() <= 256) mismatch += dump("expected", expected->value) + dump("got", got);
        }
        return fail((c.repeat > 1 ? "run " + std::to_string(r + 1) + ": " : std::string()) +
                    mismatch);
      }
      if (c.property) {
        std::string broken = c.property(got);
        if (!broken.empty()) return fail(broken);
      }
    }
    ++coverage_[op].values;
    return std::nullopt;
  } catch (const Error& e) {
    return fail("unexpected " + error_str(e));
  } catch (const std::exception& e) {
    return fail(std::string("unexpected exception: ") + e.what());
  }
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
  Runner runner(*device);
  for (const Case& c : cases) {
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
