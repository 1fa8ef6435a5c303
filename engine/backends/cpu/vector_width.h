// The widest vector registers the CPU kernels are compiled for (-march=native, or the
// compiler's default without TENSORD_NATIVE). GCC's vector extensions wider than the target's
// registers lower selects and compares element by element: a 64-byte NaN-aware max over rows
// compiled for AVX2 ran scalar (amax over (1000, 1000) float32: 1.2 ms, NumPy 0.17).
#pragma once

namespace tensord::cpu {

#if defined(__AVX512F__)
inline constexpr int kVectorBytes = 64;
#elif defined(__AVX__)
inline constexpr int kVectorBytes = 32;
#else
inline constexpr int kVectorBytes = 16;
#endif

}  // namespace tensord::cpu
