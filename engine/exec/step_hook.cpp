#include "engine/exec/step_hook.h"

#include <cstdint>
#include <string>

#include "engine/ir/error.h"
#include "engine/profiler/tick_clock.h"

namespace tensord::engine {

namespace {

// A float32 matmul, alone or with its epilogue: what "highest" precision slows down on a GPU.
bool is_f32_matmul(const Plan& plan, const Step& step) {
  const uint32_t node = step.kind == StepKind::Fused && plan.groups[step.group].epilogue
                            ? plan.groups[step.group].members.front()
                            : step.node;
  if (plan.nodes[node].op != ir::Op::matmul) return false;
  const std::span<const uint32_t> in = plan[step.inputs];
  return !in.empty() && plan.values[in.front()].type.dtype == ir::DType::Float32;
}

}  // namespace

StepHook::StepHook(const RunProfile& profile, const Plan& plan, const ir::Graph& user_graph,
                   const Backend& backend)
    : profile_(profile),
      plan_(plan),
      user_graph_(user_graph),
      tracing_(profile.tracing()),
      memory_(profile.memory()),
      step_flags_(backend.on_gpu() ? profiler::kOnGpu : 0),
      f32_highest_(backend.on_gpu() &&
                   backend.float32_matmul_precision() == Float32MatmulPrecision::Highest),
      ticks_(profiler::TickClock::usable()),
      generation_(profile.profiler->generation()) {
  // The profiler is set once: sites are updated per step without reference counting.
  site_.profiler = profile_.profiler;
  site_.request = profile_.request;
  site_.category = profiler::MemoryCategory::Tensor;
  scratch_site_.profiler = profile_.profiler;
  scratch_site_.request = profile_.request;
  scratch_site_.category = profiler::MemoryCategory::Scratch;
}

StepHook::~StepHook() {
  try {
    flush();
  } catch (...) {
    // Only growing a buffer can throw: those spans are lost, the run's outcome stands.
  }
}

void StepHook::check_generation() {
  const uint64_t g = profile_.profiler->generation();
  if (g == generation_) [[likely]]
    return;
  flush();  // under the old generation: the profiler ignores it
  generation_ = g;
  if (started_) restart_bracket();  // the new profile's clock starts from its own epoch
  site_step_ = nullptr;
  op_ids_.clear();
  file_ids_.clear();
  group_ids_.clear();
}

void StepHook::before(const Step& step) {
  current_ = &step;
  if (memory_) {
    const profiler::AllocSite& site = site_for(step);
    scratch_site_.op = site.op;
    scratch_site_.file = site.file;
    scratch_site_.line = site.line;
    scratch_site_.op_id = site.op_id;
    scratch_site_.file_id = site.file_id;
  }
  // One clock read per step: a step starts where the previous one ended (the executor's loop
  // between them is a few instructions).
  if (tracing_ && !started_) [[unlikely]] {
    started_ = true;
    restart_bracket();
  }
}

void StepHook::restart_bracket() {
  bracket_ticks_ = ticks_ ? profiler::TickClock::now() : 0;
  bracket_ns_ = profile_.profiler->now();
  next_start_ = bracket_ns_;
}

void StepHook::after(uint32_t index, const Step& step) {
  current_ = nullptr;
  if (!tracing_) return;
  // The step's op, line and file: those of its allocation site when before() just looked them up
  // (memory recorded), else looked up here (first: a new profile restarts the clock).
  const profiler::AllocSite& site = site_for(step);
  const uint64_t end =
      ticks_ ? profiler::TickClock::now() : static_cast<uint64_t>(profile_.profiler->now());
  TracedStep& t = traced_[traced_count_++];
  t.end = end;
  t.bytes = step.bytes;  // what it reads and writes (the sync_in_loop rule's evidence)
  t.index = index;
  t.name = step.kind == StepKind::Fused ? group_id(step.group) : site.op_id;
  t.file = site.file_id;
  t.line = site.line;
  t.flags = step_flags_;
  if (f32_highest_ && is_f32_matmul(plan_, step)) t.flags |= profiler::kF32Highest;
  const uint64_t since = ticks_ ? end - bracket_ticks_ : end - static_cast<uint64_t>(bracket_ns_);
  constexpr uint64_t kFlushNs = 5'000'000;
  if (traced_count_ == kBatch || since > (ticks_ ? profiler::TickClock::kFlushTicks : kFlushNs)) {
    flush();
  }
}

void StepHook::flush() {
  if (traced_count_ == 0) return;
  profiler::Profiler& p = *profile_.profiler;
  // The bracket's end: the ticks of the steps kept lie between its start and this.
  const uint64_t end_ticks = ticks_ ? profiler::TickClock::now() : 0;
  const int64_t end_ns = p.now();
  // One per worker thread, its buffer reused from flush to flush.
  thread_local profiler::RecordBatch batch;
  batch.clear();
  batch.generation = generation_;
  profiler::Record r;
  r.kind = profiler::RecordKind::Span;
  r.stage = static_cast<uint8_t>(profiler::Stage::Step);
  r.thread = profiler::kWorkerThread;
  r.request = profile_.request;
  int64_t start = next_start_;
  for (size_t i = 0; i < traced_count_; ++i) {
    const TracedStep& t = traced_[i];
    int64_t stop = ticks_
                       ? profiler::map_ticks(t.end, bracket_ticks_, bracket_ns_, end_ticks, end_ns)
                       : static_cast<int64_t>(t.end);
    if (stop < start) stop = start;
    r.name = t.name;
    r.file = t.file;
    r.line = t.line;
    r.id = t.index;
    r.flags = t.flags;
    r.bytes = t.bytes;
    r.start_ns = start;
    r.dur_ns = stop - start;
    batch.add(r);
    start = stop;
  }
  next_start_ = start;
  bracket_ticks_ = end_ticks;
  bracket_ns_ = end_ns;
  traced_count_ = 0;
  p.append(batch);
}

uint32_t StepHook::op_id(ir::Op op) {
  auto i = static_cast<size_t>(op);
  if (i >= op_ids_.size()) op_ids_.resize(i + 1, 0);
  if (op_ids_[i] == 0) op_ids_[i] = profile_.profiler->intern(ir::name(op));
  return op_ids_[i];
}

uint32_t StepHook::group_id(uint32_t group) {
  if (group >= group_ids_.size()) group_ids_.resize(group + 1, 0);
  if (group_ids_[group] == 0) {
    constexpr size_t kNamedOps = 8;  // longer groups end in "+..."
    const FusedGroup& g = plan_.groups[group];
    std::string name = "fused:";
    for (size_t k = 0; k < g.members.size() && k <= kNamedOps; ++k) {
      if (k > 0) name += '+';
      name += k == kNamedOps ? std::string_view("...") : ir::name(plan_.nodes[g.members[k]].op);
    }
    group_ids_[group] = profile_.profiler->intern(name);
  }
  return group_ids_[group];
}

uint32_t StepHook::file_id(uint32_t file) {
  if (file >= file_ids_.size()) file_ids_.resize(file + 1, UINT32_MAX);
  if (file_ids_[file] == UINT32_MAX) {
    file_ids_[file] = profile_.profiler->intern(user_graph_.files[file]);
  }
  return file_ids_[file];
}

profiler::AllocSite& StepHook::site_for(const Step& step) {
  check_generation();
  site_.address = 0;  // allocate() sets it once the allocator gave the block
  if (site_step_ == &step) return site_;
  site_step_ = &step;
  const ir::Node& user_node = user_graph_.nodes[plan_.origin[step.node]];
  const ir::Op op = plan_.nodes[step.node].op;
  site_.op = ir::name(op);
  site_.file = user_graph_.files[user_node.loc.file];
  site_.line = user_node.loc.line;
  site_.op_id = op_id(op);
  site_.file_id = file_id(user_node.loc.file);
  return site_;
}

std::shared_ptr<Buffer> StepHook::allocate(Backend& backend, size_t bytes) {
  if (!memory_ || current_ == nullptr) return backend.allocate(bytes);
  profiler::AllocSite& site = site_for(*current_);
  std::shared_ptr<Buffer> buffer;
  try {
    buffer = backend.allocate(bytes);
  } catch (const Error& e) {
    if (e.code() != ErrorCode::OutOfMemory) throw;
    const Backend::FreeMemory free = backend.free_memory();
    throw Error(
        ErrorCode::OutOfMemory,
        e.message() + "; " +
            profile_.ledger->out_of_memory(bytes, site, free.free_bytes, free.largest_free).text());
  }
  site.address = reinterpret_cast<uintptr_t>(buffer->data());
  buffer->ticket = profile_.ledger->track(bytes, site);
  return buffer;
}

std::shared_ptr<Buffer> StepHook::allocate_output(Backend& backend, size_t bytes, ValueId output) {
  for (const Step& step : plan_.steps) {
    for (ValueId v : plan_[step.outputs]) {
      if (v != output) continue;
      current_ = &step;
      std::shared_ptr<Buffer> buffer = allocate(backend, bytes);
      current_ = nullptr;
      return buffer;
    }
  }
  return backend.allocate(bytes);
}

}  // namespace tensord::engine
