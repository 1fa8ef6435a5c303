// The generated protocol types under client names. The schema has no C++ namespace, so its
// `Session` and `Tensor` live in the global namespace; inside tensord we spell them wire::.
#pragma once

#include <capnp/rpc-twoparty.h>
#include <kj/async-io.h>

#include "tensord.capnp.h"

namespace tensord::wire {

using Daemon = ::Daemon;
using Session = ::Session;
using Tensor = ::Tensor;
using UploadSink = ::UploadSink;
using SharedMemory = ::SharedMemory;
using Graph = ::Graph;
using GraphInput = ::GraphInput;
using Node = ::Node;
using Function = ::Function;
using CallOutputs = ::CallOutputs;

}  // namespace tensord::wire
