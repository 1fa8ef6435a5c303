#include "server/device_wire.h"

namespace tensord::server {
namespace {

void stat_to_wire(const engine::MemoryStat& s, ::MemoryStat::Builder out) {
  out.setCurrent(s.current);
  out.setPeak(s.peak);
  out.setAllocated(s.allocated);
  out.setFreed(s.freed);
}

void allocator_to_wire(const engine::AllocatorMemoryStats& s, ::AllocatorStats::Builder out) {
  stat_to_wire(s.allocated_bytes, out.initAllocatedBytes());
  stat_to_wire(s.reserved_bytes, out.initReservedBytes());
  stat_to_wire(s.active_bytes, out.initActiveBytes());
  stat_to_wire(s.inactive_split_bytes, out.initInactiveSplitBytes());
  stat_to_wire(s.requested_bytes, out.initRequestedBytes());
  stat_to_wire(s.allocation, out.initAllocation());
  stat_to_wire(s.segment, out.initSegment());
  stat_to_wire(s.active, out.initActive());
  stat_to_wire(s.inactive_split, out.initInactiveSplit());
  out.setNumAllocRetries(s.num_alloc_retries);
  out.setNumOoms(s.num_ooms);
  out.setNumDeviceAlloc(s.num_device_alloc);
  out.setNumDeviceFree(s.num_device_free);
}

}  // namespace

void device_info_to_wire(const engine::DeviceInfo& d, ::DeviceInfo::Builder out) {
  out.setKind(d.kind);
  out.setIndex(static_cast<uint32_t>(d.index));
  out.setName(d.name);
  out.setTotalMemory(d.total_memory);
  out.setThreads(static_cast<uint32_t>(d.threads));
}

void memory_stats_to_wire(const engine::DeviceInfo& device, const engine::DeviceMemoryStats& stats,
                          ::DeviceMemoryStats::Builder out) {
  device_info_to_wire(device, out.initDevice());
  if (stats.allocator) allocator_to_wire(*stats.allocator, out.initAllocator());
  if (stats.host_cache) {
    auto h = out.initHostCache();
    h.setCachedBytes(stats.host_cache->cached_bytes);
    h.setHits(stats.host_cache->hits);
    h.setMisses(stats.host_cache->misses);
    h.setEvictions(stats.host_cache->evictions);
  }
}

}  // namespace tensord::server
