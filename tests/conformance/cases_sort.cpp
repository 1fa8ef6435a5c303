// Table rows for sorting (issue 4): sort and argsort over every dtype, axes, layouts, ties
// (Values::Halves: stability), NaN/inf/-0.0 (Values::Special), both directions; quantile and
// nanquantile with 0-d and 1-d q, every interpolation, keepdim, empty lines, NaN lines; median
// and nanmedian of all elements; the errors (0-d, axis out of range, integer input, q out of
// [0, 1] at run time).
#include <cmath>
#include <optional>

#include "tests/conformance/case.h"
#include "tests/conformance/sweep.h"

namespace tensord::conformance {

using ir::Attr;
using ir::Attrs;
using ir::Op;

namespace {

Case make(Op op, std::vector<InputSpec> inputs, Attrs attrs, Accuracy accuracy = Accuracy::Exact) {
  Case c;
  c.op = op;
  c.inputs = std::move(inputs);
  c.attrs = std::move(attrs);
  c.accuracy = accuracy;
  return c;
}

void add_sort_rows(std::vector<Case>& out) {
  struct Input {
    Shape shape;
    int64_t axis;
    Layout layout = Layout::Contiguous;
    Values values = Values::Halves;
  };
  const std::vector<Input> inputs = {
      {{7}, -1},
      {{33}, 0, Layout::Contiguous, Values::Mixed},
      {{3, 5}, 0},
      {{3, 5}, 1, Layout::Contiguous, Values::Mixed},
      {{2, 3, 4, 5}, 2},
      {{4, 0, 3}, 1},
      {{4, 0, 3}, 2},
      {{0}, 0},
      {{1}, -1},
      {{5, 7}, 1, Layout::Permuted},
      {{5, 7}, 0, Layout::Reversed, Values::Mixed},
      {{3, 4, 9}, -1, Layout::Mixed},
      {{67}, 0, Layout::Contiguous, Values::Special},
      {{5, 13}, 1, Layout::Permuted, Values::Special},
      {big_shape(), 1, Layout::Contiguous, Values::Halves},
      {big_shape(), 0, Layout::Contiguous, Values::Mixed},
  };
  for (Op op : {Op::sort, Op::argsort}) {
    for (DType t : kAllDTypes) {
      for (const Input& i : inputs) {
        for (bool descending : {false, true}) {
          out.push_back(make(op, {in(t, i.shape, i.layout, i.values)},
                             {{Attr::axis, i.axis}, {Attr::descending, descending}}));
        }
      }
      // stable = false may order ties either way; values are the same (no ties in argsort rows
      // of Positive floats... integers tie, so only sort's values are checked).
      out.push_back(make(Op::sort, {in(t, {5, 7}, Layout::Contiguous, Values::Mixed)},
                         {{Attr::axis, int64_t{1}}, {Attr::stable, false}}));
      Case zero_d = make(op, {in(t, {})}, {});
      zero_d.error = ErrorCode::Shape;
      out.push_back(std::move(zero_d));
      Case bad_axis = make(op, {in(t, {3, 4})}, {{Attr::axis, int64_t{2}}});
      bad_axis.error = ErrorCode::Shape;
      out.push_back(std::move(bad_axis));
    }
    // -0.0 and 0.0 are equal: stable order keeps them as they came.
    for (DType t : kFloatDTypes) {
      Case c = make(op, {in_values(t, {8}, {0.0, -0.0, 1.0, -0.0, 0.0, NAN, -INFINITY, INFINITY})},
                    {{Attr::descending, true}});
      c.note = "signed zeros";
      out.push_back(c);
      c.attrs = {};
      out.push_back(std::move(c));
      // The same past engine/backends/cpu/radix_sort.h's kRadixMinLine, in two lines.
      Case long_line = make(
          op, {in_values(t, {2, 131}, {0.0, -0.0, 1.0, -0.0, 0.0, NAN, -INFINITY, INFINITY, -2.5})},
          {{Attr::axis, int64_t{1}}});
      long_line.note = "signed zeros, radix";
      out.push_back(long_line);
      long_line.attrs.set(Attr::descending, true);
      out.push_back(std::move(long_line));
    }
    // Integers of every width around the sign bit, in lines long enough for the radix sort.
    for (DType t :
         {DType::Int8, DType::UInt8, DType::Int16, DType::Int32, DType::Int64, DType::Bool}) {
      for (bool descending : {false, true}) {
        Case c = make(op, {in(t, {3, 97}, Layout::Contiguous, Values::Special)},
                      {{Attr::axis, int64_t{-1}}, {Attr::descending, descending}});
        c.note = "radix";
        out.push_back(std::move(c));
      }
    }
  }
}

// sort's indices (output 1) over the same rows as its values, but for stable = false (ties may
// come in any order there).
void add_sort_index_rows(std::vector<Case>& out) {
  const size_t n = out.size();
  for (size_t i = 0; i < n; ++i) {
    if (out[i].op != Op::sort || !out[i].attrs.get_bool(Attr::stable, true)) continue;
    Case c = out[i];
    c.output = 1;
    out.push_back(std::move(c));
  }
}

// topk, kthvalue, median_axis, nanmedian_axis, mode, cummax, cummin: each row for output 0
// (values) and output 1 (indices).
void add_values_indices_rows(std::vector<Case>& out) {
  struct Row {
    Op op;
    Attrs attrs;
    InputSpec (*input)(DType);
    std::optional<ErrorCode> error = std::nullopt;
    bool floats_only = false;
  };
  using A = Attrs;
  const std::vector<Row> rows = {
      {Op::topk, A{{Attr::k, int64_t{3}}, {Attr::axis, int64_t{1}}},
       [](DType t) {
         return in(t, {5, 7}, Layout::Contiguous, Values::Halves);
       }},
      {Op::topk, A{{Attr::k, int64_t{7}}, {Attr::largest, false}},
       [](DType t) {
         return in(t, {5, 7}, Layout::Permuted, Values::Halves);
       }},
      {Op::topk, A{{Attr::k, int64_t{0}}, {Attr::axis, int64_t{0}}},
       [](DType t) {
         return in(t, {5, 7});
       }},
      {Op::topk, A{{Attr::k, int64_t{10}}, {Attr::sorted, false}},
       [](DType t) { return in(t, {67}, Layout::Contiguous, Values::Special); }},
      {Op::topk, A{{Attr::k, int64_t{40}}, {Attr::sorted, false}, {Attr::largest, false}},
       [](DType t) { return in(t, {67}, Layout::Contiguous, Values::Halves); }},
      {Op::topk, A{{Attr::k, int64_t{4}}, {Attr::axis, int64_t{0}}, {Attr::sorted, false}},
       [](DType t) {
         return in(t, {5, 7}, Layout::Permuted, Values::Halves);
       }},
      {Op::topk, A{{Attr::k, int64_t{5}}, {Attr::axis, int64_t{1}}},
       [](DType t) { return in(t, big_shape(), Layout::Contiguous, Values::Mixed); }},
      {Op::topk, A{{Attr::k, int64_t{8}}, {Attr::axis, int64_t{1}}},
       [](DType t) {
         return in(t, {5, 7});
       },
       ErrorCode::Shape},
      {Op::kthvalue, A{{Attr::k, int64_t{1}}},
       [](DType t) {
         return in(t, {5, 7}, Layout::Contiguous, Values::Halves);
       }},
      {Op::kthvalue, A{{Attr::k, int64_t{4}}, {Attr::axis, int64_t{0}}, {Attr::keepdim, true}},
       [](DType t) {
         return in(t, {5, 7}, Layout::Reversed, Values::Halves);
       }},
      {Op::kthvalue, A{{Attr::k, int64_t{30}}},
       [](DType t) { return in(t, {67}, Layout::Contiguous, Values::Special); }},
      {Op::kthvalue, A{{Attr::k, int64_t{0}}},
       [](DType t) {
         return in(t, {5, 7});
       },
       ErrorCode::Shape},
      {Op::median_axis, A{{Attr::axis, int64_t{1}}},
       [](DType t) {
         return in(t, {5, 7}, Layout::Contiguous, Values::Halves);
       }},
      {Op::median_axis, A{{Attr::axis, int64_t{0}}, {Attr::keepdim, true}},
       [](DType t) {
         return in(t, {6, 4}, Layout::Permuted);
       }},
      {Op::median_axis, A{{Attr::axis, int64_t{1}}},
       [](DType t) {
         return in(t, {5, 13}, Layout::Contiguous, Values::Special);
       }},
      {Op::median_axis, A{{Attr::axis, int64_t{2}}},
       [](DType t) {
         return in(t, {4, 0, 3});
       }},
      {Op::median_axis, A{{Attr::axis, int64_t{1}}},
       [](DType t) {
         return in(t, {3, 0});
       },
       ErrorCode::Shape},
      {Op::nanmedian_axis, A{{Attr::axis, int64_t{1}}},
       [](DType t) {
         return in(t, {5, 13}, Layout::Contiguous, Values::Special);
       }},
      {Op::nanmedian_axis, A{{Attr::axis, int64_t{1}}},
       [](DType t) {
         return in_values(t, {3, 4}, {1.0, NAN, 3.0, 2.0, NAN, NAN, NAN, NAN, 4.0, 0.5, NAN, 0.5});
       },
       std::nullopt, true},
      {Op::median_axis, A{{Attr::axis, int64_t{1}}},
       [](DType t) {
         return in_values(t, {3, 4}, {1.0, NAN, 3.0, NAN, NAN, NAN, NAN, NAN, 4.0, 0.5, 2.0, 0.5});
       },
       std::nullopt, true},
      {Op::mode, A{{Attr::axis, int64_t{1}}},
       [](DType t) {
         return in(t, {6, 9}, Layout::Contiguous, Values::Halves);
       }},
      {Op::mode, A{{Attr::axis, int64_t{0}}, {Attr::keepdim, true}},
       [](DType t) {
         return in(t, {33, 2}, Layout::Permuted, Values::Halves);
       }},
      {Op::mode, A{}, [](DType t) { return in(t, {67}, Layout::Contiguous, Values::Special); }},
      {Op::mode, A{},
       [](DType t) {
         return in_values(t, {8}, {NAN, 2.0, NAN, 1.0, 2.0, NAN, 1.0, 2.0});
       },
       std::nullopt, true},
      {Op::cummax, A{{Attr::axis, int64_t{1}}},
       [](DType t) {
         return in(t, {5, 7}, Layout::Contiguous, Values::Halves);
       }},
      {Op::cummax, A{{Attr::axis, int64_t{0}}},
       [](DType t) {
         return in(t, {3, 4, 9}, Layout::Mixed);
       }},
      {Op::cummax, A{{Attr::axis, int64_t{0}}},
       [](DType t) { return in(t, {67}, Layout::Contiguous, Values::Special); }},
      {Op::cummax, A{{Attr::axis, int64_t{1}}},
       [](DType t) { return in(t, big_shape(), Layout::Contiguous, Values::Halves); }},
      {Op::cummax, A{{Attr::axis, int64_t{0}}},
       [](DType t) {
         return in(t, {0, 3});
       }},
      {Op::cummin, A{{Attr::axis, int64_t{1}}},
       [](DType t) {
         return in(t, {5, 7}, Layout::Reversed, Values::Halves);
       }},
      {Op::cummin, A{{Attr::axis, int64_t{0}}},
       [](DType t) { return in(t, {67}, Layout::Contiguous, Values::Special); }},
      {Op::cummin, A{{Attr::axis, int64_t{-1}}},
       [](DType t) {
         return in_values(t, {6}, {3.0, NAN, 1.0, NAN, -1.0, 0.5});
       },
       std::nullopt, true},
      {Op::cummin, A{}, [](DType t) { return in(t, {3}); }, ErrorCode::InvalidGraph},
      {Op::mode, A{}, [](DType t) { return in(t, {}); }, ErrorCode::Shape},
  };
  for (const Row& r : rows) {
    for (uint32_t output : {0u, 1u}) {
      for (DType t : kAllDTypes) {
        if (r.floats_only && !ir::is_floating(t)) continue;
        Case c = make(r.op, {r.input(t)}, r.attrs);
        c.output = output;
        c.error = r.error;
        out.push_back(std::move(c));
      }
    }
  }
}

void add_quantile_rows(std::vector<Case>& out) {
  const InputSpec q4 = in_values(DType::Float64, {5}, {0.0, 0.25, 0.5, 0.9, 1.0});
  for (Op op : {Op::quantile, Op::nanquantile}) {
    for (DType t : kFloatDTypes) {
      const InputSpec q0 = in_values(t, {}, {0.3});
      const InputSpec qt = in_values(t, {3}, {0.1, 0.5, 0.75});
      auto add = [&](std::vector<InputSpec> inputs, Attrs attrs) {
        // Transcendental, not Rounded: the kernel's lerp may be contracted to an fma (one
        // rounding fewer than the reference's).
        out.push_back(make(op, std::move(inputs), std::move(attrs), Accuracy::Transcendental));
      };
      add({in(t, {7}), q0}, {});
      add({in(t, {33}), qt}, {{Attr::keepdim, true}});
      add({in(t, {3, 5}), q4}, {});
      add({in(t, {3, 5}), q0}, {{Attr::axis, int64_t{1}}});
      add({in(t, {3, 5}), qt}, {{Attr::axis, int64_t{0}}, {Attr::keepdim, true}});
      add({in(t, {2, 3, 4}, Layout::Permuted), qt}, {{Attr::axis, int64_t{-1}}});
      add({in(t, {5, 7}, Layout::Reversed, Values::Halves), q4}, {{Attr::axis, int64_t{1}}});
      add({in(t, {67}, Layout::Contiguous, Values::Special), qt}, {});
      add({in(t, {5, 13}, Layout::Permuted, Values::Special), q4}, {{Attr::axis, int64_t{1}}});
      add({in(t, {0}), qt}, {});
      add({in(t, {2, 0}), q0}, {{Attr::axis, int64_t{1}}});
      add({in(t, {0, 3}), q0}, {{Attr::axis, int64_t{1}}});
      add({in(t, {}), q4}, {});
      add({in(t, {}), q0}, {{Attr::axis, int64_t{0}}});  // 0-d has no axis: Shape error
      add({in(t, {4, 3}), in_values(t, {0}, {})}, {{Attr::axis, int64_t{0}}});
      add({in(t, big_shape()), qt}, {{Attr::axis, int64_t{1}}});
      for (int64_t mode = 1; mode <= 4; ++mode) {
        add({in(t, {6, 9}, Layout::Contiguous, Values::Halves), q4},
            {{Attr::axis, int64_t{1}}, {Attr::interpolation, mode}});
        add({in(t, {10}), in_values(t, {4}, {0.05, 0.5, 0.45, 1.0 / 6})},
            {{Attr::interpolation, mode}});
      }
      Case nan_line =
          make(op,
               {in_values(t, {3, 4},
                          {1.0, NAN, 3.0, 2.0, NAN, NAN, NAN, NAN, 4.0, INFINITY, -INFINITY, 0.0}),
                q4},
               {{Attr::axis, int64_t{1}}}, Accuracy::Transcendental);
      nan_line.note = "NaN lines";
      out.push_back(std::move(nan_line));
    }
    // Errors: integer input, integer q, q of rank 2, a bad interpolation, q outside [0, 1] or
    // NaN (at run time).
    Case c = make(op, {in(DType::Int32, {5}), in_values(DType::Float32, {}, {0.5})}, {});
    c.error = ErrorCode::DType;
    out.push_back(c);
    c.inputs = {in(DType::Float32, {5}), in_values(DType::Int64, {}, {0})};
    out.push_back(c);
    c.inputs = {in(DType::Float32, {5}), in_values(DType::Float32, {1, 1}, {0.5})};
    c.error = ErrorCode::Shape;
    out.push_back(c);
    c.inputs = {in(DType::Float32, {5}), in_values(DType::Float32, {}, {0.5})};
    c.attrs = {{Attr::interpolation, int64_t{5}}};
    out.push_back(c);
    c.attrs = {};
    for (double bad : {1.5, -0.25, static_cast<double>(NAN)}) {
      c.inputs = {in(DType::Float32, {5}), in_values(DType::Float32, {2}, {0.5, bad})};
      out.push_back(c);
    }
  }
}

void add_median_rows(std::vector<Case>& out) {
  for (Op op : {Op::median, Op::nanmedian}) {
    for (DType t : kAllDTypes) {
      for (const Shape& s : {Shape{}, Shape{1}, Shape{7}, Shape{8}, Shape{3, 5}, Shape{2, 3, 4, 5}})
        out.push_back(make(op, {in(t, s)}, {}));
      out.push_back(make(op, {in(t, {6, 4}, Layout::Contiguous, Values::Halves)}, {}));
      out.push_back(make(op, {in(t, {5, 7}, Layout::Permuted)}, {}));
      out.push_back(make(op, {in(t, {67}, Layout::Contiguous, Values::Special)}, {}));
      out.push_back(make(op, {in(t, big_shape(), Layout::Mixed)}, {}));
      Case empty = make(op, {in(t, {3, 0})}, {});
      empty.error = ErrorCode::Shape;
      out.push_back(std::move(empty));
    }
    for (DType t : kFloatDTypes) {
      for (const std::vector<double>& v :
           {std::vector<double>{NAN, 1.0, 2.0}, std::vector<double>{NAN, NAN},
            std::vector<double>{3.0, NAN, -INFINITY, 2.0, 5.0}}) {
        Case c = make(op, {in_values(t, {static_cast<int64_t>(v.size())}, v)}, {});
        c.note = "NaN";
        out.push_back(std::move(c));
      }
    }
  }
}

}  // namespace

void add_sort_cases(std::vector<Case>& out) {
  add_sort_rows(out);
  add_sort_index_rows(out);
  add_values_indices_rows(out);
  add_quantile_rows(out);
  add_median_rows(out);
}

}  // namespace tensord::conformance
