#include "server/exceptions.h"

#include <new>
#include <string>

#include "engine/ir/error.h"
#include "protocol/wire_error.h"

namespace tensord::server {

kj::Exception to_wire_exception(std::exception_ptr error) {
  try {
    std::rethrow_exception(error);
  } catch (const Error& e) {
    return protocol::to_kj_exception(e);
  } catch (const kj::Exception& e) {
    if (e.getType() == kj::Exception::Type::DISCONNECTED ||
        protocol::decode_error(e.getDescription().cStr())) {
      return e;
    }
    return protocol::to_kj_exception(Error(ErrorCode::Internal, e.getDescription().cStr()));
  } catch (const std::bad_alloc&) {
    return protocol::to_kj_exception(
        Error(ErrorCode::OutOfMemory, "the daemon ran out of host memory"));
  } catch (const std::exception& e) {
    return protocol::to_kj_exception(Error(ErrorCode::Internal, e.what()));
  } catch (...) {
    return protocol::to_kj_exception(Error(ErrorCode::Internal, "unknown exception"));
  }
}

}  // namespace tensord::server
