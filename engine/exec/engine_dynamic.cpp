// Graphs with data-dependent output shapes (docs/design-notes.md "Data-dependent output
// shapes"). Inference gave such an op's output a kDynamic dimension, and everything computed
// from it too. Engine::run_segmented runs the graph in segments:
//
//   1. keep only the nodes the requested outputs need;
//   2. find the first data-dependent node D; if there is none, plan and run what is left as
//      any graph (plan cache included) and return;
//   3. run the nodes before D as one planned graph whose outputs are the values later nodes
//      (or the caller) still need, "boundary values";
//   4. run D on the backend, which sizes and allocates its output;
//   5. make a new graph: the boundary values and D's output become its inputs, the nodes
//      after D are added again, so inference sees D's actual size; go to 2.
//
// Each segment is an ordinary graph with concrete shapes, so it is planned, fused and cached
// as usual: the plan cache keys the part after D by D's actual size. Errors are reported
// against the caller's node (each segment's node keeps its origin).
#include <optional>
#include <string>
#include <unordered_map>
#include <utility>

#include "engine/exec/engine.h"
#include "engine/exec/step_hook.h"
#include "engine/ir/dynamic.h"
#include "engine/ir/error.h"
#include "engine/ir/passes.h"

namespace tensord::engine {
namespace {

uint64_t key(ir::ValueRef v) {
  return (uint64_t{v.node} << 32) | v.output;
}

// The same error attributed to the caller's node instead of the segment's.
Error attributed(const Error& e, const std::vector<uint32_t>& origin) {
  if (!e.node() || *e.node() >= origin.size()) return e;
  return Error(e.code(), e.message(), origin[*e.node()], e.op(), e.where());
}

// A validated graph restricted to the nodes `outputs` need, in order; `origin` maps the new
// nodes to what `origin` said of the old ones.
struct Pruned {
  ir::Graph graph;
  std::vector<ir::ValueRef> outputs;
  std::vector<uint32_t> origin;
};

Pruned prune(const ir::Graph& g, std::span<const ir::ValueRef> outputs,
             const std::vector<uint32_t>& origin) {
  std::vector<char> live(g.nodes.size(), 0);
  for (ir::ValueRef v : outputs) live[v.node] = 1;
  for (size_t i = g.nodes.size(); i-- > 0;) {
    if (!live[i]) continue;
    for (ir::ValueRef v : g.nodes[i].inputs) live[v.node] = 1;
  }
  Pruned p;
  p.graph.files = g.files;
  std::vector<uint32_t> moved(g.nodes.size(), 0);
  for (uint32_t i = 0; i < g.nodes.size(); ++i) {
    if (!live[i]) continue;
    ir::Node node = g.nodes[i];
    for (ir::ValueRef& v : node.inputs) v.node = moved[v.node];
    moved[i] = static_cast<uint32_t>(p.graph.nodes.size());
    p.graph.nodes.push_back(std::move(node));
    p.origin.push_back(origin[i]);
  }
  for (ir::ValueRef v : outputs) p.outputs.push_back({moved[v.node], v.output});
  return p;
}

// The user's graph with equal nodes merged (CSE: a data-dependent op asked for twice, e.g.
// unique's values and counts recorded as two calls, runs once) and what the outputs do not need
// dropped; origins are the user's node numbers.
Pruned simplified(const ir::Graph& user_graph, std::span<const ir::ValueRef> user_outputs) {
  const ir::Rewritten simple = ir::simplify(user_graph, user_outputs);
  return prune(simple.graph, simple.outputs, simple.origin);
}

std::optional<uint32_t> first_data_dependent(const ir::Graph& g) {
  for (uint32_t i = 0; i < g.nodes.size(); ++i) {
    if (ir::is_data_dependent(g.nodes[i].op)) return i;
  }
  return std::nullopt;
}

// Values made before node d that d, later nodes or the caller read: the outputs of the segment
// that ends at d. `index` maps key(value) to its position.
std::vector<ir::ValueRef> boundary_values(const ir::Graph& g, uint32_t d,
                                          std::span<const ir::ValueRef> outputs,
                                          std::unordered_map<uint64_t, size_t>& index) {
  std::vector<ir::ValueRef> boundary;
  auto need = [&](ir::ValueRef v) {
    if (v.node < d && index.emplace(key(v), boundary.size()).second) boundary.push_back(v);
  };
  for (uint32_t j = d; j < g.nodes.size(); ++j) {
    for (ir::ValueRef v : g.nodes[j].inputs) need(v);
  }
  for (ir::ValueRef v : outputs) need(v);
  return boundary;
}

// The node that sizes a segment runs outside any plan: a Step span of its own, so that a
// profile shows where the time went (a 30 ms flatnonzero was a gap in the trace). `id` is the
// node's index in its segment's graph, since it is no plan's step.
void trace_data_dependent(const RunProfile& profile, const ir::Graph& g, uint32_t d, int64_t start,
                          std::span<const TensorValue> inputs, std::span<const TensorValue> made) {
  profiler::Profiler& p = *profile.profiler;
  profiler::Record r;
  r.stage = static_cast<uint8_t>(profiler::Stage::Step);
  r.thread = profiler::kWorkerThread;
  r.request = profile.request;
  r.name = p.intern(ir::name(g.nodes[d].op));
  const uint32_t file = g.nodes[d].loc.file;
  r.file = file != 0 ? p.intern(g.files[file]) : 0;
  r.line = g.nodes[d].loc.line;
  r.id = d;
  r.start_ns = start;
  r.dur_ns = p.now() - start;
  for (const TensorValue& v : inputs) r.bytes += v.nbytes();
  for (const TensorValue& v : made) r.bytes += v.nbytes();
  p.add(r);
}

}  // namespace

bool has_data_dependent_op(const ir::Graph& graph) {
  for (const ir::Node& node : graph.nodes) {
    if (ir::is_data_dependent(node.op)) return true;
  }
  return false;
}

std::vector<TensorValue> Engine::run_segmented(const ir::Graph& user_graph,
                                               std::span<const TensorValue> user_inputs,
                                               std::span<const ir::ValueRef> user_outputs,
                                               CompileMode mode, const RunProfile* profile) {
  ir::Graph checked = user_graph;
  std::vector<ir::TensorType> types;
  for (const TensorValue& v : user_inputs) types.push_back(v.type);
  ir::validate(checked, types, options_.limits);
  ir::validate_outputs(checked, user_outputs);

  Pruned cur = simplified(checked, user_outputs);
  std::vector<TensorValue> inputs(user_inputs.begin(), user_inputs.end());

  // The values of `wanted` in graph `g` (whose nodes are all static): inputs directly, the
  // rest from one planned run.
  auto evaluate = [&](ir::Graph& g, const std::vector<ir::ValueRef>& wanted,
                      const std::vector<uint32_t>& origin) {
    std::vector<TensorValue> out(wanted.size());
    std::vector<ir::ValueRef> computed;
    std::vector<size_t> slot;
    for (size_t k = 0; k < wanted.size(); ++k) {
      const ir::Node& node = g.nodes[wanted[k].node];
      if (node.op == ir::Op::input) {
        out[k] = inputs[static_cast<size_t>(node.attrs.get_int(ir::Attr::index))];
      } else {
        computed.push_back(wanted[k]);
        slot.push_back(k);
      }
    }
    if (computed.empty()) return out;
    std::vector<ir::TensorType> segment_types;
    for (const TensorValue& v : inputs) segment_types.push_back(v.type);
    try {
      std::vector<TensorValue> values =
          run_planned(g, segment_types, inputs, computed, mode, profile);
      for (size_t k = 0; k < values.size(); ++k) out[slot[k]] = std::move(values[k]);
    } catch (const Error& e) {
      throw attributed(e, origin);
    }
    return out;
  };

  while (true) {
    ir::Graph& g = cur.graph;
    const std::optional<uint32_t> first = first_data_dependent(g);
    if (!first) return evaluate(g, cur.outputs, cur.origin);
    const uint32_t d = *first;

    std::unordered_map<uint64_t, size_t> boundary_index;
    const std::vector<ir::ValueRef> boundary = boundary_values(g, d, cur.outputs, boundary_index);

    ir::Graph prefix;
    prefix.files = g.files;
    prefix.nodes.assign(g.nodes.begin(), g.nodes.begin() + d);
    std::vector<TensorValue> values = evaluate(prefix, boundary, cur.origin);

    std::vector<TensorValue> d_inputs;
    for (ir::ValueRef v : g.nodes[d].inputs) d_inputs.push_back(values[boundary_index.at(key(v))]);
    std::vector<TensorValue> made;
    try {
      // Its kernel's scratch goes to the ledger under the node's op and line (issue 7).
      std::optional<profiler::AllocSite> site;
      if (profile != nullptr && profile->memory()) [[unlikely]] {
        site.emplace();
        site->profiler = profile->profiler;
        site->request = profile->request;
        site->op = ir::name(g.nodes[d].op);
        site->file = g.files[g.nodes[d].loc.file];
        site->line = g.nodes[d].loc.line;
        site->category = profiler::MemoryCategory::Scratch;
      }
      {
        StepSiteScope scratch(backend_, site ? &*site : nullptr);
        const int64_t start =
            profile != nullptr && profile->tracing() ? profile->profiler->now() : 0;
        made = backend_.run_data_dependent(g.nodes[d], d_inputs);
        if (profile != nullptr && profile->tracing()) [[unlikely]] {
          trace_data_dependent(*profile, g, d, start, d_inputs, made);
        }
      }
      // Its outputs are the session's tensors from here on; a backend that tracks them itself
      // (CUDA: device-owned, docs/profiler.md) keeps its ticket.
      if (site) [[unlikely]] {
        site->category = profiler::MemoryCategory::Tensor;
        for (TensorValue& v : made) {
          if (!v.buffer || v.buffer->ticket.tracked()) continue;
          site->address = reinterpret_cast<uintptr_t>(v.buffer->data());
          v.buffer->ticket = profile->ledger->track(v.buffer->bytes(), *site);
        }
      }
    } catch (const Error& e) {
      throw e.at_node(cur.origin[d], std::string(ir::name(g.nodes[d].op)), g.location(d));
    }
    if (made.size() != g.nodes[d].outputs.size()) {
      throw Error(ErrorCode::Internal, "the backend made " + std::to_string(made.size()) +
                                           " outputs of " + std::string(ir::name(g.nodes[d].op)) +
                                           ", which has " +
                                           std::to_string(g.nodes[d].outputs.size()));
    }

    // The rest, re-inferred with the sizes now known.
    Pruned next;
    next.graph.files = g.files;
    std::unordered_map<uint64_t, ir::ValueRef> moved;
    std::vector<TensorValue> next_inputs;
    auto add_value = [&](ir::ValueRef old, TensorValue value) {
      const auto index = static_cast<uint32_t>(next_inputs.size());
      moved[key(old)] = next.graph.add_input(index, value.type, g.nodes[old.node].loc);
      next.origin.push_back(cur.origin[old.node]);
      next_inputs.push_back(std::move(value));
    };
    for (size_t k = 0; k < boundary.size(); ++k) add_value(boundary[k], std::move(values[k]));
    for (uint32_t k = 0; k < made.size(); ++k) add_value({d, k}, std::move(made[k]));
    for (uint32_t j = d + 1; j < g.nodes.size(); ++j) {
      const ir::Node& node = g.nodes[j];
      if (node.op == ir::Op::input) {
        // An input listed after d (a graph may list its inputs anywhere) numbers this segment's
        // inputs: it becomes one of the next segment's like the boundary values.
        add_value({j, 0}, inputs[static_cast<size_t>(node.attrs.get_int(ir::Attr::index))]);
        continue;
      }
      std::vector<ir::ValueRef> ins;
      for (ir::ValueRef v : node.inputs) ins.push_back(moved.at(key(v)));
      next.origin.push_back(cur.origin[j]);
      ir::ValueRef first_output;
      try {
        first_output = next.graph.add(node.op, std::move(ins), node.attrs, node.loc);
      } catch (const Error& e) {
        throw attributed(e, next.origin);
      }
      // Ops with several outputs: output k of the node is output k of its copy.
      for (uint32_t k = 0; k < node.outputs.size(); ++k) {
        moved[key({j, k})] = ir::ValueRef{first_output.node, k};
      }
    }
    for (ir::ValueRef v : cur.outputs) next.outputs.push_back(moved.at(key(v)));
    cur = std::move(next);
    inputs = std::move(next_inputs);
  }
}

SegmentOutline Engine::outline_segments(const ir::Graph& user_graph,
                                        std::span<const ir::TensorType> input_types,
                                        std::span<const ir::ValueRef> user_outputs,
                                        CompileMode mode) {
  ir::Graph checked = user_graph;
  ir::validate(checked, input_types, options_.limits);
  ir::validate_outputs(checked, user_outputs);
  Pruned pruned = simplified(checked, user_outputs);
  const ir::Graph& g = pruned.graph;

  SegmentOutline out;
  // Every data-dependent node the outputs need ends a segment, in the order run() meets them:
  // later segments keep the pruned graph's node order.
  for (uint32_t i = 0; i < g.nodes.size(); ++i) {
    if (ir::is_data_dependent(g.nodes[i].op)) out.cuts.push_back({pruned.origin[i], g.nodes[i].op});
  }
  // The first segment: the nodes before the first cut, or all of them when the outputs need
  // no cut (run() then plans the pruned graph as one).
  const std::optional<uint32_t> d = first_data_dependent(g);
  const uint32_t end = d ? *d : static_cast<uint32_t>(g.nodes.size());
  std::unordered_map<uint64_t, size_t> index;
  std::vector<ir::ValueRef> computed;
  for (ir::ValueRef v : d ? boundary_values(g, *d, pruned.outputs, index) : pruned.outputs) {
    if (g.nodes[v.node].op != ir::Op::input) computed.push_back(v);
  }
  if (computed.empty()) return out;  // it reads graph inputs only: nothing to plan
  ir::Graph prefix;
  prefix.files = g.files;
  prefix.nodes.assign(g.nodes.begin(), g.nodes.begin() + end);
  try {
    out.first =
        plan_for(prefix, input_types, computed, mode, &out.first_info, nullptr, PlanUse::Inspect);
  } catch (const Error& e) {
    throw attributed(e, pruned.origin);
  }
  out.first_origin.assign(pruned.origin.begin(), pruned.origin.begin() + end);
  return out;
}

}  // namespace tensord::engine
