// Devices and their memory figures on the wire (ServerInfo.devices, Session.memoryStats).
#pragma once

#include "engine/exec/backend.h"
#include "engine/exec/memory_stats.h"
#include "tensord.capnp.h"

namespace tensord::server {

void device_info_to_wire(const engine::DeviceInfo& device, ::DeviceInfo::Builder out);

// Sets the parts the device has and leaves the others unset (DeviceMemoryStats in
// protocol/tensord.capnp): a client can tell "none" from "zero".
void memory_stats_to_wire(const engine::DeviceInfo& device, const engine::DeviceMemoryStats& stats,
                          ::DeviceMemoryStats::Builder out);

}  // namespace tensord::server
