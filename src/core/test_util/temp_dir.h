// A temporary folder for tests, removed with everything in it on destruction.
#ifndef INFERD_CORE_TEST_UTIL_TEMP_DIR_H_
#define INFERD_CORE_TEST_UTIL_TEMP_DIR_H_

#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <string>

namespace inferd {

class TempDir {
 public:
  TempDir() {
    std::string pattern = (std::filesystem::temp_directory_path() / "inferd-test-XXXXXX").string();
    path_ = mkdtemp(pattern.data());
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;

  const std::filesystem::path& path() const { return path_; }
  void MakeDir(const std::string& relative) const {
    std::filesystem::create_directories(path_ / relative);
  }
  void WriteFile(const std::string& relative, const std::string& content) const {
    std::filesystem::create_directories((path_ / relative).parent_path());
    std::ofstream(path_ / relative) << content;
  }

 private:
  std::filesystem::path path_;
};

}  // namespace inferd

#endif  // INFERD_CORE_TEST_UTIL_TEMP_DIR_H_
