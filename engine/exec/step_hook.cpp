#include "engine/exec/step_hook.h"

#include <algorithm>
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
      profiler_(profile.profiler.get()),
      plan_(plan),
      user_graph_(user_graph),
      tracing_(profile.tracing()),
      memory_(profile.memory()),
      step_flags_(backend.on_gpu() ? profiler::kOnGpu : 0),
      f32_highest_(backend.on_gpu() &&
                   backend.float32_matmul_precision() == Float32MatmulPrecision::Highest),
      ticks_(profiler::TickClock::usable()),
      generation_(profile.profiler->generation()) {
  op_ids_.resize(ir::all_ops().size(), 0);
  file_ids_.resize(user_graph.files.size(), UINT32_MAX);
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

inline uint32_t StepHook::op_id(ir::Op op) {
  const auto i = static_cast<size_t>(op);
  if (i < op_ids_.size() && op_ids_[i] != 0) [[likely]]
    return op_ids_[i];
  return intern_op(op);
}

uint32_t StepHook::intern_op(ir::Op op) {
  const auto i = static_cast<size_t>(op);
  if (i >= op_ids_.size()) op_ids_.resize(i + 1, 0);
  op_ids_[i] = profiler_->intern(ir::name(op));
  return op_ids_[i];
}

inline uint32_t StepHook::file_id(uint32_t file) {
  if (file < file_ids_.size() && file_ids_[file] != UINT32_MAX) [[likely]]
    return file_ids_[file];
  return intern_file(file);
}

uint32_t StepHook::intern_file(uint32_t file) {
  if (file >= file_ids_.size()) file_ids_.resize(file + 1, UINT32_MAX);
  file_ids_[file] = profiler_->intern(user_graph_.files[file]);
  return file_ids_[file];
}

void StepHook::new_generation() {
  flush();  // under the old generation: the profiler ignores it
  generation_ = profiler_->generation();
  if (started_) restart_bracket();  // the new profile's clock starts from its own epoch
  site_step_ = nullptr;
  std::fill(op_ids_.begin(), op_ids_.end(), 0);
  std::fill(file_ids_.begin(), file_ids_.end(), UINT32_MAX);
  group_ids_.clear();
}

void StepHook::before(const Step& step) {
  current_ = &step;
  if (memory_) {
    check_generation();
    tag(step);
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
  check_generation();  // first: a new profile restarts the clock and the string ids
  const uint64_t end =
      ticks_ ? profiler::TickClock::now() : static_cast<uint64_t>(profiler_->now());
  profiler::StepSpanFields& t = traced_[traced_count_++];
  t.dur_ns = static_cast<int64_t>(end);  // until the flush
  t.bytes = step.bytes;  // what it reads and writes (the sync_in_loop rule's evidence)
  t.id = index;
  // The step's op, line and file: those of its allocation site when before() just looked them up
  // (memory recorded), else looked up here, from the string ids interned for this run.
  if (site_step_ == &step) {
    t.name = site_.op_id;
    t.file = site_.file_id;
    t.line = site_.line;
  } else {
    const ir::Node& user = user_node(step);
    t.name = op_id(plan_.nodes[step.node].op);
    t.file = file_id(user.loc.file);
    t.line = user.loc.line;
  }
  if (step.kind == StepKind::Fused) t.name = group_id(step.group);
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
  profiler::Profiler& p = *profiler_;
  // The bracket's end: the ticks of the steps kept lie between its start and this.
  const uint64_t end_ticks = ticks_ ? profiler::TickClock::now() : 0;
  const int64_t end_ns = p.now();
  int64_t start = next_start_;
  for (size_t i = 0; i < traced_count_; ++i) {
    profiler::StepSpanFields& s = traced_[i];
    const auto end = static_cast<uint64_t>(s.dur_ns);
    int64_t stop = ticks_ ? profiler::map_ticks(end, bracket_ticks_, bracket_ns_, end_ticks, end_ns)
                          : static_cast<int64_t>(end);
    if (stop < start) stop = start;
    s.request = profile_.request;
    s.start_ns = start;
    s.dur_ns = stop - start;
    start = stop;
  }
  const size_t n = traced_count_;
  next_start_ = start;
  bracket_ticks_ = end_ticks;
  bracket_ns_ = end_ns;
  traced_count_ = 0;
  // Raw: the profile encodes them when the stream drains it (Profiler::append_steps).
  p.append_steps(std::span(traced_.data(), n), generation_);
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

profiler::AllocSite& StepHook::site_for(const Step& step) {
  check_generation();
  site_.address = 0;  // allocate() sets it once the allocator gave the block
  if (site_step_ != &step) tag(step);
  return site_;
}

void StepHook::tag(const Step& step) {
  site_step_ = &step;
  const ir::Node& user = user_node(step);
  const ir::Op op = plan_.nodes[step.node].op;
  const uint32_t file = user.loc.file;
  const std::string_view op_name = ir::name(op);
  const std::string_view file_name = user_graph_.files[file];
  const uint32_t name_id = op_id(op);
  const uint32_t file_name_id = file_id(file);
  for (profiler::AllocSite* site : {&site_, &scratch_site_}) {
    site->op = op_name;
    site->file = file_name;
    site->line = user.loc.line;
    site->op_id = name_id;
    site->file_id = file_name_id;
  }
  site_.address = 0;
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
