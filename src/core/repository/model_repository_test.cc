#include "core/repository/model_repository.h"

#include <gtest/gtest.h>

#include <fstream>
#include <set>

#include "core/test_util/temp_dir.h"

namespace inferd {
namespace {

TEST(ModelRepositoryTest, ListsModelFoldersSortedAndSkipsHiddenOnes) {
  TempDir repo;
  repo.MakeDir("b_model/1");
  repo.MakeDir("a_model/1");
  repo.MakeDir(".hidden");
  repo.WriteFile("not_a_model.txt", "x");
  auto models = ScanRepositories({repo.path()});
  ASSERT_TRUE(models.ok()) << models.status().ToString();
  ASSERT_EQ(models->size(), 2u);
  EXPECT_EQ((*models)[0].name, "a_model");
  EXPECT_EQ((*models)[1].name, "b_model");
  EXPECT_TRUE((*models)[0].error.empty());
}

TEST(ModelRepositoryTest, SameNameInTwoRepositoriesIsAnErrorForThatModelOnly) {
  TempDir first, second;
  first.MakeDir("shared/1");
  first.MakeDir("only_first/1");
  second.MakeDir("shared/1");
  auto models = ScanRepositories({first.path(), second.path()});
  ASSERT_TRUE(models.ok());
  ASSERT_EQ(models->size(), 2u);
  EXPECT_EQ((*models)[0].name, "only_first");
  EXPECT_TRUE((*models)[0].error.empty());
  EXPECT_EQ((*models)[1].name, "shared");
  EXPECT_NE((*models)[1].error.find("more than one repository"), std::string::npos);
}

TEST(ModelRepositoryTest, WithNamespacingSameNameIsOneModelPerRepository) {
  TempDir first, second;
  first.MakeDir("shared/1");
  first.MakeDir("only_first/1");
  second.MakeDir("shared/1");
  auto models = ScanRepositories({first.path(), second.path().string() + "/"}, true);
  ASSERT_TRUE(models.ok());
  ASSERT_EQ(models->size(), 3u);
  EXPECT_EQ((*models)[0].name, "only_first");
  EXPECT_EQ((*models)[0].ns, first.path().string());
  EXPECT_EQ((*models)[1].name, "shared");
  EXPECT_EQ((*models)[2].name, "shared");
  EXPECT_TRUE((*models)[1].error.empty());
  EXPECT_TRUE((*models)[2].error.empty());
  std::set<std::string> namespaces = {(*models)[1].ns, (*models)[2].ns};
  EXPECT_EQ(namespaces, (std::set<std::string>{first.path().string(), second.path().string()}));
  EXPECT_EQ(ModelKey((*models)[1].ns, "shared"), (*models)[1].ns + "/shared");
  EXPECT_EQ(NameOfKey(ModelKey((*models)[1].ns, "shared")), "shared");
  EXPECT_EQ(NameOfKey("plain"), "plain");
}

TEST(ModelRepositoryTest, MissingRepositoryIsAnErrorNamingIt) {
  auto models = ScanRepositories({"/nonexistent/inferd-repo"});
  ASSERT_FALSE(models.ok());
  EXPECT_NE(models.status().message().find("/nonexistent/inferd-repo"), std::string::npos);
}

// FindModelFolders answers as the scan's entries of one name would.
TEST(ModelRepositoryTest, FindingOneModelAgreesWithTheScan) {
  TempDir first, second;
  first.MakeDir("shared/1");
  first.MakeDir("only_first/1");
  first.MakeDir(".hidden/1");
  first.WriteFile("a_file", "x");
  second.MakeDir("shared/1");
  for (bool namespacing : {false, true}) {
    const std::vector<std::filesystem::path> roots{first.path(), second.path()};
    auto scanned = ScanRepositories(roots, namespacing);
    ASSERT_TRUE(scanned.ok());
    const std::string escape = "../" + first.path().filename().string();
    for (const std::string& name : std::vector<std::string>{
             "shared", "only_first", ".hidden", "a_file", "missing", "", "..", escape, "shared/1"}) {
      auto found = FindModelFolders(roots, name, namespacing);
      ASSERT_TRUE(found.ok()) << name;
      std::vector<ModelLocation> expected;
      for (const ModelLocation& location : *scanned) {
        if (location.name == name) expected.push_back(location);
      }
      ASSERT_EQ(found->size(), expected.size()) << name << " namespacing " << namespacing;
      for (size_t i = 0; i < expected.size(); ++i) {
        EXPECT_EQ((*found)[i].dir, expected[i].dir) << name;
        EXPECT_EQ((*found)[i].ns, expected[i].ns) << name;
        EXPECT_EQ((*found)[i].error, expected[i].error) << name;
      }
    }
  }
  auto missing_root = FindModelFolders({"/nonexistent/inferd-repo"}, "shared");
  ASSERT_FALSE(missing_root.ok());
  EXPECT_NE(missing_root.status().message().find("/nonexistent/inferd-repo"), std::string::npos);
}

TEST(ModelRepositoryTest, VersionFoldersAreNumericAndSorted) {
  TempDir model;
  model.MakeDir("10");
  model.MakeDir("2");
  model.MakeDir("0");
  model.MakeDir("v3");
  model.MakeDir("3a");
  model.WriteFile("4", "a file, not a folder");
  EXPECT_EQ(ListVersionFolders(model.path()), std::vector<int64_t>({2, 10}));
}

}  // namespace
}  // namespace inferd
