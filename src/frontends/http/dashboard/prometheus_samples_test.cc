// Reading samples from the server's Prometheus text.
#include "http/dashboard/prometheus_samples.h"

#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

namespace inferd::http {
namespace {

struct Seen {
  std::string name;
  std::vector<std::pair<std::string, std::string>> labels;
  double value;
};

std::vector<Seen> Read(std::string_view text, bool (*wanted)(std::string_view) = nullptr) {
  std::vector<Seen> seen;
  ForEachPrometheusSample(
      text, [&](std::string_view name) { return wanted == nullptr || wanted(name); },
      [&](const PrometheusSample& s) {
        Seen one{std::string(s.name), {}, s.value};
        for (const auto& [key, value] : s.labels) one.labels.emplace_back(key, value);
        seen.push_back(std::move(one));
      });
  return seen;
}

TEST(PrometheusSamplesTest, ReadsNamesLabelsAndValuesSkippingComments) {
  const auto seen = Read(
      "# HELP nv_inference_pending_request_count Instantaneous number\n"
      "# TYPE nv_inference_pending_request_count gauge\n"
      "nv_inference_pending_request_count{model=\"m\",version=\"1\"} 3\n"
      "\n"
      "nv_cpu_utilization 0.25\n");
  ASSERT_EQ(seen.size(), 2u);
  EXPECT_EQ(seen[0].name, "nv_inference_pending_request_count");
  ASSERT_EQ(seen[0].labels.size(), 2u);
  EXPECT_EQ(seen[0].labels[0], (std::pair<std::string, std::string>("model", "m")));
  EXPECT_EQ(seen[0].labels[1], (std::pair<std::string, std::string>("version", "1")));
  EXPECT_EQ(seen[0].value, 3);
  EXPECT_EQ(seen[1].name, "nv_cpu_utilization");
  EXPECT_TRUE(seen[1].labels.empty());
  EXPECT_DOUBLE_EQ(seen[1].value, 0.25);
}

TEST(PrometheusSamplesTest, UnescapesLabelValues) {
  const auto seen = Read("x{model=\"a \\\"b\\\" \\\\ c\\nd\",le=\"+Inf\"} 7\n");
  ASSERT_EQ(seen.size(), 1u);
  EXPECT_EQ(seen[0].labels[0].second, "a \"b\" \\ c\nd");
  EXPECT_EQ(seen[0].labels[1].second, "+Inf");
}

TEST(PrometheusSamplesTest, ReadsSpecialValuesAndIgnoresTimestamps) {
  const auto seen = Read("a NaN\nb +Inf\nc -Inf\nd 1.5e3 1700000000000\n");
  ASSERT_EQ(seen.size(), 4u);
  EXPECT_TRUE(std::isnan(seen[0].value));
  EXPECT_TRUE(std::isinf(seen[1].value) && seen[1].value > 0);
  EXPECT_TRUE(std::isinf(seen[2].value) && seen[2].value < 0);
  EXPECT_EQ(seen[3].value, 1500);
}

TEST(PrometheusSamplesTest, SkipsMalformedLinesAndKeepsTheRest) {
  const auto seen = Read(
      "no_value\n"
      "open{model=\"m\" 1\n"
      "unquoted{model=m} 1\n"
      "word{model=\"m\"} many\n"
      "good{model=\"m\"} 2\n");
  ASSERT_EQ(seen.size(), 1u);
  EXPECT_EQ(seen[0].name, "good");
  EXPECT_EQ(seen[0].value, 2);
}

TEST(PrometheusSamplesTest, VisitsOnlyWantedNames) {
  const auto seen = Read("a 1\nb{x=\"1\"} 2\nc 3\n",
                         [](std::string_view name) { return name == "b"; });
  ASSERT_EQ(seen.size(), 1u);
  EXPECT_EQ(seen[0].name, "b");
}

TEST(PrometheusSamplesTest, LabelLooksUpByKey) {
  ForEachPrometheusSample(
      "x{model=\"m\",version=\"2\"} 1\n", [](std::string_view) { return true; },
      [](const PrometheusSample& s) {
        EXPECT_EQ(s.Label("version"), "2");
        EXPECT_EQ(s.Label("model"), "m");
        EXPECT_EQ(s.Label("le"), "");
      });
}

}  // namespace
}  // namespace inferd::http
