// What a Tensor handle points at: a recorded op, host data, or a tensor the daemon holds.
#pragma once

#include <cstddef>
#include <memory>
#include <optional>
#include <source_location>
#include <span>
#include <vector>

#include "client/cpp/src/session_state.h"
#include "client/cpp/src/wire.h"
#include "engine/ir/attrs.h"
#include "engine/ir/op.h"
#include "engine/ir/shape.h"
#include "tensord/host_buffer.h"

namespace tensord::detail {

struct TensorNode : std::enable_shared_from_this<TensorNode> {
  // Parameter: a stand-in for an argument of a Function while its body is traced; it has no
  // value, and nothing depending on it can be synced. InFlight: a result of a Function call
  // sent without waiting (`in_flight`); its reply materializes it (settle()).
  enum class State : uint8_t { Pending, Host, Materialized, Parameter, InFlight };

  TensorNode(std::shared_ptr<SessionState> session, ir::TensorType type, ir::Op op,
             std::source_location loc)
      : session(std::move(session)), type(std::move(type)), op(op), loc(loc) {}
  // Long recorded chains (a loop of a million adds) are released iteratively, not by a
  // million nested destructor calls.
  ~TensorNode();
  TensorNode(const TensorNode&) = delete;
  TensorNode& operator=(const TensorNode&) = delete;

  // The daemon now holds this value: keep the capability, forget how it was computed.
  void materialize(wire::Tensor::Client tensor);
  // How many references exist, from handles and from other nodes' inputs.
  long references() const { return weak_from_this().use_count(); }

  // First member, so it is destroyed last: `remote` needs the session's event loop.
  std::shared_ptr<SessionState> session;
  ir::TensorType type;
  State state = State::Pending;
  // The op that made it (`input` for host data) and where, kept after materializing for errors.
  ir::Op op;
  std::source_location loc;

  // Pending only.
  std::vector<std::shared_ptr<TensorNode>> inputs;
  ir::Attrs attrs;
  // Ops with several outputs (record_multi): the node of output 0 records the op and keeps weak
  // references to the nodes of its other outputs, each of which has `output` k > 0 and that
  // node as its only input. A projection is no wire node of its own: it is value (node, k).
  uint32_t output = 0;
  std::vector<std::weak_ptr<TensorNode>> siblings;
  bool is_projection() const { return output > 0; }
  // Host only: numel * itemsize row-major bytes, in `host` or (Session::from_buffer) in
  // `host_buffer`.
  std::vector<std::byte> host;
  std::shared_ptr<const HostBuffer> host_buffer;
  std::span<const std::byte> host_bytes() const {
    if (host_buffer) return {host_buffer->data(), host_buffer->size()};
    return host;
  }
  // Materialized only.
  // Optional rather than a null Client: Cap'n Proto builds a null capability with an exception
  // object inside, a cost every recorded op paid.
  std::optional<wire::Tensor::Client> remote;
  // InFlight only: the call, and which of its results this is. `remote` may hold the result
  // as a promise (promised_tensor()) until the reply.
  std::shared_ptr<struct CallInFlight> in_flight;
  uint32_t in_flight_index = 0;
};

// A Function call sent without waiting for its reply. The reply materializes the results
// still referenced (or records the call's error); `replied` resolves after that.
struct CallInFlight {
  kj::ForkedPromise<void> replied = nullptr;
  std::optional<Error> error;
  // The call's results by index, pipelined on the call (CallOutputs in the protocol).
  wire::CallOutputs::Client outputs = nullptr;
};

// An InFlight node's tensor as a promise that the daemon resolves when its call is done (Cap'n
// Proto promise pipelining): an input of the next run or call without waiting for the reply.
// If the call fails, so does whatever uses the promise, with the call's error; if it is known
// to have failed already, this throws that error.
wire::Tensor::Client promised_tensor(TensorNode& node);

// Waits for the reply of an InFlight node's call, after which the node is Materialized; throws
// the call's error if it failed. Other nodes are left as they are.
void settle(TensorNode& node);

// Throws tensord::Error(InvalidGraph): a sync point reached `parameter`, the stand-in for an
// argument of a Function being traced.
[[noreturn]] void throw_traced_value(const TensorNode& parameter);

}  // namespace tensord::detail
