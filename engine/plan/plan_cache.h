// Plans by the canonical form of the user's validated graph, least recently used evicted. A hit
// skips decompose, simplify and planning.
#pragma once

#include <cstddef>
#include <list>
#include <memory>
#include <unordered_map>

#include "engine/ir/passes.h"
#include "engine/plan/plan.h"

namespace tensord::engine {

class PlanCache {
 public:
  explicit PlanCache(size_t capacity) : capacity_(capacity) {}
  PlanCache(const PlanCache&) = delete;
  PlanCache& operator=(const PlanCache&) = delete;

  // The plan for `key`, now the most recently used; null when absent. Keys are compared
  // word by word: the hash only picks the bucket, so a collision cannot return a wrong plan.
  std::shared_ptr<const Plan> find(const ir::CanonicalForm& key);

  // Adds or replaces the plan for `key`, evicting the least recently used plan when full.
  // With capacity 0 nothing is kept. Plans are shared so that an evicted plan stays valid for
  // whoever is still running it.
  void insert(ir::CanonicalForm key, std::shared_ptr<const Plan> plan);

  size_t size() const { return entries_.size(); }
  size_t capacity() const { return capacity_; }

 private:
  struct Entry {
    ir::CanonicalForm key;
    std::shared_ptr<const Plan> plan;
  };
  // The index points into the entries, whose list nodes never move.
  struct KeyHash {
    size_t operator()(const ir::CanonicalForm* k) const { return static_cast<size_t>(k->hash); }
  };
  struct KeyEqual {
    bool operator()(const ir::CanonicalForm* a, const ir::CanonicalForm* b) const {
      return *a == *b;
    }
  };

  size_t capacity_;
  std::list<Entry> entries_;  // most recently used first
  std::unordered_map<const ir::CanonicalForm*, std::list<Entry>::iterator, KeyHash, KeyEqual>
      index_;
};

}  // namespace tensord::engine
