// Table rows for issue 4's shape and indexing ops: each on every dtype for a basic shape, then
// 0-d, empty, non-contiguous inputs and attribute variants on a few dtypes, and the errors.
#include "tests/conformance/case.h"
#include "tests/conformance/sweep.h"

namespace tensord::conformance {

using ir::Attr;
using ir::Attrs;
using ir::Op;
using Ints = std::vector<int64_t>;

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

constexpr DType kFew[] = {DType::Bool, DType::Int32, DType::Float16, DType::Float64};

struct Row {
  Op op;
  Shape shape;                  // the every-dtype case
  std::vector<Attrs> variants;  // run on kFew over `more`
  std::vector<Shape> more;
  std::vector<std::pair<Shape, Attrs>> errors;  // Shape errors
};

std::vector<Row> rows() {
  using A = Attrs;
  return {
      {Op::tril,
       {4, 5},
       {{}, A{{Attr::k, int64_t{1}}}, A{{Attr::k, int64_t{-2}}}, A{{Attr::k, int64_t{9}}}},
       {{3, 3}, {2, 3, 4}, {0, 4}, {4, 0}},
       {{{5}, {}}}},
      {Op::triu,
       {4, 5},
       {{}, A{{Attr::k, int64_t{2}}}, A{{Attr::k, int64_t{-1}}}},
       {{3, 3}, {2, 3, 4}, {0, 4}},
       {{{}, {}}}},
      {Op::roll,
       {4, 5},
       {A{{Attr::shifts, Ints{2}}}, A{{Attr::shifts, Ints{-7}}, {Attr::dims, Ints{1}}},
        A{{Attr::shifts, Ints{1, 3}}, {Attr::dims, Ints{0, -1}}},
        A{{Attr::shifts, Ints{2, 2}}, {Attr::dims, Ints{1, 1}}}},
       {{3, 6}, {2, 3, 4}, {0, 4}},
       {{{4}, {{Attr::shifts, Ints{1, 2}}}},
        {{4}, {{Attr::shifts, Ints{1}}, {Attr::dims, Ints{1}}}}}},
      {Op::tile,
       {3, 4},
       {A{{Attr::reps, Ints{2, 3}}}, A{{Attr::reps, Ints{2}}}, A{{Attr::reps, Ints{2, 1, 2}}},
        A{{Attr::reps, Ints{0, 2}}}, A{{Attr::reps, Ints{}}}},
       {{}, {5}, {2, 3}, {0, 2}},
       {{{3}, {{Attr::reps, Ints{-1}}}}}},
      {Op::repeat_interleave,
       {3, 4},
       {A{{Attr::repeats, int64_t{3}}}, A{{Attr::repeats, int64_t{2}}, {Attr::axis, int64_t{0}}},
        A{{Attr::repeats, int64_t{0}}, {Attr::axis, int64_t{-1}}}},
       {{5}, {2, 3}, {0, 2}},
       {{{3}, {{Attr::repeats, int64_t{-1}}}},
        {{}, {{Attr::repeats, int64_t{2}}, {Attr::axis, int64_t{0}}}}}},
      {Op::narrow,
       {6, 5},
       {A{{Attr::axis, int64_t{0}}, {Attr::start, int64_t{1}}, {Attr::length, int64_t{3}}},
        A{{Attr::axis, int64_t{-1}}, {Attr::start, int64_t{-2}}, {Attr::length, int64_t{2}}},
        A{{Attr::axis, int64_t{0}}, {Attr::start, int64_t{5}}, {Attr::length, int64_t{0}}}},
       {{5, 7}, {6, 2, 3}},
       {{{4}, {{Attr::axis, int64_t{0}}, {Attr::start, int64_t{2}}, {Attr::length, int64_t{3}}}},
        {{4}, {{Attr::axis, int64_t{0}}, {Attr::start, int64_t{-5}}, {Attr::length, int64_t{1}}}}}},
      {Op::rot90,
       {3, 4},
       {{},
        A{{Attr::k, int64_t{2}}},
        A{{Attr::k, int64_t{3}}},
        A{{Attr::k, int64_t{-1}}},
        A{{Attr::k, int64_t{4}}},
        A{{Attr::k, int64_t{1}}, {Attr::dims, Ints{2, 0}}}},
       {{2, 3, 4}, {0, 3, 2}},
       {{{3}, {}}, {{3, 4}, {{Attr::dims, Ints{1, 1}}}}}},
      {Op::diagonal,
       {4, 5},
       {{},
        A{{Attr::k, int64_t{1}}},
        A{{Attr::k, int64_t{-2}}},
        A{{Attr::k, int64_t{7}}},
        A{{Attr::k, int64_t{-1}}, {Attr::dims, Ints{2, 0}}}},
       {{3, 4, 5}, {5, 3}, {0, 3, 2}},
       {{{3}, {}}}},
      {Op::diag_embed,
       {3, 4},
       {{}, A{{Attr::k, int64_t{2}}}, A{{Attr::k, int64_t{-1}}}},
       {{5}, {2, 3, 2}, {0, 3}, {4, 0}},
       {{{}, {}}}},
      {Op::diag,
       {5},
       {{}, A{{Attr::k, int64_t{1}}}, A{{Attr::k, int64_t{-3}}}},
       {{4}, {3, 4}, {4, 3}, {0}},
       {{{}, {}}, {{2, 3, 4}, {}}}},
  };
}

void add_table_rows(std::vector<Case>& out) {
  for (const Row& row : rows()) {
    for (DType t : kAllDTypes) out.push_back(make(row.op, {in(t, row.shape)}, row.variants[0]));
    for (DType t : kFew) {
      for (const Attrs& v : row.variants) {
        const Layout strided = row.shape.size() >= 2 ? Layout::Permuted : Layout::Reversed;
        out.push_back(make(row.op, {in(t, row.shape, strided)}, v));
        for (const Shape& s : row.more) {
          // Attributes that do not fit a shape's rank (dims, axes) are error rows.
          Case c = make(row.op, {in(t, s)}, v);
          out.push_back(std::move(c));
        }
      }
    }
    for (const auto& [s, a] : row.errors) {
      out.push_back(make(row.op, {in(DType::Float32, s)}, a, ErrorCode::Shape));
    }
    out.push_back(make(row.op, {in(DType::Float32, big_shape())}, row.variants[0]));
  }
}

void add_indexed_rows(std::vector<Case>& out) {
  for (DType t : kAllDTypes) {
    out.push_back(make(Op::take, {in(t, {4, 5}), in_index(DType::Int64, {3, 2}, 20)}));
    out.push_back(make(Op::take_along_dim, {in(t, {4, 5}), in_index(DType::Int64, {4, 3}, 5)},
                       {{Attr::axis, int64_t{1}}}));
    out.push_back(
        make(Op::masked_fill, {in(t, {4, 5}), in(DType::Bool, {5})}, {{Attr::value, -2.5}}));
  }
  for (DType t : kFew) {
    out.push_back(make(Op::take, {in(t, {}), in_index(DType::Int32, {4}, 1)}));
    out.push_back(make(Op::take, {in(t, {3, 4}, Layout::Permuted), in_index(DType::Int8, {}, 12)}));
    out.push_back(make(Op::take, {in(t, {3, 4}), in_index(DType::Int64, {0, 3}, 12)}));
    out.push_back(make(Op::take_along_dim, {in(t, {4, 5}), in_index(DType::Int64, {2, 3}, 20)}));
    out.push_back(make(Op::take_along_dim, {in(t, {4, 1, 5}), in_index(DType::Int64, {1, 3, 2}, 5)},
                       {{Attr::axis, int64_t{-1}}}));
    out.push_back(make(Op::take_along_dim,
                       {in(t, {4, 5}, Layout::Reversed), in_index(DType::Int32, {6, 5}, 4)},
                       {{Attr::axis, int64_t{0}}}));
    out.push_back(make(Op::masked_fill, {in(t, {3, 4}, Layout::Strided), in(DType::Bool, {3, 1})},
                       {{Attr::value, int64_t{7}}}));
    out.push_back(make(Op::masked_fill, {in(t, {}), in(DType::Bool, {})}, {{Attr::value, true}}));
    out.push_back(
        make(Op::masked_fill, {in(t, {0, 4}), in(DType::Bool, {4})}, {{Attr::value, 1.0}}));
  }
  for (DType t : {DType::Int64, DType::Int32, DType::UInt8}) {
    out.push_back(make(Op::one_hot, {in_index(t, {6}, 4)}, {{Attr::n, int64_t{4}}}));
    out.push_back(make(Op::one_hot, {in_index(t, {2, 3}, 5)}, {{Attr::n, int64_t{5}}}));
    out.push_back(make(Op::one_hot, {in_index(t, {}, 3)}, {{Attr::n, int64_t{3}}}));
    out.push_back(make(Op::one_hot, {in_index(t, {0}, 3)}, {{Attr::n, int64_t{0}}}));
  }
  out.push_back(
      make(Op::one_hot, {in(DType::Float32, {3})}, {{Attr::n, int64_t{3}}}, ErrorCode::DType));
  out.push_back(make(Op::one_hot, {in_index(DType::Int64, {3}, 2)}, {{Attr::n, int64_t{-1}}},
                     ErrorCode::Shape));
  out.push_back(
      make(Op::take, {in(DType::Float32, {3}), in(DType::Float32, {2})}, {}, ErrorCode::DType));
  out.push_back(make(Op::take, {in(DType::Float32, {3}), in_values(DType::Int64, {2}, {0, 3})}, {},
                     ErrorCode::Shape));
  out.push_back(make(Op::take_along_dim,
                     {in(DType::Float32, {3, 4}), in_index(DType::Int64, {3}, 2)},
                     {{Attr::axis, int64_t{0}}}, ErrorCode::Shape));
  out.push_back(make(Op::masked_fill, {in(DType::Float32, {3}), in(DType::Int32, {3})},
                     {{Attr::value, 1.0}}, ErrorCode::DType));
  out.push_back(make(Op::masked_fill, {in(DType::Float32, {3}), in(DType::Bool, {2, 3})},
                     {{Attr::value, 1.0}}, ErrorCode::Shape));
}

void add_scatter_rows(std::vector<Case>& out) {
  const Attrs axis0{{Attr::axis, int64_t{0}}}, axis1{{Attr::axis, int64_t{1}}};
  for (Op op : {Op::scatter, Op::scatter_add}) {
    for (DType t : kAllDTypes) {
      Case c = make(op, {in(t, {4, 5}), in_index(DType::Int64, {3, 5}, 4), in(t, {3, 6})}, axis0);
      c.accuracy = Accuracy::Accumulated;
      if (op == Op::scatter_add && t == DType::Bool) c.error = ErrorCode::DType;
      out.push_back(std::move(c));
    }
    for (DType t : {DType::Int32, DType::Float16, DType::Float64}) {
      for (const std::vector<InputSpec>& ins : std::vector<std::vector<InputSpec>>{
               {in(t, {3, 4}, Layout::Permuted), in_index(DType::Int32, {3, 6}, 4), in(t, {3, 6})},
               {in(t, {3, 4}), in_values(DType::Int64, {2, 2}, {1, 1, 1, 1}), in(t, {2, 2})},
               {in(t, {0, 4}), in_index(DType::Int64, {0, 4}, 1), in(t, {0, 4})},
               {in(t, {5}), in_index(DType::Int64, {12}, 5), in(t, {12})},
               {in(t, {257, 263}), in_index(DType::Int64, {257, 100}, 263), in(t, {257, 100})}}) {
        Case c = make(op, ins, ins[0].shape.size() == 2 ? axis1 : axis0);
        c.accuracy = Accuracy::Accumulated;
        out.push_back(std::move(c));
      }
    }
    // A middle axis, an index smaller than x off the axis and strided, a strided larger source.
    for (DType t : {DType::Int8, DType::BFloat16, DType::Float32}) {
      InputSpec index = in_index(DType::Int64, {2, 3, 3}, 5);
      index.layout = Layout::Permuted;
      Case c = make(op, {in(t, {3, 5, 4}), index, in(t, {2, 4, 3}, Layout::Reversed)}, axis1);
      c.accuracy = Accuracy::Accumulated;
      out.push_back(std::move(c));
    }
    out.push_back(make(
        op,
        {in(DType::Float32, {3, 4}), in_index(DType::Int64, {3, 5}, 4), in(DType::Float32, {3, 5})},
        axis0, ErrorCode::Shape));  // index wider than x off the axis
    out.push_back(make(
        op, {in(DType::Float32, {3}), in_values(DType::Int64, {1}, {3}), in(DType::Float32, {1})},
        axis0, ErrorCode::Shape));  // out of range at run time
    out.push_back(make(op,
                       {in(DType::Float32, {3}), in(DType::Float32, {1}), in(DType::Float32, {1})},
                       axis0, ErrorCode::DType));
  }
  for (DType t : kAllDTypes) {
    Case c =
        make(Op::index_add, {in(t, {4, 5}), in_index(DType::Int64, {7}, 4), in(t, {7, 5})}, axis0);
    c.accuracy = Accuracy::Accumulated;
    if (t == DType::Bool) c.error = ErrorCode::DType;
    out.push_back(std::move(c));
  }
  for (DType t : {DType::Int16, DType::BFloat16, DType::Float32}) {
    Case c = make(
        Op::index_add,
        {in(t, {4, 5}, Layout::Reversed), in_values(DType::Int32, {3}, {4, -1, 4}), in(t, {4, 3})},
        {{Attr::axis, int64_t{-1}}, {Attr::alpha, 2.0}});
    c.accuracy = Accuracy::Accumulated;
    out.push_back(std::move(c));
  }
  out.push_back(
      make(Op::index_add,
           {in(DType::Float32, {4, 5}), in_index(DType::Int64, {3}, 4), in(DType::Float32, {4, 5})},
           axis0, ErrorCode::Shape));
}

}  // namespace

void add_shape_more_cases(std::vector<Case>& out) {
  add_table_rows(out);
  add_indexed_rows(out);
  add_scatter_rows(out);
}

}  // namespace tensord::conformance
