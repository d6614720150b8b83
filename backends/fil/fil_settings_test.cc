// Unit tests of ParseFilSettings: FIL's parameters, defaults and refusals.
#include "fil_settings.h"

#include <gtest/gtest.h>

#include <string>

namespace inferd::fil {
namespace {

// A configuration with `params` (JSON members of "parameters") and output dims.
std::string Config(const std::string& params, int output_dims = 1, int count = 1) {
  return R"({"name": "m", "max_batch_size": 8,
    "input": [{"name": "input__0", "data_type": "TYPE_FP32", "dims": ["4"]}],
    "output": [{"name": "output__0", "data_type": "TYPE_FP32", "dims": [)" +
         std::to_string(output_dims) + R"(]}],
    "instance_group": [{"count": )" + std::to_string(count) + R"(}],
    "parameters": {)" + params + "}}";
}

std::string Param(const std::string& key, const std::string& value) {
  return "\"" + key + "\": {\"string_value\": \"" + value + "\"}";
}

TEST(FilSettingsTest, ReadsFilParametersAndDefaults) {
  FilSettings s;
  ASSERT_EQ(ParseFilSettings(Config(Param("model_type", "lightgbm") + "," +
                                    Param("output_class", "true") + "," +
                                    Param("predict_proba", "true") + "," +
                                    Param("threshold", "0.3"), 3),
                             8, &s),
            "");
  EXPECT_EQ(s.model_type, ModelType::kLightgbm);
  EXPECT_EQ(s.model_filename, "model.txt");
  EXPECT_EQ(s.input_name, "input__0");
  EXPECT_EQ(s.features, 4);
  EXPECT_EQ(s.output_width, 3);
  EXPECT_TRUE(s.output_class);
  EXPECT_TRUE(s.predict_proba);
  EXPECT_FLOAT_EQ(s.threshold, 0.3f);
}

TEST(FilSettingsTest, DefaultFileNamePerModelType) {
  FilSettings s;
  ASSERT_EQ(ParseFilSettings(Config(Param("model_type", "xgboost")), 8, &s), "");
  EXPECT_EQ(s.model_filename, "xgboost.model");
  EXPECT_FALSE(s.output_class);
  EXPECT_FLOAT_EQ(s.threshold, 0.5f);
  ASSERT_EQ(ParseFilSettings(Config(Param("model_type", "xgboost_json")), 8, &s), "");
  EXPECT_EQ(s.model_filename, "xgboost.json");
  ASSERT_EQ(ParseFilSettings(Config(Param("model_type", "xgboost_ubj")), 8, &s), "");
  EXPECT_EQ(s.model_filename, "xgboost.ubj");
}

TEST(FilSettingsTest, InstancesShareTheCores) {
  FilSettings s;
  ASSERT_EQ(ParseFilSettings(Config(Param("model_type", "xgboost"), 1, 3), 8, &s), "");
  EXPECT_EQ(s.threads, 2);
  ASSERT_EQ(ParseFilSettings(Config(Param("model_type", "xgboost"), 1, 4), 2, &s), "");
  EXPECT_EQ(s.threads, 1);
}

TEST(FilSettingsTest, RefusesBadParametersNamingThem) {
  FilSettings s;
  EXPECT_NE(ParseFilSettings(Config(""), 8, &s).find("'model_type' is missing"),
            std::string::npos);
  EXPECT_NE(ParseFilSettings(Config(Param("model_type", "treelite_checkpoint")), 8, &s)
                .find("treelite_checkpoint"),
            std::string::npos);
  EXPECT_NE(ParseFilSettings(Config(Param("model_type", "catboost")), 8, &s).find("'catboost'"),
            std::string::npos);
  EXPECT_NE(ParseFilSettings(Config(Param("model_type", "xgboost") + "," +
                                    Param("output_class", "yes")),
                             8, &s)
                .find("'output_class' is 'yes'"),
            std::string::npos);
  EXPECT_NE(ParseFilSettings(Config(Param("model_type", "xgboost") + "," +
                                    Param("threshold", "half")),
                             8, &s)
                .find("'threshold' is 'half'"),
            std::string::npos);
  EXPECT_NE(ParseFilSettings(Config(Param("model_type", "xgboost") + "," +
                                    Param("predict_proba", "true")),
                             8, &s)
                .find("need a classifier"),
            std::string::npos);
}

TEST(FilSettingsTest, RefusesOutputDimsThatDoNotFit) {
  FilSettings s;
  EXPECT_NE(ParseFilSettings(Config(Param("model_type", "xgboost"), 2), 8, &s)
                .find("dims [ 1 ] for a regressor"),
            std::string::npos);
  EXPECT_NE(ParseFilSettings(Config(Param("model_type", "xgboost") + "," +
                                    Param("output_class", "true"), 2),
                             8, &s)
                .find("the class id"),
            std::string::npos);
}

}  // namespace
}  // namespace inferd::fil
