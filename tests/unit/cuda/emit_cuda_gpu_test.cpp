// The CUDA emitter's kernels on a device, launched as the backend does (kernel cache,
// cuda_params, cuda_launch_config), against a host interpreter of the loop IR: every kernel
// structure over shapes that take every path (one element per thread and grid-stride loops,
// rows per thread, per warp group and per block, capped grids, odd block sizes), NaN
// propagation included. A [.bench] case prints bandwidths.
#include <catch2/catch.hpp>

#include <cuda_runtime_api.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <vector>

#include "engine/backends/cuda/cuda_check.h"
#include "engine/backends/cuda/cuda_kernel_cache.h"
#include "engine/codegen/emit_cuda.h"
#include "engine/ir/half.h"
#include "tests/unit/cuda/loop_kernels.h"

namespace tensord::codegen::test {
namespace {

using ir::DType;
using ir::Op;

double round_to(DType t, double v) {
  switch (t) {
    case DType::Bool:
      return v != 0 ? 1 : 0;
    case DType::Int8:
      return static_cast<int8_t>(static_cast<int64_t>(v));
    case DType::UInt8:
      return static_cast<uint8_t>(static_cast<int64_t>(v));
    case DType::Int16:
      return static_cast<int16_t>(static_cast<int64_t>(v));
    case DType::Int32:
      return static_cast<int32_t>(static_cast<int64_t>(v));
    case DType::Int64:
      return static_cast<double>(static_cast<int64_t>(v));
    case DType::Float16:
      return static_cast<float>(ir::Float16(static_cast<float>(v)));
    case DType::BFloat16:
      return static_cast<float>(ir::BFloat16(static_cast<float>(v)));
    case DType::Float32:
      return static_cast<float>(v);
    default:
      return v;
  }
}

size_t item(DType t) {
  return ir::itemsize(t);
}

void put(DType t, void* base, int64_t i, double v) {
  char* p = static_cast<char*>(base) + i * static_cast<int64_t>(item(t));
  auto w = [&](auto x) { std::memcpy(p, &x, sizeof x); };
  switch (t) {
    case DType::Bool:
    case DType::UInt8:
      return w(static_cast<uint8_t>(v));
    case DType::Int8:
      return w(static_cast<int8_t>(v));
    case DType::Int16:
      return w(static_cast<int16_t>(v));
    case DType::Int32:
      return w(static_cast<int32_t>(v));
    case DType::Int64:
      return w(static_cast<int64_t>(v));
    case DType::Float16:
      return w(ir::Float16(static_cast<float>(v)).bits);
    case DType::BFloat16:
      return w(ir::BFloat16(static_cast<float>(v)).bits);
    case DType::Float32:
      return w(static_cast<float>(v));
    default:
      return w(v);
  }
}

double get(DType t, const void* base, int64_t i) {
  const char* p = static_cast<const char*>(base) + i * static_cast<int64_t>(item(t));
  auto r = [&](auto x) {
    std::memcpy(&x, p, sizeof x);
    return x;
  };
  switch (t) {
    case DType::Bool:
    case DType::UInt8:
      return r(uint8_t{});
    case DType::Int8:
      return r(int8_t{});
    case DType::Int16:
      return r(int16_t{});
    case DType::Int32:
      return r(int32_t{});
    case DType::Int64:
      return static_cast<double>(r(int64_t{}));
    case DType::Float16: {
      ir::Float16 h;
      h.bits = r(uint16_t{});
      return static_cast<float>(h);
    }
    case DType::BFloat16: {
      ir::BFloat16 h;
      h.bits = r(uint16_t{});
      return static_cast<float>(h);
    }
    case DType::Float32:
      return r(float{});
    default:
      return r(double{});
  }
}

// The ops of the first formula table, on values already of their dtypes.
double apply(Op op, const std::vector<double>& a, DType t) {
  switch (op) {
    case Op::add:
      return round_to(t, a[0] + a[1]);
    case Op::sub:
      return round_to(t, a[0] - a[1]);
    case Op::mul:
      return round_to(t, a[0] * a[1]);
    case Op::div:
      return round_to(t, a[0] / a[1]);
    case Op::neg:
      return round_to(t, -a[0]);
    case Op::exp:
      return round_to(t, std::exp(a[0]));
    case Op::cast:
      return round_to(t, a[0]);
    case Op::lt:
      return a[0] < a[1] ? 1 : 0;
    case Op::ne:
      return a[0] != a[1] ? 1 : 0;
    default:
      break;
  }
  // The integer ops of the integer chain (int32 values, as kernels_binary_math.cpp defines
  // them: x // 0 = x % 0 = 0, Python's signs, out-of-range shifts give 0, wrapping).
  const auto x = static_cast<int32_t>(a[0]), y = a.size() > 1 ? static_cast<int32_t>(a[1]) : 0;
  switch (op) {
    case Op::floor_divide: {
      if (y == 0) return 0;
      int32_t q = x / y;
      if (x % y != 0 && ((x < 0) != (y < 0))) --q;
      return q;
    }
    case Op::remainder: {
      if (y == 0) return 0;
      int32_t r = x % y;
      if (r != 0 && ((r < 0) != (y < 0))) r += y;
      return r;
    }
    case Op::bitwise_left_shift:
      if (y < 0 || y >= 32) return 0;
      return static_cast<int32_t>(static_cast<uint32_t>(x) << y);
    default:
      throw std::runtime_error("reference: no " + std::string(ir::name(op)));
  }
}

// Host buffers of every operand, element extents from the launch shape.
struct Buffers {
  std::vector<std::vector<char>> host;
  std::vector<int64_t> extent;
};

int64_t extent_of(const LaunchShape& l, int o) {
  const size_t r = l.sizes.size();
  int64_t e = 1;
  for (size_t d = 0; d < r; ++d) {
    if (l.strides[o * r + d] == 0) continue;  // an outer output of an empty row has elements
    if (l.sizes[d] == 0) return 0;
    e += (l.sizes[d] - 1) * l.strides[o * r + d];
  }
  return e;
}

// The loop IR interpreted on the host, reductions in double.
void interpret(const LoopKernel& k, const LaunchShape& l, Buffers& b) {
  const int r = k.rank();
  const int ni = static_cast<int>(k.inputs.size());
  const int first_inner = k.inner_rank == 0 ? 0 : k.outer_rank;
  int64_t rows = 1, n = 1;
  for (int d = 0; d < first_inner; ++d) rows *= l.sizes[d];
  for (int d = first_inner; d < r; ++d) n *= l.sizes[d];
  std::vector<int64_t> c(r);
  auto offset = [&](int o) {
    int64_t s = 0;
    for (int d = 0; d < r; ++d) s += c[d] * l.strides[o * r + d];
    return s;
  };
  auto set_coords = [&](int64_t row, int64_t e) {
    for (int d = r - 1; d >= first_inner; --d) {
      if (l.sizes[d] == 0) {
        c[d] = 0;
        continue;
      }
      c[d] = e % l.sizes[d], e /= l.sizes[d];
    }
    for (int d = first_inner - 1; d >= 0; --d) c[d] = row % l.sizes[d], row /= l.sizes[d];
  };
  std::vector<double> v(k.body.size());
  auto value = [&](uint32_t i) -> double& { return v[i]; };
  auto eval = [&](uint32_t i) {
    const Instr& in = k.body[i];
    if (in.kind == Instr::Kind::Load) {
      value(i) = get(in.dtype, b.host[in.arg].data(), offset(static_cast<int>(in.arg)));
    } else if (in.kind == Instr::Kind::Const) {
      value(i) = l.constants[in.arg];
    } else if (in.kind == Instr::Kind::Op) {
      std::vector<double> a;
      for (uint32_t x : in.args) a.push_back(v[x]);
      value(i) = apply(in.op, a, in.dtype);
    }
  };
  auto row_values = [&](int64_t row, int64_t e, uint32_t upto) {
    set_coords(row, e);
    for (uint32_t i = 0; i < upto; ++i) {
      if (k.body[i].level == Level::Row) eval(i);
    }
  };
  for (int64_t row = 0; row < rows; ++row) {
    set_coords(row, 0);
    for (uint32_t i = 0; i < k.body.size(); ++i) {
      const Instr& in = k.body[i];
      if (in.level != Level::Outer) continue;
      if (in.kind != Instr::Kind::Reduce) {
        set_coords(row, 0);
        eval(i);
        continue;
      }
      const DType x = k.body[in.args[0]].dtype;
      const bool arg = in.op == Op::argmax || in.op == Op::argmin;
      const bool upward = in.op == Op::max || in.op == Op::argmax;
      double acc = in.op == Op::sum ? 0 : in.op == Op::prod ? 1 : upward ? -INFINITY : INFINITY;
      uint64_t wrapped = 1;  // an integer product wraps in int64, as the kernels' does
      int64_t at = 0;        // argmax/argmin: the first index of the extremum, the first NaN wins
      for (int64_t e = 0; e < n; ++e) {
        row_values(row, e, i);
        const double a = v[in.args[0]];
        if (in.op == Op::sum) {
          acc += a;
        } else if (in.op == Op::prod) {
          acc *= a;
          wrapped *= static_cast<uint64_t>(static_cast<int64_t>(a));
        } else if (std::isnan(acc)) {
        } else if (std::isnan(a)) {
          acc = NAN, at = e;
        } else if (e == 0 || (upward ? a > acc : a < acc)) {
          acc = a, at = e;
        }
      }
      if (arg) {
        value(i) = static_cast<double>(at);
      } else if (in.op == Op::prod && !ir::is_floating(x)) {
        value(i) = static_cast<double>(static_cast<int64_t>(wrapped));
      } else {
        value(i) = round_to(in.dtype, acc);
      }
    }
    for (int64_t e = 0; e < n; ++e) {
      row_values(row, e, static_cast<uint32_t>(k.body.size()));
      for (size_t o = 0; o < k.outputs.size(); ++o) {
        if (k.outputs[o].level != Level::Row) continue;
        put(k.outputs[o].dtype, b.host[ni + o].data(), offset(ni + static_cast<int>(o)),
            v[k.results[o]]);
      }
    }
    set_coords(row, 0);
    for (size_t o = 0; o < k.outputs.size(); ++o) {
      if (k.outputs[o].level != Level::Outer) continue;
      put(k.outputs[o].dtype, b.host[ni + o].data(), offset(ni + static_cast<int>(o)),
          v[k.results[o]]);
    }
  }
}

bool has_extremum(const LoopKernel& k) {
  for (const Instr& in : k.body) {
    if (in.kind == Instr::Kind::Reduce && in.op != Op::sum) return true;
  }
  return false;
}

// Strides over the domain for each operand as its access and level say: row-major with a gap
// of 2 for strided operands, 0 along broadcast dimensions.
LaunchShape shape_for(const LoopKernel& k, std::vector<int64_t> sizes) {
  LaunchShape l;
  l.inner_rank = k.inner_rank;
  l.sizes = sizes;
  const int r = k.rank();
  for (size_t o = 0; o < k.operands(); ++o) {
    const Operand& op = o < k.inputs.size() ? k.inputs[o] : k.outputs[o - k.inputs.size()];
    std::vector<int64_t> st(r, 0);
    int64_t step = op.access == Access::Strided ? 2 : 1;
    for (int d = r - 1; d >= 0; --d) {
      const bool inner = d >= k.outer_rank && k.inner_rank > 0;
      if (op.level == Level::Outer && inner) continue;
      if (d == r - 1 && op.access == Access::Broadcast) continue;
      st[d] = step;
      step *= sizes[d];
    }
    l.strides.insert(l.strides.end(), st.begin(), st.end());
  }
  l.constants = {0.5, 3.0};
  return l;
}

struct Device {
  cuda::CudaKernelCache cache{cuda::CudaKernelCacheOptions{}};
  int sm_count = 0;
  Device() {
    cuda::check(cudaDeviceGetAttribute(&sm_count, cudaDevAttrMultiProcessorCount, 0), "sm");
  }
};

Device& device() {
  static Device d;
  return d;
}

struct DeviceBuffers {
  std::vector<void*> ptrs;
  ~DeviceBuffers() {
    for (void* p : ptrs) cudaFree(p);
  }
};

double tolerance(DType t) {
  switch (t) {
    case DType::Float16:
      return 4e-3;
    case DType::BFloat16:
      return 3e-2;
    case DType::Float32:
      return 2e-5;
    case DType::Float64:
      return 1e-12;
    default:
      return 0;
  }
}

// Runs `k` over `sizes` on the device and on the host; the number of mismatching elements.
int64_t check_kernel(const std::string& what, const LoopKernel& k, std::vector<int64_t> sizes,
                     int sm_count, unsigned block_override = 0) {
  const LaunchShape l = shape_for(k, sizes);
  const int ni = static_cast<int>(k.inputs.size());
  Buffers b;
  std::mt19937 rng(42);
  std::uniform_real_distribution<double> u(-2, 2);
  for (int o = 0; o < static_cast<int>(k.operands()); ++o) {
    const Operand& op = o < ni ? k.inputs[o] : k.outputs[o - ni];
    const int64_t e = extent_of(l, o);
    b.extent.push_back(e);
    b.host.emplace_back(static_cast<size_t>(std::max<int64_t>(e, 1)) * item(op.dtype), 0);
    if (o >= ni) continue;
    for (int64_t i = 0; i < e; ++i) {
      double v = u(rng);
      if (!ir::is_floating(op.dtype)) v = std::round(v * 30);
      if (op.dtype == DType::UInt8) v = std::abs(v);
      put(op.dtype, b.host[o].data(), i, round_to(op.dtype, v));
    }
    // A NaN somewhere in the middle of the first input.
    if (o == 0 && ir::is_floating(op.dtype) && e > 8)
      put(op.dtype, b.host[o].data(), e / 2 + 1, NAN);
  }
  Device& dev = device();
  DeviceBuffers dbuf;
  for (int o = 0; o < static_cast<int>(k.operands()); ++o) {
    void* p = nullptr;
    cuda::check(cudaMalloc(&p, b.host[o].size()), "cudaMalloc");
    dbuf.ptrs.push_back(p);
    if (o < ni) {
      cuda::check(cudaMemcpy(p, b.host[o].data(), b.host[o].size(), cudaMemcpyHostToDevice), "up");
    } else {
      cuda::check(cudaMemset(p, 0xff, b.host[o].size()), "memset");
    }
  }
  // The entry point the host picks (the row-register one where the rows fit it); a block
  // override runs the loop kernel, which is correct for any.
  const CudaEmitter emitter;
  const std::vector<EmittedKernel> entries = emitter.entry_points(k);
  CudaLaunchConfig c = cuda_launch_config(k, l, sm_count, dbuf.ptrs);
  if (block_override) {
    c = cuda_launch_config(k, l, sm_count, {});
    c.block = block_override;
  }
  cudaKernel_t fn = dev.cache.kernel(emitter.unit(entries), entries[c.row_registers ? 1 : 0].name);
  std::vector<uint64_t> words = cuda_params(k, l, dbuf.ptrs);
  void* args[] = {words.data()};
  cuda::launch(fn, dim3(c.grid), dim3(c.block), args, c.shared_bytes, nullptr, what.c_str());
  cuda::check(cudaDeviceSynchronize(), what.c_str());
  interpret(k, l, b);
  int64_t bad = 0;
  for (int o = ni; o < static_cast<int>(k.operands()); ++o) {
    const DType t = k.outputs[o - ni].dtype;
    std::vector<char> got(b.host[o].size());
    cuda::check(cudaMemcpy(got.data(), dbuf.ptrs[o], got.size(), cudaMemcpyDeviceToHost), "down");
    const double tol = tolerance(t);
    for (int64_t i = 0; i < b.extent[o]; ++i) {
      const double want = get(t, b.host[o].data(), i), have = get(t, got.data(), i);
      const bool ok = (std::isnan(want) && std::isnan(have)) ||
                      std::abs(want - have) <= tol * (1 + std::abs(want));
      if (!ok && bad++ < 3) {
        std::printf(
            "MISMATCH %s sizes[0]=%lld out%d[%lld]: want %.9g have %.9g (grid %u block %u%s)\n",
            what.c_str(), static_cast<long long>(sizes[0]), o - ni, static_cast<long long>(i), want,
            have, c.grid, c.block, c.row_registers ? ", row registers" : "");
      }
    }
  }
  return bad;
}

TEST_CASE("every kernel structure computes what the loop IR says", "[cuda][codegen][gpu]") {
  const int sm = device().sm_count;
  // TENSORD_CODEGEN_ONLY=text: only the kernels whose description contains it.
  const char* only = std::getenv("TENSORD_CODEGEN_ONLY");
  for (const NamedKernel& nk : structure_kernels()) {
    if (only && nk.what.find(only) == std::string::npos) continue;
    const LoopKernel& k = nk.kernel;
    INFO(nk.what << "\n" << describe(k));
    std::vector<std::vector<int64_t>> shapes;
    if (k.inner_rank == 0) {
      for (int64_t n : {1, 7, 1000, 300001}) {
        std::vector<int64_t> s(k.rank(), 1);
        s.back() = n;
        if (k.rank() >= 2) s[0] = 3;
        if (k.rank() >= 3) s[1] = 5;
        if (k.rank() >= 4) s[2] = 2;
        shapes.push_back(s);
      }
    } else {
      for (auto [rows, n] : {std::pair<int64_t, int64_t>{1, 1},
                             {3, 5},
                             {2000, 7},
                             {1100, 300},
                             {5, 129},
                             {3, 5000},
                             {7, 4096},   // the row-register entry point's block of 128
                             {2, 32768},  // and of 1024
                             {1, 70000},
                             {4, 0}}) {
        if (n == 0 && has_extremum(k)) continue;  // max/min of nothing: a shape error
        std::vector<int64_t> s(k.rank(), 2);
        s[0] = rows;
        s.back() = n;
        if (k.inner_rank >= 2 && n > 0 && n % 5 == 0) s.back() = n / 5, s[k.rank() - 2] = 5;
        shapes.push_back(s);
      }
    }
    for (const auto& s : shapes) {
      CHECK(check_kernel(nk.what, k, s, sm) == 0);
      CHECK(check_kernel(nk.what + " (grid capped)", k, s, 1) == 0);
      if (k.inner_rank > 0) CHECK(check_kernel(nk.what + " (block 96)", k, s, 1, 96) == 0);
    }
  }
}

// Device time of one launch (best of 20) and the bandwidth of reading every input and writing
// every output once.
void bench(const std::string& what, const LoopKernel& k, std::vector<int64_t> sizes) {
  const LaunchShape l = shape_for(k, sizes);
  const int ni = static_cast<int>(k.inputs.size());
  DeviceBuffers dbuf;
  double bytes = 0;
  for (int o = 0; o < static_cast<int>(k.operands()); ++o) {
    const Operand& op = o < ni ? k.inputs[o] : k.outputs[o - ni];
    const int64_t e = extent_of(l, o);
    const size_t size = static_cast<size_t>(std::max<int64_t>(e, 1)) * item(op.dtype);
    int64_t touched = 1;
    for (size_t d = 0; d < l.sizes.size(); ++d) {
      if (l.strides[o * l.sizes.size() + d] != 0) touched *= l.sizes[d];
    }
    bytes += static_cast<double>(touched) * static_cast<double>(item(op.dtype));
    void* p = nullptr;
    cuda::check(cudaMalloc(&p, size), "cudaMalloc");
    cuda::check(cudaMemset(p, 0, size), "memset");  // zeros: finite everywhere
    dbuf.ptrs.push_back(p);
  }
  const CudaEmitter emitter;
  const EmittedKernel e = emitter.emit(k);
  const EmittedKernel one[] = {e};
  cudaKernel_t fn = device().cache.kernel(emitter.unit(one), e.name);
  std::vector<uint64_t> words = cuda_params(k, l, dbuf.ptrs);
  const CudaLaunchConfig c = cuda_launch_config(k, l, device().sm_count, {});
  void* args[] = {words.data()};
  cudaEvent_t a, b;
  cuda::check(cudaEventCreate(&a), "event");
  cuda::check(cudaEventCreate(&b), "event");
  float best = 1e30f;
  for (int i = 0; i < 22; ++i) {
    cuda::check(cudaEventRecord(a), "record");
    cuda::launch(fn, dim3(c.grid), dim3(c.block), args, c.shared_bytes, nullptr, what.c_str());
    cuda::check(cudaEventRecord(b), "record");
    cuda::check(cudaEventSynchronize(b), "sync");
    float ms = 0;
    cuda::check(cudaEventElapsedTime(&ms, a, b), "elapsed");
    if (i >= 2) best = std::min(best, ms);
  }
  cudaEventDestroy(a);
  cudaEventDestroy(b);
  std::printf("BENCH %-44s grid %6u block %4u  %9.1f us  %7.1f GB/s\n", what.c_str(), c.grid,
              c.block, best * 1e3, bytes / (best * 1e-3) / 1e9);
}

TEST_CASE("bandwidth of generated kernels", "[.bench]") {
  const std::vector<NamedKernel> ks = structure_kernels();
  auto find = [&](const std::string& what) -> const LoopKernel& {
    for (const NamedKernel& k : ks) {
      if (k.what == what) return k.kernel;
    }
    throw std::runtime_error("no kernel " + what);
  };
  bench("f32 add n=2^26", find("f32 add, rank 1, contiguous"), {int64_t{1} << 26});
  bench("f32 add n=2^20", find("f32 add, rank 1, contiguous"), {int64_t{1} << 20});
  bench("f32 add n=2^16", find("f32 add, rank 1, contiguous"), {int64_t{1} << 16});
  bench("f32 bias add 16384x4096", find("f32 bias add, rank 2"), {16384, 4096});
  bench("f32 strided sub 64x256x4096", find("f32 sub, rank 3, strided/broadcast"), {64, 256, 4096});
  bench("f32 -exp(x)*c 64^4", find("f32 -exp(x) * c, rank 4"), {64, 64, 64, 64});
  bench("f16 exp/add/div 8192x8192", find("float16 (exp(x) + y) / c and exp(x), rank 2"),
        {8192, 8192});
  bench("f32 softmax 8192x4096", find("f32 softmax, 1 + 1"), {8192, 4096});
  bench("f32 softmax 65536x512", find("f32 softmax, 1 + 1"), {65536, 512});
  bench("f32 softmax 262144x64", find("f32 softmax, 1 + 1"), {262144, 64});
  bench("f32 softmax 64x262144", find("f32 softmax, 1 + 1"), {64, 262144});
  bench("f16 softmax 8192x4096", find("f16 softmax, 2 + 1"), {1, 8192, 4096});
  bench("f32 layer norm 16384x1024", find("f32 layer norm, 2 + 1"), {1, 16384, 1024});
  bench("f32 row mean 8192x4096", find("f32 mean, 2 + 1"), {1, 8192, 4096});
  bench("f32 row max 8192x 64x64", find("f32 max, 2 + 2"), {1, 8192, 64, 64});
  bench("f32 column sum 4096 cols x 8192", find("f32 column sum (strided rows)"), {4096, 8192});
  bench("f32 column sum 65536 cols x 512", find("f32 column sum (strided rows)"), {65536, 512});
  bench("f32 sum 1 x 2^26", find("f32 column sum (strided rows)"), {1, int64_t{1} << 26});
}

}  // namespace
}  // namespace tensord::codegen::test
