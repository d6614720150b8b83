// FP16 (IEEE 754 binary16) and BF16 (bfloat16) <-> float conversions, for
// tensors sent or returned as JSON numbers (HTTP) or as fp32 contents (gRPC),
// and for classification. Header-only: the core and the frontends share it.
// Narrowing rounds to nearest even; NaN stays NaN and out-of-range values
// become infinities. Thread-safe.
#ifndef INFERD_BASE_HALF_FLOAT_H_
#define INFERD_BASE_HALF_FLOAT_H_

#include <bit>
#include <cstdint>

namespace inferd {

inline uint16_t FloatToHalf(float value) {
  const uint32_t bits = std::bit_cast<uint32_t>(value);
  const uint16_t sign = static_cast<uint16_t>((bits >> 16) & 0x8000u);
  const uint32_t exponent = (bits >> 23) & 0xFFu;
  uint32_t mantissa = bits & 0x7FFFFFu;

  if (exponent == 0xFF) {  // infinity or NaN (keep NaN quiet and non-zero)
    return static_cast<uint16_t>(sign | 0x7C00u | (mantissa ? 0x200u | (mantissa >> 13) : 0u));
  }
  const int32_t half_exponent = static_cast<int32_t>(exponent) - 127 + 15;
  if (half_exponent >= 0x1F) return static_cast<uint16_t>(sign | 0x7C00u);  // overflow
  if (half_exponent <= 0) {
    // Subnormal half (or zero): shift the mantissa, implicit bit included.
    if (half_exponent < -10) return sign;
    mantissa |= 0x800000u;
    const uint32_t shift = static_cast<uint32_t>(14 - half_exponent);
    uint32_t half_mantissa = mantissa >> shift;
    const uint32_t remainder = mantissa & ((1u << shift) - 1u);
    const uint32_t halfway = 1u << (shift - 1u);
    if (remainder > halfway || (remainder == halfway && (half_mantissa & 1u))) ++half_mantissa;
    return static_cast<uint16_t>(sign | half_mantissa);
  }
  uint32_t half = (static_cast<uint32_t>(half_exponent) << 10) | (mantissa >> 13);
  const uint32_t remainder = mantissa & 0x1FFFu;
  // Rounding up may carry into the exponent, up to infinity: that is correct.
  if (remainder > 0x1000u || (remainder == 0x1000u && (half & 1u))) ++half;
  return static_cast<uint16_t>(sign | half);
}

inline float HalfToFloat(uint16_t half) {
  const uint32_t sign = static_cast<uint32_t>(half & 0x8000u) << 16;
  const uint32_t exponent = (half >> 10) & 0x1Fu;
  uint32_t mantissa = half & 0x3FFu;
  uint32_t bits;
  if (exponent == 0x1F) {
    bits = sign | 0x7F800000u | (mantissa << 13);
  } else if (exponent != 0) {
    bits = sign | ((exponent - 15 + 127) << 23) | (mantissa << 13);
  } else if (mantissa == 0) {
    bits = sign;
  } else {
    // Subnormal half: normalize into a float.
    int32_t e = -1;
    do {
      ++e;
      mantissa <<= 1;
    } while ((mantissa & 0x400u) == 0);
    bits = sign | (static_cast<uint32_t>(127 - 15 - e) << 23) | ((mantissa & 0x3FFu) << 13);
  }
  return std::bit_cast<float>(bits);
}

inline uint16_t FloatToBFloat16(float value) {
  const uint32_t bits = std::bit_cast<uint32_t>(value);
  if ((bits & 0x7F800000u) == 0x7F800000u && (bits & 0x7FFFFFu) != 0) {
    return static_cast<uint16_t>((bits >> 16) | 0x40u);  // quiet NaN
  }
  const uint32_t rounding = 0x7FFFu + ((bits >> 16) & 1u);
  return static_cast<uint16_t>((bits + rounding) >> 16);
}

inline float BFloat16ToFloat(uint16_t value) {
  return std::bit_cast<float>(static_cast<uint32_t>(value) << 16);
}

}  // namespace inferd

#endif  // INFERD_BASE_HALF_FLOAT_H_
