// The background compiler's thread: jobs in order, their results and exceptions through the
// futures, and a destructor that drops what has not started.
#include <catch2/catch.hpp>
#include <chrono>
#include <future>
#include <stdexcept>
#include <thread>
#include <vector>

#include "engine/exec/background_compiler.h"

using tensord::engine::BackgroundCompiler;

TEST_CASE("background jobs run in order, with their results and exceptions", "[background]") {
  BackgroundCompiler compiler;
  std::vector<int> order;
  std::vector<std::future<BackgroundCompiler::Kernels>> done;
  for (int i = 0; i < 5; ++i) {
    done.push_back(compiler.submit([&order, i] {
      order.push_back(i);  // one thread: no lock needed
      return BackgroundCompiler::Kernels{};
    }));
  }
  auto failed = compiler.submit(
      []() -> BackgroundCompiler::Kernels { throw std::runtime_error("no compiler"); });
  for (auto& f : done) CHECK(f.get() == nullptr);
  CHECK_THROWS_WITH(failed.get(), "no compiler");
  CHECK(order == std::vector<int>{0, 1, 2, 3, 4});
}

TEST_CASE("a destroyed background compiler drops the jobs it has not started", "[background]") {
  std::promise<void> release;
  std::shared_future<void> gate = release.get_future().share();
  std::future<BackgroundCompiler::Kernels> running, queued;
  std::promise<void> started;
  std::thread opener;
  {
    BackgroundCompiler compiler;
    running = compiler.submit([&started, gate] {
      started.set_value();
      gate.wait();
      return BackgroundCompiler::Kernels{};
    });
    queued = compiler.submit([] { return BackgroundCompiler::Kernels{}; });
    started.get_future().wait();
    // The destructor must wait for the running job: release it only from another thread,
    // after a moment in which the destructor has begun.
    opener = std::thread([&release] {
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
      release.set_value();
    });
  }
  opener.join();
  CHECK(running.wait_for(std::chrono::seconds(0)) == std::future_status::ready);
  CHECK_THROWS_AS(queued.get(), std::future_error);
}
