// Table rows for issue 4's remaining indexing ops (h/datadep): searchsorted, bucketize,
// scatter_reduce, scatter_value, index_put, unfold, and the ops with data-dependent output
// shapes (nonzero, flatnonzero, masked_select, unique's four outputs, repeat_interleave_tensor), which the engine runs between plans. Each op on every dtype it
// takes, then empty, 0-d, duplicate indices, non-contiguous inputs, NaN, and the errors (out
// of range indices at run time included).
#include <cmath>

#include "tests/conformance/case.h"

namespace tensord::conformance {

using ir::Attr;
using ir::Attrs;
using ir::Op;

namespace {

Case make(Op op, std::vector<InputSpec> inputs, Attrs attrs = {},
          std::optional<ErrorCode> error = std::nullopt) {
  Case c;
  c.op = op;
  c.inputs = std::move(inputs);
  c.attrs = std::move(attrs);
  c.error = error;
  return c;
}

constexpr DType kNumeric[] = {DType::Int8,     DType::UInt8,   DType::Int16,
                              DType::Int32,    DType::Int64,   DType::Float16,
                              DType::BFloat16, DType::Float32, DType::Float64};

const Attrs kRight{{Attr::right, true}};

void add_search_rows(std::vector<Case>& out) {
  // Sorted rows with ties; the values hit every gap, the ties and both ends.
  const std::vector<double> seq{0, 1, 1, 2, 5, 7};
  const std::vector<double> probe{0, 1, 3, 7, 8, 2, 6};
  for (DType t : kNumeric) {
    for (const Attrs& a : {Attrs{}, kRight}) {
      out.push_back(make(Op::searchsorted, {in_values(t, {6}, seq), in_values(t, {7}, probe)}, a));
      out.push_back(make(Op::bucketize, {in_values(t, {2, 7}, probe), in_values(t, {6}, seq)}, a));
    }
  }
  // Floats with -inf, inf and NaN (sorted last), float values against an int sequence.
  const std::vector<double> fseq{-INFINITY, -2, -0.5, 0, 0, 1.5, INFINITY, NAN};
  const std::vector<double> fprobe{-INFINITY, -1, 0, 0.25, 1.5, INFINITY, NAN, -0.0};
  for (DType t : {DType::Float16, DType::Float32, DType::Float64}) {
    for (const Attrs& a : {Attrs{}, kRight}) {
      out.push_back(
          make(Op::searchsorted, {in_values(t, {8}, fseq), in_values(t, {8}, fprobe)}, a));
      out.push_back(make(Op::searchsorted,
                         {in_values(DType::Int32, {6}, seq), in_values(t, {2, 4}, fprobe)}, a));
    }
  }
  // Batched rows (leading dims match), non-contiguous values, a sorter, empty and 0-d.
  out.push_back(make(Op::searchsorted, {in_values(DType::Float32, {2, 3}, {1, 2, 3, -1, 0, 9}),
                                        in_values(DType::Float32, {2, 4}, {0, 2.5, 3, 9})}));
  out.push_back(make(
      Op::searchsorted,
      {in_values(DType::Int64, {6}, seq), in(DType::Int64, {3, 4}, Layout::Permuted)}, kRight));
  out.push_back(make(Op::searchsorted, {in_values(DType::Float64, {5}, {3, 1, 2, 5, 4}),
                                        in_values(DType::Float64, {4}, {0, 2, 4.5, 9}),
                                        in_values(DType::Int64, {5}, {1, 2, 0, 4, 3})}));
  out.push_back(make(Op::searchsorted,
                     {in_values(DType::Float64, {2, 3}, {3, 1, 2, 6, 5, 4}),
                      in_values(DType::Float64, {2, 2}, {2, 5}),
                      in_values(DType::Int32, {2, 3}, {1, 2, 0, 2, 1, 0})},
                     kRight));
  out.push_back(make(Op::searchsorted, {in(DType::Float32, {0}), in(DType::Float32, {3})}));
  out.push_back(
      make(Op::searchsorted, {in_values(DType::Float32, {6}, seq), in(DType::Float32, {0})}));
  out.push_back(
      make(Op::searchsorted, {in_values(DType::Float32, {6}, seq), in(DType::Float32, {})}));
  out.push_back(make(Op::bucketize, {in(DType::Float64, {}), in_values(DType::Float64, {6}, seq)}));
  // Errors: bool, 0-d sequence, mismatched leading dims, bad sorter, sorter out of range.
  out.push_back(
      make(Op::searchsorted, {in(DType::Bool, {3}), in(DType::Bool, {2})}, {}, ErrorCode::DType));
  out.push_back(make(Op::searchsorted, {in(DType::Float32, {}), in(DType::Float32, {2})}, {},
                     ErrorCode::Shape));
  out.push_back(make(Op::searchsorted, {in(DType::Float32, {2, 3}), in(DType::Float32, {3, 3})}, {},
                     ErrorCode::Shape));
  out.push_back(make(Op::bucketize, {in(DType::Float32, {3}), in(DType::Float32, {2, 3})}, {},
                     ErrorCode::Shape));
  out.push_back(make(Op::searchsorted,
                     {in(DType::Float32, {3}), in(DType::Float32, {2}), in(DType::Float32, {3})},
                     {}, ErrorCode::DType));
  out.push_back(make(Op::searchsorted,
                     {in(DType::Float32, {3}), in(DType::Float32, {2}), in(DType::Int64, {4})}, {},
                     ErrorCode::Shape));
  out.push_back(make(
      Op::searchsorted,
      {in(DType::Float32, {3}), in(DType::Float32, {2}), in_values(DType::Int64, {3}, {0, 3, 1})},
      {}, ErrorCode::Shape));  // sorter index out of range, at run time
}

Attrs reduce_attrs(int64_t axis, int64_t reduction, std::optional<bool> include_self = {}) {
  Attrs a{{Attr::axis, axis}, {Attr::reduction, reduction}};
  if (include_self) a.set(Attr::include_self, *include_self);
  return a;
}

void add_scatter_reduce_rows(std::vector<Case>& out) {
  for (int64_t r = 0; r <= 4; ++r) {
    for (DType t : kAllDTypes) {
      for (bool self : {true, false}) {
        // Index values in [-4, 4): many duplicates along axis 0 of a (4, 5) x.
        Case c = make(Op::scatter_reduce,
                      {in(t, {4, 5}, Layout::Contiguous, r == 1 ? Values::NearOne : Values::Small),
                       in_index(DType::Int64, {6, 5}, 4),
                       in(t, {6, 5}, Layout::Contiguous, r == 1 ? Values::NearOne : Values::Small)},
                      reduce_attrs(0, r, self));
        c.accuracy = Accuracy::Accumulated;
        if (t == DType::Bool && r <= 2) c.error = ErrorCode::DType;
        out.push_back(std::move(c));
      }
    }
    for (DType t : {DType::Int32, DType::Float16, DType::Float64}) {
      for (const std::vector<InputSpec>& ins : std::vector<std::vector<InputSpec>>{
               {in(t, {3, 4}, Layout::Permuted), in_index(DType::Int32, {3, 6}, 4),
                in(t, {3, 6}, Layout::Contiguous, Values::Special)},
               {in(t, {3, 4}), in_values(DType::Int64, {2, 2}, {1, 1, 1, 1}), in(t, {2, 2})},
               {in(t, {0, 4}), in_index(DType::Int64, {0, 4}, 1), in(t, {0, 4})},
               {in(t, {5}), in_index(DType::Int64, {12}, 5), in(t, {12})},
               {in(t, {5}), in_index(DType::Int64, {0}, 5), in(t, {0})}}) {
        Case c = make(Op::scatter_reduce, ins,
                      reduce_attrs(ins[0].shape.size() == 2 ? 1 : 0, r, r % 2 == 0));
        c.accuracy = Accuracy::Accumulated;
        out.push_back(std::move(c));
      }
    }
    // Integer means round toward -inf.
    out.push_back(
        make(Op::scatter_reduce,
             {in_values(DType::Int32, {2}, {-7, 8}), in_values(DType::Int64, {4}, {0, 0, 1, 1}),
              in_values(DType::Int32, {4}, {1, -1, 2, 2})},
             reduce_attrs(0, 2)));
  }
  out.push_back(
      make(Op::scatter_reduce,
           {in(DType::Float32, {3}), in_values(DType::Int64, {1}, {3}), in(DType::Float32, {1})},
           reduce_attrs(0, 0), ErrorCode::Shape));  // out of range at run time
  out.push_back(make(Op::scatter_reduce,
                     {in(DType::Float32, {3}), in(DType::Float32, {1}), in(DType::Float32, {1})},
                     reduce_attrs(0, 0), ErrorCode::DType));
  out.push_back(
      make(Op::scatter_reduce,
           {in(DType::Float32, {3}), in_index(DType::Int64, {2}, 3), in(DType::Float32, {2})},
           reduce_attrs(0, 5), ErrorCode::InvalidGraph));
  out.push_back(
      make(Op::scatter_reduce,
           {in(DType::Float32, {}), in_index(DType::Int64, {}, 1), in(DType::Float32, {})},
           reduce_attrs(0, 0), ErrorCode::Shape));
  // scatter of a scalar value.
  for (DType t : kAllDTypes) {
    for (ir::AttrValue v : {ir::AttrValue{2.5}, ir::AttrValue{int64_t{-3}}, ir::AttrValue{true}}) {
      out.push_back(make(Op::scatter_value, {in(t, {4, 5}), in_index(DType::Int64, {3, 5}, 4)},
                         {{Attr::axis, int64_t{0}}, {Attr::value, v}}));
    }
  }
  out.push_back(
      make(Op::scatter_value,
           {in(DType::Float32, {3, 4}, Layout::Permuted), in_index(DType::Int32, {3, 2}, 4)},
           {{Attr::axis, int64_t{-1}}, {Attr::value, NAN}}));
  out.push_back(make(Op::scatter_value,
                     {in(DType::Float32, {0, 3}), in_index(DType::Int64, {0, 3}, 1)},
                     {{Attr::axis, int64_t{0}}, {Attr::value, 1.0}}));
  out.push_back(make(Op::scatter_value,
                     {in(DType::Float32, {3}), in_values(DType::Int64, {2}, {0, -4})},
                     {{Attr::axis, int64_t{0}}, {Attr::value, 1.0}}, ErrorCode::Shape));
}

void add_index_put_rows(std::vector<Case>& out) {
  const Attrs acc{{Attr::accumulate, true}};
  for (DType t : kAllDTypes) {
    for (const Attrs& a : {Attrs{}, acc}) {
      // Duplicate rows (index values drawn from [-4, 4) for a size-4 axis).
      Case c =
          make(Op::index_put, {in(t, {4, 3}), in(t, {6, 3}), in_index(DType::Int64, {6}, 4)}, a);
      c.accuracy = Accuracy::Accumulated;
      if (t == DType::Bool && a.has(Attr::accumulate)) c.error = ErrorCode::DType;
      out.push_back(std::move(c));
      // A bool mask over the leading axis, values broadcast from one row.
      Case m = make(Op::index_put,
                    {in(t, {4, 3}), in(t, {3}), in_values(DType::Bool, {4}, {1, 0, 1, 1})}, a);
      m.accuracy = Accuracy::Accumulated;
      if (t == DType::Bool && a.has(Attr::accumulate)) m.error = ErrorCode::DType;
      out.push_back(std::move(m));
    }
  }
  for (DType t : {DType::Int32, DType::Float16, DType::Float64}) {
    for (const Attrs& a : {Attrs{}, acc}) {
      for (const std::vector<InputSpec>& ins : std::vector<std::vector<InputSpec>>{
               // Two broadcast index tensors (a 2x3 grid of points) on a permuted x.
               {in(t, {4, 5}, Layout::Permuted), in(t, {2, 3}), in_index(DType::Int32, {2, 1}, 4),
                in_index(DType::Int64, {3}, 5)},
               // Scalar value, 0-d index.
               {in(t, {4, 5}), in(t, {}), in_index(DType::Int64, {}, 4)},
               // Full-rank mask, values one per selected element (count known only at run).
               {in(t, {2, 3}), in(t, {4}), in_values(DType::Bool, {2, 3}, {1, 0, 1, 0, 1, 1})},
               // All-false mask with a scalar value; empty x; empty index.
               {in(t, {2, 3}), in(t, {}), in_values(DType::Bool, {2, 3}, {0})},
               {in(t, {0, 3}), in(t, {3}), in_index(DType::Int64, {0}, 1)},
               {in(t, {4, 3}), in(t, {0, 3}), in_index(DType::Int64, {0}, 4)},
               // 0-d x with a 0-d mask.
               {in(t, {}), in(t, {}), in_values(DType::Bool, {}, {1})},
               {in(t, {3}), in(t, {3}, Layout::Contiguous, Values::Special),
                in_values(DType::Int64, {3}, {2, 0, 1})}}) {
        Case c = make(Op::index_put, ins, a);
        c.accuracy = Accuracy::Accumulated;
        out.push_back(std::move(c));
      }
    }
  }
  // Errors: out of range (at run), float index, too many indices, values that do not fit,
  // mask of the wrong shape, a mask mixed with an integer index, a count mismatch at run.
  out.push_back(
      make(Op::index_put,
           {in(DType::Float32, {3}), in(DType::Float32, {}), in_values(DType::Int64, {1}, {3})}, {},
           ErrorCode::Shape));
  out.push_back(
      make(Op::index_put,
           {in(DType::Float32, {3}), in(DType::Float32, {}), in_values(DType::Int64, {1}, {-4})},
           {}, ErrorCode::Shape));
  out.push_back(make(Op::index_put,
                     {in(DType::Float32, {3}), in(DType::Float32, {}), in(DType::Float32, {1})}, {},
                     ErrorCode::DType));
  out.push_back(make(Op::index_put,
                     {in(DType::Float32, {3}), in(DType::Float32, {}),
                      in_index(DType::Int64, {1}, 3), in_index(DType::Int64, {1}, 3)},
                     {}, ErrorCode::Shape));
  out.push_back(
      make(Op::index_put,
           {in(DType::Float32, {4, 3}), in(DType::Float32, {2, 2}), in_index(DType::Int64, {2}, 4)},
           {}, ErrorCode::Shape));
  out.push_back(make(Op::index_put,
                     {in(DType::Float32, {4, 3}), in(DType::Float32, {}), in(DType::Bool, {3})}, {},
                     ErrorCode::Shape));
  out.push_back(make(Op::index_put,
                     {in(DType::Float32, {4, 3}), in(DType::Float32, {}), in(DType::Bool, {4}),
                      in_index(DType::Int64, {1}, 3)},
                     {}, ErrorCode::Unsupported));
  out.push_back(make(
      Op::index_put,
      {in(DType::Float32, {4}), in(DType::Float32, {3}), in_values(DType::Bool, {4}, {1, 0, 0, 1})},
      {}, ErrorCode::Shape));  // 2 selected, 3 values: at run time
}

void add_unfold_rows(std::vector<Case>& out) {
  auto a = [](int64_t axis, int64_t size, int64_t step) {
    return Attrs{{Attr::axis, axis}, {Attr::length, size}, {Attr::step, step}};
  };
  for (DType t : kAllDTypes) out.push_back(make(Op::unfold, {in(t, {3, 7})}, a(1, 3, 2)));
  for (DType t : {DType::Int32, DType::Float16, DType::Float64}) {
    out.push_back(make(Op::unfold, {in(t, {6, 4}, Layout::Permuted)}, a(0, 2, 1)));
    out.push_back(make(Op::unfold, {in(t, {2, 9, 3}, Layout::Strided)}, a(-2, 4, 3)));
    out.push_back(make(Op::unfold, {in(t, {5})}, a(0, 5, 1)));
    out.push_back(make(Op::unfold, {in(t, {5})}, a(0, 0, 2)));
    out.push_back(make(Op::unfold, {in(t, {0, 3})}, a(1, 2, 1)));
    out.push_back(make(Op::unfold, {in(t, {})}, a(0, 1, 1)));
    out.push_back(make(Op::unfold, {in(t, {})}, a(0, 0, 1)));
  }
  out.push_back(make(Op::unfold, {in(DType::Float32, {4})}, a(0, 5, 1), ErrorCode::Shape));
  out.push_back(make(Op::unfold, {in(DType::Float32, {4})}, a(0, 2, 0), ErrorCode::Shape));
  out.push_back(make(Op::unfold, {in(DType::Float32, {4})}, a(1, 2, 1), ErrorCode::Shape));
}

void add_data_dependent_rows(std::vector<Case>& out) {
  for (DType t : kAllDTypes) {
    out.push_back(make(Op::nonzero, {in(t, {3, 4}, Layout::Contiguous, Values::Halves)}));
    out.push_back(make(Op::flatnonzero, {in(t, {3, 4}, Layout::Contiguous, Values::Halves)}));
    out.push_back(make(Op::masked_select, {in(t, {3, 4}), in(DType::Bool, {3, 4})}));
    for (uint32_t o = 0; o < 4; ++o) {  // unique: values, indices, inverse_indices, counts
      Case c = make(Op::unique, {in(t, {4, 5}, Layout::Contiguous, Values::Halves)});
      c.output = o;
      out.push_back(std::move(c));
    }
    out.push_back(make(Op::repeat_interleave_tensor,
                       {in(t, {3, 2}), in_values(DType::Int64, {3}, {2, 0, 3})},
                       {{Attr::axis, int64_t{0}}}));
  }
  for (DType t : {DType::Int32, DType::Float16, DType::Float64}) {
    // nonzero, flatnonzero and each of unique's four outputs (Special values: NaNs, +-0, +-inf)
    const std::pair<Op, uint32_t> ops[] = {{Op::nonzero, 0}, {Op::flatnonzero, 0}, {Op::unique, 0},
                                           {Op::unique, 1},  {Op::unique, 2},      {Op::unique, 3}};
    for (auto [op, o] : ops) {
      const auto row = [&, op = op, o = o](std::vector<InputSpec> inputs) {
        Case c = make(op, std::move(inputs));
        c.output = o;
        out.push_back(std::move(c));
      };
      row({in_values(t, {2, 3}, {0})});  // all zero: nonzero is (0, 2)
      row({in(t, {0, 3})});
      row({in_values(t, {}, {5})});
      row({in_values(t, {}, {0})});
      row({in(t, {4, 3}, Layout::Permuted, Values::Halves)});
      row({in(t, {2, 3, 4}, Layout::Mixed, Values::Special)});
      // 64 elements or more: unique sorts by radix and groups by the sorted keys.
      row({in(t, {6, 15}, Layout::Contiguous, Values::Special)});
      row({in(t, {9, 10}, Layout::Contiguous, Values::Halves)});
    }
    out.push_back(make(Op::masked_select, {in(t, {3, 4}, Layout::Permuted), in(DType::Bool, {4})}));
    out.push_back(make(Op::masked_select, {in(t, {4}), in(DType::Bool, {3, 1})}));
    out.push_back(make(Op::masked_select, {in(t, {}), in(DType::Bool, {})}));
    out.push_back(make(Op::masked_select, {in(t, {0, 4}), in(DType::Bool, {4})}));
    out.push_back(
        make(Op::repeat_interleave_tensor, {in(t, {2, 3}), in_values(DType::Int32, {}, {2})}));
    out.push_back(make(Op::repeat_interleave_tensor,
                       {in(t, {2, 3}, Layout::Permuted), in_values(DType::Int64, {3}, {1, 0, 2})},
                       {{Attr::axis, int64_t{-1}}}));
    out.push_back(make(Op::repeat_interleave_tensor,
                       {in(t, {2, 3}), in_values(DType::Int64, {2}, {0, 0})},
                       {{Attr::axis, int64_t{0}}}));
    out.push_back(
        make(Op::repeat_interleave_tensor, {in(t, {}), in_values(DType::Int64, {1}, {3})}));
  }
  // Errors: a non-bool mask, shapes that do not broadcast, float or negative repeats, a
  // repeats length that matches nothing.
  out.push_back(make(Op::masked_select, {in(DType::Float32, {3}), in(DType::Int32, {3})}, {},
                     ErrorCode::DType));
  out.push_back(make(Op::masked_select, {in(DType::Float32, {3}), in(DType::Bool, {4})}, {},
                     ErrorCode::Shape));
  out.push_back(make(Op::repeat_interleave_tensor,
                     {in(DType::Float32, {3}), in(DType::Float32, {3})}, {}, ErrorCode::DType));
  out.push_back(make(Op::repeat_interleave_tensor,
                     {in(DType::Float32, {3}), in_values(DType::Int64, {3}, {1, -1, 2})}, {},
                     ErrorCode::Shape));
  out.push_back(make(Op::repeat_interleave_tensor, {in(DType::Float32, {3}), in(DType::Int64, {2})},
                     {}, ErrorCode::Shape));
}

}  // namespace

void add_index_more_cases(std::vector<Case>& out) {
  add_search_rows(out);
  add_scatter_reduce_rows(out);
  add_index_put_rows(out);
  add_unfold_rows(out);
  add_data_dependent_rows(out);
}

}  // namespace tensord::conformance
