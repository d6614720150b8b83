// Unit tests of CheckLightgbmModelHeader: the format versions LightGBM 4
// reads pass, newer or malformed ones are refused naming the line.
#include "lightgbm_model_file.h"

#include <gtest/gtest.h>

#include <sstream>
#include <string>

namespace inferd::fil {
namespace {

std::string Check(const std::string& text) {
  std::istringstream in(text);
  return CheckLightgbmModelHeader(in);
}

std::string Model(const std::string& version_line) {
  return "tree\n" + version_line + "num_class=1\nmax_feature_idx=5\n\nTree=0\nnum_leaves=2\n";
}

TEST(LightgbmModelFileTest, FormatsLightgbm4ReadsPass) {
  EXPECT_EQ(Check(Model("version=v4\n")), "");
  EXPECT_EQ(Check(Model("version=v3\r\n")), "");
  EXPECT_EQ(Check(Model("version=v2\n")), "");
  EXPECT_EQ(Check(Model("")), "");  // before LightGBM 2: no version line
}

TEST(LightgbmModelFileTest, NewerFormatsAreRefusedNamingTheVersion) {
  EXPECT_EQ(Check(Model("version=v5\n")),
            "a LightGBM model of format v5, newer than the v4 that the fil backend's "
            "LightGBM 4 reads");
  EXPECT_EQ(Check(Model("version=v12\n")).substr(0, 33), "a LightGBM model of format v12, n");
}

TEST(LightgbmModelFileTest, MalformedVersionsAndNonModelsAreRefused) {
  EXPECT_EQ(Check(Model("version=4\n")),
            "the LightGBM model's format version 'version=4' is not one LightGBM writes "
            "(v2, v3, v4)");
  EXPECT_NE(Check(Model("version=v4.1\n")), "");
  EXPECT_NE(Check(Model("version=v\n")), "");
  EXPECT_NE(Check(Model("version=v0\n")), "");
  EXPECT_EQ(Check("not a model\n"), "no LightGBM text model (its first line is not 'tree')");
  EXPECT_EQ(Check(""), "an empty file is no LightGBM model");
}

TEST(LightgbmModelFileTest, AVersionLineInsideATreeIsNotTheHeader) {
  EXPECT_EQ(Check("tree\nnum_class=1\n\nTree=0\nversion=v9\n"), "");
}

}  // namespace
}  // namespace inferd::fil
