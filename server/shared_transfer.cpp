#include "server/shared_transfer.h"

#include <cstring>
#include <vector>

#include "server/device_bytes.h"
#include "server/exceptions.h"
#include "server/shared_mapping.h"
#include "server/tensor_impl.h"
#include "server/transfer_trace.h"
#include "server/wire_types.h"
#include "server/worker_call.h"

namespace tensord::server {

kj::Promise<::Tensor::Client> upload_shared(std::shared_ptr<SessionCore> session,
                                            ir::TensorType type, ::SharedMemory::Client memory) {
  uint64_t size = with_wire_errors([&] { return session->admit_upload(type); });
  return map_shared(kj::mv(memory), size, /*writable=*/false, session->mappings())
      .then([session, type](std::shared_ptr<SharedMapping> mapping) {
        std::shared_ptr<profiler::Profiler> prof;
        if (session->profiler()->active()) prof = session->profiler();
        return run_on_worker(
            session->queue(),
            [type, mapping, prof, ledger = session->daemon().memory](engine::Engine& engine) {
              int64_t t = prof ? prof->now() : 0;
              mapping->pin_for(engine.backend());
              const uint8_t* bytes = mapping->data();
              // The client may have written any byte; bools are 0 or 1 on the daemon.
              std::vector<uint8_t> bools;
              profiler::BlockTicket staging;  // after `bools`: freed first
              if (type.dtype == ir::DType::Bool) {
                bools.assign(mapping->data(), mapping->data() + mapping->size());
                staging = track_staging(prof, *ledger, bools.size(), bools.data(), "upload");
                normalize_bools(bools.data(), bools.size());
                bytes = bools.data();
              }
              auto value = upload_device_bytes(engine.backend(), type, bytes);
              if (prof) trace_upload(prof, *ledger, value, bytes, t);
              return value;
            });
      })
      .then([session](kj::Own<engine::TensorValue> value) {
        return TensorImpl::publish(session, kj::mv(*value), TensorImpl::Origin::upload());
      });
}

kj::Promise<void> read_shared(std::shared_ptr<SessionCore> session, engine::TensorValue value,
                              ::SharedMemory::Client memory) {
  uint64_t size = value.nbytes();
  return map_shared(kj::mv(memory), size, /*writable=*/true, session->mappings())
      .then([session, value](std::shared_ptr<SharedMapping> mapping) {
        std::shared_ptr<profiler::Profiler> prof;
        if (session->profiler()->tracing()) prof = session->profiler();
        return run_on_worker(session->queue(), [value, mapping, prof](engine::Engine& engine) {
          int64_t t = prof ? prof->now() : 0;
          mapping->pin_for(engine.backend());
          read_device_bytes_into(engine.backend(), value, 0, mapping->data(), mapping->size());
          if (prof) trace_fetch(*prof, mapping->size(), t);
          return true;
        });
      })
      .ignoreResult();
}

}  // namespace tensord::server
