// Bindings of issue 4's neural-network ops (tensord/ops_nn.h) and the class-weighted losses,
// each taking the Python caller's location. Recording errors become the builtin exception of
// their kind, as in module.cpp (ValueError for shapes and attributes, TypeError for dtypes).
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <optional>
#include <source_location>
#include <vector>

#include "client/python/src/nn_bindings.h"
#include "client/python/src/recording.h"
#include "tensord/client.h"

namespace py = pybind11;

namespace tensord::python {
namespace {

using Loc = std::source_location;
using Opt = std::optional<Tensor>;
using Ints = std::vector<int64_t>;

Tensor get(const Opt& t) {
  return t.value_or(Tensor());
}

}  // namespace

void bind_nn(py::module_& m) {
  m.def("conv", [](int nd, const Tensor& x, const Tensor& w, const Opt& b, Ints stride,
                   Ints padding, Ints dilation, int64_t groups, Loc loc) {
    return recorded([&] {
      switch (nd) {
        case 1:
          return tensord::conv1d(x, w, get(b), stride, padding, dilation, groups, loc);
        case 3:
          return tensord::conv3d(x, w, get(b), stride, padding, dilation, groups, loc);
        default:
          return tensord::conv2d(x, w, get(b), stride, padding, dilation, groups, loc);
      }
    });
  });
  m.def("conv_transpose",
        [](int nd, const Tensor& x, const Tensor& w, const Opt& b, Ints stride, Ints padding,
           Ints output_padding, int64_t groups, Ints dilation, Loc loc) {
          return recorded([&] {
            auto fn = nd == 1   ? &tensord::conv_transpose1d
                      : nd == 3 ? &tensord::conv_transpose3d
                                : &tensord::conv_transpose2d;
            return fn(x, w, get(b), stride, padding, output_padding, groups, dilation, loc);
          });
        });
  // Pools over nd = 1, 2, 3 spatial axes; with indices, a (values, indices) tuple.
  m.def("max_pool",
        [](int nd, const Tensor& x, Ints kernel, Ints stride, Ints padding, Ints dilation,
           bool ceil_mode, bool indices, Loc loc) -> py::object {
          if (indices) {
            auto fn = nd == 1   ? &tensord::max_pool1d_with_indices
                      : nd == 3 ? &tensord::max_pool3d_with_indices
                                : &tensord::max_pool2d_with_indices;
            const ValuesIndices r =
                recorded([&] { return fn(x, kernel, stride, padding, dilation, ceil_mode, loc); });
            return py::make_tuple(r.values, r.indices);
          }
          auto fn = nd == 1   ? &tensord::max_pool1d
                    : nd == 3 ? &tensord::max_pool3d
                              : &tensord::max_pool2d;
          return py::cast(
              recorded([&] { return fn(x, kernel, stride, padding, dilation, ceil_mode, loc); }));
        });
  m.def("avg_pool",
        [](int nd, const Tensor& x, Ints kernel, Ints stride, Ints padding, bool ceil_mode,
           bool count_include_pad, std::optional<int64_t> divisor, Loc loc) {
          auto fn = nd == 1   ? &tensord::avg_pool1d
                    : nd == 3 ? &tensord::avg_pool3d
                              : &tensord::avg_pool2d;
          return recorded([&] {
            return fn(x, kernel, stride, padding, ceil_mode, count_include_pad, divisor, loc);
          });
        });
  m.def("adaptive_avg_pool", [](int nd, const Tensor& x, Ints size, Loc loc) {
    auto fn = nd == 1   ? &tensord::adaptive_avg_pool1d
              : nd == 3 ? &tensord::adaptive_avg_pool3d
                        : &tensord::adaptive_avg_pool2d;
    return recorded([&] { return fn(x, size, loc); });
  });
  m.def("adaptive_max_pool",
        [](int nd, const Tensor& x, Ints size, bool indices, Loc loc) -> py::object {
          if (indices) {
            auto fn = nd == 1   ? &tensord::adaptive_max_pool1d_with_indices
                      : nd == 3 ? &tensord::adaptive_max_pool3d_with_indices
                                : &tensord::adaptive_max_pool2d_with_indices;
            const ValuesIndices r = recorded([&] { return fn(x, size, loc); });
            return py::make_tuple(r.values, r.indices);
          }
          auto fn = nd == 1   ? &tensord::adaptive_max_pool1d
                    : nd == 3 ? &tensord::adaptive_max_pool3d
                              : &tensord::adaptive_max_pool2d;
          return py::cast(recorded([&] { return fn(x, size, loc); }));
        });
  m.def("max_unpool", [](int nd, const Tensor& x, const Tensor& indices, Ints kernel, Ints stride,
                         Ints padding, Ints output_size, Loc loc) {
    auto fn = nd == 1   ? &tensord::max_unpool1d
              : nd == 3 ? &tensord::max_unpool3d
                        : &tensord::max_unpool2d;
    return recorded([&] { return fn(x, indices, kernel, stride, padding, output_size, loc); });
  });
  m.def("interpolate", [](const Tensor& x, Ints size, int64_t mode, std::optional<bool> corners,
                          std::vector<double> scales, bool antialias, Loc loc) {
    return recorded([&] {
      return tensord::interpolate(x, size, static_cast<InterpolateMode>(mode), corners,
                                  std::move(scales), antialias, loc);
    });
  });
  m.def("linear", [](const Tensor& x, const Tensor& w, const Opt& b, Loc loc) {
    return recorded([&] { return tensord::linear(x, w, get(b), loc); });
  });
  m.def("embedding", [](const Tensor& idx, const Tensor& w, Loc loc) {
    return recorded([&] { return tensord::embedding(idx, w, loc); });
  });
  m.def("embedding_max_norm",
        [](const Tensor& idx, const Tensor& w, double max_norm, double norm_type, Loc loc) {
          Tensor table = w;
          Tensor rows =
              recorded([&] { return tensord::embedding(idx, table, max_norm, norm_type, loc); });
          return py::make_tuple(rows, table);
        });
  m.def("rms_norm",
        [](const Tensor& x, int64_t nd, const Opt& w, std::optional<double> eps, Loc loc) {
          return recorded([&] { return tensord::rms_norm(x, nd, get(w), eps, loc); });
        });
  m.def("batch_norm", [](const Tensor& x, const Opt& mean, const Opt& var, const Opt& w,
                         const Opt& b, bool training, double eps, Loc loc) {
    return recorded([&] {
      return tensord::batch_norm(x, get(mean), get(var), get(w), get(b), training, eps, loc);
    });
  });
  m.def("group_norm",
        [](const Tensor& x, int64_t groups, const Opt& w, const Opt& b, double eps, Loc loc) {
          return recorded([&] { return tensord::group_norm(x, groups, get(w), get(b), eps, loc); });
        });
  m.def("instance_norm", [](const Tensor& x, const Opt& w, const Opt& b, double eps, Loc loc) {
    return recorded([&] { return tensord::instance_norm(x, get(w), get(b), eps, loc); });
  });
  m.def("update_batch_norm_stats",
        [](const Tensor& x, const Opt& mean, const Opt& var, double momentum, Loc loc) {
          Tensor new_mean = get(mean), new_var = get(var);
          recorded([&] { tensord::update_batch_norm_stats(x, new_mean, new_var, momentum, loc); });
          return py::make_tuple(new_mean.defined() ? py::cast(new_mean) : py::none(),
                                new_var.defined() ? py::cast(new_var) : py::none());
        });
  m.def("scaled_dot_product_attention",
        [](const Tensor& q, const Tensor& k, const Tensor& v, const Opt& mask, bool causal,
           std::optional<double> scale, double dropout_p, bool enable_gqa, int64_t seed, Loc loc) {
          return recorded([&] {
            return tensord::scaled_dot_product_attention(q, k, v, get(mask), causal, scale,
                                                         dropout_p, enable_gqa, seed, loc);
          });
        });
  m.def("dropout", [](const Tensor& x, double p, bool training, int64_t seed, Loc loc) {
    return recorded([&] { return tensord::dropout(x, p, training, seed, loc); });
  });
  m.def("pixel_shuffle", [](const Tensor& x, int64_t r, Loc loc) {
    return recorded([&] { return tensord::pixel_shuffle(x, r, loc); });
  });
  m.def("pixel_unshuffle", [](const Tensor& x, int64_t r, Loc loc) {
    return recorded([&] { return tensord::pixel_unshuffle(x, r, loc); });
  });
  m.def("ctc_loss", [](const Tensor& lp, const Tensor& targets, const Tensor& il, const Tensor& tl,
                       int64_t blank, int64_t r, bool zero_inf, Loc loc) {
    return recorded(
        [&] { return tensord::ctc_loss(lp, targets, il, tl, blank, r, zero_inf, loc); });
  });
  m.def("weighted_cross_entropy", [](const Tensor& x, const Tensor& y, const Tensor& w, int64_t r,
                                     int64_t ignore, double smoothing, Loc loc) {
    return recorded([&] {
      return tensord::cross_entropy(x, y, w, static_cast<Reduction>(r), ignore, smoothing, loc);
    });
  });
  m.def("weighted_nll_loss",
        [](const Tensor& x, const Tensor& y, const Tensor& w, int64_t r, int64_t ignore, Loc loc) {
          return recorded(
              [&] { return tensord::nll_loss(x, y, w, static_cast<Reduction>(r), ignore, loc); });
        });
}

}  // namespace tensord::python
