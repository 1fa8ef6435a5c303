#include "protocol/buffered_message_stream.h"

#include <capnp/serialize.h>
#include <sys/socket.h>

#include <cstring>

namespace tensord::protocol {
namespace {

using capnp::word;

// Cap'n Proto's framing: a little-endian uint32 segment count minus one, the segments' sizes
// in words, padding to a word, then the segments.
constexpr size_t kMaxSegments = 512;  // what capnp's own reader accepts

uint32_t read_u32(const kj::byte* p) {
  return uint32_t{p[0]} | uint32_t{p[1]} << 8 | uint32_t{p[2]} << 16 | uint32_t{p[3]} << 24;
}

void write_u32(kj::byte* p, uint32_t v) {
  for (int i = 0; i < 4; ++i) p[i] = static_cast<kj::byte>(v >> (8 * i));
}

size_t table_bytes_for(size_t segments) {
  return (4 + 4 * segments + 7) / 8 * 8;
}

size_t frame_bytes(kj::ArrayPtr<const kj::ArrayPtr<const word>> segments) {
  size_t bytes = table_bytes_for(segments.size());
  for (const auto& s : segments) bytes += s.size() * sizeof(word);
  return bytes;
}

void write_table(kj::byte* out, kj::ArrayPtr<const kj::ArrayPtr<const word>> segments) {
  const size_t table = table_bytes_for(segments.size());
  std::memset(out, 0, table);
  write_u32(out, static_cast<uint32_t>(segments.size() - 1));
  for (size_t i = 0; i < segments.size(); ++i) {
    write_u32(out + 4 + 4 * i, static_cast<uint32_t>(segments[i].size()));
  }
}

[[noreturn]] void premature_eof() {
  kj::throwFatalException(KJ_EXCEPTION(DISCONNECTED, "Premature EOF."));
}

}  // namespace

BufferedMessageStream::BufferedMessageStream(kj::AsyncIoStream& stream)
    : stream_(stream),
      read_buffer_(kj::heapArray<word>(kReadAheadBytes / sizeof(word))),
      writes_(kj::Promise<void>(kj::READY_NOW).fork()) {}

BufferedMessageStream::BufferedMessageStream(kj::AsyncCapabilityStream& stream)
    : BufferedMessageStream(static_cast<kj::AsyncIoStream&>(stream)) {
  fd_stream_ = &stream;
}

// ---- reading ------------------------------------------------------------------------------

kj::Maybe<size_t> BufferedMessageStream::size_of_next(const capnp::ReaderOptions& options) const {
  const kj::byte* p = read_buffer_.asBytes().begin() + begin_;
  if (buffered() < 4) return nullptr;
  const size_t segments = size_t{read_u32(p)} + 1;
  KJ_REQUIRE(segments < kMaxSegments, "Message has too many segments.", segments);
  const size_t table = table_bytes_for(segments);
  if (buffered() < table) return nullptr;
  uint64_t words = 0;
  for (size_t i = 0; i < segments; ++i) words += read_u32(p + 4 + 4 * i);
  KJ_REQUIRE(words <= options.traversalLimitInWords,
             "Message is too large. To increase the limit on the receiving end, see "
             "capnp::ReaderOptions.",
             words);
  return table + static_cast<size_t>(words) * sizeof(word);
}

kj::Promise<kj::Maybe<capnp::MessageReaderAndFds>> BufferedMessageStream::tryReadMessage(
    kj::ArrayPtr<kj::AutoCloseFd> fdSpace, capnp::ReaderOptions options,
    kj::ArrayPtr<word> /*scratchSpace*/) {
  KJ_IF_MAYBE (total, size_of_next(options)) {
    if (*total <= buffered()) {
      auto words = kj::heapArray<word>(*total / sizeof(word));
      std::memcpy(words.begin(), read_buffer_.asBytes().begin() + begin_, *total);
      const uint64_t start = offset_of_begin_;
      begin_ += *total;
      offset_of_begin_ += *total;
      if (begin_ == end_) begin_ = end_ = 0;
      return kj::Maybe<capnp::MessageReaderAndFds>(
          take_message(kj::mv(words), start, fdSpace, options));
    }
    if (*total > kReadAheadBytes) return read_big(*total, fdSpace, options);
  }
  // Read more, into the space after what is buffered (moved to the front first).
  if (begin_ > 0) {
    kj::byte* base = read_buffer_.asBytes().begin();
    std::memmove(base, base + begin_, buffered());
    end_ -= begin_;
    begin_ = 0;
  }
  const bool with_fds = fd_stream_ != nullptr && fdSpace.size() > 0;
  kj::Promise<size_t> read = [&]() -> kj::Promise<size_t> {
    kj::byte* into = read_buffer_.asBytes().begin() + end_;
    const size_t room = kReadAheadBytes - end_;
    if (!with_fds) return stream_.tryRead(into, 1, room);
    auto fds = kj::heapArray<kj::AutoCloseFd>(fdSpace.size());
    auto received = fd_stream_->tryReadWithFds(into, 1, room, fds.begin(), fds.size());
    return received.then(
        [this, fds = kj::mv(fds)](kj::AsyncCapabilityStream::ReadResult r) mutable {
          if (r.capCount > 0) {
            const uint64_t at = offset_of_begin_ + buffered();
            auto kept = kj::heapArrayBuilder<kj::AutoCloseFd>(r.capCount);
            for (size_t i = 0; i < r.capCount; ++i) kept.add(kj::mv(fds[i]));
            fd_bundles_.push_back(FdBundle{at, at + r.byteCount, kept.finish()});
          }
          return r.byteCount;
        });
  }();
  return read.then([this, fdSpace, options](
                       size_t n) mutable -> kj::Promise<kj::Maybe<capnp::MessageReaderAndFds>> {
    if (n == 0) {
      if (buffered() > 0) premature_eof();
      return kj::Maybe<capnp::MessageReaderAndFds>(nullptr);
    }
    end_ += n;
    return tryReadMessage(fdSpace, options, nullptr);
  });
}

// A message larger than the read-ahead buffer: what is buffered is its beginning (and all the
// buffer holds); the rest is read straight into its own array.
kj::Promise<kj::Maybe<capnp::MessageReaderAndFds>> BufferedMessageStream::read_big(
    size_t total_bytes, kj::ArrayPtr<kj::AutoCloseFd> fdSpace, capnp::ReaderOptions options) {
  auto words = kj::heapArray<word>(total_bytes / sizeof(word));
  const size_t have = buffered();
  std::memcpy(words.begin(), read_buffer_.asBytes().begin() + begin_, have);
  const uint64_t start = offset_of_begin_;
  begin_ = end_ = 0;
  offset_of_begin_ += total_bytes;
  const size_t rest = total_bytes - have;
  kj::byte* into = words.asBytes().begin() + have;
  // Descriptors come with a message's first byte, which is already here: plain reads suffice.
  return stream_.tryRead(into, rest, rest)
      .then([this, rest, start, words = kj::mv(words), fdSpace, options](size_t n) mutable {
        if (n < rest) premature_eof();
        return kj::Maybe<capnp::MessageReaderAndFds>(
            take_message(kj::mv(words), start, fdSpace, options));
      });
}

capnp::MessageReaderAndFds BufferedMessageStream::take_message(
    kj::Array<word> words, uint64_t start, kj::ArrayPtr<kj::AutoCloseFd> fdSpace,
    const capnp::ReaderOptions& options) {
  const uint64_t end = start + words.size() * sizeof(word);
  // A bundle that ends within this message and whose read began at or before its first byte
  // is this message's; one that began later arrived mid-message (not from a Cap'n Proto
  // writer) and is closed; one that ends later belongs to a later message.
  size_t fd_count = 0;
  while (!fd_bundles_.empty() && fd_bundles_.front().end <= end) {
    FdBundle& b = fd_bundles_.front();
    if (b.begin <= start && start < b.end) {
      for (auto& fd : b.fds) {
        if (fd_count < fdSpace.size()) fdSpace[fd_count++] = kj::mv(fd);
      }
    }
    fd_bundles_.pop_front();
  }
  auto reader = kj::heap<capnp::FlatArrayMessageReader>(words.asPtr(), options);
  return capnp::MessageReaderAndFds{reader.attach(kj::mv(words)), fdSpace.slice(0, fd_count)};
}

// ---- writing ------------------------------------------------------------------------------

void BufferedMessageStream::append_frame(kj::ArrayPtr<const kj::ArrayPtr<const word>> segments) {
  const size_t at = pending_.size();
  pending_.resize(at + table_bytes_for(segments.size()));
  write_table(pending_.begin() + at, segments);
  for (const auto& s : segments) pending_.addAll(s.asBytes());
}

kj::Promise<void> BufferedMessageStream::then_write(kj::Function<kj::Promise<void>()> step) {
  writes_ = writes_.addBranch().then(kj::mv(step)).fork();
  return writes_.addBranch();
}

kj::Promise<void> BufferedMessageStream::flush_pending() {
  flush_scheduled_ = false;
  ++flush_epoch_;
  if (pending_.empty()) return kj::READY_NOW;
  kj::Array<kj::byte> data = pending_.releaseAsArray();
  return stream_.write(data.begin(), data.size()).attach(kj::mv(data));
}

kj::Promise<void> BufferedMessageStream::writeMessage(
    kj::ArrayPtr<const int> fds, kj::ArrayPtr<const kj::ArrayPtr<const word>> segments) {
  KJ_REQUIRE(segments.size() > 0 && segments.size() < kMaxSegments, segments.size());
  if (fds.size() == 0 && frame_bytes(segments) <= kCopiedMessageBytes) {
    append_frame(segments);
    if (!flush_scheduled_) {
      flush_scheduled_ = true;
      // The flush waits for the loop to run dry, so that what this turn writes leaves as one.
      (void)then_write([this, epoch = flush_epoch_] {
        return kj::evalLast([this, epoch] {
          // A message written directly since took what this flush was for, and later ones
          // have their own flush behind it.
          return epoch == flush_epoch_ ? flush_pending() : kj::READY_NOW;
        });
      });
    }
    if (pending_.size() > kWriteBehindBytes) return writes_.addBranch();
    return kj::READY_NOW;
  }
  // Written from the caller's segments (valid until the returned promise resolves), after
  // what is buffered. Descriptors ride alone with their message's first byte.
  kj::Array<kj::byte> before = pending_.releaseAsArray();
  flush_scheduled_ = false;
  ++flush_epoch_;
  auto table = kj::heapArray<kj::byte>(table_bytes_for(segments.size()));
  write_table(table.begin(), segments);
  auto pieces = kj::heapArrayBuilder<kj::ArrayPtr<const kj::byte>>(segments.size() + 1);
  pieces.add(table.asPtr());
  for (const auto& s : segments) pieces.add(s.asBytes());
  return then_write([this, fds, before = kj::mv(before), table = kj::mv(table),
                     pieces = pieces.finish()]() mutable {
    kj::Promise<void> first =
        before.size() > 0 ? stream_.write(before.begin(), before.size()) : kj::READY_NOW;
    return first.then([this, fds, before = kj::mv(before), table = kj::mv(table),
                       pieces = kj::mv(pieces)]() mutable {
      kj::Promise<void> message =
          fds.size() > 0 && fd_stream_ != nullptr
              ? fd_stream_->writeWithFds(pieces[0], pieces.slice(1, pieces.size()), fds)
              : stream_.write(pieces);
      return message.attach(kj::mv(before), kj::mv(table), kj::mv(pieces));
    });
  });
}

kj::Promise<void> BufferedMessageStream::writeMessages(
    kj::ArrayPtr<kj::ArrayPtr<const kj::ArrayPtr<const word>>> messages) {
  kj::Promise<void> last = kj::READY_NOW;
  for (auto& m : messages) last = writeMessage(nullptr, m);
  return last;
}

kj::Maybe<int> BufferedMessageStream::getSendBufferSize() {
  // As capnp's own streams: the socket's send buffer, or nothing where there is none.
  int size = 0;
  KJ_IF_MAYBE (e, kj::runCatchingExceptions([&] {
                 uint length = sizeof size;
                 stream_.getsockopt(SOL_SOCKET, SO_SNDBUF, &size, &length);
               })) {
    return nullptr;
  }
  return size;
}

kj::Promise<void> BufferedMessageStream::end() {
  return then_write([this] { return flush_pending(); }).then([this] { stream_.shutdownWrite(); });
}

}  // namespace tensord::protocol
