// The whole table, and how a case describes itself in failure reports.
#include <cstdio>
#include <variant>

#include "tests/conformance/case.h"

namespace tensord::conformance {

namespace {

std::string attr_value_str(const ir::AttrValue& v) {
  if (const auto* i = std::get_if<int64_t>(&v)) return std::to_string(*i);
  if (const auto* b = std::get_if<bool>(&v)) return *b ? "true" : "false";
  if (const auto* t = std::get_if<DType>(&v)) return std::string(ir::name(*t));
  if (const auto* d = std::get_if<double>(&v)) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.17g", *d);
    std::string s = buf;
    // Keep floats recognisable as floats: "2.0", not "2".
    if (s.find_first_of(".eina") == std::string::npos) s += ".0";
    return s;
  }
  if (const auto* fs = std::get_if<std::vector<double>>(&v)) {
    std::string s = "[";
    for (double f : *fs) s.append(s.size() > 1 ? ", " : "").append(attr_value_str(f));
    return s + "]";
  }
  return shape_str(std::get<std::vector<int64_t>>(v));
}

}  // namespace

std::string describe(const Case& c) {
  std::string s(ir::name(c.op));
  for (const InputSpec& in : c.inputs) {
    // Appends rather than `" " + std::string(...)`: GCC 12 flags those (-Wrestrict, a false
    // positive) depending on how this function is inlined.
    s.append(" ").append(ir::name(in.dtype)).append(shape_str(in.shape));
    if (in.constant) {
      s.append("=").append(attr_value_str(ir::AttrValue{in.explicit_values.at(0)}));
      continue;
    }
    std::string tags;
    if (in.layout != Layout::Contiguous) tags += name(in.layout);
    if (in.values != Values::Mixed && in.values != Values::Explicit) {
      tags.append(tags.empty() ? "" : ",").append(name(in.values));
    }
    if (!tags.empty()) s += "[" + tags + "]";
  }
  if (!c.attrs.items().empty()) {
    s += " {";
    bool first = true;
    for (const auto& [attr, value] : c.attrs.items()) {
      s.append(first ? "" : ", ").append(ir::name(attr)).append("=").append(attr_value_str(value));
      first = false;
    }
    s += "}";
  }
  if (c.output > 0) s += " output " + std::to_string(c.output);
  for (const Then& t : c.then) {
    s.append(" then ").append(ir::name(t.op));
    if (t.input >= 0) s.append(" input ").append(std::to_string(t.input));
    for (const auto& [attr, value] : t.attrs.items()) {
      s.append(" ").append(ir::name(attr)).append("=").append(attr_value_str(value));
    }
  }
  if (!c.note.empty()) s += " (" + c.note + ")";
  return s;
}

std::vector<Case> all_cases() {
  std::vector<Case> cases;
  add_creation_cases(cases);
  add_unary_cases(cases);
  add_binary_cases(cases);
  add_math_cases(cases);
  add_pointwise_cases(cases);
  add_activation_cases(cases);
  add_reduce_cases(cases);
  add_reduce_more_cases(cases);
  add_loss_cases(cases);
  add_shape_more_cases(cases);
  add_index_more_cases(cases);  // h/datadep
  add_special_cases(cases);
  add_special_more_cases(cases);  // issue 4: polygamma ... zeta
  add_sort_cases(cases);          // issue 4: sorting
  add_linalg_cases(cases);
  add_view_cases(cases);
  add_movement_cases(cases);
  add_matmul_cases(cases);
  add_normalize_cases(cases);
  add_schema_cases(cases);
  add_multi_output_cases(cases);
  add_nn_cases(cases);  // issue 4
  add_pool_cases(cases);
  add_fused_chain_cases(cases);  // issue 6
  return cases;
}

}  // namespace tensord::conformance
