// The op table: arity and attribute schema of every op in ops.def.
#include <algorithm>
#include <array>
#include <utility>

#include "engine/ir/op.h"

namespace tensord::ir {
namespace {

using K = AttrKind;
constexpr bool req = true, opt = false;

constexpr AttrSpec kInput[] = {
    {Attr::index, K::Int, req}, {Attr::dtype, K::DType, req}, {Attr::shape, K::Ints, req}};
constexpr AttrSpec kFull[] = {
    {Attr::shape, K::Ints, req}, {Attr::value, K::Scalar, req}, {Attr::dtype, K::DType, req}};
constexpr AttrSpec kArange[] = {{Attr::start, K::Scalar, req},
                                {Attr::stop, K::Scalar, req},
                                {Attr::step, K::Scalar, req},
                                {Attr::dtype, K::DType, req}};
constexpr AttrSpec kEye[] = {{Attr::n, K::Int, req},
                             {Attr::m, K::Int, opt},
                             {Attr::k, K::Int, opt},
                             {Attr::dtype, K::DType, req}};
constexpr AttrSpec kRandom[] = {
    {Attr::shape, K::Ints, req}, {Attr::seed, K::Int, req}, {Attr::dtype, K::DType, req}};
constexpr AttrSpec kFilled[] = {{Attr::shape, K::Ints, req}, {Attr::dtype, K::DType, req}};
constexpr AttrSpec kCast[] = {{Attr::dtype, K::DType, req}};
constexpr AttrSpec kGelu[] = {{Attr::tanh, K::Bool, opt}};
constexpr AttrSpec kClamp[] = {{Attr::min, K::Scalar, opt}, {Attr::max, K::Scalar, opt}};
// nan_to_num: value replaces NaN, max replaces +inf, min replaces -inf.
constexpr AttrSpec kNanToNum[] = {
    {Attr::value, K::Scalar, opt}, {Attr::max, K::Scalar, opt}, {Attr::min, K::Scalar, opt}};
constexpr AttrSpec kReduce[] = {{Attr::axes, K::Ints, opt}, {Attr::keepdim, K::Bool, opt}};
constexpr AttrSpec kArgReduce[] = {{Attr::axis, K::Int, opt}, {Attr::keepdim, K::Bool, opt}};
constexpr AttrSpec kVar[] = {
    {Attr::axes, K::Ints, opt}, {Attr::keepdim, K::Bool, opt}, {Attr::correction, K::Float, opt}};
constexpr AttrSpec kShape[] = {{Attr::shape, K::Ints, req}};
constexpr AttrSpec kDims[] = {{Attr::dims, K::Ints, req}};
constexpr AttrSpec kSlice[] = {{Attr::axis, K::Int, req},
                               {Attr::start, K::Int, opt},
                               {Attr::stop, K::Int, opt},
                               {Attr::step, K::Int, opt}};
constexpr AttrSpec kAxesOpt[] = {{Attr::axes, K::Ints, opt}};
constexpr AttrSpec kAxesReq[] = {{Attr::axes, K::Ints, req}};
constexpr AttrSpec kAxis[] = {{Attr::axis, K::Int, req}};
constexpr AttrSpec kPad[] = {{Attr::pads, K::Ints, req}, {Attr::value, K::Scalar, opt}};
constexpr AttrSpec kLayerNorm[] = {{Attr::normalized_ndim, K::Int, req},
                                   {Attr::eps, K::Float, opt}};
// Issue 4. addcmul/addcdiv: value scales the product or quotient.
constexpr AttrSpec kValue[] = {{Attr::value, K::Scalar, opt}};
constexpr AttrSpec kAlpha[] = {{Attr::alpha, K::Float, opt}};
constexpr AttrSpec kLeakyRelu[] = {{Attr::negative_slope, K::Float, opt}};
constexpr AttrSpec kHardtanh[] = {{Attr::min, K::Float, opt}, {Attr::max, K::Float, opt}};
constexpr AttrSpec kSoftplus[] = {{Attr::beta, K::Float, opt}, {Attr::threshold, K::Float, opt}};
constexpr AttrSpec kAxisOpt[] = {{Attr::axis, K::Int, opt}};
constexpr AttrSpec kNorm[] = {
    {Attr::axes, K::Ints, opt}, {Attr::keepdim, K::Bool, opt}, {Attr::ord, K::Float, opt}};
// Losses: reduction 0 none, 1 mean (default), 2 sum (kl_div: 3 batchmean).
constexpr AttrSpec kLoss[] = {{Attr::reduction, K::Int, opt}};
constexpr AttrSpec kSmoothL1[] = {{Attr::reduction, K::Int, opt}, {Attr::beta, K::Float, opt}};
constexpr AttrSpec kHuber[] = {{Attr::reduction, K::Int, opt}, {Attr::delta, K::Float, opt}};
constexpr AttrSpec kKlDiv[] = {{Attr::reduction, K::Int, opt}, {Attr::log_target, K::Bool, opt}};
constexpr AttrSpec kCrossEntropy[] = {{Attr::reduction, K::Int, opt},
                                      {Attr::ignore_index, K::Int, opt},
                                      {Attr::label_smoothing, K::Float, opt}};
constexpr AttrSpec kNll[] = {{Attr::reduction, K::Int, opt}, {Attr::ignore_index, K::Int, opt}};
constexpr AttrSpec kK[] = {{Attr::k, K::Int, opt}};
constexpr AttrSpec kRoll[] = {{Attr::shifts, K::Ints, req}, {Attr::dims, K::Ints, opt}};
constexpr AttrSpec kTile[] = {{Attr::reps, K::Ints, req}};
constexpr AttrSpec kRepeatInterleave[] = {{Attr::repeats, K::Int, req}, {Attr::axis, K::Int, opt}};
constexpr AttrSpec kNarrow[] = {
    {Attr::axis, K::Int, req}, {Attr::start, K::Int, req}, {Attr::length, K::Int, req}};
constexpr AttrSpec kValueReq[] = {{Attr::value, K::Scalar, req}};
constexpr AttrSpec kOneHot[] = {{Attr::n, K::Int, req}};
constexpr AttrSpec kKDims[] = {{Attr::k, K::Int, opt}, {Attr::dims, K::Ints, opt}};
constexpr AttrSpec kIndexAdd[] = {{Attr::axis, K::Int, req}, {Attr::alpha, K::Float, opt}};
// Issue 4: special functions with attributes, sorting.
constexpr AttrSpec kPolygamma[] = {{Attr::n, K::Int, req}};
constexpr AttrSpec kMultigammaln[] = {{Attr::p, K::Int, req}};
constexpr AttrSpec kLogit[] = {{Attr::eps, K::Float, opt}};
constexpr AttrSpec kSort[] = {
    {Attr::axis, K::Int, opt}, {Attr::descending, K::Bool, opt}, {Attr::stable, K::Bool, opt}};
constexpr AttrSpec kTopk[] = {{Attr::k, K::Int, req},
                              {Attr::axis, K::Int, opt},
                              {Attr::largest, K::Bool, opt},
                              {Attr::sorted, K::Bool, opt}};
constexpr AttrSpec kKthvalue[] = {
    {Attr::k, K::Int, req}, {Attr::axis, K::Int, opt}, {Attr::keepdim, K::Bool, opt}};
constexpr AttrSpec kMedianAxis[] = {{Attr::axis, K::Int, req}, {Attr::keepdim, K::Bool, opt}};
constexpr AttrSpec kMode[] = {{Attr::axis, K::Int, opt}, {Attr::keepdim, K::Bool, opt}};
constexpr AttrSpec kQuantile[] = {
    {Attr::axis, K::Int, opt}, {Attr::keepdim, K::Bool, opt}, {Attr::interpolation, K::Int, opt}};
// issue 4 (h/datadep). scatter_reduce's reduction: 0 sum, 1 prod, 2 mean, 3 amax, 4 amin.
constexpr AttrSpec kSearchsorted[] = {{Attr::right, K::Bool, opt}};
constexpr AttrSpec kScatterReduce[] = {
    {Attr::axis, K::Int, req}, {Attr::reduction, K::Int, req}, {Attr::include_self, K::Bool, opt}};
constexpr AttrSpec kScatterValue[] = {{Attr::axis, K::Int, req}, {Attr::value, K::Scalar, req}};
constexpr AttrSpec kIndexPut[] = {{Attr::accumulate, K::Bool, opt}};
constexpr AttrSpec kUnfold[] = {
    {Attr::axis, K::Int, req}, {Attr::length, K::Int, req}, {Attr::step, K::Int, req}};
constexpr AttrSpec kCosine[] = {{Attr::axis, K::Int, opt}, {Attr::eps, K::Float, opt}};
// Linear algebra (docs/ops.md "Linear algebra").
constexpr AttrSpec kUpper[] = {{Attr::upper, K::Bool, opt}};
constexpr AttrSpec kRankTol[] = {
    {Attr::rtol, K::Float, opt}, {Attr::atol, K::Float, opt}, {Attr::hermitian, K::Bool, opt}};
constexpr AttrSpec kLstsq[] = {{Attr::rtol, K::Float, opt}};
constexpr AttrSpec kDistance[] = {{Attr::ord, K::Float, opt}};
constexpr AttrSpec kMatrixNorm[] = {{Attr::ord, K::Float, opt},
                                    {Attr::mode, K::Int, opt},
                                    {Attr::dims, K::Ints, opt},
                                    {Attr::keepdim, K::Bool, opt}};
constexpr AttrSpec kMatrixPower[] = {{Attr::n, K::Int, req}};
constexpr AttrSpec kQr[] = {{Attr::mode, K::Int, opt}};  // 0 reduced, 1 complete
constexpr AttrSpec kSvd[] = {{Attr::full_matrices, K::Bool, opt}};
// Issue 4: neural-network ops. Spatial attributes (stride, padding, ...) hold one value for
// every spatial axis or one per axis.
constexpr AttrSpec kConv[] = {{Attr::stride, K::Ints, opt},
                              {Attr::padding, K::Ints, opt},
                              {Attr::dilation, K::Ints, opt},
                              {Attr::groups, K::Int, opt}};
constexpr AttrSpec kConvTranspose[] = {{Attr::stride, K::Ints, opt},
                                       {Attr::padding, K::Ints, opt},
                                       {Attr::output_padding, K::Ints, opt},
                                       {Attr::dilation, K::Ints, opt},
                                       {Attr::groups, K::Int, opt}};
constexpr AttrSpec kMaxPool[] = {
    {Attr::kernel, K::Ints, req},    {Attr::stride, K::Ints, opt},
    {Attr::padding, K::Ints, opt},   {Attr::dilation, K::Ints, opt},
    {Attr::ceil_mode, K::Bool, opt}, {Attr::return_indices, K::Bool, opt}};
constexpr AttrSpec kAdaptiveMaxPool[] = {{Attr::shape, K::Ints, req},
                                         {Attr::return_indices, K::Bool, opt}};
constexpr AttrSpec kAvgPool[] = {{Attr::kernel, K::Ints, req},
                                 {Attr::stride, K::Ints, opt},
                                 {Attr::padding, K::Ints, opt},
                                 {Attr::ceil_mode, K::Bool, opt},
                                 {Attr::count_include_pad, K::Bool, opt},
                                 {Attr::divisor, K::Int, opt}};
// interpolate: shape = the output's spatial sizes; mode: ir::InterpolateMode; scales: the
// user's scale factors, which sample in place of in / out (PyTorch's scale_factor).
constexpr AttrSpec kInterpolate[] = {{Attr::shape, K::Ints, req},
                                     {Attr::mode, K::Int, opt},
                                     {Attr::align_corners, K::Bool, opt},
                                     {Attr::scales, K::Floats, opt},
                                     {Attr::antialias, K::Bool, opt}};
constexpr AttrSpec kEps[] = {{Attr::eps, K::Float, opt}};
constexpr AttrSpec kRmsNorm[] = {{Attr::normalized_ndim, K::Int, req}, {Attr::eps, K::Float, opt}};
constexpr AttrSpec kBatchNorm[] = {{Attr::training, K::Bool, opt}, {Attr::eps, K::Float, opt}};
constexpr AttrSpec kGroupNorm[] = {{Attr::groups, K::Int, req}, {Attr::eps, K::Float, opt}};
constexpr AttrSpec kAttention[] = {{Attr::is_causal, K::Bool, opt}, {Attr::scale, K::Float, opt}};
constexpr AttrSpec kDropout[] = {
    {Attr::p, K::Float, opt}, {Attr::training, K::Bool, opt}, {Attr::seed, K::Int, opt}};
constexpr AttrSpec kFactor[] = {{Attr::factor, K::Int, req}};
constexpr AttrSpec kCtc[] = {{Attr::blank, K::Int, opt},
                             {Attr::reduction, K::Int, opt},
                             {Attr::zero_infinity, K::Bool, opt}};
// Issue 4, FFT: axes transformed, shape = their lengths after padding/truncation (numpy's s;
// fft_c2r: the real output's lengths), fft_norm 0 backward / 1 ortho / 2 forward, inverse
// (fft_c2c only) the sign of the exponent.
constexpr AttrSpec kFftC2C[] = {{Attr::axes, K::Ints, req},
                                {Attr::shape, K::Ints, opt},
                                {Attr::fft_norm, K::Int, opt},
                                {Attr::inverse, K::Bool, opt}};
constexpr AttrSpec kFft[] = {
    {Attr::axes, K::Ints, req}, {Attr::shape, K::Ints, opt}, {Attr::fft_norm, K::Int, opt}};

constexpr std::span<const AttrSpec> attrs_of(Op op) {
  switch (op) {
    // issue 4: FFT
    case Op::fft_c2c:
      return kFftC2C;
    case Op::fft_r2c:
    case Op::fft_c2r:
      return kFft;
    case Op::input:
      return kInput;
    case Op::full:
      return kFull;
    case Op::arange:
      return kArange;
    case Op::eye:
      return kEye;
    case Op::rand:
    case Op::randn:
      return kRandom;
    case Op::zeros:
    case Op::ones:
      return kFilled;
    case Op::cast:
      return kCast;
    case Op::gelu:
      return kGelu;
    case Op::clamp:
      return kClamp;
    case Op::nan_to_num:
      return kNanToNum;
    case Op::sum:
    case Op::prod:
    case Op::max:
    case Op::min:
    case Op::mean:
      return kReduce;
    case Op::argmax:
    case Op::argmin:
      return kArgReduce;
    case Op::var:
      return kVar;
    case Op::reshape:
    case Op::expand:
      return kShape;
    case Op::permute:
    case Op::transpose:
      return kDims;
    case Op::slice:
      return kSlice;
    case Op::squeeze:
    case Op::flip:
      return kAxesOpt;
    case Op::unsqueeze:
      return kAxesReq;
    case Op::concat:
    case Op::stack:
    case Op::index_select:
    case Op::gather:
    case Op::softmax:
    case Op::log_softmax:
      return kAxis;
    case Op::pad:
      return kPad;
    case Op::layer_norm:
      return kLayerNorm;
    case Op::addcmul:
    case Op::addcdiv:
      return kValue;
    case Op::celu:
    case Op::elu:
      return kAlpha;
    case Op::leaky_relu:
      return kLeakyRelu;
    case Op::hardtanh:
      return kHardtanh;
    case Op::softplus:
      return kSoftplus;
    case Op::glu:
      return kAxisOpt;
    case Op::all:
    case Op::any:
    case Op::count_nonzero:
    case Op::amax:
    case Op::amin:
    case Op::nansum:
    case Op::nanmean:
    case Op::logsumexp:
      return kReduce;
    case Op::std:
      return kVar;
    case Op::norm:
      return kNorm;
    case Op::cumsum:
    case Op::cumprod:
    case Op::logcumsumexp:
      return kAxis;
    case Op::mse_loss:
    case Op::l1_loss:
    case Op::binary_cross_entropy:
    case Op::binary_cross_entropy_with_logits:
      return kLoss;
    case Op::smooth_l1_loss:
      return kSmoothL1;
    case Op::huber_loss:
      return kHuber;
    case Op::kl_div:
      return kKlDiv;
    case Op::cross_entropy:
      return kCrossEntropy;
    case Op::nll_loss:
      return kNll;
    case Op::cosine_similarity:
      return kCosine;
    case Op::tril:
    case Op::triu:
    case Op::diag_embed:
    case Op::diag:
      return kK;
    case Op::roll:
      return kRoll;
    case Op::tile:
      return kTile;
    case Op::repeat_interleave:
      return kRepeatInterleave;
    case Op::narrow:
      return kNarrow;
    case Op::take_along_dim:
      return kAxisOpt;
    case Op::masked_fill:
      return kValueReq;
    case Op::one_hot:
      return kOneHot;
    case Op::rot90:
    case Op::diagonal:
      return kKDims;
    case Op::scatter:
    case Op::scatter_add:
      return kAxis;
    case Op::index_add:
      return kIndexAdd;
    // issue 4: special functions with attributes, sorting
    case Op::polygamma:
      return kPolygamma;
    case Op::multigammaln:
      return kMultigammaln;
    case Op::logit:
      return kLogit;
    case Op::sort:
    case Op::argsort:
      return kSort;
    case Op::quantile:
    case Op::nanquantile:
      return kQuantile;
    case Op::topk:
      return kTopk;
    case Op::kthvalue:
      return kKthvalue;
    case Op::median_axis:
    case Op::nanmedian_axis:
      return kMedianAxis;
    case Op::mode:
      return kMode;
    case Op::cummax:
    case Op::cummin:
      return kAxis;
    // linear algebra
    case Op::cholesky:
    case Op::eigvalsh:
    case Op::eigh:
      return kUpper;
    case Op::qr:
      return kQr;
    case Op::svd:
      return kSvd;
    case Op::pinv:
    case Op::matrix_rank:
      return kRankTol;
    case Op::lstsq:
      return kLstsq;
    case Op::cdist:
    case Op::pdist:
      return kDistance;
    case Op::trace:
      return kK;
    case Op::cross:
      return kAxisOpt;
    case Op::matrix_norm:
      return kMatrixNorm;
    case Op::matrix_power:
      return kMatrixPower;
    // issue 4 (h/datadep)
    case Op::searchsorted:
    case Op::bucketize:
      return kSearchsorted;
    case Op::scatter_reduce:
      return kScatterReduce;
    case Op::scatter_value:
      return kScatterValue;
    case Op::index_put:
      return kIndexPut;
    case Op::unfold:
      return kUnfold;
    case Op::repeat_interleave_tensor:
      return kAxisOpt;
    // issue 4: neural-network ops
    case Op::conv1d:
    case Op::conv2d:
    case Op::conv3d:
      return kConv;
    case Op::conv_transpose1d:
    case Op::conv_transpose2d:
    case Op::conv_transpose3d:
      return kConvTranspose;
    case Op::max_pool1d:
    case Op::max_pool2d:
    case Op::max_pool3d:
      return kMaxPool;
    case Op::avg_pool1d:
    case Op::avg_pool2d:
    case Op::avg_pool3d:
      return kAvgPool;
    case Op::adaptive_avg_pool1d:
    case Op::adaptive_avg_pool2d:
    case Op::adaptive_avg_pool3d:
    case Op::max_unpool:
      return kShape;
    case Op::adaptive_max_pool1d:
    case Op::adaptive_max_pool2d:
    case Op::adaptive_max_pool3d:
      return kAdaptiveMaxPool;
    case Op::interpolate:
      return kInterpolate;
    case Op::rms_norm:
      return kRmsNorm;
    case Op::batch_norm:
      return kBatchNorm;
    case Op::group_norm:
      return kGroupNorm;
    case Op::instance_norm:
      return kEps;
    case Op::scaled_dot_product_attention:
      return kAttention;
    case Op::dropout:
      return kDropout;
    case Op::pixel_shuffle:
    case Op::pixel_unshuffle:
      return kFactor;
    case Op::ctc_loss:
      return kCtc;
    default:
      return {};
  }
}

constexpr size_t kNumOps = 0
#define X(id, kind, min_in, max_in) +1
#include "engine/ir/ops.def"
#undef X
    ;

constexpr auto kTable = [] {
  std::array<OpInfo, kNumOps> t{};
  size_t i = 0;
#define X(id, kind, min_in, max_in) \
  t[i++] = OpInfo{Op::id, #id, OpKind::kind, min_in, max_in, attrs_of(Op::id)};
#include "engine/ir/ops.def"
#undef X
  return t;
}();

// The names in order, for op_from_name's binary search: every wire node is looked up by name
// (a scan of the 264 names took 120-126 ns a lookup here, the search 35-37).
constexpr auto kByName = [] {
  std::array<std::pair<std::string_view, Op>, kNumOps> t{};
  for (size_t i = 0; i < kNumOps; ++i) t[i] = {kTable[i].name, kTable[i].op};
  std::sort(t.begin(), t.end());
  return t;
}();

}  // namespace

const OpInfo& op_info(Op op) {
  return kTable[static_cast<size_t>(op)];
}
std::span<const OpInfo> all_ops() {
  return kTable;
}

std::optional<Op> op_from_name(std::string_view n) {
  const auto it =
      std::lower_bound(kByName.begin(), kByName.end(), n,
                       [](const auto& entry, std::string_view k) { return entry.first < k; });
  if (it == kByName.end() || it->first != n) return std::nullopt;
  return it->second;
}

}  // namespace tensord::ir
