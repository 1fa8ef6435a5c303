#include "bench/fusion/onednn_peer.h"

#include <oneapi/dnnl/dnnl.hpp>

#include <vector>

#include "bench/common/figure.h"

namespace tensord::bench {

double onednn_linear_bias_gelu_seconds(int64_t m, int64_t k, int64_t n) {
  using dnnl::memory;
  dnnl::engine eng(dnnl::engine::kind::cpu, 0);
  dnnl::stream stream(eng);
  std::vector<float> x(static_cast<size_t>(m * k), 0.25f), w(static_cast<size_t>(n * k), 0.5f),
      b(static_cast<size_t>(n), 0.1f), y(static_cast<size_t>(m * n));
  const memory::desc xd({m, k}, memory::data_type::f32, memory::format_tag::ab);
  const memory::desc wd({k, n}, memory::data_type::f32, memory::format_tag::ba);  // w^T, a view
  const memory::desc bd({1, n}, memory::data_type::f32, memory::format_tag::ab);
  const memory::desc yd({m, n}, memory::data_type::f32, memory::format_tag::ab);
  dnnl::post_ops ops;
  ops.append_eltwise(1.0f, dnnl::algorithm::eltwise_gelu_erf, 0.0f, 0.0f);
  dnnl::primitive_attr attr;
  attr.set_post_ops(ops);
  const dnnl::matmul mm(
      dnnl::matmul::primitive_desc(dnnl::matmul::desc(xd, wd, bd, yd), attr, eng));
  memory xm(xd, eng, x.data()), wm(wd, eng, w.data()), bm(bd, eng, b.data()), ym(yd, eng, y.data());
  return median_seconds(2, 7, [&] {
    mm.execute(
        stream,
        {{DNNL_ARG_SRC, xm}, {DNNL_ARG_WEIGHTS, wm}, {DNNL_ARG_BIAS, bm}, {DNNL_ARG_DST, ym}});
    stream.wait();
  });
}

}  // namespace tensord::bench
