// Tests of model folder fingerprints (what POLL mode compares).
#include "core/repository/model_fingerprint.h"

#include <gtest/gtest.h>

#include <fstream>

#include "core/test_util/temp_dir.h"

namespace inferd {
namespace {

namespace fs = std::filesystem;

void Write(const fs::path& path, const std::string& text) { std::ofstream(path) << text; }

TEST(ModelFingerprintTest, ChangesOnlyWhereAFileChanged) {
  TempDir model;
  fs::create_directories(model.path() / "1");
  fs::create_directories(model.path() / "2");
  Write(model.path() / "config.pbtxt", "name: \"m\"");
  Write(model.path() / "1" / "model.onnx", "one");
  Write(model.path() / "2" / "model.onnx", "two");
  const ModelFingerprint before = FingerprintModel(model.path());
  EXPECT_EQ(FingerprintModel(model.path()), before);

  Write(model.path() / "2" / "model.onnx", "two, longer");
  const ModelFingerprint after = FingerprintModel(model.path());
  EXPECT_EQ(after.top, before.top);
  EXPECT_EQ(after.versions.at(1), before.versions.at(1));
  EXPECT_NE(after.versions.at(2), before.versions.at(2));

  Write(model.path() / "labels.txt", "a");
  EXPECT_NE(FingerprintModel(model.path()).top, before.top);
}

TEST(ModelFingerprintTest, ALinkPointedAtAnotherFileIsAChange) {
  TempDir model;
  fs::create_directories(model.path() / "1");
  Write(model.path() / "a.onnx", "same");
  Write(model.path() / "b.onnx", "same");
  fs::last_write_time(model.path() / "b.onnx", fs::last_write_time(model.path() / "a.onnx"));
  fs::create_symlink(model.path() / "a.onnx", model.path() / "1" / "model.onnx");
  const ModelFingerprint before = FingerprintModel(model.path());
  fs::remove(model.path() / "1" / "model.onnx");
  fs::create_symlink(model.path() / "b.onnx", model.path() / "1" / "model.onnx");
  EXPECT_NE(FingerprintModel(model.path()).versions.at(1), before.versions.at(1));
}

}  // namespace
}  // namespace inferd
