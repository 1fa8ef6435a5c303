// The float64 reference of the linear algebra ops that are IR composites (trace, outer, kron,
// cross, matrix_norm, matrix_power, ...): their definitions, over every dtype they admit.
#include <algorithm>
#include <cmath>
#include <limits>
#include <utility>

#include "tests/conformance/reference_linalg_internal.h"

namespace tensord::conformance::linalg_ref {

using ir::Attr;
using ir::Op;

namespace {

// Integer and bool arithmetic of the composites: Num in the output dtype (wrapping).
Num mul_in(DType t, Num a, Num b) {
  if (ir::is_floating(t)) return Num::of_float(round_to(t, a.f * b.f));
  if (t == DType::Bool) return Num::of_int(a.i && b.i);
  return Num::of_int(
      wrap_to(t, static_cast<int64_t>(static_cast<uint64_t>(a.i) * static_cast<uint64_t>(b.i))));
}

}  // namespace

Expected composite(Op op, std::span<const RefTensor> in, const ir::Attrs& attrs) {
  const RefTensor& x = in[0];
  switch (op) {
    case Op::trace: {
      if (x.shape.size() < 2) reject(ErrorCode::Shape, "trace needs (..., m, n)");
      // sum's dtype rule: bool and integers accumulate in int64, floats keep theirs.
      const DType out = ir::is_floating(x.dtype) ? x.dtype : DType::Int64;
      const Batch b = matrices(x, false);
      const int64_t k = attrs.get_int(Attr::k, 0);
      Expected e(RefTensor(out, b.batch));
      e.scale.assign(static_cast<size_t>(b.count()), 0.0);
      e.terms = std::max<int64_t>(1, std::min(b.m, b.n));
      for (int64_t i = 0; i < b.count(); ++i) {
        double f = 0, scale = 0;
        int64_t s = 0;
        for (int64_t r = 0; r < b.m; ++r) {
          const int64_t c = r + k;
          if (c < 0 || c >= b.n) continue;
          const int64_t at = i * b.m * b.n + r * b.n + c;
          f += x.as_double(at);
          scale = std::max(scale, std::fabs(x.as_double(at)));
          if (!x.floating()) s = static_cast<int64_t>(static_cast<uint64_t>(s) + x.i[at]);
        }
        if (ir::is_floating(out)) {
          e.value.f[i] = round_to(out, f);
          e.scale[i] = scale;
        } else {
          e.value.i[i] = s;
        }
      }
      return e;
    }
    case Op::outer:
    case Op::kron: {
      const RefTensor& y = in[1];
      if (op == Op::outer && (x.shape.size() != 1 || y.shape.size() != 1)) {
        reject(ErrorCode::Shape, "outer needs 1-D inputs");
      }
      const DType t = ref_promote(x.dtype, y.dtype);
      const size_t rank = std::max(x.shape.size(), y.shape.size());
      Shape sx(rank, 1), sy(rank, 1), out(rank);
      std::copy(x.shape.begin(), x.shape.end(), sx.end() - static_cast<int64_t>(x.shape.size()));
      std::copy(y.shape.begin(), y.shape.end(), sy.end() - static_cast<int64_t>(y.shape.size()));
      if (op == Op::outer) {
        sx = {x.shape[0], 1}, sy = {1, y.shape[0]}, out = {x.shape[0], y.shape[0]};
      } else {
        for (size_t d = 0; d < rank; ++d) out[d] = sx[d] * sy[d];
      }
      RefTensor r(t, out);
      for (int64_t o = 0; o < r.numel(); ++o) {
        const std::vector<int64_t> idx = unravel(o, out);
        std::vector<int64_t> ix(idx.size()), iy(idx.size());
        for (size_t d = 0; d < idx.size(); ++d) {
          if (op == Op::outer) {
            ix[d] = d == 0 ? idx[0] : 0, iy[d] = d == 1 ? idx[1] : 0;
          } else {
            ix[d] = idx[d] / sy[d], iy[d] = idx[d] % sy[d];
          }
        }
        r.put(o, mul_in(t, cast_to(t, x.at(ravel(ix, sx))), cast_to(t, y.at(ravel(iy, sy)))));
      }
      return r;
    }
    case Op::cross: {
      const RefTensor& y = in[1];
      const Shape out = ref_broadcast(x.shape, y.shape);
      if (out.empty()) reject(ErrorCode::Shape, "cross needs rank >= 1");
      const int64_t axis =
          ref_axis(attrs.get_int(Attr::axis, -1), static_cast<int64_t>(out.size()));
      auto size_at = [&](const Shape& s) {
        const int64_t d = axis - static_cast<int64_t>(out.size() - s.size());
        return d < 0 ? int64_t{1} : s[d];
      };
      if (size_at(x.shape) != 3 || size_at(y.shape) != 3) reject(ErrorCode::Shape, "size 3");
      const DType t = ref_promote(x.dtype, y.dtype);
      if (t == DType::Bool) reject(ErrorCode::DType, "bool");
      RefTensor r(t, out);
      for (int64_t o = 0; o < r.numel(); ++o) {
        std::vector<int64_t> idx = unravel(o, out);
        const int64_t c = idx[axis];
        auto get = [&](const RefTensor& v, int64_t comp) {
          idx[axis] = comp;
          return cast_to(t, v.at(broadcast_source(idx, v.shape)));
        };
        const int64_t i = (c + 1) % 3, j = (c + 2) % 3;
        const Num p = mul_in(t, get(x, i), get(y, j)), q = mul_in(t, get(x, j), get(y, i));
        if (ir::is_floating(t)) {
          r.put(o, Num::of_float(round_to(t, p.f - q.f)));
        } else {
          r.put(o, Num::of_int(wrap_to(t, static_cast<int64_t>(static_cast<uint64_t>(p.i) -
                                                               static_cast<uint64_t>(q.i)))));
        }
      }
      return r;
    }
    case Op::matrix_norm: {
      if (!x.floating()) reject(ErrorCode::DType, "matrix_norm needs floats");
      if (x.shape.size() < 2) reject(ErrorCode::Shape, "rank < 2");
      const int64_t rank = static_cast<int64_t>(x.shape.size());
      const std::vector<int64_t> dims =
          attrs.has(Attr::dims) ? attrs.get_ints(Attr::dims) : std::vector<int64_t>{-2, -1};
      if (dims.size() != 2) reject(ErrorCode::Shape, "two dims");
      const int64_t a = ref_axis(dims[0], rank), b = ref_axis(dims[1], rank);
      if (a == b) reject(ErrorCode::Shape, "equal dims");
      const int64_t mode = attrs.get_int(Attr::mode, 0);
      if (mode != 0 && mode != 1) reject(ErrorCode::Shape, "mode");
      const bool has_ord = attrs.has(Attr::ord);
      const double ord = attrs.get_float(Attr::ord, 0.0);
      if (has_ord && attrs.has(Attr::mode)) reject(ErrorCode::InvalidGraph, "ord and mode");
      if (has_ord && !(std::fabs(ord) == 1 || std::fabs(ord) == 2 || std::isinf(ord))) {
        reject(ErrorCode::Shape, "ord");
      }
      const bool svd = (has_ord && std::fabs(ord) == 2) || (!has_ord && mode == 1);
      if (svd) require_lapack_dtype(x.dtype);
      const int64_t ma = x.shape[a], nb = x.shape[b];
      if (has_ord) {
        const int64_t over = std::fabs(ord) == 1 ? nb : std::isinf(ord) ? ma : std::min(ma, nb);
        if (over == 0) reject(ErrorCode::Shape, "empty max");
      }
      const bool keepdim = attrs.get_bool(Attr::keepdim, false);
      Shape out, outer;
      for (int64_t d = 0; d < rank; ++d) {
        if (d != a && d != b)
          out.push_back(x.shape[d]), outer.push_back(x.shape[d]);
        else if (keepdim)
          out.push_back(1);
      }
      Expected e(RefTensor(x.dtype, out));
      e.scale.assign(static_cast<size_t>(e.value.numel()), 0.0);
      e.terms = std::max<int64_t>(1, ma * nb);
      for (int64_t o = 0; o < e.value.numel(); ++o) {
        const std::vector<int64_t> oi = unravel(o, outer);
        Matrix mat(static_cast<size_t>(ma * nb));
        std::vector<int64_t> idx(static_cast<size_t>(rank));
        for (int64_t i = 0; i < ma; ++i) {
          for (int64_t j = 0; j < nb; ++j) {
            size_t q = 0;
            for (int64_t d = 0; d < rank; ++d) idx[d] = d == a ? i : d == b ? j : oi[q++];
            mat[i * nb + j] = x.f[ravel(idx, x.shape)];
          }
        }
        double v = 0, scale = max_abs(mat.data(), ma * nb);
        if (!has_ord && mode == 0) {
          for (double t : mat) v += t * t;
          v = std::sqrt(v);
        } else if (svd) {
          const std::vector<double> s = hestenes(mat, ma, nb).s;
          if (!has_ord) {
            for (double t : s) v += t;
          } else {
            v = ord > 0 ? s.front() : s.back();
          }
          scale = s.empty() ? 0.0 : s.front();
        } else {
          const bool cols = std::fabs(ord) == 1;
          const int64_t outer_n = cols ? nb : ma, inner_n = cols ? ma : nb;
          bool first = true;
          for (int64_t p = 0; p < outer_n; ++p) {
            double s = 0;
            for (int64_t q = 0; q < inner_n; ++q) {
              s += std::fabs(cols ? mat[q * nb + p] : mat[p * nb + q]);
            }
            if (first || (ord > 0 ? s > v : s < v) || s != s) v = s;
            first = false;
          }
        }
        e.value.f[o] = round_to(x.dtype, v);
        e.scale[o] = scale;
      }
      return e;
    }
    case Op::matrix_power: {
      const Batch b = matrices(x, true);
      if (x.dtype == DType::Bool) reject(ErrorCode::DType, "bool");
      int64_t p = attrs.get_int(Attr::n);
      if (p < 0) require_lapack_dtype(x.dtype);
      const int64_t n = b.n;
      if (!x.floating()) {  // integers: exact, wrapping
        RefTensor r(x.dtype, x.shape);
        for (int64_t i = 0; i < b.count(); ++i) {
          std::vector<int64_t> acc(static_cast<size_t>(n * n), 0);
          for (int64_t j = 0; j < n; ++j) acc[j * n + j] = 1;
          for (int64_t t = 0; t < p; ++t) {
            std::vector<int64_t> next(static_cast<size_t>(n * n), 0);
            for (int64_t r_ = 0; r_ < n; ++r_) {
              for (int64_t c = 0; c < n; ++c) {
                uint64_t s = 0;
                for (int64_t l = 0; l < n; ++l) {
                  s += static_cast<uint64_t>(acc[r_ * n + l]) *
                       static_cast<uint64_t>(x.i[i * n * n + l * n + c]);
                }
                next[r_ * n + c] = wrap_to(x.dtype, static_cast<int64_t>(s));
              }
            }
            acc = next;
          }
          for (int64_t j = 0; j < n * n; ++j) r.i[i * n * n + j] = acc[j];
        }
        return r;
      }
      Builder r(RefTensor(x.dtype, x.shape), n * std::max<int64_t>(1, std::abs(p)));
      for (int64_t i = 0; i < b.count(); ++i) {
        Matrix base = matrix_at(x, i, n, n);
        double c = 1;
        if (p < 0) {
          Matrix eye(static_cast<size_t>(n * n), 0.0);
          for (int64_t j = 0; j < n; ++j) eye[j * n + j] = 1;
          c = cond_of(hestenes(base, n, n).s);
          base = lu_solve(base, n, eye, n);
        }
        // The scale: the same power of |base| (elementwise bound of the rounding errors).
        Matrix acc(static_cast<size_t>(n * n), 0.0), mag(acc);
        Matrix abs_base(base);
        for (double& v : abs_base) v = std::fabs(v);
        for (int64_t j = 0; j < n; ++j) acc[j * n + j] = mag[j * n + j] = 1;
        for (int64_t t = 0; t < std::abs(p); ++t) {
          Matrix next(static_cast<size_t>(n * n), 0.0), next_mag(next);
          for (int64_t r_ = 0; r_ < n; ++r_) {
            for (int64_t col = 0; col < n; ++col) {
              for (int64_t l = 0; l < n; ++l) {
                next[r_ * n + col] += acc[r_ * n + l] * base[l * n + col];
                next_mag[r_ * n + col] += mag[r_ * n + l] * abs_base[l * n + col];
              }
            }
          }
          acc = next, mag = next_mag;
        }
        for (int64_t j = 0; j < n * n; ++j) {
          r.e.value.f[i * n * n + j] = round_to(x.dtype, acc[j]);
          r.e.scale[i * n * n + j] = c * std::abs(p) * mag[j];
        }
      }
      return r.e;
    }
    default:
      break;
  }
  reject(ErrorCode::Internal, "no linear algebra reference for this op");
}

}  // namespace tensord::conformance::linalg_ref
