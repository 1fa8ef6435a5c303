// build_plan: layouts and steps in one pass over the graph, then buffer slots by liveness.
#include <algorithm>
#include <limits>
#include <numeric>
#include <string>

#include "engine/ir/error.h"
#include "engine/plan/fusion.h"
#include "engine/plan/lower_group.h"
#include "engine/plan/plan.h"
#include "engine/plan/view_layout.h"

namespace tensord::engine {
namespace {

constexpr uint32_t kNone = std::numeric_limits<uint32_t>::max();
constexpr int64_t kForever = std::numeric_limits<int64_t>::max();  // outputs outlive the run

class Planner {
 public:
  Planner(ir::Graph&& graph, std::span<const ir::ValueRef> outputs, std::vector<uint32_t> origin,
          PlanOptions options)
      : outputs_(outputs), options_(options) {
    plan_.nodes = std::move(graph.nodes);
    plan_.origin = std::move(origin);
    if (plan_.origin.empty()) {
      plan_.origin.resize(plan_.nodes.size());
      std::iota(plan_.origin.begin(), plan_.origin.end(), 0u);
    }
    node_value_.assign(plan_.nodes.size(), kNone);
  }

  Plan build() && {
    std::vector<bool> needed = needed_nodes();
    const size_t num_graph_nodes = plan_.nodes.size();  // copies are appended after these
    if (options_.fuse) {
      fusion_ = fuse(plan_.nodes, needed, outputs_);
      plan_.boundaries = fusion_.boundary;
      plan_.fusion_breaks = fusion_.breaks;
      needed = needed_nodes();  // constants only fused groups read are not run on their own
      mark_group_outputs(needed);
    }
    done_.assign(num_graph_nodes, false);
    group_done_.assign(fusion_.groups.size(), false);
    for (uint32_t n = 0; n < num_graph_nodes; ++n) {
      if (needed[n]) ensure(n);
    }
    plan_outputs();
    assign_slots();
    return std::move(plan_);
  }

 private:
  // Nodes some requested output depends on; the graph is in topological order. Constants
  // read by fused groups are inlined there, so those edges do not count.
  std::vector<bool> needed_nodes() const {
    std::vector<bool> needed(plan_.nodes.size(), false);
    for (const ir::ValueRef& r : outputs_) needed[r.node] = true;
    for (size_t n = plan_.nodes.size(); n-- > 0;) {
      if (!needed[n]) continue;
      for (const ir::ValueRef& in : plan_.nodes[n].inputs) {
        if (!absorbed(static_cast<uint32_t>(n), in)) needed[in.node] = true;
      }
    }
    return needed;
  }

  int32_t group_of(uint32_t n) const {
    return n < fusion_.group_of.size() ? fusion_.group_of[n] : -1;
  }
  // A matmul is in a group only with its epilogue; it reads its operands as any kernel does.
  bool absorbed(uint32_t consumer, ir::ValueRef in) const {
    return group_of(consumer) >= 0 && plan_.nodes[in.node].op == ir::Op::full &&
           plan_.nodes[consumer].op != ir::Op::matmul;
  }

  // Plans node n, and first what it reads: a fused group is planned as a whole, which may
  // come before some of its members' positions in the graph (fusion keeps it acyclic).
  void ensure(uint32_t n) {
    if (done_[n]) return;
    const int32_t g = group_of(n);
    if (g < 0) {
      done_[n] = true;
      for (const ir::ValueRef& in : plan_.nodes[n].inputs) ensure(in.node);
      plan_node(n);
      return;
    }
    if (group_done_[g]) return;
    group_done_[g] = true;
    for (uint32_t m : fusion_.groups[g].members) done_[m] = true;
    for (uint32_t m : fusion_.groups[g].members) {
      for (const ir::ValueRef& in : plan_.nodes[m].inputs) {
        if (group_of(in.node) != g && !absorbed(m, in)) ensure(in.node);
      }
    }
    plan_group(static_cast<uint32_t>(g));
  }

  // Members some node outside their group, or the caller, reads: the values a group stores.
  void mark_group_outputs(const std::vector<bool>& needed) {
    group_output_.assign(plan_.nodes.size(), false);
    for (const ir::ValueRef& r : outputs_) group_output_[r.node] = true;
    for (uint32_t n = 0; n < fusion_.group_of.size(); ++n) {
      if (!needed[n]) continue;
      for (const ir::ValueRef& in : plan_.nodes[n].inputs) {
        if (group_of(in.node) >= 0 && group_of(in.node) != group_of(n)) {
          group_output_[in.node] = true;
        }
      }
    }
  }

  void plan_group(uint32_t g) {
    const FusionGroup& group = fusion_.groups[g];
    if (group.epilogue) return plan_epilogue(group);
    // Each input once per view chain it is read through (fusion.h: views pushed down).
    const std::vector<uint32_t> succ = view_successors(plan_.nodes, group);
    std::vector<ir::ValueRef> inputs;
    std::vector<uint32_t> via;
    std::vector<uint32_t> reader;  // a member reading it: its shape is the broadcast target
    for (uint32_t m : group.members) {
      for (const ir::ValueRef& in : plan_.nodes[m].inputs) {
        if (group_of(in.node) == static_cast<int32_t>(g) || absorbed(m, in)) continue;
        bool seen = false;
        for (size_t i = 0; i < inputs.size(); ++i)
          seen = seen || (inputs[i] == in && via[i] == succ[m]);
        if (seen) continue;
        inputs.push_back(in);
        via.push_back(succ[m]);
        reader.push_back(m);
      }
    }
    std::vector<uint32_t> outs;
    for (uint32_t m : group.members) {
      if (group_output_[m]) outs.push_back(m);
    }
    std::vector<ValueId> in_ids;
    for (size_t i = 0; i < inputs.size(); ++i) {
      const ValueId v = value_of(inputs[i]);
      if (via[i] == kNoView) {
        in_ids.push_back(v);
        continue;
      }
      // The input as the members behind the views read it: a value sharing its buffer, with
      // the pushed layout over the views' shape. Fusion checked that one exists.
      const std::vector<const ir::Node*> chain = view_chain(plan_.nodes, succ, via[i]);
      std::optional<Layout> l = pushed_layout(chain, value(v).type, value(v).layout,
                                              plan_.nodes[reader[i]].outputs[0].shape);
      if (!l || value(v).layout.conj) {
        throw Error(ErrorCode::Internal, "a view pushed into a fused group has no layout");
      }
      const ir::TensorType t{value(v).type.dtype, chain.back()->outputs[0].shape};
      in_ids.push_back(add_value(inputs[i], t, std::move(*l), value(v).base, owner(v)));
    }
    std::vector<const PlanValue*> in_values;
    for (ValueId v : in_ids) in_values.push_back(&plan_.values[v]);
    plan_.groups.push_back(lower_group(plan_.nodes, group, inputs, in_values, outs, via));
    plan_.groups.back().autotune = options_.autotune;

    const uint32_t anchor = group.members.back();
    std::vector<ValueId> out_ids;
    for (uint32_t m : outs) {
      node_value_[m] = static_cast<ValueId>(plan_.values.size());
      const ir::TensorType& t = plan_.nodes[m].outputs[0];
      out_ids.push_back(add_value({m, 0}, t, contiguous_layout(t.shape),
                                  ValueBase{ValueBase::Kind::Slot, 0}, kNone));
    }
    Step step;
    step.kind = StepKind::Fused;
    step.node = anchor;
    step.group = static_cast<uint32_t>(plan_.groups.size() - 1);
    step.inputs = append(in_ids);
    step.outputs = append(out_ids);
    push_step(step);
  }

  // A matmul with its epilogue: one step reading the matmul's operands, then the tensors the
  // chain adds. The chain alone is lowered too, reading the product first: the kernel that
  // runs after the matmul when the backend finds the unfused pair faster.
  void plan_epilogue(const FusionGroup& group) {
    const uint32_t matmul = group.members.front();
    FusionGroup chain = group;
    chain.members.erase(chain.members.begin());
    chain.epilogue.reset();
    MatmulEpilogue epilogue = *group.epilogue;
    std::vector<ir::ValueRef> extras;
    for (EpilogueStage& s : epilogue.stages) {
      if (s.op != EpilogueOp::BiasRow && s.op != EpilogueOp::Residual) continue;
      auto it = std::find(extras.begin(), extras.end(), s.operand);
      if (it == extras.end()) it = extras.insert(extras.end(), s.operand);
      s.input = static_cast<uint32_t>(2 + (it - extras.begin()));
    }
    std::vector<ValueId> in_ids = {value_of(plan_.nodes[matmul].inputs[0]),
                                   value_of(plan_.nodes[matmul].inputs[1])};
    for (const ir::ValueRef& r : extras) in_ids.push_back(value_of(r));

    // The product as the chain's kernel reads it: contiguous, in a buffer of its own.
    const ir::TensorType& product = plan_.nodes[matmul].outputs[0];
    const PlanValue product_value{product, contiguous_layout(product.shape), {}, 0};
    std::vector<ir::ValueRef> chain_inputs = {ir::ValueRef{matmul, 0}};
    std::vector<const PlanValue*> chain_values = {&product_value};
    for (size_t i = 0; i < extras.size(); ++i) {
      chain_inputs.push_back(extras[i]);
      chain_values.push_back(&plan_.values[in_ids[2 + i]]);
    }
    const uint32_t last = chain.members.back();
    const uint32_t outs[] = {last};
    FusedGroup fused = lower_group(plan_.nodes, chain, chain_inputs, chain_values, outs);
    fused.members = group.members;
    fused.autotune = options_.autotune;
    fused.epilogue = std::move(epilogue);
    plan_.groups.push_back(std::move(fused));

    node_value_[last] = static_cast<ValueId>(plan_.values.size());
    const ir::TensorType& t = plan_.nodes[last].outputs[0];
    const ValueId out_ids[] = {add_value({last, 0}, t, contiguous_layout(t.shape),
                                         ValueBase{ValueBase::Kind::Slot, 0}, kNone)};
    Step step;
    step.kind = StepKind::Fused;
    step.node = last;
    step.group = static_cast<uint32_t>(plan_.groups.size() - 1);
    step.inputs = append(in_ids);
    step.outputs = append(out_ids);
    push_step(step);
  }

  // Adds `step` with what every run of it needs and nothing in it changes: the most values a
  // step binds, and the bytes it reads and writes (the profiler's per-step figure, computed here
  // once rather than per profiled run).
  void push_step(Step step) {
    plan_.max_step_values = std::max(plan_.max_step_values, step.inputs.count + step.outputs.count);
    for (const IndexRange r : {step.inputs, step.outputs}) {
      for (uint32_t i = r.begin; i < r.begin + r.count; ++i) {
        step.bytes += plan_.values[plan_.indices[i]].type.nbytes();
      }
    }
    plan_.steps.push_back(step);
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
    push_step(step);
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
      if (v.layout.offset == 0 && is_contiguous(v.type.shape, v.layout.strides) && !v.layout.conj) {
        add_view(n, in, v.layout);
        return;
      }
    }
    std::vector<ValueId> inputs;
    inputs.reserve(node.inputs.size());
    for (const ir::ValueRef& r : node.inputs) {
      ValueId in = value_of(r);
      // Issue 4: a conj view reaches only the kernels that read its bit; others get a copy.
      if (value(in).layout.conj && !reads_conj(node.op)) in = add_copy(in, n);
      inputs.push_back(in);
    }
    add_kernel(n, inputs);
  }

  // A value the caller gets as is: contiguous, at offset 0 and the whole of its buffer.
  bool returnable(ValueId v) const {
    const PlanValue& pv = value(v);
    return pv.layout.offset == 0 && is_contiguous(pv.type.shape, pv.layout.strides) &&
           pv.type.nbytes() == value(owner(v)).type.nbytes() && !pv.layout.conj;
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
  PlanOptions options_;
  FusionResult fusion_;
  std::vector<bool> done_;
  std::vector<bool> group_done_;
  std::vector<bool> group_output_;
  std::vector<ValueId> node_value_;     // per node: its first value, kNone if not planned
  std::vector<ir::ValueRef> producer_;  // per value: the node output it is
};

}  // namespace

Plan build_plan(ir::Graph graph, std::span<const ir::ValueRef> outputs,
                std::vector<uint32_t> origin, PlanOptions options) {
  return Planner(std::move(graph), outputs, std::move(origin), options).build();
}

}  // namespace tensord::engine
