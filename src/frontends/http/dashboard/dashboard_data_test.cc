// The JSON /dashboard/data answers: from the repository index, the statistics
// and the metrics text as the server API gives them, and against a server.
#include "http/dashboard/dashboard_data.h"

#include <rapidjson/document.h>
#include <stdlib.h>

#include <gtest/gtest.h>

#include <filesystem>
#include <string>

namespace inferd::http {
namespace {

constexpr std::string_view kIndex =
    R"([{"name":"a","version":"1","state":"READY","reason":""},)"
    R"({"name":"b","version":"1","state":"UNAVAILABLE","reason":"unloaded"},)"
    R"({"name":"c"}])";

constexpr std::string_view kStatistics =
    R"({"model_stats":[{"name":"a","version":"1","last_inference":5,"inference_count":12,)"
    R"("execution_count":5,"inference_stats":{"success":{"count":10,"ns":1},)"
    R"("fail":{"count":2,"ns":1},"queue":{"count":10,"ns":1},)"
    R"("cache_hit":{"count":3,"ns":1},"cache_miss":{"count":7,"ns":1}},)"
    R"("batch_stats":[{"batch_size":1,"compute_infer":{"count":4,"ns":1}},)"
    R"({"batch_size":8,"compute_infer":{"count":1,"ns":1}}]}]})";

constexpr std::string_view kMetrics =
    "# TYPE nv_inference_pending_request_count gauge\n"
    "nv_inference_pending_request_count{model=\"a\",version=\"1\"} 4\n"
    "inferd_inference_requests_in_flight{model=\"a\",version=\"1\"} 6\n"
    "inferd_queue_latency_seconds_bucket{model=\"a\",version=\"1\",le=\"0.001\"} 7\n"
    "inferd_queue_latency_seconds_bucket{model=\"a\",version=\"1\",le=\"0.01\"} 9\n"
    "inferd_queue_latency_seconds_bucket{model=\"a\",version=\"1\",le=\"+Inf\"} 10\n"
    "inferd_queue_latency_seconds_sum{model=\"a\",version=\"1\"} 0.02\n"
    "inferd_compute_latency_seconds_bucket{model=\"a\",version=\"1\",le=\"0.001\"} 1\n"
    "inferd_compute_latency_seconds_bucket{model=\"a\",version=\"1\",le=\"0.01\"} 5\n"
    "inferd_compute_latency_seconds_bucket{model=\"a\",version=\"1\",le=\"+Inf\"} 10\n"
    "nv_cpu_utilization 0.5\n"
    "nv_cpu_memory_total_bytes 1000\n"
    "nv_cpu_memory_used_bytes 400\n";

rapidjson::Document Render(const DashboardSources& sources) {
  const StatusOr<std::string> json = DashboardDataJson(sources);
  EXPECT_TRUE(json.ok()) << json.status().message();
  rapidjson::Document doc;
  doc.Parse(json.ok() ? json->c_str() : "null");
  EXPECT_FALSE(doc.HasParseError());
  return doc;
}

DashboardSources Sources() {
  return DashboardSources{.index_json = kIndex,
                          .statistics_json = kStatistics,
                          .metrics_text = kMetrics,
                          .process = ProcessUsage{.cpu_seconds = 1.5, .resident_bytes = 4096},
                          .time_ms = 1234,
                          .repository_api = true};
}

TEST(DashboardDataTest, EveryIndexedModelWithStateAndReason) {
  const rapidjson::Document doc = Render(Sources());
  EXPECT_EQ(doc["time_ms"].GetUint64(), 1234u);
  EXPECT_TRUE(doc["repository_api"].GetBool());
  const auto& models = doc["models"];
  ASSERT_EQ(models.Size(), 3u);
  EXPECT_STREQ(models[0]["name"].GetString(), "a");
  EXPECT_STREQ(models[0]["version"].GetString(), "1");
  EXPECT_STREQ(models[0]["state"].GetString(), "READY");
  EXPECT_STREQ(models[1]["state"].GetString(), "UNAVAILABLE");
  EXPECT_STREQ(models[1]["reason"].GetString(), "unloaded");
  EXPECT_TRUE(models[1]["stats"].IsNull());
  // Known to the repository, never loaded: the index has no state for it.
  EXPECT_STREQ(models[2]["state"].GetString(), "UNLOADED");
  EXPECT_STREQ(models[2]["version"].GetString(), "");
  EXPECT_TRUE(models[2]["stats"].IsNull());
}

TEST(DashboardDataTest, LoadedModelCarriesCountersGaugesAndBuckets) {
  const rapidjson::Document doc = Render(Sources());
  const auto& stats = doc["models"][0]["stats"];
  ASSERT_TRUE(stats.IsObject());
  EXPECT_EQ(stats["success"].GetUint64(), 10u);
  EXPECT_EQ(stats["failure"].GetUint64(), 2u);
  EXPECT_EQ(stats["inferences"].GetUint64(), 12u);
  EXPECT_EQ(stats["executions"].GetUint64(), 5u);
  EXPECT_EQ(stats["queue_depth"].GetDouble(), 4);
  EXPECT_EQ(stats["in_flight"].GetDouble(), 6);
  EXPECT_EQ(stats["cache_hits"].GetUint64(), 3u);
  EXPECT_EQ(stats["cache_misses"].GetUint64(), 7u);
  ASSERT_EQ(stats["queue_buckets"].Size(), 3u);
  EXPECT_EQ(stats["queue_buckets"][0].GetDouble(), 7);
  EXPECT_EQ(stats["queue_buckets"][2].GetDouble(), 10);
  ASSERT_EQ(stats["compute_buckets"].Size(), 3u);
  EXPECT_EQ(stats["compute_buckets"][1].GetDouble(), 5);
  EXPECT_EQ(stats["batch_executions"]["1"].GetUint64(), 4u);
  EXPECT_EQ(stats["batch_executions"]["8"].GetUint64(), 1u);
  const auto& bounds = doc["latency_bounds_seconds"];
  ASSERT_EQ(bounds.Size(), 2u);
  EXPECT_DOUBLE_EQ(bounds[0].GetDouble(), 0.001);
  EXPECT_DOUBLE_EQ(bounds[1].GetDouble(), 0.01);
}

TEST(DashboardDataTest, ServerProcessAndMachine) {
  rapidjson::Document doc = Render(Sources());
  EXPECT_DOUBLE_EQ(doc["process"]["cpu_seconds"].GetDouble(), 1.5);
  EXPECT_EQ(doc["process"]["resident_bytes"].GetUint64(), 4096u);
  EXPECT_DOUBLE_EQ(doc["machine"]["cpu_utilization"].GetDouble(), 0.5);
  EXPECT_EQ(doc["machine"]["memory_used_bytes"].GetDouble(), 400);
  EXPECT_EQ(doc["machine"]["memory_total_bytes"].GetDouble(), 1000);
  // --allow-cpu-metrics=false: no nv_cpu_* gauges; /proc unreadable: no process.
  DashboardSources sources = Sources();
  sources.metrics_text = "nv_inference_pending_request_count{model=\"a\",version=\"1\"} 4\n";
  sources.process.reset();
  doc = Render(sources);
  EXPECT_TRUE(doc["machine"].IsNull());
  EXPECT_TRUE(doc["process"].IsNull());
  EXPECT_EQ(doc["models"][0]["stats"]["queue_depth"].GetDouble(), 4);
  EXPECT_EQ(doc["models"][0]["stats"]["queue_buckets"].Size(), 0u);
}

TEST(DashboardDataTest, ModelNamesAreEscaped) {
  DashboardSources sources = Sources();
  sources.index_json = R"([{"name":"x\"<b>","version":"2","state":"LOADING","reason":"a\nb"}])";
  const rapidjson::Document doc = Render(sources);
  EXPECT_STREQ(doc["models"][0]["name"].GetString(), "x\"<b>");
  EXPECT_STREQ(doc["models"][0]["reason"].GetString(), "a\nb");
}

TEST(DashboardDataTest, MalformedServerDocumentsAreInternal) {
  DashboardSources sources = Sources();
  sources.index_json = "{}";
  EXPECT_EQ(DashboardDataJson(sources).status().code(), Status::Code::kInternal);
  sources = Sources();
  sources.statistics_json = "[]";
  EXPECT_EQ(DashboardDataJson(sources).status().code(), Status::Code::kInternal);
  sources.statistics_json = R"({"model_stats": {}})";
  EXPECT_EQ(DashboardDataJson(sources).status().code(), Status::Code::kInternal);
}

TEST(DashboardDataTest, OddStatisticsEntriesCountAsZero) {
  DashboardSources sources = Sources();
  sources.statistics_json =
      R"({"model_stats":[7,{"name":"a","version":"1","inference_count":"many",)"
      R"("inference_stats":[],"batch_stats":[1,{"batch_size":2,"compute_infer":3}]}]})";
  const rapidjson::Document doc = Render(sources);
  const auto& stats = doc["models"][0]["stats"];
  ASSERT_TRUE(stats.IsObject());
  EXPECT_EQ(stats["inferences"].GetUint64(), 0u);
  EXPECT_EQ(stats["success"].GetUint64(), 0u);
  EXPECT_EQ(stats["batch_executions"]["2"].GetUint64(), 0u);
}

TEST(DashboardDataTest, CollectsFromAServer) {
  std::string pattern = (std::filesystem::temp_directory_path() / "inferd-dash-XXXXXX").string();
  ASSERT_NE(mkdtemp(pattern.data()), nullptr);
  INFERD_ServerOptions* options = nullptr;
  ASSERT_EQ(INFERD_ServerOptionsNew(&options), nullptr);
  ASSERT_EQ(INFERD_ServerOptionsAddModelRepositoryPath(options, pattern.c_str()), nullptr);
  INFERD_Server* server = nullptr;
  ASSERT_EQ(INFERD_ServerNew(&server, options), nullptr);
  INFERD_ServerOptionsDelete(options);
  const StatusOr<std::string> json = CollectDashboardData(server, false);
  INFERD_ServerDelete(server);
  std::filesystem::remove_all(pattern);
  ASSERT_TRUE(json.ok()) << json.status().message();
  rapidjson::Document doc;
  doc.Parse(json->c_str());
  ASSERT_TRUE(doc.IsObject());
  EXPECT_FALSE(doc["repository_api"].GetBool());
  EXPECT_EQ(doc["models"].Size(), 0u);
  EXPECT_GT(doc["time_ms"].GetUint64(), 0u);
  ASSERT_TRUE(doc["process"].IsObject());
  EXPECT_GT(doc["process"]["resident_bytes"].GetUint64(), 0u);
}

}  // namespace
}  // namespace inferd::http
