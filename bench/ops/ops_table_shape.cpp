// bench/ops's table: shape and indexing on (1000, 1000) inputs. Every result is materialized
// (the daemon's outputs are contiguous), so the peers copy NumPy's views to do the same work.
#include "bench/ops/ops_table.h"

namespace tensord::bench {

std::vector<OpCase> shape_cases() {
  using I = const OpInputs&;
  using Ts = std::vector<Tensor>;
  return {
      {"split", "", [](I in) { return split(in.x, 250, 0); }},
      {"chunk", "", [](I in) { return chunk(in.x, 4, 1); }},
      {"tile", "",
       [](I in) {
         return tile(in.x, {1, 2});
       }},
      {"repeat", "",
       [](I in) {
         return repeat(in.x, {2, 1});
       }},
      {"repeat_interleave", "", [](I in) { return repeat_interleave(in.x, 2, 1); }},
      {"repeat_interleave_tensor", "", [](I in) { return repeat_interleave(in.x, in.counts, 0); }},
      {"roll", "",
       [](I in) {
         return roll(in.x, {7, 13}, {0, 1});
       }},
      {"rot90", "", [](I in) { return rot90(in.x); }},
      {"diag", "", [](I in) { return diag(in.x); }},
      {"diag_embed", "(1000,)", [](I in) { return diag_embed(in.weight); }},
      {"diagonal", "", [](I in) { return diagonal(in.x); }},
      {"tril", "", [](I in) { return tril(in.x); }},
      {"triu", "", [](I in) { return triu(in.x); }},
      {"narrow", "", [](I in) { return narrow(in.x, 1, 100, 800); }},
      {"unfold", "", [](I in) { return unfold(in.x, 1, 4, 4); }},
      {"broadcast_tensors", "(1000,1)+(1,1000)",
       [](I in) {
         return broadcast_tensors({in.col, reshape(in.weight, {1, 1000})});
       }},
      {"meshgrid", "(1000,)+(1000,)",
       [](I in) {
         return meshgrid({in.weight, in.edges});
       }},
      {"take", "", [](I in) { return take(in.x, in.flat_index); }},
      {"take_along_dim", "", [](I in) { return take_along_dim(in.x, in.index, 1); }},
      {"scatter", "", [](I in) { return scatter(in.x, 1, in.index, in.y); }},
      {"scatter_add", "", [](I in) { return scatter_add(in.x, 1, in.index, in.y); }},
      {"scatter_reduce_amax", "",
       [](I in) { return scatter_reduce(in.x, 1, in.index, in.y, ScatterReduce::Amax); }},
      {"index_add", "", [](I in) { return index_add(in.x, 0, in.classes, in.y); }},
      {"index_put", "", [](I in) { return index_put(in.x, {in.classes}, in.y); }},
      {"index_put_bool", "",
       [](I in) { return index_put(in.x, {in.mask}, slice(in.weight, 0, 0, 1)); }},
      {"masked_fill", "", [](I in) { return masked_fill(in.x, in.mask, 0.0); }},
      {"masked_select", "", [](I in) { return masked_select(in.x, in.mask); }},
      {"where_one_arg", "", [](I in) { return Ts(where(in.mask)); }},
      {"nonzero", "", [](I in) { return nonzero(in.mask); }},
      {"unique", "",
       [](I in) {
         return Ts{unique(in.ints), unique_counts(in.ints)};
       }},
      {"unique_inverse", "", [](I in) { return unique_inverse(in.ints); }},
      {"searchsorted", "", [](I in) { return searchsorted(in.edges, in.x); }},
      {"bucketize", "", [](I in) { return bucketize(in.x, in.edges); }},
      {"one_hot", "", [](I in) { return one_hot(in.shifts, 8); }},
  };
}

}  // namespace tensord::bench
