// The ops of docs/ops.md as free functions and operators. Each records one node (nothing is
// sent; see Tensor) after inferring its dtype and shape, so a shape or dtype mistake throws
// tensord::Error at the caller's line. Creation ops are on Session.
#pragma once

#include <cstdint>
#include <optional>
#include <source_location>
#include <vector>

#include "tensord/tensor.h"

namespace tensord {

using Loc = std::source_location;

// Elementwise, one input. Float-only math (exp, log, ...) turns integer input into float32.
Tensor cast(const Tensor& x, ir::DType dtype, Loc loc = Loc::current());
Tensor astype(const Tensor& x, ir::DType dtype, Loc loc = Loc::current());
Tensor neg(const Tensor& x, Loc loc = Loc::current());
Tensor abs(const Tensor& x, Loc loc = Loc::current());
Tensor exp(const Tensor& x, Loc loc = Loc::current());
Tensor log(const Tensor& x, Loc loc = Loc::current());
Tensor sqrt(const Tensor& x, Loc loc = Loc::current());
Tensor rsqrt(const Tensor& x, Loc loc = Loc::current());
Tensor sin(const Tensor& x, Loc loc = Loc::current());
Tensor cos(const Tensor& x, Loc loc = Loc::current());
Tensor tanh(const Tensor& x, Loc loc = Loc::current());
Tensor sigmoid(const Tensor& x, Loc loc = Loc::current());
Tensor relu(const Tensor& x, Loc loc = Loc::current());
Tensor erf(const Tensor& x, Loc loc = Loc::current());
Tensor floor(const Tensor& x, Loc loc = Loc::current());
Tensor ceil(const Tensor& x, Loc loc = Loc::current());
Tensor round(const Tensor& x, Loc loc = Loc::current());  // half to even
Tensor sign(const Tensor& x, Loc loc = Loc::current());
Tensor logical_not(const Tensor& x, Loc loc = Loc::current());
Tensor gelu(const Tensor& x, bool tanh_approximation = false, Loc loc = Loc::current());
Tensor silu(const Tensor& x, Loc loc = Loc::current());
// At least one bound; the bounds are cast to x's dtype.
Tensor clamp(const Tensor& x, std::optional<Scalar> min, std::optional<Scalar> max,
             Loc loc = Loc::current());

// More elementwise math (docs/ops.md). Float functions turn integer or bool input into float32;
// square and trunc keep the dtype (bool -> DType error); the predicates give bool.
Tensor exp2(const Tensor& x, Loc loc = Loc::current());
Tensor expm1(const Tensor& x, Loc loc = Loc::current());
Tensor log2(const Tensor& x, Loc loc = Loc::current());
Tensor log10(const Tensor& x, Loc loc = Loc::current());
Tensor log1p(const Tensor& x, Loc loc = Loc::current());
Tensor tan(const Tensor& x, Loc loc = Loc::current());
Tensor asin(const Tensor& x, Loc loc = Loc::current());
Tensor acos(const Tensor& x, Loc loc = Loc::current());
Tensor atan(const Tensor& x, Loc loc = Loc::current());
Tensor sinh(const Tensor& x, Loc loc = Loc::current());
Tensor cosh(const Tensor& x, Loc loc = Loc::current());
Tensor asinh(const Tensor& x, Loc loc = Loc::current());
Tensor acosh(const Tensor& x, Loc loc = Loc::current());
Tensor atanh(const Tensor& x, Loc loc = Loc::current());
Tensor erfc(const Tensor& x, Loc loc = Loc::current());
Tensor reciprocal(const Tensor& x, Loc loc = Loc::current());
Tensor square(const Tensor& x, Loc loc = Loc::current());
Tensor trunc(const Tensor& x, Loc loc = Loc::current());
Tensor isnan(const Tensor& x, Loc loc = Loc::current());
Tensor isinf(const Tensor& x, Loc loc = Loc::current());
Tensor isfinite(const Tensor& x, Loc loc = Loc::current());
Tensor signbit(const Tensor& x, Loc loc = Loc::current());
Tensor frac(const Tensor& x, Loc loc = Loc::current());         // x - trunc(x); floats only
Tensor bitwise_not(const Tensor& x, Loc loc = Loc::current());  // integers or bool
// NaN -> nan, +inf -> posinf, -inf -> neginf (absent: the dtype's largest/lowest finite value);
// the identity on integers and bool.
Tensor nan_to_num(const Tensor& x, double nan = 0.0, std::optional<double> posinf = std::nullopt,
                  std::optional<double> neginf = std::nullopt, Loc loc = Loc::current());
// Broadcasting math. atan2, hypot, logaddexp(2), copysign are float functions (integers give
// float32); fmod (C's sign), remainder and floor_divide (Python's) keep the promoted dtype, and
// integer division by zero gives 0; bitwise ops take integers or bool, shifts integers only.
Tensor atan2(const Operand& a, const Operand& b, Loc loc = Loc::current());
Tensor hypot(const Operand& a, const Operand& b, Loc loc = Loc::current());
Tensor logaddexp(const Operand& a, const Operand& b, Loc loc = Loc::current());
Tensor logaddexp2(const Operand& a, const Operand& b, Loc loc = Loc::current());
Tensor copysign(const Operand& a, const Operand& b, Loc loc = Loc::current());
Tensor fmod(const Operand& a, const Operand& b, Loc loc = Loc::current());
Tensor remainder(const Operand& a, const Operand& b, Loc loc = Loc::current());
Tensor floor_divide(const Operand& a, const Operand& b, Loc loc = Loc::current());
Tensor bitwise_and(const Operand& a, const Operand& b, Loc loc = Loc::current());
Tensor bitwise_or(const Operand& a, const Operand& b, Loc loc = Loc::current());
Tensor bitwise_xor(const Operand& a, const Operand& b, Loc loc = Loc::current());
Tensor bitwise_left_shift(const Operand& a, const Operand& b, Loc loc = Loc::current());
Tensor bitwise_right_shift(const Operand& a, const Operand& b, Loc loc = Loc::current());
// NumPy's gcd and lcm of integers: non-negative, gcd(0, 0) = 0, lcm(x, 0) = 0; at the type's
// minimum, and for an lcm past its range, they wrap (gcd(INT32_MIN, 0) = INT32_MIN), as NumPy's.
Tensor gcd(const Operand& a, const Operand& b, Loc loc = Loc::current());
Tensor lcm(const Operand& a, const Operand& b, Loc loc = Loc::current());
// nextafter: the next float after a toward b, on a's dtype's grid (floats only). lerp(a, b, w) =
// a + w (b - a), PyTorch's form (exact at w = 0 and 1; floats only). addcmul/addcdiv: x + value
// * t1 * t2 (or / t2; addcdiv floats only). All broadcast; the dtype promotes all inputs.
Tensor nextafter(const Operand& a, const Operand& b, Loc loc = Loc::current());
Tensor lerp(const Operand& a, const Operand& b, const Operand& weight, Loc loc = Loc::current());
Tensor addcmul(const Tensor& x, const Tensor& t1, const Tensor& t2, Scalar value = 1,
               Loc loc = Loc::current());
Tensor addcdiv(const Tensor& x, const Tensor& t1, const Tensor& t2, Scalar value = 1,
               Loc loc = Loc::current());

// Activations (docs/ops.md): integer or bool input gives float32, like gelu.
Tensor elu(const Tensor& x, double alpha = 1.0, Loc loc = Loc::current());
Tensor celu(const Tensor& x, double alpha = 1.0, Loc loc = Loc::current());
Tensor selu(const Tensor& x, Loc loc = Loc::current());
Tensor leaky_relu(const Tensor& x, double negative_slope = 0.01, Loc loc = Loc::current());
Tensor hardtanh(const Tensor& x, double min_val = -1.0, double max_val = 1.0,
                Loc loc = Loc::current());
Tensor hardsigmoid(const Tensor& x, Loc loc = Loc::current());
Tensor hardswish(const Tensor& x, Loc loc = Loc::current());
// x when beta * x > threshold, else log1p(exp(beta x)) / beta.
Tensor softplus(const Tensor& x, double beta = 1.0, double threshold = 20.0,
                Loc loc = Loc::current());
Tensor softsign(const Tensor& x, Loc loc = Loc::current());
Tensor mish(const Tensor& x, Loc loc = Loc::current());
// weight: one element, or one per channel (axis 1 of x).
Tensor prelu(const Tensor& x, const Tensor& weight, Loc loc = Loc::current());
// first half of `axis` * sigmoid(second half); the axis size must be even.
Tensor glu(const Tensor& x, int64_t axis = -1, Loc loc = Loc::current());

// Elementwise, broadcasting. A number operand is a weak scalar: it takes the other operand's
// dtype when of the same kind (int8 tensor + 1 is int8), see ir::promote_with_scalar.
Tensor add(const Operand& a, const Operand& b, Loc loc = Loc::current());
Tensor sub(const Operand& a, const Operand& b, Loc loc = Loc::current());
Tensor mul(const Operand& a, const Operand& b, Loc loc = Loc::current());
Tensor div(const Operand& a, const Operand& b, Loc loc = Loc::current());  // true division
Tensor pow(const Operand& a, const Operand& b, Loc loc = Loc::current());
Tensor maximum(const Operand& a, const Operand& b, Loc loc = Loc::current());
Tensor minimum(const Operand& a, const Operand& b, Loc loc = Loc::current());
Tensor eq(const Operand& a, const Operand& b, Loc loc = Loc::current());
Tensor ne(const Operand& a, const Operand& b, Loc loc = Loc::current());
Tensor lt(const Operand& a, const Operand& b, Loc loc = Loc::current());
Tensor le(const Operand& a, const Operand& b, Loc loc = Loc::current());
Tensor gt(const Operand& a, const Operand& b, Loc loc = Loc::current());
Tensor ge(const Operand& a, const Operand& b, Loc loc = Loc::current());
Tensor logical_and(const Operand& a, const Operand& b, Loc loc = Loc::current());
Tensor logical_or(const Operand& a, const Operand& b, Loc loc = Loc::current());
// cond tested != 0; the result dtype promotes a and b.
Tensor where(const Tensor& cond, const Operand& a, const Operand& b, Loc loc = Loc::current());

// Operators record the op of the same name at the line of the expression (the Operand or
// ScalarOperand captures it). Comparisons return bool tensors, as in libtorch.
Tensor operator+(const Tensor& a, const Operand& b);
Tensor operator-(const Tensor& a, const Operand& b);
Tensor operator*(const Tensor& a, const Operand& b);
Tensor operator/(const Tensor& a, const Operand& b);
Tensor operator==(const Tensor& a, const Operand& b);
Tensor operator!=(const Tensor& a, const Operand& b);
Tensor operator<(const Tensor& a, const Operand& b);
Tensor operator<=(const Tensor& a, const Operand& b);
Tensor operator>(const Tensor& a, const Operand& b);
Tensor operator>=(const Tensor& a, const Operand& b);
Tensor operator+(const ScalarOperand& a, const Tensor& b);
Tensor operator-(const ScalarOperand& a, const Tensor& b);
Tensor operator*(const ScalarOperand& a, const Tensor& b);
Tensor operator/(const ScalarOperand& a, const Tensor& b);
Tensor operator==(const ScalarOperand& a, const Tensor& b);
Tensor operator!=(const ScalarOperand& a, const Tensor& b);
Tensor operator<(const ScalarOperand& a, const Tensor& b);
Tensor operator<=(const ScalarOperand& a, const Tensor& b);
Tensor operator>(const ScalarOperand& a, const Tensor& b);
Tensor operator>=(const ScalarOperand& a, const Tensor& b);
// Unary minus records one `neg` node (not `0 - x`, so unsigned and bool inputs fail as neg
// does). It takes an Operand only to capture the expression's line; numbers never reach it,
// since `-2.0f` is C++'s own minus.
Tensor operator-(const Operand& x);

// Reductions over `axes` (default: all). sum and prod of integers and bool give int64; mean
// and var need float input; var divides by N - correction.
Tensor sum(const Tensor& x, const Axes& axes = {}, bool keepdim = false, Loc loc = Loc::current());
Tensor prod(const Tensor& x, const Axes& axes = {}, bool keepdim = false, Loc loc = Loc::current());
Tensor max(const Tensor& x, const Axes& axes = {}, bool keepdim = false, Loc loc = Loc::current());
Tensor min(const Tensor& x, const Axes& axes = {}, bool keepdim = false, Loc loc = Loc::current());
Tensor mean(const Tensor& x, const Axes& axes = {}, bool keepdim = false, Loc loc = Loc::current());
Tensor var(const Tensor& x, const Axes& axes = {}, double correction = 0, bool keepdim = false,
           Loc loc = Loc::current());
// int64 indices of the first extreme; no axis means over the flattened tensor.
Tensor argmax(const Tensor& x, std::optional<int64_t> axis = std::nullopt, bool keepdim = false,
              Loc loc = Loc::current());
Tensor argmin(const Tensor& x, std::optional<int64_t> axis = std::nullopt, bool keepdim = false,
              Loc loc = Loc::current());
// More reductions (docs/ops.md). all/any give bool (x != 0, NaN counts as true),
// count_nonzero int64; amax/amin are max/min; nansum/nanmean skip NaN; std = sqrt(var);
// logsumexp is stable (rows of -inf give -inf) and turns integers into float32; norm is the
// vector p-norm (ord = inf, -inf, 0 or any p; floats only).
Tensor all(const Tensor& x, const Axes& axes = {}, bool keepdim = false, Loc loc = Loc::current());
Tensor any(const Tensor& x, const Axes& axes = {}, bool keepdim = false, Loc loc = Loc::current());
Tensor count_nonzero(const Tensor& x, const Axes& axes = {}, bool keepdim = false,
                     Loc loc = Loc::current());
Tensor amax(const Tensor& x, const Axes& axes = {}, bool keepdim = false, Loc loc = Loc::current());
Tensor amin(const Tensor& x, const Axes& axes = {}, bool keepdim = false, Loc loc = Loc::current());
Tensor nansum(const Tensor& x, const Axes& axes = {}, bool keepdim = false,
              Loc loc = Loc::current());
Tensor nanmean(const Tensor& x, const Axes& axes = {}, bool keepdim = false,
               Loc loc = Loc::current());
// Named std_dev: a function `std` would hide namespace std inside namespace tensord.
Tensor std_dev(const Tensor& x, const Axes& axes = {}, double correction = 0, bool keepdim = false,
               Loc loc = Loc::current());
Tensor logsumexp(const Tensor& x, const Axes& axes = {}, bool keepdim = false,
                 Loc loc = Loc::current());
Tensor norm(const Tensor& x, double ord = 2, const Axes& axes = {}, bool keepdim = false,
            Loc loc = Loc::current());
// Scans along `axis`: integers and bool give int64 (logcumsumexp: float32).
Tensor cumsum(const Tensor& x, int64_t axis, Loc loc = Loc::current());
Tensor cumprod(const Tensor& x, int64_t axis, Loc loc = Loc::current());
Tensor logcumsumexp(const Tensor& x, int64_t axis, Loc loc = Loc::current());

// Shape and indexing (issue 4). tril/triu keep col - row <= k / >= k over the last two axes;
// roll without dims rolls the flattened tensor; tile repeats the whole tensor (reps padded with
// leading 1s), repeat is tile needing len(sizes) >= rank (torch.Tensor.repeat);
// repeat_interleave repeats each element (no axis: of the flattened tensor); take indexes the
// flattened tensor; indices are read like gather (negative wraps once, out of range fails at
// run time).
Tensor tril(const Tensor& x, int64_t k = 0, Loc loc = Loc::current());
Tensor triu(const Tensor& x, int64_t k = 0, Loc loc = Loc::current());
Tensor roll(const Tensor& x, const std::vector<int64_t>& shifts,
            const std::vector<int64_t>& dims = {}, Loc loc = Loc::current());
Tensor tile(const Tensor& x, const std::vector<int64_t>& reps, Loc loc = Loc::current());
Tensor repeat(const Tensor& x, const std::vector<int64_t>& sizes, Loc loc = Loc::current());
Tensor repeat_interleave(const Tensor& x, int64_t repeats,
                         std::optional<int64_t> axis = std::nullopt, Loc loc = Loc::current());
Tensor narrow(const Tensor& x, int64_t axis, int64_t start, int64_t length,
              Loc loc = Loc::current());
Tensor take(const Tensor& x, const Tensor& index, Loc loc = Loc::current());
Tensor take_along_dim(const Tensor& x, const Tensor& index,
                      std::optional<int64_t> axis = std::nullopt, Loc loc = Loc::current());
// mask: bool, broadcasting to x's shape.
Tensor masked_fill(const Tensor& x, const Tensor& mask, Scalar value, Loc loc = Loc::current());
// int64 (..., num_classes); indices outside [0, num_classes) give a row of zeros. A negative
// num_classes means max(x) + 1, which syncs to learn it (the shape depends on the data).
Tensor one_hot(const Tensor& x, int64_t num_classes = -1, Loc loc = Loc::current());
Tensor rot90(const Tensor& x, int64_t k = 1, const std::vector<int64_t>& dims = {0, 1},
             Loc loc = Loc::current());
Tensor diagonal(const Tensor& x, int64_t offset = 0, int64_t dim1 = 0, int64_t dim2 = 1,
                Loc loc = Loc::current());
Tensor diag_embed(const Tensor& x, int64_t offset = 0, Loc loc = Loc::current());
Tensor diag(const Tensor& x, int64_t k = 0, Loc loc = Loc::current());  // 1-D <-> 2-D
// x with src written (scatter) or added (scatter_add) at index along axis; index no larger than
// src (and than x off the axis); src is cast to x's dtype; repeated targets: the last position
// in row-major order wins / sums in that order. index_add adds alpha * src[i] at index[i].
Tensor scatter(const Tensor& x, int64_t axis, const Tensor& index, const Tensor& src,
               Loc loc = Loc::current());
Tensor scatter_add(const Tensor& x, int64_t axis, const Tensor& index, const Tensor& src,
                   Loc loc = Loc::current());
Tensor index_add(const Tensor& x, int64_t axis, const Tensor& index, const Tensor& src,
                 double alpha = 1.0, Loc loc = Loc::current());
// issue 4 (h/datadep), docs/ops.md. searchsorted: int64 insertion points of `values` in the
// sorted last axis of `sorted_sequence` (1-D, or leading dims matching values'); right: after
// equal elements; sorter: the argsort of an unsorted sequence. bucketize(x, boundaries, right)
// = searchsorted(boundaries, x, right). scatter_reduce combines src into x at index along axis
// (include_self: x's own value takes part; mean rounds integer results toward -inf).
// index_put writes (accumulate: adds) values at x[indices...]: integer index tensors
// broadcast together, or one bool mask over x's leading axes. unfold: windows of `size` every
// `step` along axis, as a new last axis.
Tensor searchsorted(const Tensor& sorted_sequence, const Tensor& values, bool right = false,
                    Loc loc = Loc::current());
Tensor searchsorted(const Tensor& sorted_sequence, const Tensor& values, const Tensor& sorter,
                    bool right = false, Loc loc = Loc::current());
Tensor bucketize(const Tensor& x, const Tensor& boundaries, bool right = false,
                 Loc loc = Loc::current());
enum class ScatterReduce : int64_t { Sum = 0, Prod = 1, Mean = 2, Amax = 3, Amin = 4 };
Tensor scatter_reduce(const Tensor& x, int64_t axis, const Tensor& index, const Tensor& src,
                      ScatterReduce reduce, bool include_self = true, Loc loc = Loc::current());
Tensor scatter(const Tensor& x, int64_t axis, const Tensor& index, Scalar value,
               Loc loc = Loc::current());
Tensor index_put(const Tensor& x, const std::vector<Tensor>& indices, const Tensor& values,
                 bool accumulate = false, Loc loc = Loc::current());
Tensor unfold(const Tensor& x, int64_t axis, int64_t size, int64_t step, Loc loc = Loc::current());
// Data-dependent output shapes (docs/design-notes.md): the size marked ir::kDynamic (-1) in
// shape() is known once the tensor is synced (to_vector, item, Session::sync); later ops may
// consume such tensors before that. nonzero: int64 (n, rank) indices of the non-zero elements
// (NaN counts) in row-major order; flatnonzero: (n,) flat indices; where(cond): nonzero as one
// 1-D tensor per axis; masked_select: the elements of x where mask (broadcast) is true;
// unique: the sorted distinct values of the flattened x (NaN last, each NaN distinct; -0.0 and
// 0.0 one value), unique_counts their counts, unique_inverse (int64 of x's shape, static) each
// element's position among them; unique_all all four from one node (one sort in the daemon);
// each of the three single functions records that node too and keeps one output.
// repeat_interleave with a tensor of repeats: element i repeats[i] times; boolean_index is
// x[mask] (mask's shape = x's leading dims): (n,) + the rest of x's shape.
Tensor nonzero(const Tensor& x, Loc loc = Loc::current());
Tensor flatnonzero(const Tensor& x, Loc loc = Loc::current());
std::vector<Tensor> where(const Tensor& cond, Loc loc = Loc::current());
Tensor masked_select(const Tensor& x, const Tensor& mask, Loc loc = Loc::current());
Tensor unique(const Tensor& x, Loc loc = Loc::current());
Tensor unique_counts(const Tensor& x, Loc loc = Loc::current());
Tensor unique_inverse(const Tensor& x, Loc loc = Loc::current());
struct UniqueAll {         // the Array API's unique_all
  Tensor values;           // (n,) sorted distinct values
  Tensor indices;          // (n,) int64: flat index of each value's first occurrence in x
  Tensor inverse_indices;  // int64 of x's shape: each element's position in values
  Tensor counts;           // (n,) int64
};
UniqueAll unique_all(const Tensor& x, Loc loc = Loc::current());
Tensor repeat_interleave(const Tensor& x, const Tensor& repeats,
                         std::optional<int64_t> axis = std::nullopt, Loc loc = Loc::current());
Tensor boolean_index(const Tensor& x, const Tensor& mask, Loc loc = Loc::current());
// Several results: recorded as one slice/expand per result (the IR has single-output ops).
std::vector<Tensor> split(const Tensor& x, const std::vector<int64_t>& sizes, int64_t axis = 0,
                          Loc loc = Loc::current());
std::vector<Tensor> split(const Tensor& x, int64_t size, int64_t axis = 0,
                          Loc loc = Loc::current());
std::vector<Tensor> chunk(const Tensor& x, int64_t chunks, int64_t axis = 0,
                          Loc loc = Loc::current());
std::vector<Tensor> broadcast_tensors(const std::vector<Tensor>& xs, Loc loc = Loc::current());
// indexing "ij" (xy = false) or "xy" (the first two axes swapped).
std::vector<Tensor> meshgrid(const std::vector<Tensor>& xs, bool xy = false,
                             Loc loc = Loc::current());

// Special functions (issue 4, torch.special): float functions like exp (integers give float32),
// evaluated in float64 and rounded once. expit is sigmoid; xlogy(x, y) = x log y and
// xlog1py(x, y) = x log1p(y), both 0 where x == 0 unless y is NaN.
Tensor lgamma(const Tensor& x, Loc loc = Loc::current());
Tensor digamma(const Tensor& x, Loc loc = Loc::current());
Tensor erfinv(const Tensor& x, Loc loc = Loc::current());
Tensor erfcx(const Tensor& x, Loc loc = Loc::current());
Tensor i0(const Tensor& x, Loc loc = Loc::current());
Tensor i0e(const Tensor& x, Loc loc = Loc::current());
Tensor i1(const Tensor& x, Loc loc = Loc::current());
Tensor i1e(const Tensor& x, Loc loc = Loc::current());
Tensor ndtr(const Tensor& x, Loc loc = Loc::current());
Tensor ndtri(const Tensor& x, Loc loc = Loc::current());
Tensor log_ndtr(const Tensor& x, Loc loc = Loc::current());
Tensor sinc(const Tensor& x, Loc loc = Loc::current());
Tensor entr(const Tensor& x, Loc loc = Loc::current());
Tensor logit(const Tensor& x, Loc loc = Loc::current());
Tensor expit(const Tensor& x, Loc loc = Loc::current());
Tensor xlogy(const Operand& x, const Operand& y, Loc loc = Loc::current());
Tensor xlog1py(const Operand& x, const Operand& y, Loc loc = Loc::current());
// More special functions (issue 4): polygamma(n, x) = the n-th derivative of digamma (n >= 0);
// multigammaln(x, p) = log of the multivariate gamma function (NaN for x <= (p - 1) / 2; p >= 1);
// gammainc/gammaincc(a, x) the regularized lower/upper incomplete gamma functions; bessel_j0/j1
// Bessel functions of the first kind; zeta(x, q) the Hurwitz zeta function; logit with eps
// clamps x to [eps, 1 - eps] first (as torch.special.logit).
Tensor polygamma(int64_t n, const Tensor& x, Loc loc = Loc::current());
Tensor multigammaln(const Tensor& x, int64_t p, Loc loc = Loc::current());
Tensor gammainc(const Operand& a, const Operand& x, Loc loc = Loc::current());
Tensor gammaincc(const Operand& a, const Operand& x, Loc loc = Loc::current());
Tensor bessel_j0(const Tensor& x, Loc loc = Loc::current());
Tensor bessel_j1(const Tensor& x, Loc loc = Loc::current());
Tensor zeta(const Operand& x, const Operand& q, Loc loc = Loc::current());
Tensor logit(const Tensor& x, double eps, Loc loc = Loc::current());

// Sorting (issue 4). sort/argsort along `axis`, NaN the largest value (last ascending, first
// descending); stable keeps equal elements in their order (either direction); argsort gives
// int64 indices. quantile(x, q): q a number or a 0-d/1-d float tensor in [0, 1] (checked when
// the graph runs); a 1-d q puts its axis first; no axis: over all elements; a NaN in a line
// gives NaN (nanquantile skips NaN). median/nanmedian: the lower median of all elements.
// (values, indices) of the ops with two such outputs: values of x's dtype, int64 positions
// along the axis (one node computes both).
struct ValuesIndices {
  Tensor values;
  Tensor indices;
};
ValuesIndices sort(const Tensor& x, int64_t axis = -1, bool descending = false, bool stable = true,
                   Loc loc = Loc::current());
Tensor argsort(const Tensor& x, int64_t axis = -1, bool descending = false, bool stable = true,
               Loc loc = Loc::current());
enum class Interpolation : int64_t { Linear = 0, Lower = 1, Higher = 2, Nearest = 3, Midpoint = 4 };
Tensor quantile(const Tensor& x, const Tensor& q, std::optional<int64_t> axis = std::nullopt,
                bool keepdim = false, Interpolation interpolation = Interpolation::Linear,
                Loc loc = Loc::current());
Tensor quantile(const Tensor& x, double q, std::optional<int64_t> axis = std::nullopt,
                bool keepdim = false, Interpolation interpolation = Interpolation::Linear,
                Loc loc = Loc::current());
Tensor nanquantile(const Tensor& x, const Tensor& q, std::optional<int64_t> axis = std::nullopt,
                   bool keepdim = false, Interpolation interpolation = Interpolation::Linear,
                   Loc loc = Loc::current());
Tensor nanquantile(const Tensor& x, double q, std::optional<int64_t> axis = std::nullopt,
                   bool keepdim = false, Interpolation interpolation = Interpolation::Linear,
                   Loc loc = Loc::current());
Tensor median(const Tensor& x, Loc loc = Loc::current());
Tensor nanmedian(const Tensor& x, Loc loc = Loc::current());
// topk: the k largest (largest = false: smallest) in order (sorted = false too: PyTorch leaves
// that order open); ties in input order. kthvalue: the k-th smallest (k from 1). median/nanmedian
// along an axis: the lower median (a line with a NaN: NaN at its first NaN; nanmedian skips
// NaNs). mode: the most frequent value (ties: the smallest) at its last position. cummax,
// cummin: running max/min with its position (ties take the later one; NaN propagates).
ValuesIndices topk(const Tensor& x, int64_t k, int64_t axis = -1, bool largest = true,
                   bool sorted = true, Loc loc = Loc::current());
ValuesIndices kthvalue(const Tensor& x, int64_t k, int64_t axis = -1, bool keepdim = false,
                       Loc loc = Loc::current());
ValuesIndices median(const Tensor& x, int64_t axis, bool keepdim = false, Loc loc = Loc::current());
ValuesIndices nanmedian(const Tensor& x, int64_t axis, bool keepdim = false,
                        Loc loc = Loc::current());
ValuesIndices mode(const Tensor& x, int64_t axis = -1, bool keepdim = false,
                   Loc loc = Loc::current());
ValuesIndices cummax(const Tensor& x, int64_t axis, Loc loc = Loc::current());
ValuesIndices cummin(const Tensor& x, int64_t axis, Loc loc = Loc::current());

// Views and data movement.
Tensor reshape(const Tensor& x, const ir::Shape& shape, Loc loc = Loc::current());  // one -1
Tensor permute(const Tensor& x, const std::vector<int64_t>& dims, Loc loc = Loc::current());
Tensor transpose(const Tensor& x, int64_t dim0, int64_t dim1, Loc loc = Loc::current());
// New leading dims, and size-1 dims broadcast to any size; -1 keeps a dim.
Tensor expand(const Tensor& x, const ir::Shape& shape, Loc loc = Loc::current());
Tensor squeeze(const Tensor& x, const Axes& axes = {}, Loc loc = Loc::current());
// `axes` are positions in the result.
Tensor unsqueeze(const Tensor& x, const Axes& axes, Loc loc = Loc::current());
// Python's x[start:stop:step] along `axis`; an absent bound is the end in the step's direction.
Tensor slice(const Tensor& x, int64_t axis, std::optional<int64_t> start,
             std::optional<int64_t> stop, int64_t step = 1, Loc loc = Loc::current());
Tensor flip(const Tensor& x, const Axes& axes = {}, Loc loc = Loc::current());
Tensor contiguous(const Tensor& x, Loc loc = Loc::current());
Tensor concat(const std::vector<Tensor>& xs, int64_t axis = 0, Loc loc = Loc::current());
Tensor stack(const std::vector<Tensor>& xs, int64_t axis = 0, Loc loc = Loc::current());
// pads: (before, after) for axis 0, then axis 1, ...; negative pads crop.
Tensor pad(const Tensor& x, const std::vector<int64_t>& pads, Scalar value = 0,
           Loc loc = Loc::current());
// Out-of-range indices fail when the graph runs (code Shape), at this call's line.
Tensor index_select(const Tensor& x, int64_t axis, const Tensor& index, Loc loc = Loc::current());
Tensor gather(const Tensor& x, int64_t axis, const Tensor& index, Loc loc = Loc::current());

// Linear algebra and neural-network ops.
Tensor matmul(const Tensor& a, const Tensor& b, Loc loc = Loc::current());
Tensor softmax(const Tensor& x, int64_t axis, Loc loc = Loc::current());
Tensor log_softmax(const Tensor& x, int64_t axis, Loc loc = Loc::current());
// Normalizes over the last `normalized_ndim` axes; weight and bias (optional: pass an
// undefined Tensor) have those axes' shape.
Tensor layer_norm(const Tensor& x, int64_t normalized_ndim, const Tensor& weight = {},
                  const Tensor& bias = {}, double eps = 1e-5, Loc loc = Loc::current());

// Losses (docs/ops.md), PyTorch's functional forms. Float inputs (cosine_similarity also takes
// integers, as float32).
enum class Reduction : int64_t { None = 0, Mean = 1, Sum = 2, BatchMean = 3 /* kl_div only */ };
Tensor mse_loss(const Tensor& input, const Tensor& target, Reduction r = Reduction::Mean,
                Loc loc = Loc::current());
Tensor l1_loss(const Tensor& input, const Tensor& target, Reduction r = Reduction::Mean,
               Loc loc = Loc::current());
Tensor smooth_l1_loss(const Tensor& input, const Tensor& target, Reduction r = Reduction::Mean,
                      double beta = 1.0, Loc loc = Loc::current());
Tensor huber_loss(const Tensor& input, const Tensor& target, Reduction r = Reduction::Mean,
                  double delta = 1.0, Loc loc = Loc::current());
Tensor binary_cross_entropy(const Tensor& input, const Tensor& target,
                            Reduction r = Reduction::Mean, Loc loc = Loc::current());
Tensor binary_cross_entropy_with_logits(const Tensor& input, const Tensor& target,
                                        Reduction r = Reduction::Mean, Loc loc = Loc::current());
// input: log-probabilities; target: probabilities (log-probabilities with log_target).
Tensor kl_div(const Tensor& input, const Tensor& target, Reduction r = Reduction::Mean,
              bool log_target = false, Loc loc = Loc::current());
// target: class indices (integers, the input's shape less axis 1) or probabilities (floats, the
// input's shape). Indices equal to ignore_index contribute 0 and are not counted by the mean.
Tensor cross_entropy(const Tensor& input, const Tensor& target, Reduction r = Reduction::Mean,
                     int64_t ignore_index = -100, double label_smoothing = 0.0,
                     Loc loc = Loc::current());
Tensor nll_loss(const Tensor& input, const Tensor& target, Reduction r = Reduction::Mean,
                int64_t ignore_index = -100, Loc loc = Loc::current());
Tensor cosine_similarity(const Tensor& a, const Tensor& b, int64_t axis = 1, double eps = 1e-8,
                         Loc loc = Loc::current());

// Ops with several outputs: one Tensor per output over one recorded node; syncing any of them
// computes the node once and materializes the others still held (docs/ops.md).
// x = mantissa * 2^exponent, 0.5 <= |mantissa| < 1, exponent int32; floats only.
struct Frexp {
  Tensor mantissa;
  Tensor exponent;
};
Frexp frexp(const Tensor& x, Loc loc = Loc::current());
// Issue 4: class weights (shape (classes), floating) of cross_entropy and nll_loss. Each term
// is scaled by its target class's weight; the mean divides by the sum of the counted weights.
Tensor cross_entropy(const Tensor& input, const Tensor& target, const Tensor& weight,
                     Reduction r = Reduction::Mean, int64_t ignore_index = -100,
                     double label_smoothing = 0.0, Loc loc = Loc::current());
Tensor nll_loss(const Tensor& input, const Tensor& target, const Tensor& weight,
                Reduction r = Reduction::Mean, int64_t ignore_index = -100,
                Loc loc = Loc::current());
// Complex numbers (issue 4; docs/ops.md "Complex numbers"). Tensors of std::complex<float> /
// std::complex<double> elements are complex64 / complex128. real/imag need a complex input and
// give its component dtype; angle gives the argument (real input: 0 or pi); conj is the
// identity on real inputs; complex(re, im) builds complex64/complex128 from float parts.
Tensor real(const Tensor& x, Loc loc = Loc::current());
Tensor imag(const Tensor& x, Loc loc = Loc::current());
Tensor angle(const Tensor& x, Loc loc = Loc::current());
Tensor conj(const Tensor& x, Loc loc = Loc::current());
Tensor complex(const Tensor& re, const Tensor& im, Loc loc = Loc::current());

// FFT (issue 4; docs/ops.md "FFT"), numpy.fft's functions. n/s pad with zeros or truncate the
// input along the axes; norm as numpy's ("backward": the inverse scales by 1/n). Real inputs of
// fft/fftn are made complex; integer inputs are rejected.
class Session;

namespace fft {
enum class Norm { Backward, Ortho, Forward };
using Lengths = std::optional<std::vector<int64_t>>;
Tensor fft(const Tensor& x, std::optional<int64_t> n = std::nullopt, int64_t axis = -1,
           Norm norm = Norm::Backward, Loc loc = Loc::current());
Tensor ifft(const Tensor& x, std::optional<int64_t> n = std::nullopt, int64_t axis = -1,
            Norm norm = Norm::Backward, Loc loc = Loc::current());
Tensor rfft(const Tensor& x, std::optional<int64_t> n = std::nullopt, int64_t axis = -1,
            Norm norm = Norm::Backward, Loc loc = Loc::current());
// n: the output length along axis (default 2 * (m - 1) for an input of length m).
Tensor irfft(const Tensor& x, std::optional<int64_t> n = std::nullopt, int64_t axis = -1,
             Norm norm = Norm::Backward, Loc loc = Loc::current());
Tensor hfft(const Tensor& x, std::optional<int64_t> n = std::nullopt, int64_t axis = -1,
            Norm norm = Norm::Backward, Loc loc = Loc::current());
Tensor ihfft(const Tensor& x, std::optional<int64_t> n = std::nullopt, int64_t axis = -1,
             Norm norm = Norm::Backward, Loc loc = Loc::current());
// axes default: the last len(s) axes, or every axis (fft2/ifft2: the last two).
Tensor fft2(const Tensor& x, Lengths s = std::nullopt, std::vector<int64_t> axes = {-2, -1},
            Norm norm = Norm::Backward, Loc loc = Loc::current());
Tensor ifft2(const Tensor& x, Lengths s = std::nullopt, std::vector<int64_t> axes = {-2, -1},
             Norm norm = Norm::Backward, Loc loc = Loc::current());
Tensor fftn(const Tensor& x, Lengths s = std::nullopt, Lengths axes = std::nullopt,
            Norm norm = Norm::Backward, Loc loc = Loc::current());
Tensor ifftn(const Tensor& x, Lengths s = std::nullopt, Lengths axes = std::nullopt,
             Norm norm = Norm::Backward, Loc loc = Loc::current());
Tensor rfftn(const Tensor& x, Lengths s = std::nullopt, Lengths axes = std::nullopt,
             Norm norm = Norm::Backward, Loc loc = Loc::current());
Tensor irfftn(const Tensor& x, Lengths s = std::nullopt, Lengths axes = std::nullopt,
              Norm norm = Norm::Backward, Loc loc = Loc::current());
// Sample frequencies, as numpy: [0, 1, ..., -(n/2), ..., -1] / (d n) and [0, ..., n/2] / (d n).
Tensor fftfreq(Session& s, int64_t n, double d = 1.0, ir::DType dtype = ir::DType::Float32,
               Loc loc = Loc::current());
Tensor rfftfreq(Session& s, int64_t n, double d = 1.0, ir::DType dtype = ir::DType::Float32,
                Loc loc = Loc::current());
// Rolls by n/2 (ifftshift: by -(n/2)) along axes (default: every axis).
Tensor fftshift(const Tensor& x, Lengths axes = std::nullopt, Loc loc = Loc::current());
Tensor ifftshift(const Tensor& x, Lengths axes = std::nullopt, Loc loc = Loc::current());
}  // namespace fft

}  // namespace tensord

// Issue 4: neural-network ops (conv, pooling, norms, attention, ...).
#include "tensord/ops_nn.h"  // IWYU pragma: export
