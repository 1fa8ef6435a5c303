// Errors are values with a code, the failing node and the user's source line (DESIGN.md).
#pragma once

#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>

namespace tensord {

// The order is part of the wire contract (protocol/tensord.capnp, ErrorCode).
enum class ErrorCode : uint8_t {
  InvalidGraph,
  Shape,
  DType,
  Unsupported,
  OutOfMemory,
  Quota,
  Cancelled,
  Unauthenticated,
  Version,
  Internal,
};

std::string_view name(ErrorCode code);
std::optional<ErrorCode> error_code_from_name(std::string_view name);

// Where a node was recorded in the user's program.
struct SourceLocation {
  std::string file;
  uint32_t line = 0;

  bool empty() const { return file.empty(); }
  std::string str() const { return file + ":" + std::to_string(line); }
};

// Thrown by every layer for failures the caller can act on. `what()` is a one-line summary:
// "shape error in add (node 3) at train.cpp:12: shapes (2,3) and (4,) do not broadcast".
class Error : public std::runtime_error {
 public:
  Error(ErrorCode code, std::string message, std::optional<uint32_t> node = std::nullopt,
        std::string op = {}, SourceLocation where = {});

  ErrorCode code() const { return code_; }
  const std::string& message() const { return message_; }
  std::optional<uint32_t> node() const { return node_; }
  const std::string& op() const { return op_; }
  const SourceLocation& where() const { return where_; }

  // The same error attributed to a node; keeps an attribution that is already there.
  Error at_node(uint32_t node, std::string op, SourceLocation where) const;

 private:
  ErrorCode code_;
  std::string message_;
  std::optional<uint32_t> node_;
  std::string op_;
  SourceLocation where_;
};

// A size for an error message: "1.50 GiB (1610612736 bytes)", readable and exact; "512 bytes"
// below a KiB.
std::string bytes_text(uint64_t bytes);

}  // namespace tensord
