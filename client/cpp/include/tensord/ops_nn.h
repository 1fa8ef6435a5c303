// Neural-network ops of issue 4 (docs/ops.md "Neural-network ops"), PyTorch's functional forms
// (torch.nn.functional). Included by tensord/ops.h. Spatial parameters (stride, padding, ...)
// take one value for every spatial axis or one per axis. Optional tensors are undefined Tensors.
#pragma once

#include <cstdint>
#include <optional>
#include <source_location>
#include <vector>

#include "tensord/tensor.h"

namespace tensord {

using Ints = std::vector<int64_t>;
struct ValuesIndices;  // tensord/ops.h

// x (N, C_in, L... ) or unbatched (C_in, L...), weight (C_out, C_in / groups, k...), bias
// (C_out).
Tensor conv1d(const Tensor& x, const Tensor& weight, const Tensor& bias = {}, Ints stride = {1},
              Ints padding = {0}, Ints dilation = {1}, int64_t groups = 1,
              std::source_location loc = std::source_location::current());
Tensor conv2d(const Tensor& x, const Tensor& weight, const Tensor& bias = {}, Ints stride = {1},
              Ints padding = {0}, Ints dilation = {1}, int64_t groups = 1,
              std::source_location loc = std::source_location::current());
Tensor conv3d(const Tensor& x, const Tensor& weight, const Tensor& bias = {}, Ints stride = {1},
              Ints padding = {0}, Ints dilation = {1}, int64_t groups = 1,
              std::source_location loc = std::source_location::current());
// weight (C_in, C_out / groups, k...); PyTorch's argument order.
Tensor conv_transpose1d(const Tensor& x, const Tensor& weight, const Tensor& bias = {},
                        Ints stride = {1}, Ints padding = {0}, Ints output_padding = {0},
                        int64_t groups = 1, Ints dilation = {1},
                        std::source_location loc = std::source_location::current());
Tensor conv_transpose2d(const Tensor& x, const Tensor& weight, const Tensor& bias = {},
                        Ints stride = {1}, Ints padding = {0}, Ints output_padding = {0},
                        int64_t groups = 1, Ints dilation = {1},
                        std::source_location loc = std::source_location::current());
Tensor conv_transpose3d(const Tensor& x, const Tensor& weight, const Tensor& bias = {},
                        Ints stride = {1}, Ints padding = {0}, Ints output_padding = {0},
                        int64_t groups = 1, Ints dilation = {1},
                        std::source_location loc = std::source_location::current());

// Pooling over 1 to 3 spatial axes of x ([N,] C, spatial...). stride empty: the kernel size
// (PyTorch's stride=None). Padding at most half the kernel.
Tensor max_pool1d(const Tensor& x, Ints kernel, Ints stride = {}, Ints padding = {0},
                  Ints dilation = {1}, bool ceil_mode = false,
                  std::source_location loc = std::source_location::current());
Tensor max_pool2d(const Tensor& x, Ints kernel, Ints stride = {}, Ints padding = {0},
                  Ints dilation = {1}, bool ceil_mode = false,
                  std::source_location loc = std::source_location::current());
Tensor max_pool3d(const Tensor& x, Ints kernel, Ints stride = {}, Ints padding = {0},
                  Ints dilation = {1}, bool ceil_mode = false,
                  std::source_location loc = std::source_location::current());
// PyTorch's return_indices=True: (values, int64 indices), each index the maximum's position in
// its plane's flattened spatial input (the first maximum; the last NaN), what max_unpool takes.
ValuesIndices max_pool1d_with_indices(const Tensor& x, Ints kernel, Ints stride = {},
                                      Ints padding = {0}, Ints dilation = {1},
                                      bool ceil_mode = false,
                                      std::source_location loc = std::source_location::current());
ValuesIndices max_pool2d_with_indices(const Tensor& x, Ints kernel, Ints stride = {},
                                      Ints padding = {0}, Ints dilation = {1},
                                      bool ceil_mode = false,
                                      std::source_location loc = std::source_location::current());
ValuesIndices max_pool3d_with_indices(const Tensor& x, Ints kernel, Ints stride = {},
                                      Ints padding = {0}, Ints dilation = {1},
                                      bool ceil_mode = false,
                                      std::source_location loc = std::source_location::current());
// divisor_override (nonzero): every window's sum divided by it (PyTorch's; avg_pool1d too).
Tensor avg_pool1d(const Tensor& x, Ints kernel, Ints stride = {}, Ints padding = {0},
                  bool ceil_mode = false, bool count_include_pad = true,
                  std::optional<int64_t> divisor_override = std::nullopt,
                  std::source_location loc = std::source_location::current());
Tensor avg_pool2d(const Tensor& x, Ints kernel, Ints stride = {}, Ints padding = {0},
                  bool ceil_mode = false, bool count_include_pad = true,
                  std::optional<int64_t> divisor_override = std::nullopt,
                  std::source_location loc = std::source_location::current());
Tensor avg_pool3d(const Tensor& x, Ints kernel, Ints stride = {}, Ints padding = {0},
                  bool ceil_mode = false, bool count_include_pad = true,
                  std::optional<int64_t> divisor_override = std::nullopt,
                  std::source_location loc = std::source_location::current());
// PyTorch's lp_pool: (avg_pool(x^p) * prod(kernel))^(1/p) with no padding (an avg_pool of the
// powers, then two elementwise ops).
Tensor lp_pool1d(const Tensor& x, double norm_type, Ints kernel, Ints stride = {},
                 bool ceil_mode = false,
                 std::source_location loc = std::source_location::current());
Tensor lp_pool2d(const Tensor& x, double norm_type, Ints kernel, Ints stride = {},
                 bool ceil_mode = false,
                 std::source_location loc = std::source_location::current());
Tensor lp_pool3d(const Tensor& x, double norm_type, Ints kernel, Ints stride = {},
                 bool ceil_mode = false,
                 std::source_location loc = std::source_location::current());
// output_size: one size per spatial axis.
Tensor adaptive_avg_pool1d(const Tensor& x, Ints output_size,
                           std::source_location loc = std::source_location::current());
Tensor adaptive_avg_pool2d(const Tensor& x, Ints output_size,
                           std::source_location loc = std::source_location::current());
Tensor adaptive_avg_pool3d(const Tensor& x, Ints output_size,
                           std::source_location loc = std::source_location::current());
Tensor adaptive_max_pool1d(const Tensor& x, Ints output_size,
                           std::source_location loc = std::source_location::current());
Tensor adaptive_max_pool2d(const Tensor& x, Ints output_size,
                           std::source_location loc = std::source_location::current());
Tensor adaptive_max_pool3d(const Tensor& x, Ints output_size,
                           std::source_location loc = std::source_location::current());
ValuesIndices adaptive_max_pool1d_with_indices(
    const Tensor& x, Ints output_size, std::source_location loc = std::source_location::current());
ValuesIndices adaptive_max_pool2d_with_indices(
    const Tensor& x, Ints output_size, std::source_location loc = std::source_location::current());
ValuesIndices adaptive_max_pool3d_with_indices(
    const Tensor& x, Ints output_size, std::source_location loc = std::source_location::current());
// The inverse of a max pool: zeros with x's values at `indices` (a max pool's), spatial sizes
// output_size, or else (in - 1) stride - 2 padding + kernel per axis (PyTorch's default).
Tensor max_unpool1d(const Tensor& x, const Tensor& indices, Ints kernel, Ints stride = {},
                    Ints padding = {0}, Ints output_size = {},
                    std::source_location loc = std::source_location::current());
Tensor max_unpool2d(const Tensor& x, const Tensor& indices, Ints kernel, Ints stride = {},
                    Ints padding = {0}, Ints output_size = {},
                    std::source_location loc = std::source_location::current());
Tensor max_unpool3d(const Tensor& x, const Tensor& indices, Ints kernel, Ints stride = {},
                    Ints padding = {0}, Ints output_size = {},
                    std::source_location loc = std::source_location::current());

// PyTorch's modes (docs/ops.md): Linear is linear, bilinear or trilinear by the input's rank.
enum class InterpolateMode : int64_t {
  Nearest = 0,
  Linear = 1,
  Bicubic = 2,
  Area = 3,
  NearestExact = 4,
};
// size: the output's spatial sizes. align_corners: linear and bicubic only (PyTorch's default
// false). scales: the factors the output was sized with (one per spatial axis); given, they set
// the sampling scale (1 / scale) as PyTorch's scale_factor does; empty: in / out.
// antialias (Linear and Bicubic on 2 spatial axes): PyTorch's antialiased filters.
Tensor interpolate(const Tensor& x, Ints size, InterpolateMode mode = InterpolateMode::Nearest,
                   std::optional<bool> align_corners = std::nullopt,
                   std::vector<double> scales = {}, bool antialias = false,
                   std::source_location loc = std::source_location::current());

// x (..., in), weight (out, in), bias (out).
Tensor linear(const Tensor& x, const Tensor& weight, const Tensor& bias = {},
              std::source_location loc = std::source_location::current());
// Rows of weight (num, dim) picked by integer indices of any shape.
Tensor embedding(const Tensor& indices, const Tensor& weight,
                 std::source_location loc = std::source_location::current());
// PyTorch's embedding with max_norm: each picked row whose norm_type-norm exceeds max_norm is
// scaled by max_norm / (norm + 1e-7), and weight is rebound to a table with those rows written
// back, as torch.embedding_renorm_ does in place (no sync; a repeated index writes the same
// row twice). padding_idx changes only PyTorch's gradients, so it has no parameter here.
Tensor embedding(const Tensor& indices, Tensor& weight, double max_norm, double norm_type = 2.0,
                 std::source_location loc = std::source_location::current());
// eps absent: the dtype's machine epsilon (PyTorch's default).
Tensor rms_norm(const Tensor& x, int64_t normalized_ndim, const Tensor& weight = {},
                std::optional<double> eps = std::nullopt,
                std::source_location loc = std::source_location::current());
// Inference (training false) uses running_mean and running_var; training uses the batch's
// statistics (biased variance) and does not update the running ones (the op has one output):
// update_batch_norm_stats does.
Tensor batch_norm(const Tensor& x, const Tensor& running_mean, const Tensor& running_var,
                  const Tensor& weight = {}, const Tensor& bias = {}, bool training = false,
                  double eps = 1e-5, std::source_location loc = std::source_location::current());
// What PyTorch's training batch_norm does to its running statistics: mean <- (1 - momentum)
// mean + momentum batch_mean, var likewise with the batch's unbiased variance (x's statistics
// over every axis but 1), each kept in its own dtype. The handles are rebound to the new lazy
// values; an undefined one is left alone.
void update_batch_norm_stats(const Tensor& x, Tensor& running_mean, Tensor& running_var,
                             double momentum = 0.1,
                             std::source_location loc = std::source_location::current());
Tensor group_norm(const Tensor& x, int64_t groups, const Tensor& weight = {},
                  const Tensor& bias = {}, double eps = 1e-5,
                  std::source_location loc = std::source_location::current());
// Statistics of each sample and channel (PyTorch's use_input_stats=True).
Tensor instance_norm(const Tensor& x, const Tensor& weight = {}, const Tensor& bias = {},
                     double eps = 1e-5, std::source_location loc = std::source_location::current());
// softmax(q k^T scale + mask) v; mask bool (true: attend) or float (added); scale absent:
// 1 / sqrt(E). A row with every position masked gives NaN, as in PyTorch. dropout_p > 0 writes
// the same softmax out of other ops and drops attention weights with dropout's Philox stream of
// `seed` (PyTorch's generator gives other masks). enable_gqa: each key and value head serves
// its group of query heads (axis -3), as in PyTorch.
Tensor scaled_dot_product_attention(const Tensor& q, const Tensor& k, const Tensor& v,
                                    const Tensor& attn_mask = {}, bool is_causal = false,
                                    std::optional<double> scale = std::nullopt,
                                    double dropout_p = 0.0, bool enable_gqa = false,
                                    int64_t seed = 0,
                                    std::source_location loc = std::source_location::current());
// Zeroes each element with probability p (rand's Philox stream of `seed`), scales the rest by
// 1 / (1 - p); identity when training is false.
Tensor dropout(const Tensor& x, double p = 0.5, bool training = true, int64_t seed = 0,
               std::source_location loc = std::source_location::current());
Tensor pixel_shuffle(const Tensor& x, int64_t upscale_factor,
                     std::source_location loc = std::source_location::current());
Tensor pixel_unshuffle(const Tensor& x, int64_t downscale_factor,
                       std::source_location loc = std::source_location::current());

// Connectionist temporal classification, forward only: log_probs (T, N, C), padded targets
// (N, S), input_lengths (N), target_lengths (N), all lengths integers. reduction 0 none (N),
// 1 mean (each loss over its target length, then the batch mean), 2 sum. zero_infinity turns
// impossible alignments (inf) into 0. Lengths and classes out of range fail when it runs.
Tensor ctc_loss(const Tensor& log_probs, const Tensor& targets, const Tensor& input_lengths,
                const Tensor& target_lengths, int64_t blank = 0, int64_t reduction = 1,
                bool zero_infinity = false,
                std::source_location loc = std::source_location::current());

}  // namespace tensord
