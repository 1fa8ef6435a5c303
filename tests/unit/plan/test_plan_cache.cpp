// The plan cache: LRU order, capacity, and keys compared in full rather than by hash.
#include <catch2/catch.hpp>

#include <memory>

#include "engine/plan/plan_cache.h"

using tensord::engine::Plan;
using tensord::engine::PlanCache;
using tensord::ir::CanonicalForm;

namespace {

CanonicalForm key(std::vector<uint64_t> words, uint64_t hash) {
  return CanonicalForm{std::move(words), hash};
}

std::shared_ptr<const Plan> plan_with_slots(size_t n) {
  auto p = std::make_shared<Plan>();
  p->slot_bytes.assign(n, 0);
  return p;
}

}  // namespace

TEST_CASE("plan cache finds what it holds and evicts the least recently used") {
  PlanCache cache(2);
  auto a = plan_with_slots(1), b = plan_with_slots(2), c = plan_with_slots(3);
  cache.insert(key({1}, 10), a);
  cache.insert(key({2}, 20), b);
  CHECK(cache.find(key({1}, 10)) == a);  // a is now the most recent
  cache.insert(key({3}, 30), c);         // evicts b
  CHECK(cache.size() == 2);
  CHECK(cache.find(key({2}, 20)) == nullptr);
  CHECK(cache.find(key({1}, 10)) == a);
  CHECK(cache.find(key({3}, 30)) == c);
}

TEST_CASE("plan cache compares whole forms, not hashes") {
  PlanCache cache(4);
  auto a = plan_with_slots(1), b = plan_with_slots(2);
  cache.insert(key({1, 2, 3}, 7), a);
  CHECK(cache.find(key({1, 2, 4}, 7)) == nullptr);  // same hash, different program
  cache.insert(key({1, 2, 4}, 7), b);
  CHECK(cache.size() == 2);
  CHECK(cache.find(key({1, 2, 3}, 7)) == a);
  CHECK(cache.find(key({1, 2, 4}, 7)) == b);
  CHECK(cache.find(key({1, 2, 3}, 8)) == nullptr);  // same words, other hash: never equal
}

TEST_CASE("plan cache replaces a plan under an existing key and keeps nothing at capacity 0") {
  PlanCache cache(2);
  auto a = plan_with_slots(1), b = plan_with_slots(2);
  cache.insert(key({5}, 5), a);
  cache.insert(key({5}, 5), b);
  CHECK(cache.size() == 1);
  CHECK(cache.find(key({5}, 5)) == b);

  PlanCache none(0);
  none.insert(key({5}, 5), a);
  CHECK(none.size() == 0);
  CHECK(none.find(key({5}, 5)) == nullptr);
}

TEST_CASE("an evicted plan stays alive for whoever still holds it") {
  PlanCache cache(1);
  std::shared_ptr<const Plan> held = plan_with_slots(3);
  cache.insert(key({1}, 1), held);
  std::weak_ptr<const Plan> watch = held;
  cache.insert(key({2}, 2), plan_with_slots(1));
  CHECK(!watch.expired());
  held.reset();
  CHECK(watch.expired());
}
