#include "engine/plan/lower_group.h"

#include <algorithm>
#include <cmath>
#include <cstdint>

#include "engine/ir/error.h"
#include "engine/ir/half.h"

namespace tensord::engine {
namespace {

using codegen::Access;
using codegen::Instr;
using codegen::Level;

// A constant as the kernel computes with it: rounded to its dtype first.
double constant_value(const ir::Node& full) {
  const ir::DType t = full.outputs[0].dtype;
  if (ir::is_integral(t)) {
    // As the eager full casts its attribute: an integer wraps, a float truncates and saturates.
    // Fusion keeps integer constants beyond 2^53 out of kernels (a double does not hold them).
    const ir::AttrValue* a = full.attrs.find(ir::Attr::value);
    int64_t i = 0;
    if (const auto* p = a ? std::get_if<int64_t>(a) : nullptr) {
      i = *p;
    } else {
      const double d = full.attrs.get_float(ir::Attr::value);
      const int bits = 8 * static_cast<int>(ir::itemsize(t));
      const bool is_signed = t != ir::DType::UInt8;
      const double hi = std::ldexp(1.0, bits - (is_signed ? 1 : 0));
      const double lo = is_signed ? -hi : 0.0;
      const double r = std::trunc(d);
      if (d != d) {
        i = 0;
      } else if (r >= hi) {
        i = bits == 64 ? INT64_MAX : static_cast<int64_t>(hi) - 1;
      } else {
        i = r < lo ? static_cast<int64_t>(lo) : static_cast<int64_t>(r);
      }
    }
    switch (t) {
      case ir::DType::Int8:
        return static_cast<int8_t>(i);
      case ir::DType::UInt8:
        return static_cast<uint8_t>(i);
      case ir::DType::Int16:
        return static_cast<int16_t>(i);
      case ir::DType::Int32:
        return static_cast<int32_t>(i);
      default:
        return static_cast<double>(i);
    }
  }
  const double v = full.attrs.get_float(ir::Attr::value);
  switch (t) {
    case ir::DType::Bool:
      return v != 0 ? 1.0 : 0.0;
    case ir::DType::Float16:
      return static_cast<float>(ir::Float16(static_cast<float>(v)));
    case ir::DType::BFloat16:
      return static_cast<float>(ir::BFloat16(static_cast<float>(v)));
    case ir::DType::Float32:
      return static_cast<double>(static_cast<float>(v));
    default:
      return v;
  }
}

// Strides over the domain of a value of `shape` laid out with `strides`, broadcasting.
std::vector<int64_t> domain_strides(const ir::Shape& domain, const ir::Shape& shape,
                                    std::span<const int64_t> strides) {
  std::vector<int64_t> out(domain.size(), 0);
  const size_t lead = domain.size() - shape.size();
  for (size_t d = 0; d < shape.size(); ++d) {
    out[lead + d] = shape[d] == 1 ? 0 : strides[d];
  }
  return out;
}

// Whether a value of `shape` is the same along every reduced axis (`reduced`, of the group's
// original domain): it then varies over the outer dimensions only.
bool inner_broadcast(const ir::Shape& domain, const std::vector<bool>& reduced,
                     const ir::Shape& shape) {
  const size_t lead = domain.size() - shape.size();
  for (size_t d = 0; d < domain.size(); ++d) {
    if (reduced[d] && d >= lead && shape[d - lead] != 1) return false;
  }
  return true;
}

class Lowering {
 public:
  Lowering(std::span<const ir::Node> nodes, const FusionGroup& group) : nodes_(nodes) {
    shape_domain_ = group.domain;
    const size_t rank = group.domain.size();
    reduced_.assign(rank, false);
    for (size_t d = rank - static_cast<size_t>(group.inner); d < rank; ++d) reduced_[d] = true;
    for (size_t d = 0; d < rank; ++d) {
      if ((group.columns >> d) & 1u) reduced_[d] = true;
    }
    // The kernel's dimensions: the kept axes, then the reduced ones (for trailing reductions
    // the identity; for a column group its reduced leading or middle axes move behind).
    for (size_t d = 0; d < rank; ++d) {
      if (!reduced_[d]) order_.push_back(d);
    }
    for (size_t d = 0; d < rank; ++d) {
      if (reduced_[d]) order_.push_back(d);
    }
    for (size_t d : order_) domain_.push_back(group.domain[d]);
    const auto k = static_cast<size_t>(std::count(reduced_.begin(), reduced_.end(), true));
    if (domain_.size() == k) {  // a scalar outer loop
      domain_.insert(domain_.begin(), 1);
      order_.insert(order_.begin(), kNoAxis);
    }
    outer_ = domain_.size() - k;
    inner_ = k;
    columns_ = group.columns != 0;
  }

  FusedGroup run(const FusionGroup& group, std::span<const ir::ValueRef> inputs,
                 std::span<const PlanValue* const> input_values, std::span<const uint32_t> outputs,
                 std::span<const uint32_t> input_via) && {
    FusedGroup fg;
    fg.members = group.members;
    codegen::LoopKernel& k = fg.kernel;
    k.columns = columns_;
    std::vector<std::vector<int64_t>> strides;
    for (size_t i = 0; i < inputs.size(); ++i) {
      const PlanValue& v = *input_values[i];
      const bool outer = inner_ > 0 && inner_broadcast(shape_domain_, reduced_, v.type.shape);
      k.inputs.push_back({v.type.dtype, outer ? Level::Outer : Level::Row, Access::Contiguous});
      strides.push_back(permute(domain_strides(shape_domain_, v.type.shape, v.layout.strides)));
    }
    const std::vector<uint32_t> via = view_successors(nodes_, group);
    auto input_index = [&](ir::ValueRef r, uint32_t through) {
      for (size_t i = 0; i < inputs.size(); ++i) {
        const uint32_t w = input_via.empty() ? kNoView : input_via[i];
        if (inputs[i] == r && w == through) return static_cast<uint32_t>(i);
      }
      throw Error(ErrorCode::Internal, "lower_group: a fused group's input was not given");
    };
    std::vector<int32_t> value_of(nodes_.size(), -1);
    for (uint32_t m : group.members) {
      const ir::Node& n = nodes_[m];
      if (ir::op_info(n.op).kind == ir::OpKind::View) {  // pushed down to the loads behind it
        value_of[m] = value_of[n.inputs[0].node];
        continue;
      }
      Instr in;
      in.op = n.op;
      in.dtype = n.outputs[0].dtype;
      const bool reduce = ir::op_info(n.op).kind == ir::OpKind::Reduction;
      in.kind = reduce ? Instr::Kind::Reduce : Instr::Kind::Op;
      const bool behind_view = via[m] != kNoView;
      in.level = reduce || (!behind_view && inner_ > 0 && n.outputs[0].shape != shape_domain_)
                     ? Level::Outer
                     : Level::Row;
      for (const ir::ValueRef& r : n.inputs) {
        if (value_of[r.node] >= 0) {
          in.args.push_back(static_cast<uint32_t>(value_of[r.node]));
        } else if (nodes_[r.node].op == ir::Op::full) {
          in.args.push_back(add_const(k, nodes_[r.node], value_of, r.node));
        } else {
          in.args.push_back(add_load(k, input_index(r, via[m])));
        }
      }
      if (const std::optional<double> a = codegen::attribute_operand(n)) {
        in.args.push_back(add_attribute(k, *a));
      }
      if (in.kind == Instr::Kind::Op && in.args.size() == 1) {
        const ir::DType from[] = {k.body[in.args[0]].dtype};
        if (codegen::casts_input_first(n.op, from, in.dtype)) {  // as the eager kernel converts
          Instr cast;
          cast.kind = Instr::Kind::Op;
          cast.op = ir::Op::cast;
          cast.dtype = in.dtype;
          cast.level = in.level;
          cast.args = {in.args[0]};
          in.args[0] = static_cast<uint32_t>(k.body.size());
          k.body.push_back(std::move(cast));
        }
      }
      value_of[m] = static_cast<int32_t>(k.body.size());
      k.body.push_back(std::move(in));
    }
    for (uint32_t m : outputs) {
      const Instr& in = k.body[value_of[m]];
      k.outputs.push_back({in.dtype, in.level, Access::Contiguous});
      k.results.push_back(static_cast<uint32_t>(value_of[m]));
      strides.push_back(output_strides(in.level));
    }
    coalesce(k, strides, fg.launch);
    fg.launch.constants = std::move(constants_);
    return fg;
  }

 private:
  uint32_t add_const(codegen::LoopKernel& k, const ir::Node& full, std::vector<int32_t>& value_of,
                     uint32_t node) {
    if (value_of[node] >= 0) return static_cast<uint32_t>(value_of[node]);
    Instr c;
    c.kind = Instr::Kind::Const;
    c.dtype = full.outputs[0].dtype;
    c.level = Level::Outer;
    c.arg = static_cast<uint32_t>(constants_.size());
    constants_.push_back(constant_value(full));
    value_of[node] = static_cast<int32_t>(k.body.size());
    k.body.push_back(c);
    return static_cast<uint32_t>(value_of[node]);
  }

  // An attribute the formula takes as an argument (codegen::attribute_operand).
  uint32_t add_attribute(codegen::LoopKernel& k, double value) {
    Instr c;
    c.kind = Instr::Kind::Const;
    c.dtype = ir::DType::Float64;
    c.level = Level::Outer;
    c.arg = static_cast<uint32_t>(constants_.size());
    constants_.push_back(value);
    k.body.push_back(c);
    return static_cast<uint32_t>(k.body.size() - 1);
  }

  // One load per group input. Keyed by the input, not by the node that produced it: two
  // outputs of one node (frexp's mantissa and exponent) are two inputs of the group.
  uint32_t add_load(codegen::LoopKernel& k, uint32_t input) {
    if (load_of_.size() <= input) load_of_.resize(input + 1, -1);
    if (load_of_[input] >= 0) return static_cast<uint32_t>(load_of_[input]);
    Instr l;
    l.kind = Instr::Kind::Load;
    l.arg = input;
    l.dtype = k.inputs[input].dtype;
    l.level = k.inputs[input].level;
    load_of_[input] = static_cast<int32_t>(k.body.size());
    k.body.push_back(l);
    return static_cast<uint32_t>(load_of_[input]);
  }

  // Contiguous in the group's own axis order (outputs are row-major), then as the kernel's
  // dimensions order them.
  std::vector<int64_t> output_strides(Level level) const {
    std::vector<int64_t> s(shape_domain_.size(), 0);
    int64_t step = 1;
    for (size_t d = shape_domain_.size(); d-- > 0;) {
      if (level == Level::Outer && reduced_[d]) continue;
      s[d] = shape_domain_[d] == 1 ? 0 : step;
      step *= shape_domain_[d];
    }
    return permute(s);
  }

  // Strides over the group's axes in the kernel's dimension order.
  std::vector<int64_t> permute(const std::vector<int64_t>& s) const {
    std::vector<int64_t> out;
    for (size_t d : order_) out.push_back(d == kNoAxis ? 0 : s[d]);
    return out;
  }

  // Drops size-1 dimensions and merges neighbours that every operand walks contiguously,
  // within the outer and within the inner dimensions, keeping at least one of each.
  void coalesce(codegen::LoopKernel& k, const std::vector<std::vector<int64_t>>& strides,
                codegen::LaunchShape& launch) const {
    const size_t ops = strides.size();
    auto part = [&](size_t begin, size_t end, std::vector<size_t>& dims,
                    std::vector<int64_t>& sizes, std::vector<std::vector<int64_t>>& st) {
      const size_t first = sizes.size();
      for (size_t d = begin; d < end; ++d) {
        if (domain_[d] == 1) continue;
        if (sizes.size() > first) {
          bool mergeable = true;
          for (size_t o = 0; o < ops; ++o) {
            if (st[o].back() != strides[o][d] * domain_[d]) mergeable = false;
          }
          if (mergeable) {
            sizes.back() *= domain_[d];
            for (size_t o = 0; o < ops; ++o) st[o].back() = strides[o][d];
            continue;
          }
        }
        sizes.push_back(domain_[d]);
        for (size_t o = 0; o < ops; ++o) st[o].push_back(strides[o][d]);
        dims.push_back(d);
      }
      if (sizes.size() == first) {
        sizes.push_back(1);
        for (size_t o = 0; o < ops; ++o) st[o].push_back(0);
      }
      return sizes.size() - first;
    };
    std::vector<size_t> dims;
    std::vector<int64_t> sizes;
    std::vector<std::vector<int64_t>> st(ops);
    k.outer_rank = static_cast<uint8_t>(part(0, outer_, dims, sizes, st));
    k.inner_rank =
        inner_ == 0 ? 0 : static_cast<uint8_t>(part(outer_, domain_.size(), dims, sizes, st));
    launch.inner_rank = k.inner_rank;
    launch.sizes = sizes;
    launch.strides.clear();
    for (size_t o = 0; o < ops; ++o) {
      launch.strides.insert(launch.strides.end(), st[o].begin(), st[o].end());
      codegen::Operand& op = o < k.inputs.size() ? k.inputs[o] : k.outputs[o - k.inputs.size()];
      if (columns_) {  // the lanes walk the last outer dimension
        const int64_t lane = st[o][k.outer_rank - 1];
        op.access = sizes[k.outer_rank - 1] == 1 || lane == 1 ? Access::Contiguous
                    : lane == 0                               ? Access::Broadcast
                                                              : Access::Strided;
        continue;
      }
      const int64_t last = st[o].back();
      if (inner_ > 0 && op.level == Level::Outer) {
        op.access = Access::Broadcast;
      } else if (sizes.back() == 1 || last == 1) {
        op.access = Access::Contiguous;
      } else {
        op.access = last == 0 ? Access::Broadcast : Access::Strided;
      }
    }
  }

  static constexpr size_t kNoAxis = ~size_t{0};
  std::span<const ir::Node> nodes_;
  std::vector<bool> reduced_;  // per axis of the group's domain
  std::vector<size_t> order_;  // per kernel dimension: the group's axis (kNoAxis: the added 1)
  bool columns_ = false;
  ir::Shape domain_;        // kernel order, with a leading 1 when every axis is reduced
  ir::Shape shape_domain_;  // as the group's nodes see it
  size_t outer_ = 0;
  size_t inner_ = 0;
  std::vector<double> constants_;
  std::vector<int32_t> load_of_;  // per group input: its Load instruction, -1 before the first
};

}  // namespace

FusedGroup lower_group(std::span<const ir::Node> nodes, const FusionGroup& group,
                       std::span<const ir::ValueRef> inputs,
                       std::span<const PlanValue* const> input_values,
                       std::span<const uint32_t> outputs, std::span<const uint32_t> input_via) {
  return Lowering(nodes, group).run(group, inputs, input_values, outputs, input_via);
}

}  // namespace tensord::engine
