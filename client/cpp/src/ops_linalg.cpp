// Linear algebra (docs/ops.md "Linear algebra"): one node per IR op, and the matmul composites
// the client records itself (tensordot, multi_dot, chain_matmul, einsum) from permutes,
// reshapes, diagonals, sums and matmuls.
#include "tensord/linalg.h"

#include <algorithm>
#include <cctype>
#include <map>
#include <numeric>

#include "client/cpp/src/recorder.h"

namespace tensord::linalg {

using detail::record;
using ir::Attr;
using ir::Op;

namespace {

const ir::Shape& shape_of(const Tensor& x, Loc loc) {
  return detail::TensorAccess::node(x, loc)->type.shape;
}

[[noreturn]] void shape_error(const std::string& what) {
  throw Error(ErrorCode::Shape, what);
}

int64_t product(const ir::Shape& s) {
  return std::accumulate(s.begin(), s.end(), int64_t{1}, std::multiplies<>());
}

ir::Attrs rank_attrs(const RankTolerance& tol) {
  ir::Attrs attrs;
  if (tol.rtol) attrs.set(Attr::rtol, *tol.rtol);
  if (tol.atol) attrs.set(Attr::atol, *tol.atol);
  if (tol.hermitian) attrs.set(Attr::hermitian, true);
  return attrs;
}

}  // namespace

Tensor det(const Tensor& x, Loc loc) {
  return record(Op::det, {&x}, {}, loc);
}
Tensor inv(const Tensor& x, Loc loc) {
  return record(Op::inv, {&x}, {}, loc);
}
Tensor solve(const Tensor& a, const Tensor& b, Loc loc) {
  return record(Op::solve, {&a, &b}, {}, loc);
}
Tensor cholesky(const Tensor& x, bool upper, Loc loc) {
  ir::Attrs attrs;
  if (upper) attrs.set(Attr::upper, true);
  return record(Op::cholesky, {&x}, std::move(attrs), loc);
}
Tensor svdvals(const Tensor& x, Loc loc) {
  return record(Op::svdvals, {&x}, {}, loc);
}
Tensor eigvalsh(const Tensor& x, bool upper, Loc loc) {
  ir::Attrs attrs;
  if (upper) attrs.set(Attr::upper, true);
  return record(Op::eigvalsh, {&x}, std::move(attrs), loc);
}
Tensor pinv(const Tensor& x, const RankTolerance& tol, Loc loc) {
  return record(Op::pinv, {&x}, rank_attrs(tol), loc);
}
Tensor matrix_rank(const Tensor& x, const RankTolerance& tol, Loc loc) {
  return record(Op::matrix_rank, {&x}, rank_attrs(tol), loc);
}
Tensor trace(const Tensor& x, int64_t offset, Loc loc) {
  ir::Attrs attrs;
  if (offset != 0) attrs.set(Attr::k, offset);
  return record(Op::trace, {&x}, std::move(attrs), loc);
}
Tensor outer(const Tensor& a, const Tensor& b, Loc loc) {
  return record(Op::outer, {&a, &b}, {}, loc);
}
Tensor kron(const Tensor& a, const Tensor& b, Loc loc) {
  return record(Op::kron, {&a, &b}, {}, loc);
}
Tensor cross(const Tensor& a, const Tensor& b, int64_t axis, Loc loc) {
  return record(Op::cross, {&a, &b}, {{Attr::axis, axis}}, loc);
}
Tensor matrix_norm(const Tensor& x, const std::string& ord, std::vector<int64_t> dims, bool keepdim,
                   Loc loc) {
  if (ord != "fro" && ord != "nuc") {
    throw Error(ErrorCode::Shape,
                "matrix_norm ord must be 'fro', 'nuc' or a number, got '" + ord + "'");
  }
  ir::Attrs attrs{{Attr::dims, std::move(dims)}, {Attr::keepdim, keepdim}};
  if (ord == "nuc") attrs.set(Attr::mode, int64_t{1});
  return record(Op::matrix_norm, {&x}, std::move(attrs), loc);
}
Tensor matrix_norm(const Tensor& x, double ord, std::vector<int64_t> dims, bool keepdim, Loc loc) {
  return record(Op::matrix_norm, {&x},
                {{Attr::ord, ord}, {Attr::dims, std::move(dims)}, {Attr::keepdim, keepdim}}, loc);
}
Tensor matrix_power(const Tensor& x, int64_t n, Loc loc) {
  return record(Op::matrix_power, {&x}, {{Attr::n, n}}, loc);
}
Tensor cdist(const Tensor& x1, const Tensor& x2, double p, Loc loc) {
  ir::Attrs attrs;
  if (p != 2.0) attrs.set(Attr::ord, p);
  return record(Op::cdist, {&x1, &x2}, std::move(attrs), loc);
}
Tensor pdist(const Tensor& x, double p, Loc loc) {
  ir::Attrs attrs;
  if (p != 2.0) attrs.set(Attr::ord, p);
  return record(Op::pdist, {&x}, std::move(attrs), loc);
}

Slogdet slogdet(const Tensor& x, Loc loc) {
  std::vector<Tensor> out = detail::record_multi(Op::slogdet, {&x, 1}, {}, loc);
  return Slogdet{std::move(out[0]), std::move(out[1])};
}
QR qr(const Tensor& x, const std::string& mode, Loc loc) {
  if (mode != "reduced" && mode != "complete") {
    throw Error(ErrorCode::Shape, "qr mode must be 'reduced' or 'complete', got '" + mode + "'");
  }
  ir::Attrs attrs;
  if (mode == "complete") attrs.set(Attr::mode, int64_t{1});
  std::vector<Tensor> out = detail::record_multi(Op::qr, {&x, 1}, std::move(attrs), loc);
  return QR{std::move(out[0]), std::move(out[1])};
}
SVD svd(const Tensor& x, bool full_matrices, Loc loc) {
  ir::Attrs attrs;
  if (!full_matrices) attrs.set(Attr::full_matrices, false);
  std::vector<Tensor> out = detail::record_multi(Op::svd, {&x, 1}, std::move(attrs), loc);
  return SVD{std::move(out[0]), std::move(out[1]), std::move(out[2])};
}
Lstsq lstsq(const Tensor& a, const Tensor& b, std::optional<double> rcond, Loc loc) {
  ir::Attrs attrs;
  if (rcond) attrs.set(Attr::rtol, *rcond);
  const Tensor inputs[] = {a, b};
  std::vector<Tensor> out = detail::record_multi(Op::lstsq, inputs, std::move(attrs), loc);
  Lstsq r{std::move(out[0]), std::move(out[1]), std::move(out[2]), std::move(out[3])};
  // The node gives |A x - b|^2 whenever m > n; torch returns it only when every matrix has full
  // column rank, which only the data tells: a sync of the ranks, as torch's own.
  const ir::Shape& as = a.shape();
  const int64_t m = as[as.size() - 2], n = as.back();
  if (m > n && r.rank.numel(loc) > 0 && min(r.rank, {}, false, loc).item<int64_t>(loc) < n) {
    r.residuals = narrow(reshape(r.residuals, {-1}, loc), 0, 0, 0, loc);
  }
  return r;
}
Eigh eigh(const Tensor& x, bool upper, Loc loc) {
  ir::Attrs attrs;
  if (upper) attrs.set(Attr::upper, true);
  std::vector<Tensor> out = detail::record_multi(Op::eigh, {&x, 1}, std::move(attrs), loc);
  return Eigh{std::move(out[0]), std::move(out[1])};
}

Tensor tensordot(const Tensor& a, const Tensor& b, const std::vector<int64_t>& axes_a,
                 const std::vector<int64_t>& axes_b, Loc loc) {
  const ir::Shape sa = shape_of(a, loc), sb = shape_of(b, loc);
  const auto ra = static_cast<int64_t>(sa.size()), rb = static_cast<int64_t>(sb.size());
  if (axes_a.size() != axes_b.size()) {
    shape_error("tensordot needs as many axes of a as of b, got " + std::to_string(axes_a.size()) +
                " and " + std::to_string(axes_b.size()));
  }
  std::vector<int64_t> ca, cb;
  for (size_t i = 0; i < axes_a.size(); ++i) {
    const int64_t x = axes_a[i] < 0 ? axes_a[i] + ra : axes_a[i];
    const int64_t y = axes_b[i] < 0 ? axes_b[i] + rb : axes_b[i];
    if (x < 0 || x >= ra || y < 0 || y >= rb) shape_error("tensordot: axis out of range");
    if (std::count(ca.begin(), ca.end(), x) || std::count(cb.begin(), cb.end(), y)) {
      shape_error("tensordot: repeated axis");
    }
    if (sa[x] != sb[y]) {
      shape_error("tensordot: axis " + std::to_string(x) + " of a (size " + std::to_string(sa[x]) +
                  ") and axis " + std::to_string(y) + " of b (size " + std::to_string(sb[y]) +
                  ") differ");
    }
    ca.push_back(x);
    cb.push_back(y);
  }
  std::vector<int64_t> perm_a, perm_b;
  ir::Shape out, free_a, free_b, contracted;
  for (int64_t d = 0; d < ra; ++d) {
    if (!std::count(ca.begin(), ca.end(), d)) perm_a.push_back(d), free_a.push_back(sa[d]);
  }
  for (int64_t d : ca) perm_a.push_back(d), contracted.push_back(sa[d]);
  perm_b = cb;
  for (int64_t d = 0; d < rb; ++d) {
    if (!std::count(cb.begin(), cb.end(), d)) perm_b.push_back(d), free_b.push_back(sb[d]);
  }
  const int64_t k = product(contracted);
  Tensor lhs = reshape(permute(a, perm_a, loc), {product(free_a), k}, loc);
  Tensor rhs = reshape(permute(b, perm_b, loc), {k, product(free_b)}, loc);
  out = free_a;
  out.insert(out.end(), free_b.begin(), free_b.end());
  return reshape(tensord::matmul(lhs, rhs, loc), out, loc);
}

Tensor tensordot(const Tensor& a, const Tensor& b, int64_t n, Loc loc) {
  const auto ra = static_cast<int64_t>(shape_of(a, loc).size());
  const auto rb = static_cast<int64_t>(shape_of(b, loc).size());
  if (n < 0 || n > std::min(ra, rb)) {
    shape_error("tensordot cannot contract " + std::to_string(n) + " axes of tensors of rank " +
                std::to_string(ra) + " and " + std::to_string(rb));
  }
  std::vector<int64_t> axes_a, axes_b;
  for (int64_t i = 0; i < n; ++i) axes_a.push_back(ra - n + i), axes_b.push_back(i);
  return tensordot(a, b, axes_a, axes_b, loc);
}

namespace {

// Matrix-chain order by dynamic programming over the dims p0 x p1, p1 x p2, ...
Tensor chain(const std::vector<Tensor>& ms, const std::vector<int64_t>& p, Loc loc) {
  const size_t n = ms.size();
  std::vector<std::vector<double>> cost(n, std::vector<double>(n, 0));
  std::vector<std::vector<size_t>> split(n, std::vector<size_t>(n, 0));
  for (size_t len = 2; len <= n; ++len) {
    for (size_t i = 0; i + len <= n; ++i) {
      const size_t j = i + len - 1;
      cost[i][j] = -1;
      for (size_t s = i; s < j; ++s) {
        const double c = cost[i][s] + cost[s + 1][j] +
                         static_cast<double>(p[i]) * static_cast<double>(p[s + 1]) *
                             static_cast<double>(p[j + 1]);
        if (cost[i][j] < 0 || c < cost[i][j]) cost[i][j] = c, split[i][j] = s;
      }
    }
  }
  auto build = [&](auto& self, size_t i, size_t j) -> Tensor {
    if (i == j) return ms[i];
    return tensord::matmul(self(self, i, split[i][j]), self(self, split[i][j] + 1, j), loc);
  };
  return build(build, 0, n - 1);
}

}  // namespace

Tensor multi_dot(const std::vector<Tensor>& xs, Loc loc) {
  if (xs.size() < 2) shape_error("multi_dot needs at least 2 tensors");
  std::vector<Tensor> ms = xs;
  const ir::Shape first = shape_of(xs.front(), loc), last = shape_of(xs.back(), loc);
  const bool row = first.size() == 1, col = last.size() == 1;
  if (row) ms.front() = reshape(ms.front(), {1, first[0]}, loc);
  if (col) ms.back() = reshape(ms.back(), {last[0], 1}, loc);
  std::vector<int64_t> p;
  for (size_t i = 0; i < ms.size(); ++i) {
    const ir::Shape s = shape_of(ms[i], loc);
    if (s.size() != 2) {
      shape_error("multi_dot needs 2-D tensors (the first and last may be 1-D), got " +
                  ir::to_string(s) + " at position " + std::to_string(i));
    }
    if (i == 0) p.push_back(s[0]);
    if (s[0] != p.back()) {
      shape_error("multi_dot: tensor " + std::to_string(i) + " " + ir::to_string(s) +
                  " does not chain with the previous one (" + std::to_string(p.back()) +
                  " columns)");
    }
    p.push_back(s[1]);
  }
  Tensor r = chain(ms, p, loc);
  if (row && col) return reshape(r, {}, loc);
  if (row) return reshape(r, {p.back()}, loc);
  if (col) return reshape(r, {p.front()}, loc);
  return r;
}

Tensor chain_matmul(const std::vector<Tensor>& xs, Loc loc) {
  if (xs.empty()) shape_error("chain_matmul needs at least 1 matrix");
  for (const Tensor& x : xs) {
    if (shape_of(x, loc).size() != 2) shape_error("chain_matmul takes 2-D matrices only");
  }
  if (xs.size() == 1) return xs[0];
  return multi_dot(xs, loc);
}

namespace {

// einsum labels: letters as themselves, the ellipsis's dims as 256 + position (right-aligned
// across operands, so they broadcast as numpy's do).
using Label = int;
constexpr Label kEllipsis = 256;

std::vector<Label> parse_term(const std::string& term, int64_t rank, int64_t ellipsis_rank,
                              bool is_output, const std::string& eq) {
  std::vector<Label> labels;
  size_t i = 0;
  bool seen_ellipsis = false;
  int64_t letters = 0;
  for (char c : term) letters += std::isalpha(static_cast<unsigned char>(c)) != 0;
  while (i < term.size()) {
    const char c = term[i];
    if (c == ' ') {
      ++i;
    } else if (c == '.') {
      if (term.compare(i, 3, "...") != 0 || seen_ellipsis) {
        shape_error("einsum: bad ellipsis in '" + eq + "'");
      }
      seen_ellipsis = true;
      const int64_t e = is_output ? ellipsis_rank : rank - letters;
      if (e < 0) shape_error("einsum: '" + term + "' has more labels than its operand has dims");
      for (int64_t d = 0; d < e; ++d) labels.push_back(kEllipsis + int(ellipsis_rank - e + d));
      i += 3;
    } else if (std::isalpha(static_cast<unsigned char>(c))) {
      labels.push_back(c);
      ++i;
    } else {
      shape_error(std::string("einsum: unexpected character '") + c + "' in '" + eq + "'");
    }
  }
  if (!is_output && static_cast<int64_t>(labels.size()) != rank) {
    shape_error("einsum: term '" + term + "' has " + std::to_string(labels.size()) +
                " labels for an operand of rank " + std::to_string(rank));
  }
  return labels;
}

struct Term {
  Tensor t;
  std::vector<Label> labels;
};

// Sums out the labels of `x` that `keep` does not list; takes diagonals of repeated labels.
void reduce_term(Term& x, const std::vector<Label>& keep, Loc loc) {
  for (bool again = true; again;) {
    again = false;
    for (size_t i = 0; i < x.labels.size() && !again; ++i) {
      for (size_t j = i + 1; j < x.labels.size(); ++j) {
        if (x.labels[i] != x.labels[j]) continue;
        x.t = tensord::diagonal(x.t, 0, static_cast<int64_t>(i), static_cast<int64_t>(j), loc);
        const Label l = x.labels[i];
        x.labels.erase(x.labels.begin() + static_cast<std::ptrdiff_t>(j));
        x.labels.erase(x.labels.begin() + static_cast<std::ptrdiff_t>(i));
        x.labels.push_back(l);
        again = true;
        break;
      }
    }
  }
  std::vector<int64_t> axes;
  std::vector<Label> kept;
  for (size_t i = 0; i < x.labels.size(); ++i) {
    if (std::count(keep.begin(), keep.end(), x.labels[i])) {
      kept.push_back(x.labels[i]);
    } else {
      axes.push_back(static_cast<int64_t>(i));
    }
  }
  if (!axes.empty()) {
    x.t = sum(x.t, Axes(axes), false, loc);
    x.labels = kept;
  }
}

// a (batch, a-only, contracted) @ b (batch, contracted, b-only) with broadcasting batch dims.
Term contract(Term a, Term b, const std::vector<Label>& keep, Loc loc) {
  std::vector<Label> batch, only_a, only_b, summed;
  for (Label l : a.labels) {
    const bool in_b = std::count(b.labels.begin(), b.labels.end(), l) != 0;
    const bool kept = std::count(keep.begin(), keep.end(), l) != 0;
    (in_b ? (kept ? batch : summed) : only_a).push_back(l);
  }
  for (Label l : b.labels) {
    if (!std::count(a.labels.begin(), a.labels.end(), l)) only_b.push_back(l);
  }
  const ir::Shape sa = shape_of(a.t, loc), sb = shape_of(b.t, loc);
  auto pos = [](const std::vector<Label>& ls, Label l) {
    return static_cast<int64_t>(std::find(ls.begin(), ls.end(), l) - ls.begin());
  };
  std::vector<int64_t> pa, pb;
  ir::Shape ra, rb, out_shape;
  for (Label l : batch) {
    pa.push_back(pos(a.labels, l)), pb.push_back(pos(b.labels, l));
    ra.push_back(sa[pa.back()]), rb.push_back(sb[pb.back()]);
    out_shape.push_back(std::max(ra.back(), rb.back()));
  }
  int64_t m = 1, n = 1, k = 1;
  for (Label l : only_a) pa.push_back(pos(a.labels, l)), m *= sa[pa.back()];
  for (Label l : summed) {
    pa.push_back(pos(a.labels, l)), pb.push_back(pos(b.labels, l));
    if (sa[pa.back()] != sb[pb.back()]) {
      shape_error("einsum: label '" + std::string(1, static_cast<char>(l)) + "' has sizes " +
                  std::to_string(sa[pa.back()]) + " and " + std::to_string(sb[pb.back()]));
    }
    k *= sa[pa.back()];
  }
  for (Label l : only_b) pb.push_back(pos(b.labels, l)), n *= sb[pb.back()];
  for (Label l : only_a) out_shape.push_back(sa[pos(a.labels, l)]);
  for (Label l : only_b) out_shape.push_back(sb[pos(b.labels, l)]);
  ra.insert(ra.end(), {m, k});
  rb.insert(rb.end(), {k, n});
  Tensor lhs = reshape(permute(a.t, pa, loc), ra, loc);
  Tensor rhs = reshape(permute(b.t, pb, loc), rb, loc);
  Term r{reshape(tensord::matmul(lhs, rhs, loc), out_shape, loc), batch};
  r.labels.insert(r.labels.end(), only_a.begin(), only_a.end());
  r.labels.insert(r.labels.end(), only_b.begin(), only_b.end());
  return r;
}

std::string label_name(Label l) {
  return l < kEllipsis ? "label '" + std::string(1, static_cast<char>(l)) + "'"
                       : "ellipsis dim " + std::to_string(l - kEllipsis);
}

// NumPy's broadcasting of labels: a label's sizes across all terms must agree or be 1. A
// size-1 occurrence where the label is larger elsewhere broadcasts, i.e. the term does not
// depend on that index: it is dropped from the term (a reshape), and the other terms carry the
// label, contracted or kept. The ellipsis's dims are labels too, so this covers broadcasting
// across operands' ellipses.
void broadcast_labels(std::vector<Term>& xs, const std::string& eq, Loc loc) {
  std::map<Label, int64_t> size;
  for (const Term& x : xs) {
    const ir::Shape s = shape_of(x.t, loc);
    std::map<Label, int64_t> own;  // a label repeated in one term (a diagonal) never broadcasts
    for (size_t i = 0; i < x.labels.size(); ++i) {
      auto [it, fresh] = own.emplace(x.labels[i], s[i]);
      if (!fresh && it->second != s[i]) {
        shape_error("einsum: " + label_name(x.labels[i]) + " repeated in one operand has sizes " +
                    std::to_string(it->second) + " and " + std::to_string(s[i]) + " in '" + eq +
                    "'");
      }
    }
    for (size_t i = 0; i < x.labels.size(); ++i) {
      auto [it, fresh] = size.emplace(x.labels[i], s[i]);
      if (fresh || s[i] == it->second || s[i] == 1) continue;
      if (it->second != 1) {
        shape_error("einsum: " + label_name(x.labels[i]) + " has sizes " +
                    std::to_string(it->second) + " and " + std::to_string(s[i]) + " in '" + eq +
                    "' (they must agree or be 1)");
      }
      it->second = s[i];
    }
  }
  for (Term& x : xs) {
    const ir::Shape s = shape_of(x.t, loc);
    ir::Shape kept_shape;
    std::vector<Label> kept;
    for (size_t i = 0; i < x.labels.size(); ++i) {
      if (s[i] == 1 && size[x.labels[i]] != 1) continue;
      kept_shape.push_back(s[i]);
      kept.push_back(x.labels[i]);
    }
    if (kept.size() == x.labels.size()) continue;
    x.t = reshape(x.t, kept_shape, loc);
    x.labels = std::move(kept);
  }
}

}  // namespace

Tensor einsum(const std::string& equation, const std::vector<Tensor>& operands, Loc loc) {
  if (operands.empty()) shape_error("einsum needs at least one operand");
  const size_t arrow = equation.find("->");
  const std::string lhs = equation.substr(0, arrow);
  std::vector<std::string> terms;
  for (size_t start = 0;;) {
    const size_t comma = lhs.find(',', start);
    terms.push_back(
        lhs.substr(start, comma == std::string::npos ? std::string::npos : comma - start));
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  if (terms.size() != operands.size()) {
    shape_error("einsum: '" + equation + "' has " + std::to_string(terms.size()) + " terms for " +
                std::to_string(operands.size()) + " operands");
  }
  // The ellipsis covers the most dims any operand gives it.
  int64_t ellipsis_rank = 0;
  std::vector<Term> xs;
  for (size_t i = 0; i < terms.size(); ++i) {
    const auto rank = static_cast<int64_t>(shape_of(operands[i], loc).size());
    int64_t letters = 0;
    for (char c : terms[i]) letters += std::isalpha(static_cast<unsigned char>(c)) != 0;
    if (terms[i].find("...") != std::string::npos) {
      ellipsis_rank = std::max(ellipsis_rank, rank - letters);
    }
  }
  for (size_t i = 0; i < terms.size(); ++i) {
    const auto rank = static_cast<int64_t>(shape_of(operands[i], loc).size());
    xs.push_back({operands[i], parse_term(terms[i], rank, ellipsis_rank, false, equation)});
  }
  std::vector<Label> out;
  if (arrow != std::string::npos) {
    out = parse_term(equation.substr(arrow + 2), 0, ellipsis_rank, true, equation);
    for (size_t i = 0; i < out.size(); ++i) {
      if (std::count(out.begin(), out.end(), out[i]) > 1) {
        shape_error("einsum: output label repeated in '" + equation + "'");
      }
      bool found = false;
      for (const Term& x : xs) found |= std::count(x.labels.begin(), x.labels.end(), out[i]) != 0;
      if (!found) shape_error("einsum: output label not among the inputs in '" + equation + "'");
    }
  } else {
    std::map<Label, int> seen;
    for (const Term& x : xs) {
      for (Label l : x.labels) ++seen[l];
    }
    for (int64_t d = 0; d < ellipsis_rank; ++d) out.push_back(kEllipsis + int(d));
    for (const auto& [l, count] : seen) {
      if (l < kEllipsis && count == 1) out.push_back(l);
    }
  }
  broadcast_labels(xs, equation, loc);  // after the implicit output counted every occurrence
  // Labels still needed after operand i: the output's and those of operands after i.
  auto needed_after = [&](size_t i) {
    std::vector<Label> keep = out;
    for (size_t j = i + 1; j < xs.size(); ++j) {
      keep.insert(keep.end(), xs[j].labels.begin(), xs[j].labels.end());
    }
    return keep;
  };
  Term acc = xs[0];
  {
    std::vector<Label> keep = needed_after(0);
    reduce_term(acc, keep, loc);
  }
  for (size_t i = 1; i < xs.size(); ++i) {
    const std::vector<Label> keep = needed_after(i);
    std::vector<Label> keep_b = keep;
    keep_b.insert(keep_b.end(), acc.labels.begin(), acc.labels.end());
    reduce_term(xs[i], keep_b, loc);
    std::vector<Label> keep_a = keep;
    keep_a.insert(keep_a.end(), xs[i].labels.begin(), xs[i].labels.end());
    reduce_term(acc, keep_a, loc);
    acc = contract(acc, xs[i], keep, loc);
  }
  reduce_term(acc, out, loc);
  std::vector<int64_t> perm;
  for (Label l : out) {
    perm.push_back(static_cast<int64_t>(std::find(acc.labels.begin(), acc.labels.end(), l) -
                                        acc.labels.begin()));
  }
  bool identity = true;
  for (size_t i = 0; i < perm.size(); ++i) identity &= perm[i] == static_cast<int64_t>(i);
  return identity ? acc.t : permute(acc.t, perm, loc);
}

Tensor matmul(const Tensor& a, const Tensor& b, Loc loc) {
  return tensord::matmul(a, b, loc);
}
Tensor vecdot(const Tensor& a, const Tensor& b, int64_t axis, Loc loc) {
  return sum(mul(a, b, loc), Axes({axis}), false, loc);
}
Tensor vector_norm(const Tensor& x, double ord, const Axes& axes, bool keepdim, Loc loc) {
  return norm(x, ord, axes, keepdim, loc);
}
Tensor diagonal(const Tensor& x, int64_t offset, Loc loc) {
  return tensord::diagonal(x, offset, -2, -1, loc);
}
Tensor matrix_transpose(const Tensor& x, Loc loc) {
  return transpose(x, -2, -1, loc);
}

}  // namespace tensord::linalg
