#include "core/repository/model_mirror.h"

#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <sstream>

#include "core/test_util/fake_object_store.h"
#include "core/test_util/temp_dir.h"

namespace inferd {
namespace {

namespace fs = std::filesystem;

std::string Read(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

std::vector<ObjectInfo> ListModel(const FakeObjectStore& store, const std::string& model) {
  return store.List(model + "/").value();
}

struct Fixture {
  explicit Fixture(uint64_t limit = 0, uint64_t range_bytes = 1 << 20)
      : mirror(MirrorOptions{dir.path() / "cache", limit, FetchOptions{4, range_bytes}}) {
    EXPECT_TRUE(mirror.Open().ok());
  }
  // Materializes `model` as the store holds it now; returns its folder.
  fs::path Make(const std::string& model) {
    const auto objects = ListModel(store, model);
    Status status = mirror.Materialize(store, model, objects);
    EXPECT_TRUE(status.ok()) << status.ToString();
    return mirror.FolderFor(store, model, objects);
  }
  TempDir dir;
  FakeObjectStore store;
  ModelMirror mirror;
};

TEST(ModelMirrorTest, DownloadsEachObjectOnceAndReusesTheFolder) {
  Fixture f;
  f.store.Put("m/config.pbtxt", "name: \"m\"");
  f.store.Put("m/1/model.bin", "weights");
  const fs::path folder = f.Make("m");
  EXPECT_EQ(folder.filename(), "m");
  EXPECT_EQ(Read(folder / "config.pbtxt"), "name: \"m\"");
  EXPECT_EQ(Read(folder / "1" / "model.bin"), "weights");
  EXPECT_EQ(f.Make("m"), folder);
  EXPECT_EQ(f.store.total_downloads(), 2);
  // A new mirror on the same folder (a restart) downloads nothing either.
  ModelMirror restarted(MirrorOptions{f.dir.path() / "cache", 0, FetchOptions{}});
  ASSERT_TRUE(restarted.Open().ok());
  ASSERT_TRUE(restarted.Materialize(f.store, "m", ListModel(f.store, "m")).ok());
  EXPECT_EQ(f.store.total_downloads(), 2);
}

TEST(ModelMirrorTest, AChangedObjectIsTheOnlyOneFetchedAgain) {
  Fixture f;
  f.store.Put("m/config.pbtxt", "one");
  f.store.Put("m/1/model.bin", "weights");
  const fs::path first = f.Make("m");
  f.store.Put("m/config.pbtxt", "two");
  const fs::path second = f.Make("m");
  EXPECT_NE(first, second);
  EXPECT_EQ(Read(second / "config.pbtxt"), "two");
  EXPECT_EQ(Read(first / "config.pbtxt"), "one");  // what a loaded version reads stays
  EXPECT_EQ(f.store.downloads("m/config.pbtxt"), 2);
  EXPECT_EQ(f.store.downloads("m/1/model.bin"), 1);
}

TEST(ModelMirrorTest, LargeObjectsComeInRanges) {
  Fixture f(0, /*range_bytes=*/10);
  std::string big;
  for (int i = 0; i < 95; ++i) big += static_cast<char>('a' + i % 26);
  f.store.Put("m/1/big.bin", big);
  EXPECT_EQ(Read(f.Make("m") / "1" / "big.bin"), big);
  EXPECT_EQ(f.store.downloads("m/1/big.bin"), 10);
  EXPECT_EQ(f.mirror.fetched().requests, 10u);
}

TEST(ModelMirrorTest, AFailedFetchLeavesNothingVisible) {
  Fixture f;
  f.store.Put("m/config.pbtxt", "c");
  f.store.Put("m/1/model.bin", "w");
  auto objects = ListModel(f.store, "m");
  f.store.Put("m/1/model.bin", "changed meanwhile");  // the listed version is gone
  const Status status = f.mirror.Materialize(f.store, "m", objects);
  EXPECT_FALSE(status.ok());
  EXPECT_NE(status.message().find("m/1/model.bin"), std::string::npos);
  EXPECT_FALSE(fs::exists(f.mirror.FolderFor(f.store, "m", objects)));
  for (const auto& entry : fs::directory_iterator(f.dir.path() / "cache" / "objects")) {
    EXPECT_NE(entry.path().filename().string()[0], '.') << entry.path();
  }
}

TEST(ModelMirrorTest, EachModelIsReportedOnceItsOwnCopyIsDoneAndFailsAlone) {
  Fixture f(0, /*range_bytes=*/4);  // "weights-N" comes in ranges
  std::vector<ModelMirror::ModelObjects> models;
  for (const std::string model : {"a", "b", "c"}) {
    f.store.Put(model + "/config.pbtxt", "name: \"" + model + "\"");
    f.store.Put(model + "/1/model.bin", "weights-" + model);
    models.push_back({model, ListModel(f.store, model)});
  }
  ASSERT_TRUE(f.mirror.Materialize(f.store, "c", models[2].objects).ok());  // cached already
  f.store.Put("b/1/model.bin", "changed meanwhile");  // b's listed version is gone
  Mutex mu;
  std::vector<std::pair<std::string, Status>> reports;
  f.mirror.MaterializeEach(f.store, models, [&](size_t i, Status status) {
    // Reported once its folder is whole: a load may read it from now on.
    if (status.ok()) {
      EXPECT_EQ(Read(f.mirror.FolderFor(f.store, models[i].model, models[i].objects) / "1" /
                     "model.bin"),
                "weights-" + models[i].model);
    }
    MutexLock lock(&mu);
    reports.emplace_back(models[i].model, std::move(status));
  });
  ASSERT_EQ(reports.size(), 3u);
  EXPECT_EQ(reports[0].first, "c");  // nothing to fetch: at once
  std::map<std::string, Status> outcome(reports.begin(), reports.end());
  EXPECT_TRUE(outcome.at("a").ok()) << outcome.at("a").ToString();
  EXPECT_TRUE(outcome.at("c").ok());
  EXPECT_NE(outcome.at("b").message().find("b/1/model.bin"), std::string::npos);
  EXPECT_FALSE(fs::exists(f.mirror.FolderFor(f.store, "b", models[1].objects)));
  for (const auto& entry : fs::directory_iterator(f.dir.path() / "cache" / "objects")) {
    EXPECT_NE(entry.path().filename().string()[0], '.') << entry.path();  // no part left
  }
  EXPECT_EQ(f.store.downloads("c/1/model.bin"), 3);  // only the first Materialize's ranges
}

TEST(ModelMirrorTest, KeysLeavingTheModelFolderAreRefused) {
  Fixture f;
  const std::vector<ObjectInfo> objects{{"m/../escape", 1, "v", {}}};
  const Status status = f.mirror.Materialize(f.store, "m", objects);
  EXPECT_EQ(status.code(), Status::Code::kInvalidArg);
  EXPECT_NE(status.message().find("m/../escape"), std::string::npos);
}

TEST(ModelMirrorTest, OverTheLimitOlderCopiesGoFirstAndTheLatestStay) {
  Fixture f(/*limit=*/25);
  f.store.Put("a/1/w", std::string(10, 'a'));
  const fs::path a1 = f.Make("a");
  f.store.Put("b/1/w", std::string(10, 'b'));
  const fs::path b1 = f.Make("b");
  f.store.Put("a/1/w", std::string(10, 'c'));  // a changes: its first copy is no longer current
  const fs::path a2 = f.Make("a");
  EXPECT_FALSE(fs::exists(a1));
  EXPECT_TRUE(fs::exists(b1));
  EXPECT_TRUE(fs::exists(a2));
  uint64_t total = 0;
  for (const auto& entry : fs::directory_iterator(f.dir.path() / "cache" / "objects")) {
    total += entry.file_size();
  }
  EXPECT_EQ(total, 20u);
}

TEST(ModelMirrorTest, AReleasedModelsCopyGoesOnceTheCacheIsOverItsLimit) {
  Fixture f(/*limit=*/25);
  f.store.Put("a/1/w", std::string(10, 'a'));
  f.store.Put("b/1/w", std::string(10, 'b'));
  f.store.Put("c/1/w", std::string(10, 'c'));
  const fs::path a = f.Make("a"), b = f.Make("b"), c = f.Make("c");
  // 30 bytes, over the limit, but each copy is the latest of a model in use.
  EXPECT_TRUE(fs::exists(a) && fs::exists(b) && fs::exists(c));
  f.mirror.Release(f.store, "b");  // b unloaded: its copy may go, and does at once
  EXPECT_FALSE(fs::exists(b));
  EXPECT_TRUE(fs::exists(a) && fs::exists(c));
  EXPECT_EQ(f.store.downloads("b/1/w"), 1);
  f.Make("b");  // loaded again: fetched again
  EXPECT_EQ(f.store.downloads("b/1/w"), 2);
  f.mirror.Release(f.store, "a");
  f.mirror.Release(f.store, "c");  // under the limit again once a went: c stays
  EXPECT_FALSE(fs::exists(a));
  EXPECT_TRUE(fs::exists(c));
}

}  // namespace
}  // namespace inferd
