#include "engine/plan/plan_cache.h"

namespace tensord::engine {

std::shared_ptr<const Plan> PlanCache::find(const ir::CanonicalForm& key) {
  auto it = index_.find(&key);
  if (it == index_.end()) return nullptr;
  entries_.splice(entries_.begin(), entries_, it->second);
  return it->second->plan;
}

void PlanCache::insert(ir::CanonicalForm key, std::shared_ptr<const Plan> plan) {
  if (capacity_ == 0) return;
  if (auto it = index_.find(&key); it != index_.end()) {
    it->second->plan = std::move(plan);
    entries_.splice(entries_.begin(), entries_, it->second);
    return;
  }
  if (entries_.size() >= capacity_) {
    index_.erase(&entries_.back().key);
    entries_.pop_back();
  }
  entries_.push_front(Entry{std::move(key), std::move(plan)});
  index_.emplace(&entries_.front().key, entries_.begin());
}

}  // namespace tensord::engine
