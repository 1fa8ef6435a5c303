// The base of the tests' backends that watch, record or divert a few calls of a real backend
// and hand it the rest: memory, transfers, info, run and run_data_dependent go to `inner()`.
// The optional calls (fusion, capture, sessions, tracing) keep engine::Backend's defaults, so
// that a wrapper of a fusing backend fuses only when it says so.
#pragma once

#include <memory>
#include <utility>
#include <vector>

#include "engine/exec/backend.h"

namespace tensord::test {

class ForwardingBackend : public engine::Backend {
 public:
  // Forwards to `inner`, which must outlive this backend.
  explicit ForwardingBackend(engine::Backend& inner) : inner_(inner) {}
  // Forwards to `inner`, owned.
  explicit ForwardingBackend(std::unique_ptr<engine::Backend> inner)
      : owned_(std::move(inner)), inner_(*owned_) {}

  const engine::DeviceInfo& info() const override { return inner_.info(); }
  std::shared_ptr<engine::Buffer> allocate(size_t bytes) override { return inner_.allocate(bytes); }
  void run(const ir::Node& node, std::span<const engine::TensorValue> in,
           std::span<const engine::TensorValue> out) override {
    inner_.run(node, in, out);
  }
  std::vector<engine::TensorValue> run_data_dependent(
      const ir::Node& node, std::span<const engine::TensorValue> in) override {
    return inner_.run_data_dependent(node, in);
  }
  void write(engine::Buffer& dst, size_t offset, const void* src, size_t n) override {
    inner_.write(dst, offset, src, n);
  }
  void read(const engine::Buffer& src, size_t offset, void* dst, size_t n) override {
    inner_.read(src, offset, dst, n);
  }
  void copy(engine::Buffer& dst, size_t dst_offset, const engine::Buffer& src, size_t src_offset,
            size_t n) override {
    inner_.copy(dst, dst_offset, src, src_offset, n);
  }

 protected:
  engine::Backend& inner() { return inner_; }
  const engine::Backend& inner() const { return inner_; }

 private:
  std::unique_ptr<engine::Backend> owned_;
  engine::Backend& inner_;
};

}  // namespace tensord::test
