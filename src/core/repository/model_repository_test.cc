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
