#include "tests/conformance/complex_runner.h"

#include <catch2/catch.hpp>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <utility>

#include "tests/conformance/complex_table.h"
#include "tests/conformance/runner.h"

namespace tensord::conformance::complex_table {

using ir::Attr;
using ir::Op;

namespace {

std::vector<std::byte> encode_c(const CTensor& x) {
  const size_t item = ir::itemsize(x.dtype);
  std::vector<std::byte> b(x.v.size() * item);
  for (size_t k = 0; k < x.v.size(); ++k) {
    std::byte* p = b.data() + k * item;
    switch (x.dtype) {
      case DType::Complex64: {
        const float f[2] = {static_cast<float>(x.v[k].real()), static_cast<float>(x.v[k].imag())};
        std::memcpy(p, f, 8);
        break;
      }
      case DType::Complex128: {
        const double d[2] = {x.v[k].real(), x.v[k].imag()};
        std::memcpy(p, d, 16);
        break;
      }
      case DType::Float32: {
        const float f = static_cast<float>(x.v[k].real());
        std::memcpy(p, &f, 4);
        break;
      }
      case DType::Float64: {
        const double d = x.v[k].real();
        std::memcpy(p, &d, 8);
        break;
      }
      case DType::Int32: {
        const auto i = static_cast<int32_t>(x.v[k].real());
        std::memcpy(p, &i, 4);
        break;
      }
      case DType::Int64: {
        const auto i = static_cast<int64_t>(x.v[k].real());
        std::memcpy(p, &i, 8);
        break;
      }
      case DType::Bool:
        *p = std::byte(x.v[k].real() != 0 ? 1 : 0);
        break;
      default:
        throw std::logic_error("table bug: no encoding for " + std::string(ir::name(x.dtype)));
    }
  }
  return b;
}

CVec decode_c(DType t, const std::vector<std::byte>& b, int64_t n) {
  CVec v(static_cast<size_t>(n));
  for (int64_t k = 0; k < n; ++k) {
    const std::byte* p = b.data() + k * ir::itemsize(t);
    switch (t) {
      case DType::Complex64: {
        float f[2];
        std::memcpy(f, p, 8);
        v[k] = C(f[0], f[1]);
        break;
      }
      case DType::Complex128: {
        double d[2];
        std::memcpy(d, p, 16);
        v[k] = C(d[0], d[1]);
        break;
      }
      case DType::Float32: {
        float f;
        std::memcpy(&f, p, 4);
        v[k] = C(f, 0);
        break;
      }
      case DType::Float64: {
        double d;
        std::memcpy(&d, p, 8);
        v[k] = C(d, 0);
        break;
      }
      case DType::Int32: {
        int32_t i;
        std::memcpy(&i, p, 4);
        v[k] = C(i, 0);
        break;
      }
      case DType::Int64: {
        int64_t i;
        std::memcpy(&i, p, 8);
        v[k] = C(static_cast<double>(i), 0);
        break;
      }
      case DType::Bool:
        v[k] = C(*p != std::byte{0} ? 1 : 0, 0);
        break;
      default:
        throw std::logic_error("no decoding for " + std::string(ir::name(t)));
    }
  }
  return v;
}

double l2(const std::vector<CTensor>& in) {
  double s = 0;
  for (const CTensor& t : in) {
    for (const C& v : t.v) {
      if (std::isfinite(v.real()) && std::isfinite(v.imag())) s += std::norm(v);
    }
  }
  return std::sqrt(s);
}

bool is_nan_c(C v) {
  return std::isnan(v.real()) || std::isnan(v.imag());
}

}  // namespace

std::string run_complex_case(engine::Backend& backend, engine::Engine& engine, const CCase& c) {
  ir::Graph g;
  std::vector<ir::ValueRef> ins;
  std::vector<engine::TensorValue> values;
  for (size_t i = 0; i < c.inputs.size(); ++i) {
    const CTensor& x = c.inputs[i];
    const bool tr = i < c.transposed.size() && c.transposed[i] && x.shape.size() >= 2;
    // Transposed: the base holds x's transpose (last two axes swapped), and a permute view
    // makes it x again, so the op reads a non-contiguous input.
    CTensor base = x;
    std::vector<int64_t> perm(x.shape.size());
    for (size_t d = 0; d < perm.size(); ++d) perm[d] = static_cast<int64_t>(d);
    if (tr) {
      std::swap(perm[perm.size() - 1], perm[perm.size() - 2]);
      base.shape = x.shape;
      std::swap(base.shape[base.shape.size() - 1], base.shape[base.shape.size() - 2]);
      for (int64_t k = 0; k < numel(x.shape); ++k) {
        std::vector<int64_t> idx = unravel_c(k, x.shape);
        std::swap(idx[idx.size() - 1], idx[idx.size() - 2]);
        base.v[ravel_c(idx, base.shape)] = x.v[k];
      }
    }
    ir::ValueRef v = g.add_input(static_cast<uint32_t>(i), ir::TensorType{x.dtype, base.shape});
    if (tr) v = g.add(Op::permute, {v}, {{Attr::dims, perm}});
    if (i < c.conjugated.size() && c.conjugated[i]) {
      // The base holds conj(x), so that the conj view reads x.
      for (C& e : base.v) e = std::conj(e);
      v = g.add(Op::conj, {v});
    }
    ins.push_back(v);
    std::vector<std::byte> bytes = encode_c(base);
    auto buf = backend.allocate(bytes.size());
    if (!bytes.empty()) backend.write(*buf, 0, bytes.data(), bytes.size());
    values.push_back(engine::TensorValue::contiguous(buf, ir::TensorType{x.dtype, base.shape}));
  }
  ir::ValueRef out;
  try {
    out = g.add(c.op, ins, c.attrs);
  } catch (const Error& e) {
    if (c.error && e.code() == *c.error) return "";
    return "graph.add threw " + std::string(name(e.code())) + ": " + e.what();
  }
  if (c.error && !c.error_at_run) {
    return "expected a " + std::string(name(*c.error)) + " error, graph.add accepted it";
  }
  if (c.error) {
    try {
      const ir::ValueRef outs[] = {out};
      engine.run(g, values, outs);
    } catch (const Error& e) {
      if (e.code() == *c.error) return "";
      return "Engine::run threw " + std::string(name(e.code())) + ": " + e.what();
    }
    return "expected a " + std::string(name(*c.error)) + " error at run time, Engine::run ran it";
  }
  const CTensor want = c.ref(c.inputs);
  const ir::TensorType& type = g.type(out);
  if (type.dtype != want.dtype || type.shape != want.shape) {
    return "inferred " + std::string(ir::name(type.dtype)) + ir::to_string(type.shape) +
           ", expected " + std::string(ir::name(want.dtype)) + ir::to_string(want.shape);
  }
  std::vector<engine::TensorValue> result;
  try {
    const ir::ValueRef outs[] = {out};
    result = engine.run(g, values, outs);
  } catch (const Error& e) {
    return "Engine::run threw " + std::string(name(e.code())) + ": " + e.what();
  }
  const engine::TensorValue& r = result.at(0);
  std::vector<std::byte> bytes(r.nbytes());
  if (!bytes.empty()) {
    backend.read(*r.buffer, static_cast<size_t>(r.offset) * ir::itemsize(r.type.dtype),
                 bytes.data(), bytes.size());
  }
  const CVec got = decode_c(r.type.dtype, bytes, numel(r.type.shape));
  const bool single = component(want.dtype) == DType::Float32;
  const double rtol = single ? c.rtol64 : c.rtol128;
  const double scale = c.l2_scale ? l2(c.inputs) : 0;
  const bool exact =
      want.dtype == DType::Bool || want.dtype == DType::Int32 || want.dtype == DType::Int64;
  for (size_t k = 0; k < want.v.size(); ++k) {
    const C w = want.v[k], x = got[k];
    bool ok;
    if (exact) {
      ok = w == x;
    } else if (is_nan_c(w)) {
      ok = is_nan_c(x);
    } else if (!std::isfinite(w.real()) || !std::isfinite(w.imag())) {
      auto part = [](double a, double b) {
        return std::isfinite(b) ? std::isfinite(a) : a == b || (std::isnan(a) && std::isnan(b));
      };
      ok = part(x.real(), w.real()) && part(x.imag(), w.imag());
    } else {
      const double allowed = rtol * (std::abs(w) + scale) + (single ? 1e-6 : 1e-13) * (1 + scale);
      ok = std::abs(x - w) <= allowed;
    }
    if (!ok) {
      char buf[256];
      std::snprintf(buf, sizeof buf, "at flat %zu: got (%.9g, %.9g), expected (%.9g, %.9g)", k,
                    x.real(), x.imag(), w.real(), w.imag());
      return buf;
    }
  }
  return "";
}

ComplexTableRun run_complex_table(engine::Backend& backend, std::string_view filter,
                                  bool unfused_on_compile_error) {
  engine::EngineOptions options;
  options.unfused_on_compile_error = unfused_on_compile_error;
  engine::Engine engine(backend, std::move(options));
  ComplexTableRun run;
  for (const CCase& c : complex_cases()) {
    if (!filter.empty() && c.name.find(filter) == std::string::npos) continue;
    ++run.ran;
    std::string bad;
    try {
      bad = run_complex_case(backend, engine, c);
    } catch (const std::exception& e) {
      bad = std::string("exception: ") + e.what();
    }
    if (!bad.empty()) {
      if (++run.failed <= 40) run.failures.push_back(c.name + ": " + bad);
    } else if (!c.error) {
      ++run.passing_values[c.op];
    }
  }
  return run;
}

}  // namespace tensord::conformance::complex_table

namespace tensord::conformance {

TEST_CASE("complex dtypes and FFT conform to docs/ops.md on every backend", "[conformance]") {
  const char* filter = std::getenv("TENSORD_CONFORMANCE_FILTER");
  // As the main table: TENSORD_CONFORMANCE_BACKEND picks one backend; of several shards
  // (TENSORD_CONFORMANCE_SHARD=k/n) the first runs this table.
  const char* only = std::getenv("TENSORD_CONFORMANCE_BACKEND");
  const char* shard = std::getenv("TENSORD_CONFORMANCE_SHARD");
  if (shard && *shard && shard[0] != '0') return;
  for (const BackendUnderTest& b : backends_under_test()) {
    if (only && *only && b.name != only) continue;
    std::string why;
    std::unique_ptr<engine::Backend> backend = b.open(why);
    if (!backend) {
      WARN("complex conformance " << b.name << " skipped: " << why);
      continue;
    }
    const std::string_view rows = filter ? filter : "";
    compile_ahead_if_wanted(b, *backend, "complex", [rows](engine::Backend& recording) {
      (void)complex_table::run_complex_table(recording, rows, true);
    });
    const complex_table::ComplexTableRun run = complex_table::run_complex_table(*backend, rows);
    for (const std::string& f : run.failures) std::cout << "FAIL [" << b.name << "] " << f << "\n";
    std::cout << "complex conformance " << b.name << ": " << run.ran << " cases, " << run.failed
              << " failed" << std::endl;
    CHECK(run.failed == 0);
    if (!filter || !*filter) {
      for (ir::Op op : complex_table_ops()) {
        INFO("op " << ir::name(op) << " has no passing complex value case on " << b.name);
        const auto it = run.passing_values.find(op);
        CHECK((it == run.passing_values.end() ? 0 : it->second) > 0);
      }
    }
  }
}

}  // namespace tensord::conformance
