// The Bessel functions of special_functions*.h (bessel_series, Miller's recurrence, Hankel's
// series) against Bessel's integrals, over grids that cross every method's range and J's
// zeros. The integrands are periodic and analytic, so the trapezoid rule in long double is
// exact to the last bits with a hundred-odd points.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <numbers>

#include "engine/backends/cpu/special_functions_more.h"

namespace tensord::cpu::special {
namespace {

using LD = long double;
constexpr LD kPiL = std::numbers::pi_v<long double>;

// (1 / pi) int_0^pi f(t) dt by the trapezoid rule over n panels.
template <typename F>
LD trapezoid(F f, int n) {
  LD sum = (f(0.0L) + f(kPiL)) / 2;
  for (int k = 1; k < n; ++k) sum += f(kPiL * k / n);
  return sum / n;
}

// J_nu(x) = (1 / pi) int_0^pi cos(nu t - x sin t) dt
double j_ref(int nu, double x) {
  const auto n = 64 + static_cast<int>(1.2 * std::fabs(x));
  return static_cast<double>(
      trapezoid([&](LD t) { return cosl(nu * t - static_cast<LD>(x) * sinl(t)); }, n));
}

// I_nu(x) = (1 / pi) int_0^pi exp(x cos t) cos(nu t) dt
double i_ref(int nu, double x) {
  const auto n = 64 + static_cast<int>(1.2 * std::fabs(x));
  return static_cast<double>(
      trapezoid([&](LD t) { return expl(static_cast<LD>(x) * cosl(t)) * cosl(nu * t); }, n));
}

TEST_CASE("bessel_j0 and bessel_j1 within 2e-14 of Bessel's integral on (0, 40]") {
  for (int nu = 0; nu <= 1; ++nu) {
    double worst = 0, at = 0;
    for (int i = 1; i <= 8000; ++i) {
      const double x = i * 0.005;
      const double ref = j_ref(nu, x);
      // Near a zero of J an absolute error: relative to max(|J|, 0.05).
      const double err = std::fabs(bessel_j(nu, x) - ref) / std::max(std::fabs(ref), 0.05);
      if (err > worst) worst = err, at = x;
      CHECK(bessel_j(nu, -x) == (nu == 0 ? bessel_j(nu, x) : -bessel_j(nu, x)));
    }
    INFO("nu = " << nu << ": worst " << worst << " at x = " << at);
    CHECK(worst < 2e-14);
  }
}

TEST_CASE("i0, i1 and their scaled forms within 1e-14 of Bessel's integral on [-30, 30]") {
  for (int nu = 0; nu <= 1; ++nu) {
    double worst = 0, worst_scaled = 0, at = 0;
    for (int i = -6000; i <= 6000; ++i) {
      const double x = i * 0.005;
      if (nu == 1 && x == 0) {
        CHECK(bessel_i(nu, x) == 0);
        continue;
      }
      const double ref = i_ref(nu, x);
      const double err = std::fabs(bessel_i(nu, x) / ref - 1);
      const double scaled = std::fabs(bessel_i_scaled(nu, x) / (ref * std::exp(-std::fabs(x))) - 1);
      if (err > worst) worst = err, at = x;
      worst_scaled = std::max(worst_scaled, scaled);
    }
    INFO("nu = " << nu << ": worst " << worst << " at x = " << at << ", scaled " << worst_scaled);
    CHECK(worst < 1e-14);
    CHECK(worst_scaled < 1e-14);
  }
}

}  // namespace
}  // namespace tensord::cpu::special
