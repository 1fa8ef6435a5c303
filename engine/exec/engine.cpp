#include "engine/exec/engine.h"

#include <exception>
#include <new>
#include <string>
#include <utility>

#include "engine/exec/executor.h"
#include "engine/exec/reproducer.h"
#include "engine/ir/error.h"
#include "engine/ir/hash.h"
#include "engine/ir/passes.h"
#include "engine/plan/plan_cache.h"

namespace tensord::engine {
namespace {

// The engine's callers (the daemon) only ever hold contiguous tensors of their own, so plans
// may assume every input starts at offset 0 in row-major order; anything else is a caller bug.
std::vector<ir::TensorType> input_types(std::span<const TensorValue> inputs) {
  std::vector<ir::TensorType> types;
  types.reserve(inputs.size());
  for (size_t i = 0; i < inputs.size(); ++i) {
    const TensorValue& in = inputs[i];
    const std::string which = "engine input " + std::to_string(i);
    if (!in.buffer) throw Error(ErrorCode::Internal, which + " has no buffer");
    if (in.offset != 0 || in.strides.size() != in.type.shape.size() || !in.is_contiguous()) {
      throw Error(ErrorCode::Internal, which + " is not a contiguous tensor at offset 0");
    }
    if (in.buffer->bytes() < in.nbytes()) {
      throw Error(ErrorCode::Internal, which + " is larger than its buffer");
    }
    types.push_back(in.type);
  }
  return types;
}

// decompose -> simplify -> plan, with every plan node traced back to the user's node.
Plan compile(const ir::Graph& graph, std::span<const ir::ValueRef> outputs, bool fuse) {
  ir::Rewritten decomposed = ir::decompose(graph, outputs);
  ir::Rewritten simplified = ir::simplify(decomposed.graph, decomposed.outputs);
  std::vector<uint32_t> origin = std::move(simplified.origin);
  for (uint32_t& o : origin) o = decomposed.origin[o];
  PlanOptions options;
  options.fuse = fuse;
  return build_plan(std::move(simplified.graph), simplified.outputs, std::move(origin), options);
}

// Plans of different modes differ, so the mode is part of the plan cache's key.
void add_mode(ir::CanonicalForm& form, CompileMode mode) {
  form.words.push_back(0x6d6f6465'00000000ULL | static_cast<uint64_t>(mode));
  ir::WordHasher h;
  h.add(form.hash);
  h.add(static_cast<uint64_t>(mode));
  form.hash = h.finish();
}

}  // namespace

Engine::Engine(Backend& backend, EngineOptions options)
    : backend_(backend),
      options_(std::move(options)),
      plans_(std::make_unique<PlanCache>(options_.plan_cache_capacity)) {}

Engine::~Engine() = default;

std::shared_ptr<const Plan> Engine::plan_for(ir::Graph& graph,
                                             std::span<const ir::TensorType> types,
                                             std::span<const ir::ValueRef> outputs,
                                             CompileMode mode, PlanInfo* info) {
  ir::validate(graph, types, options_.limits);
  ir::validate_outputs(graph, outputs);

  ir::CanonicalForm form = ir::canonical_form(graph, outputs);
  add_mode(form, mode);
  std::shared_ptr<const Plan> plan = plans_->find(form);
  if (info) *info = PlanInfo{plan != nullptr, plan != nullptr};
  if (plan) {
    ++stats_.plan_cache_hits;
    return plan;
  }
  ++stats_.plan_cache_misses;
  try {
    auto built = std::make_shared<Plan>(
        compile(graph, outputs, mode != CompileMode::Eager && backend_.can_fuse()));
    if (!built->groups.empty()) {
      stats_.fused_groups += built->groups.size();
      if (info) info->kernels_cached = backend_.kernels_cached(built->groups);
      built->compiled = backend_.compile(built->groups);
    } else if (info) {
      info->kernels_cached = true;
    }
    plan = std::move(built);
  } catch (const Error&) {
    throw;
  } catch (const std::bad_alloc&) {
    throw Error(ErrorCode::OutOfMemory, "host memory exhausted while planning");
  } catch (const std::exception& e) {
    throw Error(ErrorCode::Internal, std::string("planning failed: ") + e.what());
  }
  plans_->insert(std::move(form), plan);
  return plan;
}

std::vector<TensorValue> Engine::run(ir::Graph graph, std::span<const TensorValue> inputs,
                                     std::span<const ir::ValueRef> outputs, CompileMode mode) {
  ++stats_.runs;
  const std::vector<ir::TensorType> types = input_types(inputs);
  try {
    std::shared_ptr<const Plan> plan = plan_for(graph, types, outputs, mode);
    return execute(*plan, backend_, inputs, graph);
  } catch (const Error& e) {
    if (e.code() == ErrorCode::Internal && options_.on_internal_error) {
      options_.on_internal_error(reproducer_json(graph, types, outputs, mode, e.what()));
    }
    throw;
  }
}

}  // namespace tensord::engine
