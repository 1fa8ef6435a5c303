// QueuedInput::take: what a job gets from the call queued before it: the value it promised, the
// call's own error, or Cancelled when the call never ran.
#include "server/queued_outputs.h"

#include <catch2/catch.hpp>

#include <memory>
#include <vector>

#include "engine/ir/error.h"

namespace tensord::server {
namespace {

struct FloatStorage {
  std::vector<float> floats;
};
// Host memory as a backend's buffer (the storage base is built first).
class HostBuffer final : private FloatStorage, public engine::Buffer {
 public:
  explicit HostBuffer(size_t count)
      : FloatStorage{std::vector<float>(count)}, Buffer(floats.data(), count * sizeof(float)) {}
};

const ir::TensorType kFour{ir::DType::Float32, {4}};

QueuedInput input_of(std::shared_ptr<QueuedOutputs> outputs, size_t index = 0) {
  return QueuedInput{std::move(outputs), index, kFour, "argument 0"};
}

TEST_CASE("a queued input takes the value its call made") {
  auto outputs = std::make_shared<QueuedOutputs>();
  auto buffer = std::make_shared<HostBuffer>(4);
  outputs->values.push_back(engine::TensorValue::contiguous(buffer, kFour));
  outputs->ended = true;
  engine::TensorValue v = input_of(outputs).take();
  CHECK(v.buffer == buffer);
  CHECK(v.type == kFour);
}

TEST_CASE("a queued input of a call that never ran is cancelled") {
  auto outputs = std::make_shared<QueuedOutputs>();
  try {
    input_of(outputs).take();
    FAIL("took a value nobody made");
  } catch (const Error& e) {
    CHECK(e.code() == ErrorCode::Cancelled);
    CHECK_THAT(e.what(), Catch::Contains("argument 0") && Catch::Contains("cancelled"));
  }
}

TEST_CASE("a queued input of a failed call throws the call's own error") {
  auto outputs = std::make_shared<QueuedOutputs>();
  outputs->error = std::make_exception_ptr(Error(ErrorCode::Shape, "index 7 is out of bounds"));
  outputs->ended = true;
  try {
    input_of(outputs).take();
    FAIL("took a value of a failed call");
  } catch (const Error& e) {
    CHECK(e.code() == ErrorCode::Shape);
    CHECK_THAT(e.what(), Catch::Contains("index 7 is out of bounds"));
  }
}

TEST_CASE("a call that made less or other than it promised is an internal error") {
  auto outputs = std::make_shared<QueuedOutputs>();
  outputs->values.push_back(engine::TensorValue::contiguous(
      std::make_shared<HostBuffer>(2), ir::TensorType{ir::DType::Float32, {2}}));
  outputs->ended = true;
  for (size_t index : {size_t{0}, size_t{1}}) {
    try {
      input_of(outputs, index).take();
      FAIL("took a value of another type");
    } catch (const Error& e) {
      CHECK(e.code() == ErrorCode::Internal);
    }
  }
}

}  // namespace
}  // namespace tensord::server
