// FP16 and BF16 conversions: exact values, rounding, specials.
#include "inferd/base/half_float.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

namespace inferd {
namespace {

TEST(HalfFloatTest, ExactValuesRoundTrip) {
  for (float value : {0.0f, 1.0f, -2.5f, 0.099975586f, 65504.0f, -65504.0f, 6.1035156e-05f}) {
    EXPECT_EQ(HalfToFloat(FloatToHalf(value)), value) << value;
  }
}

TEST(HalfFloatTest, KnownBitPatterns) {
  EXPECT_EQ(FloatToHalf(1.0f), 0x3C00);
  EXPECT_EQ(FloatToHalf(-2.0f), 0xC000);
  EXPECT_EQ(FloatToHalf(65504.0f), 0x7BFF);
  EXPECT_EQ(FloatToHalf(-0.0f), 0x8000);
  EXPECT_EQ(HalfToFloat(0x3555), 0.333251953125f);
}

TEST(HalfFloatTest, RoundsToNearestEven) {
  // 1 + 2^-11 lies halfway between 1 and the next half (1 + 2^-10): ties to even.
  EXPECT_EQ(FloatToHalf(1.0f + std::ldexp(1.0f, -11)), 0x3C00);
  // 1 + 3 * 2^-11 lies halfway between 1 + 2^-10 (odd) and 1 + 2^-9: rounds up.
  EXPECT_EQ(FloatToHalf(1.0f + 3 * std::ldexp(1.0f, -11)), 0x3C02);
  EXPECT_EQ(FloatToHalf(0.1f), 0x2E66);
}

TEST(HalfFloatTest, OverflowBecomesInfinity) {
  EXPECT_EQ(FloatToHalf(65520.0f), 0x7C00);  // rounds past the largest half
  EXPECT_EQ(FloatToHalf(1e10f), 0x7C00);
  EXPECT_EQ(FloatToHalf(-std::numeric_limits<float>::infinity()), 0xFC00);
  EXPECT_TRUE(std::isinf(HalfToFloat(0x7C00)));
}

TEST(HalfFloatTest, SubnormalsRoundTrip) {
  const float smallest = std::ldexp(1.0f, -24);
  EXPECT_EQ(FloatToHalf(smallest), 0x0001);
  EXPECT_EQ(HalfToFloat(0x0001), smallest);
  EXPECT_EQ(HalfToFloat(0x03FF), std::ldexp(1023.0f, -24));
  EXPECT_EQ(FloatToHalf(std::ldexp(1023.0f, -24)), 0x03FF);
  EXPECT_EQ(FloatToHalf(std::ldexp(1.0f, -26)), 0x0000);  // underflows to zero
}

TEST(HalfFloatTest, NanStaysNan) {
  EXPECT_TRUE(std::isnan(HalfToFloat(FloatToHalf(std::numeric_limits<float>::quiet_NaN()))));
  const float nan = std::numeric_limits<float>::quiet_NaN();
  EXPECT_TRUE(std::isnan(BFloat16ToFloat(FloatToBFloat16(nan))));
}

TEST(HalfFloatTest, BFloat16RoundTripAndRounding) {
  EXPECT_EQ(FloatToBFloat16(1.0f), 0x3F80);
  EXPECT_EQ(BFloat16ToFloat(0x3F80), 1.0f);
  EXPECT_EQ(BFloat16ToFloat(FloatToBFloat16(-3.140625f)), -3.140625f);
  // 1 + 2^-8 is halfway between 1 and 1 + 2^-7: ties to even (1).
  EXPECT_EQ(FloatToBFloat16(1.0f + std::ldexp(1.0f, -8)), 0x3F80);
  EXPECT_EQ(FloatToBFloat16(1.0f + 3 * std::ldexp(1.0f, -8)), 0x3F82);
  EXPECT_EQ(FloatToBFloat16(std::numeric_limits<float>::infinity()), 0x7F80);
}

}  // namespace
}  // namespace inferd
