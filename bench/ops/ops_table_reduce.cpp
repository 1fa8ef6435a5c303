// bench/ops's table: reductions and scans along the rows of (1000, 1000), sorting, and the
// losses (mean-reduced; classification over 1000 rows of 1000 classes).
#include <limits>

#include "bench/ops/ops_table.h"

namespace tensord::bench {

std::vector<OpCase> reduction_cases() {
  using I = const OpInputs&;
  const double inf = std::numeric_limits<double>::infinity();
  const Axes rows{1};
  return {
      // reductions over rows, and scans along them
      {"all", "", [rows](I in) { return all(in.x, rows); }},
      {"any", "", [rows](I in) { return any(in.x, rows); }},
      {"count_nonzero", "", [rows](I in) { return count_nonzero(in.x, rows); }},
      {"amax", "", [rows](I in) { return amax(in.x, rows); }},
      {"argmax", "", [](I in) { return argmax(in.x, 1); }},
      {"argmin", "", [](I in) { return argmin(in.x, 1); }},
      {"amin", "", [rows](I in) { return amin(in.x, rows); }},
      {"nansum", "", [rows](I in) { return nansum(in.x, rows); }},
      {"nanmean", "", [rows](I in) { return nanmean(in.x, rows); }},
      {"std", "", [rows](I in) { return std_dev(in.x, rows); }},
      {"logsumexp", "", [rows](I in) { return logsumexp(in.x, rows); }},
      {"norm2", "", [rows](I in) { return norm(in.x, 2, rows); }},
      {"norm_inf", "", [rows, inf](I in) { return norm(in.x, inf, rows); }},
      {"norm3", "", [rows](I in) { return norm(in.x, 3, rows); }},
      {"cumsum", "", [](I in) { return cumsum(in.x, 1); }},
      {"cumprod", "", [](I in) { return cumprod(in.prob, 1); }},
      {"cummax", "", [](I in) { return cummax(in.x, 1); }},
      {"cummin", "", [](I in) { return cummin(in.x, 1); }},
      {"logcumsumexp", "", [](I in) { return logcumsumexp(in.x, 1); }},
      // sorting along rows (median, nanmedian: of all elements)
      {"sort", "", [](I in) { return sort(in.x, 1); }},
      {"argsort", "", [](I in) { return argsort(in.x, 1); }},
      {"topk", "", [](I in) { return topk(in.x, 10, 1); }},
      {"topk_500", "", [](I in) { return topk(in.x, 500, 1); }},
      {"topk_500_unsorted", "", [](I in) { return topk(in.x, 500, 1, true, false); }},
      {"kthvalue", "", [](I in) { return kthvalue(in.x, 500, 1); }},
      {"median", "", [](I in) { return median(in.x); }},
      {"nanmedian", "", [](I in) { return nanmedian(in.x); }},
      {"median_axis", "", [](I in) { return median(in.x, 1); }},
      {"quantile", "", [](I in) { return quantile(in.x, 0.3, 1); }},
      {"nanquantile", "", [](I in) { return nanquantile(in.x, 0.3, 1); }},
      {"mode", "", [](I in) { return mode(in.shifts, 1); }},
      // losses
      {"mse_loss", "", [](I in) { return mse_loss(in.x, in.y); }},
      {"l1_loss", "", [](I in) { return l1_loss(in.x, in.y); }},
      {"smooth_l1_loss", "", [](I in) { return smooth_l1_loss(in.x, in.y); }},
      {"huber_loss", "", [](I in) { return huber_loss(in.x, in.y); }},
      {"binary_cross_entropy", "", [](I in) { return binary_cross_entropy(in.prob, in.prob); }},
      {"bce_with_logits", "", [](I in) { return binary_cross_entropy_with_logits(in.x, in.prob); }},
      {"kl_div", "", [](I in) { return kl_div(in.x, in.prob); }},
      {"cross_entropy", "", [](I in) { return cross_entropy(in.x, in.classes); }},
      {"cross_entropy_probs", "", [](I in) { return cross_entropy(in.x, in.prob); }},
      {"nll_loss", "", [](I in) { return nll_loss(in.x, in.classes); }},
      {"cosine_similarity", "", [](I in) { return cosine_similarity(in.x, in.y); }},
  };
}

}  // namespace tensord::bench
