// bench/ops's table: linear algebra on (1024, 1024) float32 matrices (solve, cholesky and eigh
// on a symmetric positive-definite one) and FFT on a 2^20-element signal or a (1024, 1024)
// matrix.
#include "bench/ops/ops_table.h"

namespace tensord::bench {

std::vector<OpCase> linalg_cases() {
  using I = const OpInputs&;
  using Ts = std::vector<Tensor>;
  const std::string m = "(1024,1024)";
  const std::string n = "(1048576,)";
  return {
      {"tensordot", m, [](I in) { return linalg::tensordot(in.a, in.b, 1); }},
      {"einsum", m,
       [](I in) {
         return linalg::einsum("ij,jk->ik", {in.a, in.b});
       }},
      {"multi_dot", m,
       [](I in) {
         return linalg::multi_dot({in.a, in.b, in.a});
       }},
      {"chain_matmul", m,
       [](I in) {
         return linalg::chain_matmul({in.a, in.b, in.a});
       }},
      {"matrix_power3", m, [](I in) { return linalg::matrix_power(in.a, 3); }},
      {"outer", "(1000,)x(1000,)", [](I in) { return linalg::outer(in.weight, in.edges); }},
      {"kron", "(32,32)x(32,32)",
       [](I in) {
         return linalg::kron(reshape(slice(in.signal, 0, 0, 1024), {32, 32}),
                             reshape(slice(in.signal, 0, 1024, 2048), {32, 32}));
       }},
      {"trace", m, [](I in) { return linalg::trace(in.a); }},
      {"det", m, [](I in) { return linalg::det(in.a); }},
      {"slogdet", m,
       [](I in) {
         auto r = linalg::slogdet(in.a);
         return Ts{r.sign, r.logabsdet};
       }},
      {"inv", m, [](I in) { return linalg::inv(in.a); }},
      {"solve", m, [](I in) { return linalg::solve(in.spd, in.b); }},
      {"cholesky", m, [](I in) { return linalg::cholesky(in.spd); }},
      {"qr", m,
       [](I in) {
         auto r = linalg::qr(in.a);
         return Ts{r.Q, r.R};
       }},
      {"svd", m,
       [](I in) {
         auto r = linalg::svd(in.a, false);
         return Ts{r.U, r.S, r.Vh};
       }},
      {"svdvals", m, [](I in) { return linalg::svdvals(in.a); }},
      {"eigh", m,
       [](I in) {
         auto r = linalg::eigh(in.spd);
         return Ts{r.eigenvalues, r.eigenvectors};
       }},
      {"eigvalsh", m, [](I in) { return linalg::eigvalsh(in.spd); }},
      {"lstsq", m, [](I in) { return linalg::lstsq(in.a, in.b).solution; }},
      {"pinv", m, [](I in) { return linalg::pinv(in.a); }},
      {"matrix_rank", m, [](I in) { return linalg::matrix_rank(in.a); }},
      {"matrix_norm_fro", m, [](I in) { return linalg::matrix_norm(in.a); }},
      {"cross", "(333334,3)", [](I in) { return linalg::cross(in.v3a, in.v3b); }},
      {"pdist", "", [](I in) { return linalg::pdist(in.x); }},
      {"cdist", "(1000,1000)x(100,1000)", [](I in) { return linalg::cdist(in.x, in.x100); }},
      // FFT
      {"fft", n, [](I in) { return fft::fft(in.signal); }},
      {"ifft", n, [](I in) { return fft::ifft(in.spectrum); }},
      {"rfft", n, [](I in) { return fft::rfft(in.signal); }},
      {"irfft", n, [](I in) { return fft::irfft(in.rspectrum); }},
      {"fft2", m, [](I in) { return fft::fft2(in.a); }},
      {"ifft2", m, [](I in) { return fft::ifft2(in.spectrum2); }},
      {"fftn", m, [](I in) { return fft::fftn(in.a); }},
      {"ifftn", m, [](I in) { return fft::ifftn(in.spectrum2); }},
      {"fftfreq", n, [](I in) { return fft::fftfreq(*in.session, 1 << 20); }},
      {"rfftfreq", n, [](I in) { return fft::rfftfreq(*in.session, 1 << 20); }},
      {"fftshift", n, [](I in) { return fft::fftshift(in.signal); }},
      {"ifftshift", n, [](I in) { return fft::ifftshift(in.signal); }},
  };
}

}  // namespace tensord::bench
