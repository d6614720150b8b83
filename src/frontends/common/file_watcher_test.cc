// FileWatcher: a change to a watched file calls back once it settles.
#include "common/file_watcher.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <string>

#include "inferd/base/mutex.h"

namespace inferd {
namespace {

class FileWatcherTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char folder[] = "/tmp/inferd_watch_XXXXXX";
    ASSERT_NE(mkdtemp(folder), nullptr);
    folder_ = folder;
    path_ = folder_ + "/watched.json";
    std::ofstream(path_) << "one";
  }
  void TearDown() override {
    std::remove(path_.c_str());
    std::remove((folder_ + "/other").c_str());
    rmdir(folder_.c_str());
  }
  std::unique_ptr<FileWatcher> Watch() {
    auto watcher = FileWatcher::Start({path_}, [this] {
      MutexLock lock(&mu_);
      ++calls_;
      changed_.SignalAll();
    });
    EXPECT_TRUE(watcher.ok()) << watcher.status().message();
    return watcher.ok() ? std::move(watcher).value() : nullptr;
  }
  // Waits, at most `bound`, until the callback ran `count` times in all.
  int WaitForCalls(int count, std::chrono::milliseconds bound = std::chrono::seconds(10)) {
    MutexLock lock(&mu_);
    const auto until = std::chrono::steady_clock::now() + bound;
    while (calls_ < count && std::chrono::steady_clock::now() < until) {
      changed_.WaitFor(&mu_, std::chrono::milliseconds(100));
    }
    return calls_;
  }

  std::string folder_;
  std::string path_;
  Mutex mu_;
  CondVar changed_;
  int calls_ GUARDED_BY(mu_) = 0;
};

TEST_F(FileWatcherTest, AWriteInPlaceCallsBack) {
  auto watcher = Watch();
  std::ofstream(path_) << "two";
  EXPECT_EQ(WaitForCalls(1), 1);
}

TEST_F(FileWatcherTest, AReplacementByRenameCallsBack) {
  auto watcher = Watch();
  const std::string next = folder_ + "/other";
  std::ofstream(next) << "three";
  ASSERT_EQ(std::rename(next.c_str(), path_.c_str()), 0);
  EXPECT_EQ(WaitForCalls(1), 1);
}

TEST_F(FileWatcherTest, AnotherFileInTheFolderDoesNotCallBack) {
  auto watcher = Watch();
  std::ofstream(folder_ + "/other") << "unrelated";
  watcher->Trigger();  // the trigger's call comes after the unrelated event was seen
  EXPECT_EQ(WaitForCalls(1), 1);
  EXPECT_EQ(WaitForCalls(2, std::chrono::milliseconds(500)), 1);
}

TEST_F(FileWatcherTest, ATriggerCallsBackUnchanged) {
  auto watcher = Watch();
  watcher->Trigger();
  EXPECT_EQ(WaitForCalls(1), 1);
}

}  // namespace
}  // namespace inferd
