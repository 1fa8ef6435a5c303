// Bindings of the linear algebra ops (docs/ops.md "Linear algebra"), named linalg_* in the
// extension; tensord/linalg.py wraps them as td.linalg. Recording errors become the builtin
// exception of their kind, as in module.cpp (ValueError for shapes, TypeError for dtypes).
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <optional>
#include <source_location>
#include <string>
#include <vector>

#include "client/python/src/recording.h"
#include "tensord/client.h"

namespace py = pybind11;

namespace tensord::python {
namespace {

using Loc = std::source_location;

linalg::RankTolerance tolerance(std::optional<double> rtol, std::optional<double> atol,
                                bool hermitian) {
  return linalg::RankTolerance{rtol, atol, hermitian};
}

}  // namespace

void bind_linalg(py::module_& m) {
  namespace la = tensord::linalg;
  m.def("linalg_det",
        [](const Tensor& x, Loc loc) { return recorded([&] { return la::det(x, loc); }); });
  m.def("linalg_inv",
        [](const Tensor& x, Loc loc) { return recorded([&] { return la::inv(x, loc); }); });
  m.def("linalg_solve", [](const Tensor& a, const Tensor& b, Loc loc) {
    return recorded([&] { return la::solve(a, b, loc); });
  });
  m.def("linalg_cholesky", [](const Tensor& x, bool upper, Loc loc) {
    return recorded([&] { return la::cholesky(x, upper, loc); });
  });
  m.def("linalg_svdvals",
        [](const Tensor& x, Loc loc) { return recorded([&] { return la::svdvals(x, loc); }); });
  m.def("linalg_eigvalsh", [](const Tensor& x, bool upper, Loc loc) {
    return recorded([&] { return la::eigvalsh(x, upper, loc); });
  });
  m.def("linalg_pinv", [](const Tensor& x, std::optional<double> rtol, std::optional<double> atol,
                          bool hermitian, Loc loc) {
    return recorded([&] { return la::pinv(x, tolerance(rtol, atol, hermitian), loc); });
  });
  m.def("linalg_matrix_rank", [](const Tensor& x, std::optional<double> rtol,
                                 std::optional<double> atol, bool hermitian, Loc loc) {
    return recorded([&] { return la::matrix_rank(x, tolerance(rtol, atol, hermitian), loc); });
  });
  m.def("linalg_lstsq", [](const Tensor& a, const Tensor& b, std::optional<double> rcond, Loc loc) {
    la::Lstsq r = recorded([&] { return la::lstsq(a, b, rcond, loc); });
    return py::make_tuple(std::move(r.solution), std::move(r.residuals), std::move(r.rank),
                          std::move(r.singular_values));
  });
  m.def("linalg_trace", [](const Tensor& x, int64_t offset, Loc loc) {
    return recorded([&] { return la::trace(x, offset, loc); });
  });
  m.def("linalg_outer", [](const Tensor& a, const Tensor& b, Loc loc) {
    return recorded([&] { return la::outer(a, b, loc); });
  });
  m.def("linalg_kron", [](const Tensor& a, const Tensor& b, Loc loc) {
    return recorded([&] { return la::kron(a, b, loc); });
  });
  m.def("linalg_cross", [](const Tensor& a, const Tensor& b, int64_t axis, Loc loc) {
    return recorded([&] { return la::cross(a, b, axis, loc); });
  });
  m.def("linalg_matrix_norm",
        [](const Tensor& x, py::handle ord, std::vector<int64_t> dims, bool keepdim, Loc loc) {
          return recorded([&] {
            if (py::isinstance<py::str>(ord)) {
              return la::matrix_norm(x, ord.cast<std::string>(), dims, keepdim, loc);
            }
            return la::matrix_norm(x, ord.cast<double>(), dims, keepdim, loc);
          });
        });
  m.def("linalg_matrix_power", [](const Tensor& x, int64_t n, Loc loc) {
    return recorded([&] { return la::matrix_power(x, n, loc); });
  });
  m.def("linalg_cdist", [](const Tensor& a, const Tensor& b, double p, Loc loc) {
    return recorded([&] { return la::cdist(a, b, p, loc); });
  });
  m.def("linalg_pdist", [](const Tensor& x, double p, Loc loc) {
    return recorded([&] { return la::pdist(x, p, loc); });
  });
  m.def("linalg_multi_dot", [](const std::vector<Tensor>& xs, Loc loc) {
    return recorded([&] { return la::multi_dot(xs, loc); });
  });
  m.def("linalg_chain_matmul", [](const std::vector<Tensor>& xs, Loc loc) {
    return recorded([&] { return la::chain_matmul(xs, loc); });
  });
  m.def("linalg_einsum", [](const std::string& eq, const std::vector<Tensor>& xs, Loc loc) {
    return recorded([&] { return la::einsum(eq, xs, loc); });
  });
  m.def("linalg_slogdet", [](const Tensor& x, Loc loc) {
    la::Slogdet r = recorded([&] { return la::slogdet(x, loc); });
    return py::make_tuple(std::move(r.sign), std::move(r.logabsdet));
  });
  m.def("linalg_qr", [](const Tensor& x, const std::string& mode, Loc loc) {
    la::QR r = recorded([&] { return la::qr(x, mode, loc); });
    return py::make_tuple(std::move(r.Q), std::move(r.R));
  });
  m.def("linalg_svd", [](const Tensor& x, bool full_matrices, Loc loc) {
    la::SVD r = recorded([&] { return la::svd(x, full_matrices, loc); });
    return py::make_tuple(std::move(r.U), std::move(r.S), std::move(r.Vh));
  });
  m.def("linalg_eigh", [](const Tensor& x, bool upper, Loc loc) {
    la::Eigh r = recorded([&] { return la::eigh(x, upper, loc); });
    return py::make_tuple(std::move(r.eigenvalues), std::move(r.eigenvectors));
  });
  m.def("linalg_tensordot", [](const Tensor& a, const Tensor& b, std::vector<int64_t> axes_a,
                               std::vector<int64_t> axes_b, Loc loc) {
    return recorded([&] { return la::tensordot(a, b, axes_a, axes_b, loc); });
  });
}

}  // namespace tensord::python
