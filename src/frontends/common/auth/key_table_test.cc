// The auth file: parsing, its errors (file:line), and finding a key.
#include "common/auth/key_table.h"

#include <gtest/gtest.h>

#include <string>

#include "common/auth/hex_hash_for_tests.h"

namespace inferd::auth {
namespace {

std::string TwoKeys() {
  return "{\"keys\": [\n"
         "  {\"name\": \"ci\", \"sha256\": \"" + HexHash("ci-secret") + "\",\n"
         "   \"scopes\": [\"infer\", \"metadata\"], \"models\": [\"fraud_*\"],\n"
         "   \"rate_limit_rps\": 5, \"priority\": 2},\n"
         "  {\"name\": \"ops\", \"sha256\": \"" + HexHash("ops-secret") + "\",\n"
         "   \"scopes\": [\"admin\"]}\n"
         "]}\n";
}

// The error message of parsing `text` as /etc/keys.json.
std::string ErrorOf(const std::string& text) {
  StatusOr<KeyTable> table = KeyTable::Parse("/etc/keys.json", text);
  EXPECT_FALSE(table.ok());
  return table.ok() ? std::string() : table.status().message();
}

TEST(KeyTableTest, ParsesEveryField) {
  StatusOr<KeyTable> table = KeyTable::Parse("keys.json", TwoKeys());
  ASSERT_TRUE(table.ok()) << table.status().message();
  ASSERT_EQ(table->keys().size(), 2u);
  const ApiKey& ci = table->keys()[0];
  EXPECT_EQ(ci.name, "ci");
  EXPECT_EQ(ci.line, 2);
  EXPECT_EQ(ci.scopes, ScopeBit(Scope::kInfer) | ScopeBit(Scope::kMetadata));
  EXPECT_EQ(ci.models, std::vector<std::string>{"fraud_*"});
  EXPECT_EQ(ci.rate_limit_rps, 5);
  EXPECT_EQ(ci.priority, 2u);
  EXPECT_TRUE(ci.AllowsModel("fraud_v2"));
  EXPECT_FALSE(ci.AllowsModel("identity_fp32"));
  const ApiKey& ops = table->keys()[1];
  EXPECT_EQ(ops.line, 5);
  EXPECT_EQ(ops.scopes, ScopeBit(Scope::kAdmin));
  EXPECT_TRUE(ops.AllowsModel("anything"));
  EXPECT_FALSE(ops.priority.has_value());
}

TEST(KeyTableTest, FindsTheKeyWhoseHashMatchesOnly) {
  StatusOr<KeyTable> table = KeyTable::Parse("keys.json", TwoKeys());
  ASSERT_TRUE(table.ok());
  ASSERT_NE(table->Find("ops-secret"), nullptr);
  EXPECT_EQ(table->Find("ops-secret")->name, "ops");
  EXPECT_EQ(table->Find("ci-secret")->name, "ci");
  EXPECT_EQ(table->Find("ci-secreT"), nullptr);
  EXPECT_EQ(table->Find("ci-secret "), nullptr);
  EXPECT_EQ(table->Find(""), nullptr);
  EXPECT_EQ(table->Find(HexHash("ci-secret")), nullptr);  // the hash is no key
}

TEST(KeyTableTest, AnEmptyListIsValidAndFindsNothing) {
  StatusOr<KeyTable> table = KeyTable::Parse("keys.json", "{\"keys\": []}");
  ASSERT_TRUE(table.ok());
  EXPECT_EQ(table->Find("anything"), nullptr);
}

TEST(KeyTableTest, MalformedJsonNamesFileAndLine) {
  EXPECT_EQ(ErrorOf("{\"keys\": [\n{\"name\": \"a\",,}\n]}"),
            "auth file /etc/keys.json:2: not valid JSON: Missing a name for object member.");
}

TEST(KeyTableTest, FieldErrorsNameFileLineAndField) {
  const std::string hash = HexHash("k");
  EXPECT_EQ(ErrorOf("{\"keys\": [{\"name\": \"a\", \"sha256\": \"" + hash +
                    "\",\n \"scopes\": [\"infer\", \"inference\"]}]}"),
            "auth file /etc/keys.json:2: keys[0].scopes: unknown scope 'inference' (known: "
            "infer, metadata, repository, metrics, shared-memory, trace, logging, admin)");
  EXPECT_EQ(ErrorOf("{\"keys\": [\n\n{\"name\": \"a\", \"sha256\": \"abc\", \"scopes\": "
                    "[\"admin\"]}]}"),
            "auth file /etc/keys.json:3: keys[0].sha256: must be the 64 hex digits of the "
            "key's SHA-256 (e.g. `printf %s \"$KEY\" | sha256sum`)");
  EXPECT_NE(ErrorOf("{\"keys\": [{\"name\": \"a\", \"sha256\": \"" + hash +
                    "\", \"scope\": [\"admin\"]}]}")
                .find("keys[0].scope: unknown field"),
            std::string::npos);
  EXPECT_NE(ErrorOf("{\"keys\": [{\"name\": \"a\", \"sha256\": \"" + hash + "\"}]}")
                .find("keys[0] ('a'): \"scopes\" is required"),
            std::string::npos);
  EXPECT_NE(ErrorOf("{\"keys\": [{\"name\": \"a\", \"sha256\": \"" + hash +
                    "\", \"scopes\": [\"admin\"], \"rate_limit_rps\": -1}]}")
                .find("keys[0].rate_limit_rps: must be a number above 0"),
            std::string::npos);
  EXPECT_NE(ErrorOf("{\"keys\": [{\"name\": \"a\", \"sha256\": \"" + hash +
                    "\", \"scopes\": [\"admin\"], \"priority\": 0}]}")
                .find("keys[0].priority: must be a whole number"),
            std::string::npos);
  EXPECT_NE(ErrorOf("{\"users\": []}").find("unknown field 'users'"), std::string::npos);
  EXPECT_NE(ErrorOf("[]").find("must be a JSON object"), std::string::npos);
}

TEST(KeyTableTest, DuplicateNamesAndHashesAreRefusedWithBothLines) {
  const std::string a = HexHash("a");
  const std::string b = HexHash("b");
  EXPECT_EQ(ErrorOf("{\"keys\": [\n{\"name\": \"x\", \"sha256\": \"" + a +
                    "\", \"scopes\": [\"admin\"]},\n{\"name\": \"x\", \"sha256\": \"" + b +
                    "\", \"scopes\": [\"admin\"]}]}"),
            "auth file /etc/keys.json:3: key name 'x' is used already on line 2");
  EXPECT_EQ(ErrorOf("{\"keys\": [\n{\"name\": \"x\", \"sha256\": \"" + a +
                    "\", \"scopes\": [\"admin\"]},\n{\"name\": \"y\", \"sha256\": \"" + a +
                    "\", \"scopes\": [\"admin\"]}]}"),
            "auth file /etc/keys.json:3: key 'y' has the same sha256 as 'x' on line 2");
}

TEST(KeyTableTest, UpperCaseHexIsTheSameHash) {
  std::string upper = HexHash("secret");
  for (char& c : upper) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  StatusOr<KeyTable> table = KeyTable::Parse(
      "k", "{\"keys\": [{\"name\": \"u\", \"sha256\": \"" + upper + "\", \"scopes\": [\"infer\"]}]}");
  ASSERT_TRUE(table.ok());
  EXPECT_NE(table->Find("secret"), nullptr);
}

TEST(KeyTableTest, AnUnreadableFileIsNamed) {
  StatusOr<KeyTable> table = KeyTable::Read("/nonexistent/keys.json");
  ASSERT_FALSE(table.ok());
  EXPECT_EQ(table.status().message(), "auth file /nonexistent/keys.json: cannot be read");
}

}  // namespace
}  // namespace inferd::auth
