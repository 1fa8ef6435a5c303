// bench/ops's table: neural-network ops on inputs of about 1M float32 elements (images
// (16, 16, 64, 64), sequences (16, 16, 4096), volumes (4, 16, 16, 32, 32), 16 channels; 3-wide
// kernels with padding 1). NumPy has none of them: the peers are the NumPy expressions a user
// would write (windows via sliding_window_view and tensordot for convolutions).
#include "bench/ops/ops_table.h"

namespace tensord::bench {

std::vector<OpCase> nn_cases() {
  using I = const OpInputs&;
  const std::string img = "(16,16,64,64)";
  const std::string seq = "(16,16,4096)";
  return {
      {"conv1d", seq, [](I in) { return conv1d(in.seq, in.kernel1, {}, {1}, {1}); }},
      {"conv2d", img, [](I in) { return conv2d(in.image, in.kernel2, {}, {1}, {1}); }},
      {"conv3d", "(4,16,16,32,32)",
       [](I in) { return conv3d(in.volume, in.kernel3, {}, {1}, {1}); }},
      {"conv_transpose2d", img,
       [](I in) { return conv_transpose2d(in.image, in.kernel2, {}, {1}, {1}); }},
      {"conv_transpose3d", "(4,16,16,32,32)",
       [](I in) { return conv_transpose3d(in.volume, in.kernel3, {}, {1}, {1}); }},
      {"max_pool1d", seq, [](I in) { return max_pool1d(in.seq, {2}); }},
      {"avg_pool1d", seq, [](I in) { return avg_pool1d(in.seq, {2}); }},
      {"max_pool2d", img, [](I in) { return max_pool2d(in.image, {2}); }},
      {"avg_pool2d", img, [](I in) { return avg_pool2d(in.image, {2}); }},
      {"adaptive_avg_pool2d", img,
       [](I in) {
         return adaptive_avg_pool2d(in.image, {16, 16});
       }},
      {"adaptive_max_pool2d", img,
       [](I in) {
         return adaptive_max_pool2d(in.image, {16, 16});
       }},
      {"max_pool2d_indices", img,
       [](I in) { return max_pool2d_with_indices(in.image, {2}).indices; }},
      {"max_pool3d", "(4,16,16,32,32)", [](I in) { return max_pool3d(in.volume, {2}); }},
      {"avg_pool3d", "(4,16,16,32,32)", [](I in) { return avg_pool3d(in.volume, {2}); }},
      {"batch_norm", img,
       [](I in) {
         return batch_norm(in.image, in.channel - 1.0f, in.channel, in.channel, in.channel);
       }},
      {"batch_norm_training", img,
       [](I in) {
         return batch_norm(in.image, in.channel, in.channel, in.channel, in.channel, true);
       }},
      {"group_norm", img, [](I in) { return group_norm(in.image, 4, in.channel, in.channel); }},
      {"instance_norm", img, [](I in) { return instance_norm(in.image, in.channel, in.channel); }},
      {"layer_norm", "", [](I in) { return layer_norm(in.x, 1, in.weight, in.edges); }},
      {"rms_norm", "", [](I in) { return rms_norm(in.x, 1, in.weight); }},
      {"embedding", "", [](I in) { return embedding(in.classes, in.x); }},
      {"dropout", "", [](I in) { return dropout(in.x, 0.5, true, 1); }},
      {"rand", "",
       [](I in) {
         return in.session->rand({1000, 1000}, 1);
       }},
      {"randn", "",
       [](I in) {
         return in.session->randn({1000, 1000}, 1);
       }},
      {"linear", "", [](I in) { return linear(in.x, in.y, in.weight); }},
      {"sdpa", "(8,1024,128)", [](I in) { return scaled_dot_product_attention(in.q, in.k, in.v); }},
      {"sdpa_causal", "(8,1024,128)",
       [](I in) { return scaled_dot_product_attention(in.q, in.k, in.v, {}, true); }},
      {"interpolate_nearest", img,
       [](I in) {
         return interpolate(in.image, {128, 128}, InterpolateMode::Nearest);
       }},
      {"interpolate_bilinear", img,
       [](I in) {
         return interpolate(in.image, {128, 128}, InterpolateMode::Linear);
       }},
      {"interpolate_bicubic", img,
       [](I in) {
         return interpolate(in.image, {128, 128}, InterpolateMode::Bicubic);
       }},
      {"interpolate_area", img,
       [](I in) {
         return interpolate(in.image, {16, 16}, InterpolateMode::Area);
       }},
      {"interpolate_bilinear_aa", img,
       [](I in) {
         return interpolate(in.image, {16, 16}, InterpolateMode::Linear, std::nullopt, {}, true);
       }},
      {"interpolate_trilinear", "(4,16,16,32,32)",
       [](I in) {
         return interpolate(in.volume, {32, 64, 64}, InterpolateMode::Linear);
       }},
      {"pixel_shuffle", "(16,64,32,32)", [](I in) { return pixel_shuffle(in.shuffled, 2); }},
      {"pixel_unshuffle", img, [](I in) { return pixel_unshuffle(in.image, 2); }},
  };
}

}  // namespace tensord::bench
