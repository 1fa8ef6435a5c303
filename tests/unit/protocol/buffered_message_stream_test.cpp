#include "protocol/buffered_message_stream.h"

#include <capnp/message.h>
#include <sys/mman.h>
#include <unistd.h>

#include <catch2/catch.hpp>

#include <cstring>
#include <string>
#include <vector>

namespace tensord::protocol {
namespace {

using capnp::word;

// A message whose root is `bytes` of Data, each byte a function of its index and `seed`, built
// in segments of `segment_words` so that large ones have several.
kj::Own<capnp::MallocMessageBuilder> make_message(size_t bytes, uint8_t seed,
                                                  unsigned segment_words = 1024) {
  auto m =
      kj::heap<capnp::MallocMessageBuilder>(segment_words, capnp::AllocationStrategy::FIXED_SIZE);
  auto list = m->getRoot<capnp::AnyPointer>().initAs<capnp::List<capnp::Data>>(
      static_cast<unsigned>((bytes + 999) / 1000));
  size_t left = bytes;
  for (unsigned i = 0; i < list.size(); ++i) {
    const size_t n = std::min<size_t>(left, 1000);
    auto data = list.init(i, static_cast<unsigned>(n));
    for (size_t k = 0; k < n; ++k) data[k] = static_cast<uint8_t>(seed + 7 * (i * 1000 + k));
    left -= n;
  }
  return m;
}

void require_message(capnp::MessageReader& reader, size_t bytes, uint8_t seed) {
  auto list = reader.getRoot<capnp::AnyPointer>().getAs<capnp::List<capnp::Data>>();
  size_t seen = 0;
  for (unsigned i = 0; i < list.size(); ++i) {
    auto data = list[i];
    for (size_t k = 0; k < data.size(); ++k) {
      if (data[k] != static_cast<uint8_t>(seed + 7 * (i * 1000 + k))) FAIL("byte " << seen + k);
    }
    seen += data.size();
  }
  REQUIRE(seen == bytes);
}

// Sizes that straddle the read-ahead buffer and the copy limit: messages that end mid-read,
// exactly fill it, or need their own array.
const std::vector<size_t> kSizes{
    0,     1, 7,      100,     5000, 16 << 10,       40000,  65000, (64 << 10),
    70000, 3, 300000, 1 << 20, 50,   (16 << 10) + 8, 123457, 9};

struct Pipe {
  Pipe() : io(kj::setupAsyncIo()), ends(io.provider->newCapabilityPipe()) {}
  kj::AsyncIoContext io;
  kj::CapabilityPipe ends;
};

TEST_CASE("messages of every size arrive whole and in order, with either end capnp's stream") {
  for (int writer_kind = 0; writer_kind < 2; ++writer_kind) {
    for (int reader_kind = 0; reader_kind < 2; ++reader_kind) {
      if (writer_kind == 0 && reader_kind == 0) continue;  // capnp with itself
      CAPTURE(writer_kind, reader_kind);
      Pipe p;
      kj::Own<capnp::MessageStream> writer =
          writer_kind == 1
              ? kj::Own<capnp::MessageStream>(kj::heap<BufferedMessageStream>(*p.ends.ends[0]))
              : kj::heap<capnp::AsyncIoMessageStream>(*p.ends.ends[0]);
      kj::Own<capnp::MessageStream> reader =
          reader_kind == 1
              ? kj::Own<capnp::MessageStream>(kj::heap<BufferedMessageStream>(*p.ends.ends[1]))
              : kj::heap<capnp::AsyncIoMessageStream>(*p.ends.ends[1]);
      std::vector<kj::Own<capnp::MallocMessageBuilder>> sent;
      kj::Promise<void> writes = kj::READY_NOW;
      for (size_t i = 0; i < kSizes.size(); ++i) {
        const bool many_segments = i % 3 == 0 && kSizes[i] < 20000;
        sent.push_back(make_message(kSizes[i], static_cast<uint8_t>(i), many_segments ? 16 : 1024));
        capnp::MessageBuilder& m = *sent.back();
        writes = writes.then([&writer, &m] { return writer->writeMessage(m); });
      }
      writes = writes.then([&writer] { return writer->end(); }).eagerlyEvaluate(nullptr);
      for (size_t i = 0; i < kSizes.size(); ++i) {
        CAPTURE(i, kSizes[i]);
        auto message = reader->readMessage().wait(p.io.waitScope);
        require_message(*message, kSizes[i], static_cast<uint8_t>(i));
      }
      writes.wait(p.io.waitScope);
      REQUIRE(reader->tryReadMessage().wait(p.io.waitScope) == nullptr);
    }
  }
}

// Counts the writes that reach the socket.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wnon-virtual-dtor"  // only ever destroyed as itself
class CountingStream final : public kj::AsyncIoStream {
 public:
  explicit CountingStream(kj::AsyncIoStream& inner) : inner_(inner) {}
  kj::Promise<size_t> tryRead(void* buffer, size_t min, size_t max) override {
    return inner_.tryRead(buffer, min, max);
  }
  kj::Promise<void> write(const void* buffer, size_t size) override {
    ++writes;
    return inner_.write(buffer, size);
  }
  kj::Promise<void> write(kj::ArrayPtr<const kj::ArrayPtr<const kj::byte>> pieces) override {
    ++writes;
    return inner_.write(pieces);
  }
  kj::Promise<void> whenWriteDisconnected() override { return inner_.whenWriteDisconnected(); }
  void shutdownWrite() override { inner_.shutdownWrite(); }
  int writes = 0;

 private:
  kj::AsyncIoStream& inner_;
};
#pragma GCC diagnostic pop

TEST_CASE("small messages written during one turn of the loop leave in one write") {
  Pipe p;
  CountingStream counted(*p.ends.ends[0]);
  BufferedMessageStream writer(counted);
  BufferedMessageStream reader(*p.ends.ends[1]);
  std::vector<kj::Own<capnp::MallocMessageBuilder>> sent;
  std::vector<kj::Promise<void>> written;
  for (int i = 0; i < 100; ++i) {
    sent.push_back(make_message(static_cast<size_t>(i) * 10, static_cast<uint8_t>(i)));
    written.push_back(writer.writeMessage(*sent.back()));
  }
  REQUIRE(counted.writes == 0);  // nothing leaves before the loop runs dry
  p.io.waitScope.poll();
  REQUIRE(counted.writes == 1);
  for (auto& w : written)
    REQUIRE(w.poll(p.io.waitScope));  // copied: the callers' messages are free
  for (int i = 0; i < 100; ++i) {
    require_message(*reader.readMessage().wait(p.io.waitScope), static_cast<size_t>(i) * 10,
                    static_cast<uint8_t>(i));
  }
  // A large message goes out after the buffered ones, from the caller's own segments, and a
  // small one written before it has left still goes after it.
  auto big = make_message(200000, 9);
  auto small = make_message(10, 1);
  auto later = make_message(20, 2);
  auto small_written = writer.writeMessage(*small);
  auto big_written = writer.writeMessage(*big);
  auto later_written = writer.writeMessage(*later);
  require_message(*reader.readMessage().wait(p.io.waitScope), 10, 1);
  require_message(*reader.readMessage().wait(p.io.waitScope), 200000, 9);
  require_message(*reader.readMessage().wait(p.io.waitScope), 20, 2);
  big_written.wait(p.io.waitScope);
}

int memfd_with_tag(uint8_t tag) {
  int fd = memfd_create("tag", MFD_CLOEXEC);
  REQUIRE(fd >= 0);
  REQUIRE(write(fd, &tag, 1) == 1);
  return fd;
}

uint8_t tag_of(int fd) {
  uint8_t tag = 0;
  REQUIRE(pread(fd, &tag, 1, 0) == 1);
  return tag;
}

TEST_CASE("descriptors arrive with their own message among messages that carry none") {
  for (int writer_kind = 0; writer_kind < 2; ++writer_kind) {
    CAPTURE(writer_kind);
    Pipe p;
    auto& a = *p.ends.ends[0];
    kj::Own<capnp::MessageStream> writer =
        writer_kind == 1 ? kj::Own<capnp::MessageStream>(kj::heap<BufferedMessageStream>(a))
                         : kj::heap<capnp::AsyncCapabilityMessageStream>(a);
    BufferedMessageStream reader(*p.ends.ends[1]);
    // Sizes so that reads of the read-ahead buffer end inside messages as well as between.
    // All of it fits the socket's buffer (written before the first read).
    const std::vector<size_t> sizes{10, 30000, 10, 20000, 5, 5, 5, 66000, 20, 3, 8};
    std::vector<kj::Own<capnp::MallocMessageBuilder>> sent;
    std::vector<kj::AutoCloseFd> fds;
    std::vector<int> fd_of(sizes.size(), -1);
    kj::Promise<void> writes = kj::READY_NOW;
    for (size_t i = 0; i < sizes.size(); ++i) {
      sent.push_back(make_message(sizes[i], static_cast<uint8_t>(i)));
      if (i % 3 == 1 || i == 5 || i == 6) {
        fds.emplace_back(memfd_with_tag(static_cast<uint8_t>(100 + i)));
        fd_of[i] = fds.back().get();
      }
    }
    for (size_t i = 0; i < sizes.size(); ++i) {
      capnp::MessageBuilder& m = *sent[i];
      const int* fd = fd_of[i] >= 0 ? &fd_of[i] : nullptr;
      writes = writes.then([&writer, &m, fd] {
        return writer->writeMessage(kj::arrayPtr(fd, fd != nullptr ? 1 : 0), m);
      });
    }
    writes = writes.eagerlyEvaluate(nullptr);
    writes.wait(p.io.waitScope);  // all of it in the socket before the first read
    for (size_t i = 0; i < sizes.size(); ++i) {
      CAPTURE(i);
      kj::AutoCloseFd space[2];
      auto got = reader.readMessage(space).wait(p.io.waitScope);
      require_message(*got.reader, sizes[i], static_cast<uint8_t>(i));
      if (fd_of[i] < 0) {
        REQUIRE(got.fds.size() == 0);
      } else {
        REQUIRE(got.fds.size() == 1);
        REQUIRE(tag_of(got.fds[0].get()) == 100 + i);
      }
    }
  }
}

// The raw bytes of a message's framing, for streams no Cap'n Proto writer would send.
kj::Array<kj::byte> raw_words(std::vector<uint32_t> halves) {
  auto out = kj::heapArray<kj::byte>(halves.size() * 4);
  std::memcpy(out.begin(), halves.data(), out.size());
  return out;
}

kj::Exception read_failure(std::vector<uint32_t> halves) {
  Pipe p;
  BufferedMessageStream reader(*p.ends.ends[1]);
  auto bytes = raw_words(std::move(halves));
  p.ends.ends[0]->write(bytes.begin(), bytes.size()).wait(p.io.waitScope);
  p.ends.ends[0]->shutdownWrite();
  KJ_IF_MAYBE (e, kj::runCatchingExceptions([&] { reader.readMessage().wait(p.io.waitScope); })) {
    return kj::mv(*e);
  }
  FAIL("the read did not fail");
  return KJ_EXCEPTION(FAILED, "unreachable");
}

TEST_CASE("a malformed or cut stream fails the read with a clear error; a clean end is null") {
  SECTION("too many segments") {
    auto e = read_failure({1000, 0, 0, 0});
    REQUIRE(std::string(e.getDescription().cStr()).find("too many segments") != std::string::npos);
  }
  SECTION("larger than the receiver's limit") {
    auto e = read_failure({0, 0x7fffffff});
    REQUIRE(std::string(e.getDescription().cStr()).find("too large") != std::string::npos);
  }
  SECTION("cut in its segment table") {
    auto e = read_failure({3, 1});
    REQUIRE(e.getType() == kj::Exception::Type::DISCONNECTED);
  }
  SECTION("cut in a small body") {
    auto e = read_failure({0, 10, 1, 2, 3});
    REQUIRE(e.getType() == kj::Exception::Type::DISCONNECTED);
  }
  SECTION("cut in a body larger than the read-ahead buffer") {
    auto e = read_failure({0, 100000, 1, 2, 3});
    REQUIRE(e.getType() == kj::Exception::Type::DISCONNECTED);
  }
  SECTION("a clean end between messages") {
    Pipe p;
    BufferedMessageStream reader(*p.ends.ends[1]);
    p.ends.ends[0]->shutdownWrite();
    REQUIRE(reader.tryReadMessage().wait(p.io.waitScope) == nullptr);
  }
}

TEST_CASE("a writer whose peer does not read waits once a megabyte is buffered, then goes on") {
  Pipe p;
  BufferedMessageStream writer(*p.ends.ends[0]);
  BufferedMessageStream reader(*p.ends.ends[1]);
  auto m = make_message(8000, 5);  // copied into the write buffer
  int written = 0;
  kj::Maybe<kj::Promise<void>> stalled;
  while (written < 4096) {
    auto w = writer.writeMessage(*m);
    ++written;
    p.io.waitScope.poll();
    if (!w.poll(p.io.waitScope)) {
      stalled = kj::mv(w);
      break;
    }
    w.wait(p.io.waitScope);
  }
  REQUIRE(stalled != nullptr);
  REQUIRE(written * 8000 > static_cast<int>(BufferedMessageStream::kWriteBehindBytes));
  auto& w = KJ_ASSERT_NONNULL(stalled);
  int read = 0;
  while (!w.poll(p.io.waitScope)) {
    require_message(*reader.readMessage().wait(p.io.waitScope), 8000, 5);
    ++read;
  }
  w.wait(p.io.waitScope);
  auto ended = writer.end().eagerlyEvaluate(nullptr);
  while (reader.tryReadMessage().wait(p.io.waitScope) != nullptr) ++read;
  REQUIRE(read == written);
}

}  // namespace
}  // namespace tensord::protocol
