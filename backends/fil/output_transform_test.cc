// Unit tests of FIL's output semantics over predictions.
#include "output_transform.h"

#include <gtest/gtest.h>

#include <vector>

namespace inferd::fil {
namespace {

FilSettings Classifier(bool proba, int64_t width) {
  FilSettings s;
  s.output_name = "output__0";
  s.output_class = true;
  s.predict_proba = proba;
  s.output_width = width;
  return s;
}

TEST(OutputTransformTest, BinaryClassIdsUseTheThreshold) {
  FilSettings s = Classifier(false, 1);
  s.threshold = 0.3f;
  const std::vector<float> p = {0.1f, 0.31f, 0.9f};
  std::vector<float> out(3);
  TransformOutput(s, 1, p.data(), 3, out.data());
  EXPECT_EQ(out, (std::vector<float>{0, 1, 1}));
}

TEST(OutputTransformTest, BinaryProbabilitiesGiveBothClassesOrOne) {
  const std::vector<float> p = {0.25f, 0.75f};
  std::vector<float> two(4);
  TransformOutput(Classifier(true, 2), 1, p.data(), 2, two.data());
  EXPECT_EQ(two, (std::vector<float>{0.75f, 0.25f, 0.25f, 0.75f}));
  std::vector<float> one(2);
  TransformOutput(Classifier(true, 1), 1, p.data(), 2, one.data());
  EXPECT_EQ(one, p);
}

TEST(OutputTransformTest, MultiClassIdIsTheMostProbable) {
  const std::vector<float> p = {0.2f, 0.5f, 0.3f, 0.7f, 0.2f, 0.1f};
  std::vector<float> ids(2);
  TransformOutput(Classifier(false, 1), 3, p.data(), 2, ids.data());
  EXPECT_EQ(ids, (std::vector<float>{1, 0}));
  std::vector<float> proba(6);
  TransformOutput(Classifier(true, 3), 3, p.data(), 2, proba.data());
  EXPECT_EQ(proba, p);
}

TEST(OutputTransformTest, ChecksTheModelAgainstTheOutput) {
  EXPECT_EQ(CheckOutputWidth(Classifier(true, 3), 3), "");
  EXPECT_NE(CheckOutputWidth(Classifier(true, 2), 3).find("one probability per class"),
            std::string::npos);
  EXPECT_EQ(CheckOutputWidth(Classifier(false, 1), 5), "");
  FilSettings regressor;
  regressor.output_width = 1;
  EXPECT_EQ(CheckOutputWidth(regressor, 1), "");
  EXPECT_NE(CheckOutputWidth(regressor, 3).find("set output_class"), std::string::npos);
}

}  // namespace
}  // namespace inferd::fil
