#include "engine/exec/engine.h"

#include <exception>
#include <new>
#include <string>
#include <utility>

#include "engine/exec/executor.h"
#include "engine/ir/error.h"
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
Plan compile(const ir::Graph& graph, std::span<const ir::ValueRef> outputs) {
  ir::Rewritten decomposed = ir::decompose(graph, outputs);
  ir::Rewritten simplified = ir::simplify(decomposed.graph, decomposed.outputs);
  std::vector<uint32_t> origin = std::move(simplified.origin);
  for (uint32_t& o : origin) o = decomposed.origin[o];
  return build_plan(std::move(simplified.graph), simplified.outputs, std::move(origin));
}

}  // namespace

Engine::Engine(Backend& backend, EngineOptions options)
    : backend_(backend),
      options_(std::move(options)),
      plans_(std::make_unique<PlanCache>(options_.plan_cache_capacity)) {}

Engine::~Engine() = default;

std::vector<TensorValue> Engine::run(ir::Graph graph, std::span<const TensorValue> inputs,
                                     std::span<const ir::ValueRef> outputs,
                                     const RunProfile* profile) {
  ++stats_.runs;
  profiler::Profiler* tracer =
      profile != nullptr && profile->tracing() ? profile->profiler.get() : nullptr;
  const uint64_t request = profile != nullptr ? profile->request : 0;
  int64_t t = tracer ? tracer->now() : 0;
  const std::vector<ir::TensorType> types = input_types(inputs);
  ir::validate(graph, types, options_.limits);
  ir::validate_outputs(graph, outputs);
  if (tracer) {
    tracer->span(profiler::Stage::Validate, t, profiler::kWorkerThread, request);
    t = tracer->now();
  }

  ir::CanonicalForm form = ir::canonical_form(graph, outputs);
  const uint64_t plan_hash = form.hash;
  std::shared_ptr<const Plan> plan = plans_->find(form);
  if (tracer) {
    tracer->span(profiler::Stage::PlanLookup, t, profiler::kWorkerThread, request, plan_hash,
                 plan ? profiler::kCacheHit : 0);
    t = tracer->now();
  }
  if (plan) {
    ++stats_.plan_cache_hits;
  } else {
    ++stats_.plan_cache_misses;
    try {
      plan = std::make_shared<const Plan>(compile(graph, outputs));
    } catch (const Error&) {
      throw;
    } catch (const std::bad_alloc&) {
      throw Error(ErrorCode::OutOfMemory, "host memory exhausted while planning");
    } catch (const std::exception& e) {
      throw Error(ErrorCode::Internal, std::string("planning failed: ") + e.what());
    }
    plans_->insert(std::move(form), plan);
    if (tracer) {
      tracer->span(profiler::Stage::PlanBuild, t, profiler::kWorkerThread, request, plan_hash);
      t = tracer->now();
    }
  }
  std::vector<TensorValue> out = execute(*plan, backend_, inputs, graph, profile);
  if (tracer) {
    profiler::Record r;
    r.stage = static_cast<uint8_t>(profiler::Stage::Execute);
    r.thread = profiler::kWorkerThread;
    r.request = request;
    r.hash = plan_hash;
    r.start_ns = t;
    r.dur_ns = tracer->now() - t;
    r.value = plan->steps.size();
    tracer->add(r);
  }
  return out;
}

}  // namespace tensord::engine
