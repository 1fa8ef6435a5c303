// Bindings of issue 4's ops (docs/ops.md): the C++ client's functions, each taking the Python
// caller's location. Recording errors become the builtin exception of their kind, as in
// module.cpp (ValueError for shapes, TypeError for dtypes).
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <optional>
#include <source_location>
#include <variant>
#include <vector>

#include "client/python/src/ops_bindings.h"
#include "client/python/src/recording.h"
#include "tensord/client.h"

namespace py = pybind11;

namespace tensord::python {
namespace {

using Loc = std::source_location;

// A tensor or a Python number (a weak scalar).
struct Arg {
  explicit Arg(py::handle h) {
    if (py::isinstance<Tensor>(h))
      tensor = h.cast<Tensor>();
    else
      scalar = scalar_of(h);
  }
  Operand at(Loc loc) const { return tensor ? Operand(*tensor, loc) : Operand(*scalar, loc); }
  std::optional<Tensor> tensor;
  std::optional<Scalar> scalar;
};

void bind_pointwise(py::module_& m) {
  m.def("nextafter", [](py::handle a, py::handle b, Loc loc) {
    Arg x(a), y(b);
    return recorded([&] { return tensord::nextafter(x.at(loc), y.at(loc), loc); });
  });
  m.def("lerp", [](py::handle a, py::handle b, py::handle w, Loc loc) {
    Arg x(a), y(b), z(w);
    return recorded([&] { return tensord::lerp(x.at(loc), y.at(loc), z.at(loc), loc); });
  });
  m.def("addcmul", [](const Tensor& x, const Tensor& a, const Tensor& b, py::handle v, Loc loc) {
    return recorded([&] { return tensord::addcmul(x, a, b, scalar_of(v), loc); });
  });
  m.def("addcdiv", [](const Tensor& x, const Tensor& a, const Tensor& b, py::handle v, Loc loc) {
    return recorded([&] { return tensord::addcdiv(x, a, b, scalar_of(v), loc); });
  });
}

#define TENSORD_BIND_UNARY(name) \
  m.def(#name,                   \
        [](const Tensor& x, Loc loc) { return recorded([&] { return tensord::name(x, loc); }); })
#define TENSORD_BIND_UNARY_1(name, Arg1)                       \
  m.def(#name, [](const Tensor& x, Arg1 a, Loc loc) {          \
    return recorded([&] { return tensord::name(x, a, loc); }); \
  })
#define TENSORD_BIND_UNARY_2(name, Arg1, Arg2)                    \
  m.def(#name, [](const Tensor& x, Arg1 a, Arg2 b, Loc loc) {     \
    return recorded([&] { return tensord::name(x, a, b, loc); }); \
  })

void bind_activations(py::module_& m) {
  TENSORD_BIND_UNARY_1(elu, double);
  TENSORD_BIND_UNARY_1(celu, double);
  TENSORD_BIND_UNARY(selu);
  TENSORD_BIND_UNARY_1(leaky_relu, double);
  TENSORD_BIND_UNARY_2(hardtanh, double, double);
  TENSORD_BIND_UNARY(hardsigmoid);
  TENSORD_BIND_UNARY(hardswish);
  TENSORD_BIND_UNARY_2(softplus, double, double);
  TENSORD_BIND_UNARY(softsign);
  TENSORD_BIND_UNARY(mish);
  TENSORD_BIND_UNARY_1(glu, int64_t);
  m.def("prelu", [](const Tensor& x, const Tensor& w, Loc loc) {
    return recorded([&] { return tensord::prelu(x, w, loc); });
  });
}

Axes axes_of(const std::optional<std::vector<int64_t>>& axes) {
  return axes ? Axes(*axes) : Axes::all();
}

#define TENSORD_BIND_REDUCE(name)                                                               \
  m.def(#name,                                                                                  \
        [](const Tensor& x, std::optional<std::vector<int64_t>> axes, bool keepdims, Loc loc) { \
          return recorded([&] { return tensord::name(x, axes_of(axes), keepdims, loc); });      \
        })

void bind_reductions(py::module_& m) {
  TENSORD_BIND_REDUCE(all);
  TENSORD_BIND_REDUCE(any);
  TENSORD_BIND_REDUCE(count_nonzero);
  TENSORD_BIND_REDUCE(amax);
  TENSORD_BIND_REDUCE(amin);
  TENSORD_BIND_REDUCE(nansum);
  TENSORD_BIND_REDUCE(nanmean);
  TENSORD_BIND_REDUCE(logsumexp);
  m.def("std_dev", [](const Tensor& x, std::optional<std::vector<int64_t>> axes, double correction,
                      bool keepdims, Loc loc) {
    return recorded([&] { return tensord::std_dev(x, axes_of(axes), correction, keepdims, loc); });
  });
  m.def("norm", [](const Tensor& x, double ord, std::optional<std::vector<int64_t>> axes,
                   bool keepdims, Loc loc) {
    return recorded([&] { return tensord::norm(x, ord, axes_of(axes), keepdims, loc); });
  });
  TENSORD_BIND_UNARY_1(cumsum, int64_t);
  TENSORD_BIND_UNARY_1(cumprod, int64_t);
  TENSORD_BIND_UNARY_1(logcumsumexp, int64_t);
}

void bind_losses(py::module_& m) {
  using R = Reduction;
  auto code = [](int64_t r) { return static_cast<R>(r); };
  m.def("mse_loss", [code](const Tensor& x, const Tensor& y, int64_t r, Loc loc) {
    return recorded([&] { return tensord::mse_loss(x, y, code(r), loc); });
  });
  m.def("l1_loss", [code](const Tensor& x, const Tensor& y, int64_t r, Loc loc) {
    return recorded([&] { return tensord::l1_loss(x, y, code(r), loc); });
  });
  m.def("smooth_l1_loss",
        [code](const Tensor& x, const Tensor& y, int64_t r, double beta, Loc loc) {
          return recorded([&] { return tensord::smooth_l1_loss(x, y, code(r), beta, loc); });
        });
  m.def("huber_loss", [code](const Tensor& x, const Tensor& y, int64_t r, double delta, Loc loc) {
    return recorded([&] { return tensord::huber_loss(x, y, code(r), delta, loc); });
  });
  m.def("binary_cross_entropy", [code](const Tensor& x, const Tensor& y, int64_t r, Loc loc) {
    return recorded([&] { return tensord::binary_cross_entropy(x, y, code(r), loc); });
  });
  m.def("binary_cross_entropy_with_logits", [code](const Tensor& x, const Tensor& y, int64_t r,
                                                   Loc loc) {
    return recorded([&] { return tensord::binary_cross_entropy_with_logits(x, y, code(r), loc); });
  });
  m.def("kl_div", [code](const Tensor& x, const Tensor& y, int64_t r, bool log_target, Loc loc) {
    return recorded([&] { return tensord::kl_div(x, y, code(r), log_target, loc); });
  });
  m.def("cross_entropy", [code](const Tensor& x, const Tensor& y, int64_t r, int64_t ignore,
                                double smoothing, Loc loc) {
    return recorded([&] { return tensord::cross_entropy(x, y, code(r), ignore, smoothing, loc); });
  });
  m.def("nll_loss", [code](const Tensor& x, const Tensor& y, int64_t r, int64_t ignore, Loc loc) {
    return recorded([&] { return tensord::nll_loss(x, y, code(r), ignore, loc); });
  });
  m.def("cosine_similarity",
        [](const Tensor& a, const Tensor& b, int64_t axis, double eps, Loc loc) {
          return recorded([&] { return tensord::cosine_similarity(a, b, axis, eps, loc); });
        });
}

void bind_shape_ops(py::module_& m) {
  TENSORD_BIND_UNARY_1(tril, int64_t);
  TENSORD_BIND_UNARY_1(triu, int64_t);
  TENSORD_BIND_UNARY_1(tile, std::vector<int64_t>);
  TENSORD_BIND_UNARY_2(repeat_interleave, int64_t, std::optional<int64_t>);
  TENSORD_BIND_UNARY_1(one_hot, int64_t);
  TENSORD_BIND_UNARY_2(rot90, int64_t, std::vector<int64_t>);
  TENSORD_BIND_UNARY_1(diag_embed, int64_t);
  TENSORD_BIND_UNARY_1(diag, int64_t);
  m.def("narrow", [](const Tensor& x, int64_t axis, int64_t start, int64_t length, Loc loc) {
    return recorded([&] { return tensord::narrow(x, axis, start, length, loc); });
  });
  m.def("diagonal", [](const Tensor& x, int64_t offset, int64_t d1, int64_t d2, Loc loc) {
    return recorded([&] { return tensord::diagonal(x, offset, d1, d2, loc); });
  });
  m.def("take_along_dim",
        [](const Tensor& x, const Tensor& index, std::optional<int64_t> axis, Loc loc) {
          return recorded([&] { return tensord::take_along_dim(x, index, axis, loc); });
        });
  m.def("scatter", [](const Tensor& x, int64_t axis, const Tensor& i, const Tensor& s, Loc loc) {
    return recorded([&] { return tensord::scatter(x, axis, i, s, loc); });
  });
  m.def("scatter_add",
        [](const Tensor& x, int64_t axis, const Tensor& i, const Tensor& s, Loc loc) {
          return recorded([&] { return tensord::scatter_add(x, axis, i, s, loc); });
        });
  m.def("index_add",
        [](const Tensor& x, int64_t axis, const Tensor& i, const Tensor& s, double alpha, Loc loc) {
          return recorded([&] { return tensord::index_add(x, axis, i, s, alpha, loc); });
        });
  m.def("masked_fill", [](const Tensor& x, const Tensor& mask, py::handle value, Loc loc) {
    return recorded([&] { return tensord::masked_fill(x, mask, scalar_of(value), loc); });
  });
  auto many = [](auto&& f) {
    try {
      return f();
    } catch (const Error& e) {
      if (e.code() == ErrorCode::DType) throw py::type_error(e.what());
      if (e.code() == ErrorCode::Shape || e.code() == ErrorCode::InvalidGraph) {
        throw py::value_error(e.what());
      }
      throw;
    }
  };
  m.def("split", [many](const Tensor& x, std::variant<int64_t, std::vector<int64_t>> sizes,
                        int64_t axis, Loc loc) {
    return many([&] {
      if (const auto* n = std::get_if<int64_t>(&sizes)) return tensord::split(x, *n, axis, loc);
      return tensord::split(x, std::get<std::vector<int64_t>>(sizes), axis, loc);
    });
  });
  m.def("chunk", [many](const Tensor& x, int64_t chunks, int64_t axis, Loc loc) {
    return many([&] { return tensord::chunk(x, chunks, axis, loc); });
  });
  m.def("meshgrid", [many](const std::vector<Tensor>& xs, bool xy, Loc loc) {
    return many([&] { return tensord::meshgrid(xs, xy, loc); });
  });
}

void bind_special(py::module_& m) {
  TENSORD_BIND_UNARY(lgamma);
  TENSORD_BIND_UNARY(digamma);
  TENSORD_BIND_UNARY(erfinv);
  TENSORD_BIND_UNARY(erfcx);
  TENSORD_BIND_UNARY(i0);
  TENSORD_BIND_UNARY(i0e);
  TENSORD_BIND_UNARY(i1);
  TENSORD_BIND_UNARY(i1e);
  TENSORD_BIND_UNARY(ndtr);
  TENSORD_BIND_UNARY(ndtri);
  TENSORD_BIND_UNARY(log_ndtr);
  TENSORD_BIND_UNARY(sinc);
  TENSORD_BIND_UNARY(entr);
  TENSORD_BIND_UNARY(logit);
  TENSORD_BIND_UNARY(expit);
  m.def("xlogy", [](py::handle a, py::handle b, Loc loc) {
    Arg x(a), y(b);
    return recorded([&] { return tensord::xlogy(x.at(loc), y.at(loc), loc); });
  });
  m.def("xlog1py", [](py::handle a, py::handle b, Loc loc) {
    Arg x(a), y(b);
    return recorded([&] { return tensord::xlog1py(x.at(loc), y.at(loc), loc); });
  });
}

// issue 4: more special functions and sorting
void bind_special_more(py::module_& m) {
  m.def("polygamma", [](int64_t n, const Tensor& x, Loc loc) {
    return recorded([&] { return tensord::polygamma(n, x, loc); });
  });
  TENSORD_BIND_UNARY_1(multigammaln, int64_t);
  TENSORD_BIND_UNARY(bessel_j0);
  TENSORD_BIND_UNARY(bessel_j1);
  m.def("logit_eps", [](const Tensor& x, double eps, Loc loc) {
    return recorded([&] { return tensord::logit(x, eps, loc); });
  });
  m.def("gammainc", [](py::handle a, py::handle b, Loc loc) {
    Arg x(a), y(b);
    return recorded([&] { return tensord::gammainc(x.at(loc), y.at(loc), loc); });
  });
  m.def("gammaincc", [](py::handle a, py::handle b, Loc loc) {
    Arg x(a), y(b);
    return recorded([&] { return tensord::gammaincc(x.at(loc), y.at(loc), loc); });
  });
  m.def("zeta", [](py::handle a, py::handle b, Loc loc) {
    Arg x(a), y(b);
    return recorded([&] { return tensord::zeta(x.at(loc), y.at(loc), loc); });
  });
}

void bind_sort(py::module_& m) {
  // (values, indices) ops return a tuple of two tensors
  auto pair = [](const ValuesIndices& r) { return py::make_tuple(r.values, r.indices); };
  m.def("sort", [pair](const Tensor& x, int64_t axis, bool descending, bool stable, Loc loc) {
    return pair(recorded([&] { return tensord::sort(x, axis, descending, stable, loc); }));
  });
  m.def("topk",
        [pair](const Tensor& x, int64_t k, int64_t axis, bool largest, bool sorted, Loc loc) {
          return pair(recorded([&] { return tensord::topk(x, k, axis, largest, sorted, loc); }));
        });
  m.def("kthvalue", [pair](const Tensor& x, int64_t k, int64_t axis, bool keepdim, Loc loc) {
    return pair(recorded([&] { return tensord::kthvalue(x, k, axis, keepdim, loc); }));
  });
  m.def("median_axis", [pair](const Tensor& x, int64_t axis, bool keepdim, bool skip_nan, Loc loc) {
    return pair(recorded([&] {
      return skip_nan ? tensord::nanmedian(x, axis, keepdim, loc)
                      : tensord::median(x, axis, keepdim, loc);
    }));
  });
  m.def("mode", [pair](const Tensor& x, int64_t axis, bool keepdim, Loc loc) {
    return pair(recorded([&] { return tensord::mode(x, axis, keepdim, loc); }));
  });
  m.def("cummax", [pair](const Tensor& x, int64_t axis, Loc loc) {
    return pair(recorded([&] { return tensord::cummax(x, axis, loc); }));
  });
  m.def("cummin", [pair](const Tensor& x, int64_t axis, Loc loc) {
    return pair(recorded([&] { return tensord::cummin(x, axis, loc); }));
  });
  m.def("argsort", [](const Tensor& x, int64_t axis, bool descending, bool stable, Loc loc) {
    return recorded([&] { return tensord::argsort(x, axis, descending, stable, loc); });
  });
  m.def("quantile", [](const Tensor& x, const Tensor& q, std::optional<int64_t> axis, bool keepdim,
                       int64_t mode, bool skip_nan, Loc loc) {
    return recorded([&] {
      const auto i = static_cast<Interpolation>(mode);
      return skip_nan ? tensord::nanquantile(x, q, axis, keepdim, i, loc)
                      : tensord::quantile(x, q, axis, keepdim, i, loc);
    });
  });
  m.def("median", [](const Tensor& x, bool skip_nan, Loc loc) {
    return recorded(
        [&] { return skip_nan ? tensord::nanmedian(x, loc) : tensord::median(x, loc); });
  });
}

}  // namespace

// Ops with several outputs return a tuple of tensors.
void bind_multi_output(py::module_& m) {
  m.def("frexp", [](const Tensor& x, Loc loc) {
    Frexp r = recorded([&] { return tensord::frexp(x, loc); });
    return py::make_tuple(std::move(r.mantissa), std::move(r.exponent));
  });
}

void bind_ops(py::module_& m) {
  bind_special_more(m);  // issue 4: polygamma ... zeta
  bind_sort(m);          // issue 4: sorting
  bind_pointwise(m);
  bind_activations(m);
  bind_reductions(m);
  bind_losses(m);
  bind_shape_ops(m);
  bind_special(m);
  bind_multi_output(m);
}

}  // namespace tensord::python
