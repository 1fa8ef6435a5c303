// build_plan: layouts and steps in one pass over the graph, then buffer slots by liveness.
#include <algorithm>
#include <limits>
#include <numeric>
#include <string>

#include "engine/ir/error.h"
#include "engine/plan/plan.h"
#include "engine/plan/view_layout.h"

namespace tensord::engine {
namespace {

constexpr uint32_t kNone = std::numeric_limits<uint32_t>::max();
constexpr int64_t kForever = std::numeric_limits<int64_t>::max();  // outputs outlive the run

class Planner {
 public:
  Planner(ir::Graph&& graph, std::span<const ir::ValueRef> outputs, std::vector<uint32_t> origin)
      : outputs_(outputs) {
    plan_.nodes = std::move(graph.nodes);
    plan_.origin = std::move(origin);
    if (plan_.origin.empty()) {
      plan_.origin.resize(plan_.nodes.size());
      std::iota(plan_.origin.begin(), plan_.origin.end(), 0u);
    }
    node_value_.assign(plan_.nodes.size(), kNone);
  }

  Plan build() && {
    const std::vector<bool> needed = needed_nodes();
    const size_t num_graph_nodes = plan_.nodes.size();  // copies are appended after these
    for (uint32_t n = 0; n < num_graph_nodes; ++n) {
      if (needed[n]) plan_node(n);
    }
    plan_outputs();
    assign_slots();
    return std::move(plan_);
  }

 private:
  // Nodes some requested output depends on; the graph is in topological order.
  std::vector<bool> needed_nodes() const {
    std::vector<bool> needed(plan_.nodes.size(), false);
    for (const ir::ValueRef& r : outputs_) needed[r.node] = true;
    for (size_t n = plan_.nodes.size(); n-- > 0;) {
      if (!needed[n]) continue;
      for (const ir::ValueRef& in : plan_.nodes[n].inputs) needed[in.node] = true;
    }
    return needed;
  }

  ValueId value_of(ir::ValueRef r) const { return node_value_[r.node] + r.output; }

  const PlanValue& value(ValueId v) const { return plan_.values[v]; }
  ValueId owner(ValueId v) const { return plan_.values[v].owner; }

  ValueId add_value(ir::ValueRef producer, ir::TensorType type, Layout layout, ValueBase base,
                    ValueId owner) {
    const auto id = static_cast<ValueId>(plan_.values.size());
    plan_.values.push_back(
        PlanValue{std::move(type), std::move(layout), base, owner == kNone ? id : owner});
    producer_.push_back(producer);
    return id;
  }

  IndexRange append(std::span<const uint32_t> ids) {
    IndexRange r{static_cast<uint32_t>(plan_.indices.size()), static_cast<uint32_t>(ids.size())};
    plan_.indices.insert(plan_.indices.end(), ids.begin(), ids.end());
    return r;
  }

  // A kernel step running `node` on `inputs` into fresh contiguous outputs; the slots are
  // assigned once liveness is known.
  void add_kernel(uint32_t node, std::span<const ValueId> inputs) {
    node_value_[node] = static_cast<ValueId>(plan_.values.size());
    std::vector<ValueId> outs;
    const std::vector<ir::TensorType>& types = plan_.nodes[node].outputs;
    for (uint32_t i = 0; i < types.size(); ++i) {
      outs.push_back(add_value({node, i}, types[i], contiguous_layout(types[i].shape),
                               ValueBase{ValueBase::Kind::Slot, 0}, kNone));
    }
    Step step;
    step.kind = StepKind::Kernel;
    step.node = node;
    step.inputs = append(inputs);
    step.outputs = append(outs);
    plan_.max_step_values = std::max(plan_.max_step_values, step.inputs.count + step.outputs.count);
    plan_.steps.push_back(step);
  }

  // Inserts a `contiguous` node copying `v`, attributed to the node that needs the copy.
  ValueId add_copy(ValueId v, uint32_t consumer) {
    ir::Node copy;
    copy.op = ir::Op::contiguous;
    copy.inputs = {producer_[v]};
    copy.outputs = {value(v).type};
    copy.loc = plan_.nodes[consumer].loc;
    const uint32_t origin = plan_.origin[consumer];
    const auto node = static_cast<uint32_t>(plan_.nodes.size());
    plan_.nodes.push_back(std::move(copy));
    plan_.origin.push_back(origin);
    node_value_.push_back(kNone);
    const ValueId in[] = {v};
    add_kernel(node, in);
    return node_value_[node];
  }

  // A value sharing `in`'s buffer under another type and layout.
  void add_view(uint32_t node, ValueId in, Layout layout) {
    node_value_[node] = add_value({node, 0}, plan_.nodes[node].outputs[0], std::move(layout),
                                  value(in).base, owner(in));
  }

  void plan_node(uint32_t n) {
    const ir::Node& node = plan_.nodes[n];
    const ir::OpInfo& info = ir::op_info(node.op);
    if (info.kind == ir::OpKind::Input) {
      const auto index = static_cast<uint32_t>(node.attrs.get_int(ir::Attr::index));
      node_value_[n] = add_value({n, 0}, node.outputs[0], contiguous_layout(node.outputs[0].shape),
                                 ValueBase{ValueBase::Kind::Input, index}, kNone);
      return;
    }
    if (info.kind == ir::OpKind::Composite) {
      throw Error(ErrorCode::Internal,
                  "composite op " + std::string(info.name) + " reached the planner undecomposed");
    }
    if (info.kind == ir::OpKind::View) {
      ValueId in = value_of(node.inputs[0]);
      std::optional<Layout> layout = view_layout(node, value(in).type, value(in).layout);
      if (!layout) {
        in = add_copy(in, n);
        layout = view_layout(plan_.nodes[n], value(in).type, value(in).layout);
        if (!layout) throw Error(ErrorCode::Internal, "reshape of a contiguous copy is no view");
      }
      add_view(n, in, std::move(*layout));
      return;
    }
    if (node.op == ir::Op::contiguous) {
      // Values are immutable, so a value already in row-major order from its buffer's start
      // can be shared instead of copied.
      const ValueId in = value_of(node.inputs[0]);
      const PlanValue& v = value(in);
      if (v.layout.offset == 0 && is_contiguous(v.type.shape, v.layout.strides)) {
        add_view(n, in, v.layout);
        return;
      }
    }
    std::vector<ValueId> inputs;
    inputs.reserve(node.inputs.size());
    for (const ir::ValueRef& r : node.inputs) inputs.push_back(value_of(r));
    add_kernel(n, inputs);
  }

  // A value the caller gets as is: contiguous, at offset 0 and the whole of its buffer.
  bool returnable(ValueId v) const {
    const PlanValue& pv = value(v);
    return pv.layout.offset == 0 && is_contiguous(pv.type.shape, pv.layout.strides) &&
           pv.type.nbytes() == value(owner(v)).type.nbytes();
  }

  void plan_outputs() {
    std::vector<std::pair<ValueId, ValueId>> copies;  // (value, its copy): few outputs
    for (const ir::ValueRef& r : outputs_) {
      ValueId v = value_of(r);
      if (!returnable(v)) {
        auto it =
            std::find_if(copies.begin(), copies.end(), [&](const auto& c) { return c.first == v; });
        if (it != copies.end()) {
          v = it->second;
        } else {
          const ValueId copy = add_copy(v, r.node);
          copies.emplace_back(v, copy);
          v = copy;
        }
      }
      plan_.outputs.push_back(v);
    }
  }

  // Greedy slot assignment in step order: a kernel output takes the free slot that fits it
  // best (or grows the largest free one), and a slot returns to the pool after the last step
  // that reads any value living in it. Output buffers get slots of their own, never pooled.
  void assign_slots() {
    const size_t num_values = plan_.values.size();
    const size_t num_steps = plan_.steps.size();

    // end[o]: the last step reading the buffer owned by kernel output o.
    std::vector<int64_t> end(num_values, -1);
    for (size_t i = 0; i < num_steps; ++i) {
      const Step& step = plan_.steps[i];
      for (ValueId v : plan_[step.outputs]) end[v] = static_cast<int64_t>(i);
      for (ValueId v : plan_[step.inputs]) {
        end[owner(v)] = std::max(end[owner(v)], static_cast<int64_t>(i));
      }
    }
    for (ValueId v : plan_.outputs) end[owner(v)] = kForever;

    std::vector<std::vector<ValueId>> ends_at(num_steps);
    for (ValueId v = 0; v < num_values; ++v) {
      if (owner(v) == v && value(v).base.kind == ValueBase::Kind::Slot && end[v] != kForever) {
        ends_at[end[v]].push_back(v);
      }
    }

    std::vector<SlotId> slot_of(num_values, kNone);
    std::vector<int64_t> slot_end;  // the end of each slot's latest occupant
    std::vector<SlotId> pool;
    for (size_t i = 0; i < num_steps; ++i) {
      for (ValueId v : plan_[plan_.steps[i].outputs]) {
        const size_t bytes = value(v).type.nbytes();
        const SlotId s = end[v] == kForever ? new_slot(slot_end) : take(pool, bytes, slot_end);
        plan_.slot_bytes[s] = std::max(plan_.slot_bytes[s], bytes);
        slot_end[s] = end[v];
        slot_of[v] = s;
      }
      for (ValueId v : ends_at[i]) pool.push_back(slot_of[v]);
    }

    std::vector<std::vector<SlotId>> release_at(num_steps);
    for (SlotId s = 0; s < slot_end.size(); ++s) {
      if (slot_end[s] != kForever) release_at[slot_end[s]].push_back(s);
    }
    for (size_t i = 0; i < num_steps; ++i) plan_.steps[i].release = append(release_at[i]);

    for (ValueId v = 0; v < num_values; ++v) {
      ValueBase& base = plan_.values[v].base;
      if (base.kind == ValueBase::Kind::Slot) base.index = slot_of[owner(v)];
    }
  }

  SlotId new_slot(std::vector<int64_t>& slot_end) {
    plan_.slot_bytes.push_back(0);
    slot_end.push_back(-1);
    return static_cast<SlotId>(plan_.slot_bytes.size() - 1);
  }

  // Best fit from the pool; else the largest free slot, which grows; else a new slot.
  SlotId take(std::vector<SlotId>& pool, size_t bytes, std::vector<int64_t>& slot_end) {
    if (pool.empty()) return new_slot(slot_end);
    size_t best = pool.size();
    size_t largest = 0;
    for (size_t i = 0; i < pool.size(); ++i) {
      const size_t size = plan_.slot_bytes[pool[i]];
      if (size >= bytes && (best == pool.size() || size < plan_.slot_bytes[pool[best]])) best = i;
      if (size > plan_.slot_bytes[pool[largest]]) largest = i;
    }
    const size_t pick = best != pool.size() ? best : largest;
    const SlotId s = pool[pick];
    pool[pick] = pool.back();
    pool.pop_back();
    return s;
  }

  Plan plan_;
  std::span<const ir::ValueRef> outputs_;
  std::vector<ValueId> node_value_;     // per node: its first value, kNone if not planned
  std::vector<ir::ValueRef> producer_;  // per value: the node output it is
};

}  // namespace

Plan build_plan(ir::Graph graph, std::span<const ir::ValueRef> outputs,
                std::vector<uint32_t> origin) {
  return Planner(std::move(graph), outputs, std::move(origin)).build();
}

}  // namespace tensord::engine
