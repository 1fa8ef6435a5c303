// Errors on the wire. A failed call carries a tensord::Error as the description of a Cap'n Proto
// exception: "[tensord:<code> node=<i> op=<name> at=<file>:<line>] <message>" (tensord.capnp
// documents the form). The daemon encodes; clients decode. Both sides link this file, so the two
// directions cannot drift apart.
#pragma once

#include <kj/exception.h>

#include <optional>
#include <string>
#include <string_view>

#include "engine/ir/error.h"

namespace tensord::protocol {

// The description of `e` in the documented form. A ']' or '\' in the file name is escaped with
// a backslash so that the prefix always ends at the first unescaped "] ".
std::string encode_error(const Error& e);

// Parses the first "[tensord:" prefix in `description` (a received description may carry text
// in front, e.g. "remote exception: "). nullopt when there is none or it is malformed.
std::optional<Error> decode_error(std::string_view description);

// The exception the daemon throws for `e`.
kj::Exception to_kj_exception(const Error& e);

// The error a client reports for an exception from a call: the decoded prefix when there is one;
// otherwise a lost connection is Cancelled (the session ended; "the connection was lost: "
// and the exception's description) and anything else Internal (the description).
Error from_kj_exception(const kj::Exception& e);

}  // namespace tensord::protocol
