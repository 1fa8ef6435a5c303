// The transport under every tensord RPC connection, daemon and client side alike.
//
// Cap'n Proto 0.9's own message streams cost two reads per incoming message (its segment table,
// then its body) and one write per outgoing message. A pipelined Function call is three or four
// small messages (call, return, finish, release), so on a virtual machine, where a system call
// costs microseconds, they were a large part of a call's time (bench/rpc function_chain_1op;
// docs/design-notes.md, "Measured: what a round trip costs").
// This stream reads ahead into a buffer, so one read takes every message that has arrived, and
// writes behind: small messages written during one turn of the event loop leave together, in one
// write, when the loop has nothing else queued (kj::evalLast). The wire format is unchanged
// (the standard framing), so either side may run the plain Cap'n Proto stream.
//
// File descriptors (shared-memory handovers on unix sockets) ride with the first byte of their
// message, as capnp's AsyncCapabilityMessageStream sends them. On a unix stream socket a read
// returns the descriptors of at most one sender's write and stops after the data they came
// with, so the descriptors a read returns belong to the last message that starts within that
// read's bytes; this stream writes a message that carries descriptors on its own, with nothing
// before it in the same write, so that rule holds for its own messages too.
#pragma once

#include <capnp/serialize-async.h>
#include <kj/async-io.h>
#include <kj/io.h>

#include <cstddef>
#include <cstdint>
#include <deque>

namespace tensord::protocol {

// capnp 0.9's MessageStream lacks a virtual destructor; this final class is never deleted
// through it (the connection owns it by value).
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wnon-virtual-dtor"
class BufferedMessageStream final : public capnp::MessageStream {
 public:
  // Messages only: descriptors a peer attaches are dropped by the kernel's plain read.
  explicit BufferedMessageStream(kj::AsyncIoStream& stream);
  // Messages with up to the receiver's fdSpace descriptors each (more are closed).
  explicit BufferedMessageStream(kj::AsyncCapabilityStream& stream);

  // The base's conveniences (no descriptors, a MessageBuilder) stay callable.
  using capnp::MessageStream::tryReadMessage;
  using capnp::MessageStream::writeMessage;
  using capnp::MessageStream::writeMessages;

  kj::Promise<kj::Maybe<capnp::MessageReaderAndFds>> tryReadMessage(
      kj::ArrayPtr<kj::AutoCloseFd> fdSpace, capnp::ReaderOptions options,
      kj::ArrayPtr<capnp::word> scratchSpace) override;
  kj::Promise<void> writeMessage(
      kj::ArrayPtr<const int> fds,
      kj::ArrayPtr<const kj::ArrayPtr<const capnp::word>> segments) override;
  kj::Promise<void> writeMessages(
      kj::ArrayPtr<kj::ArrayPtr<const kj::ArrayPtr<const capnp::word>>> messages) override;
  kj::Maybe<int> getSendBufferSize() override;
  kj::Promise<void> end() override;

  // Bytes read ahead at most, and the largest message copied into the write buffer (larger
  // ones are written from the caller's segments, after what is buffered).
  static constexpr size_t kReadAheadBytes = size_t{64} << 10;
  static constexpr size_t kCopiedMessageBytes = size_t{16} << 10;
  // Buffered writes beyond this make writeMessage wait for the socket (flow control).
  static constexpr size_t kWriteBehindBytes = size_t{1} << 20;

 private:
  // Descriptors received with the stream bytes [begin, end) (absolute offsets).
  struct FdBundle {
    uint64_t begin = 0;
    uint64_t end = 0;
    kj::Array<kj::AutoCloseFd> fds;
  };
  // The bytes of the next message (segment table and segments), once its table is buffered.
  kj::Maybe<size_t> size_of_next(const capnp::ReaderOptions& options) const;
  kj::Promise<kj::Maybe<capnp::MessageReaderAndFds>> read_big(size_t total_bytes,
                                                              kj::ArrayPtr<kj::AutoCloseFd> fdSpace,
                                                              capnp::ReaderOptions options);
  capnp::MessageReaderAndFds take_message(kj::Array<capnp::word> words, uint64_t start,
                                          kj::ArrayPtr<kj::AutoCloseFd> fdSpace,
                                          const capnp::ReaderOptions& options);
  size_t buffered() const { return end_ - begin_; }

  void append_frame(kj::ArrayPtr<const kj::ArrayPtr<const capnp::word>> segments);
  kj::Promise<void> then_write(kj::Function<kj::Promise<void>()> step);
  kj::Promise<void> flush_pending();

  kj::AsyncIoStream& stream_;
  kj::AsyncCapabilityStream* fd_stream_ = nullptr;

  kj::Array<capnp::word> read_buffer_;
  size_t begin_ = 0;  // bytes of read_buffer_ already handed out
  size_t end_ = 0;    // bytes of read_buffer_ filled
  uint64_t offset_of_begin_ = 0;
  std::deque<FdBundle> fd_bundles_;

  kj::Vector<kj::byte> pending_;  // whole frames not yet handed to the socket
  bool flush_scheduled_ = false;
  uint64_t flush_epoch_ = 0;        // which scheduled flush may still write pending_
  kj::ForkedPromise<void> writes_;  // every write handed to the socket, in order
};
#pragma GCC diagnostic pop

}  // namespace tensord::protocol
