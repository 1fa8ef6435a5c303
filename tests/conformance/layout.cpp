#include "tests/conformance/layout.h"

#include <algorithm>

namespace tensord::conformance {

using ir::Attr;
using ir::Op;

std::string_view name(Layout l) {
  switch (l) {
    case Layout::Contiguous:
      return "contiguous";
    case Layout::Permuted:
      return "permuted";
    case Layout::Strided:
      return "strided";
    case Layout::Reversed:
      return "reversed";
    case Layout::Broadcast:
      return "broadcast";
    case Layout::Mixed:
      return "mixed";
    case Layout::ChannelsLast:
      return "channels_last";
  }
  return "?";
}

namespace {

std::vector<int64_t> reversing_permutation(size_t rank) {
  std::vector<int64_t> dims(rank);
  for (size_t d = 0; d < rank; ++d) dims[d] = static_cast<int64_t>(rank - 1 - d);
  return dims;
}

}  // namespace

std::optional<LayoutPlan> plan_layout(Layout l, const ir::Shape& logical) {
  const int64_t rank = static_cast<int64_t>(logical.size());
  LayoutPlan plan{logical, {}};
  switch (l) {
    case Layout::Contiguous:
      return plan;
    case Layout::Permuted:
      if (rank < 2) return std::nullopt;
      std::reverse(plan.base.begin(), plan.base.end());
      plan.steps.push_back({Op::permute, {{Attr::dims, reversing_permutation(logical.size())}}});
      return plan;
    case Layout::Strided: {
      if (rank < 1) return std::nullopt;
      int64_t a = rank - 1;
      plan.base[a] = 2 * logical[a] + 1;  // elements 1, 3, ..., 2n - 1
      plan.steps.push_back(
          {Op::slice, {{Attr::axis, a}, {Attr::start, int64_t{1}}, {Attr::step, int64_t{2}}}});
      return plan;
    }
    case Layout::Reversed:
      if (rank < 1) return std::nullopt;
      plan.steps.push_back({Op::slice, {{Attr::axis, int64_t{0}}, {Attr::step, int64_t{-1}}}});
      return plan;
    case Layout::Broadcast: {
      auto it = std::find_if(logical.begin(), logical.end(), [](int64_t d) { return d != 1; });
      if (it == logical.end()) return std::nullopt;
      plan.base[it - logical.begin()] = 1;
      plan.steps.push_back({Op::expand, {{Attr::shape, logical}}});
      return plan;
    }
    case Layout::Mixed:
      if (rank < 2) return std::nullopt;
      std::reverse(plan.base.begin(), plan.base.end());
      plan.base[0] = 2 * logical[rank - 1];  // step -2 from the end takes n of 2n
      plan.steps.push_back({Op::slice, {{Attr::axis, int64_t{0}}, {Attr::step, int64_t{-2}}}});
      plan.steps.push_back({Op::permute, {{Attr::dims, reversing_permutation(logical.size())}}});
      return plan;
    case Layout::ChannelsLast: {
      if (rank < 3) return std::nullopt;
      // base (N, spatial..., C); permute (0, rank - 1, 1, ..., rank - 2)
      plan.base.erase(plan.base.begin() + 1);
      plan.base.push_back(logical[1]);
      std::vector<int64_t> dims{0, rank - 1};
      for (int64_t d = 1; d < rank - 1; ++d) dims.push_back(d);
      plan.steps.push_back({Op::permute, {{Attr::dims, dims}}});
      return plan;
    }
  }
  return std::nullopt;
}

}  // namespace tensord::conformance
