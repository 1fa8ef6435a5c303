// The session's device settings and figures: float32 matmul precision, memory statistics.
#include <algorithm>
#include <string>

#include "client/cpp/src/errors.h"
#include "client/cpp/src/session_state.h"
#include "tensord/session.h"

namespace tensord {
namespace {

MemoryStat read_stat(::MemoryStat::Reader in) {
  return MemoryStat{in.getCurrent(), in.getPeak(), in.getAllocated(), in.getFreed()};
}

AllocatorMemoryStats read_allocator(::AllocatorStats::Reader in) {
  AllocatorMemoryStats out;
  out.allocated_bytes = read_stat(in.getAllocatedBytes());
  out.reserved_bytes = read_stat(in.getReservedBytes());
  out.active_bytes = read_stat(in.getActiveBytes());
  out.inactive_split_bytes = read_stat(in.getInactiveSplitBytes());
  out.requested_bytes = read_stat(in.getRequestedBytes());
  out.allocation = read_stat(in.getAllocation());
  out.segment = read_stat(in.getSegment());
  out.active = read_stat(in.getActive());
  out.inactive_split = read_stat(in.getInactiveSplit());
  out.num_alloc_retries = in.getNumAllocRetries();
  out.num_ooms = in.getNumOoms();
  out.num_device_alloc = in.getNumDeviceAlloc();
  out.num_device_free = in.getNumDeviceFree();
  return out;
}

DeviceMemoryStats read_device(::DeviceMemoryStats::Reader in) {
  DeviceMemoryStats out;
  auto d = in.getDevice();
  out.device = DeviceInfo{d.getKind().cStr(), d.getIndex(), d.getName().cStr(), d.getTotalMemory(),
                          d.getThreads()};
  out.session_device = in.getSessionDevice();
  if (in.hasAllocator()) out.allocator = read_allocator(in.getAllocator());
  if (in.hasHostCache()) {
    auto h = in.getHostCache();
    out.host_cache =
        HostCacheMemoryStats{h.getCachedBytes(), h.getHits(), h.getMisses(), h.getEvictions()};
  }
  return out;
}

void add_stat(std::vector<std::pair<std::string, int64_t>>& out, const std::string& name,
              const MemoryStat& s) {
  out.emplace_back(name + ".all.current", s.current);
  out.emplace_back(name + ".all.peak", s.peak);
  out.emplace_back(name + ".all.allocated", s.allocated);
  out.emplace_back(name + ".all.freed", s.freed);
}

}  // namespace

std::vector<std::pair<std::string, int64_t>> torch_memory_stats(const DeviceMemoryStats& stats) {
  std::vector<std::pair<std::string, int64_t>> out;
  if (!stats.allocator) return out;
  const AllocatorMemoryStats& a = *stats.allocator;
  add_stat(out, "active", a.active);
  add_stat(out, "active_bytes", a.active_bytes);
  add_stat(out, "allocated_bytes", a.allocated_bytes);
  add_stat(out, "allocation", a.allocation);
  add_stat(out, "inactive_split", a.inactive_split);
  add_stat(out, "inactive_split_bytes", a.inactive_split_bytes);
  add_stat(out, "requested_bytes", a.requested_bytes);
  add_stat(out, "reserved_bytes", a.reserved_bytes);
  add_stat(out, "segment", a.segment);
  out.emplace_back("num_alloc_retries", a.num_alloc_retries);
  out.emplace_back("num_device_alloc", a.num_device_alloc);
  out.emplace_back("num_device_free", a.num_device_free);
  out.emplace_back("num_ooms", a.num_ooms);
  // PyTorch returns its keys sorted.
  std::sort(out.begin(), out.end());
  return out;
}

std::vector<DeviceMemoryStats> Session::memory_stats() {
  state_->check_thread();
  // Releases of dropped tensors wait in the event loop; send them before asking.
  state_->flush();
  try {
    auto response = state_->session.memoryStatsRequest().send().wait(state_->wait_scope());
    std::vector<DeviceMemoryStats> out;
    for (auto d : response.getDevices()) out.push_back(read_device(d));
    return out;
  } catch (const kj::Exception& e) {
    throw detail::translate(e, nullptr, std::source_location::current());
  }
}

void Session::set_float32_matmul_precision(const std::string& precision) {
  state_->check_thread();
  try {
    auto request = state_->session.setFloat32MatmulPrecisionRequest();
    request.setPrecision(precision);
    request.send().wait(state_->wait_scope());
  } catch (const kj::Exception& e) {
    throw detail::translate(e, nullptr, std::source_location::current());
  }
}

std::string Session::float32_matmul_precision() {
  return stats().float32_matmul_precision;
}

}  // namespace tensord
