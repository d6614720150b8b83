// The measuring loop of tuner.h.
#include "tune/tuner.h"

#include <unistd.h>

#include <chrono>

#include "loadgen/load_driver.h"

namespace inferd::tune {

Tuner::Tuner(const TuneOptions& options, ModelControl& control, loadgen::InferClient& client,
             const std::atomic<bool>& stop, Progress& progress)
    : options_(options), control_(control), client_(client), stop_(stop), progress_(progress) {}

TuneResult Tuner::Run(const ConfigFacts& facts, const std::string& config_json,
                      const SearchSpace& space, std::string* fatal_error) {
  const auto start = std::chrono::steady_clock::now();
  facts_ = facts;
  config_json_ = config_json;
  result_.model = options_.model;
  result_.server = options_.HttpUrl();
  if (options_.protocol == loadgen::Protocol::kGrpc) {
    result_.server += " (load over gRPC at " + options_.grpc_host + ":" + std::to_string(options_.grpc_port) + ")";
  }
  result_.grid_size = space.size();
  result_.original = facts.setting;
  result_.original_config_json = config_json;
  result_.latency_target_ms = options_.sweep.latency_target_ms;
  result_.mode = options_.exhaustive ? "exhaustive grid" : "coordinate-descent search";
  progress_.Begin(result_, options_.exhaustive);

  const Evaluate evaluate = [&](const GridIndex& index) { return Measure(space.At(index)); };
  const SearchResult search =
      options_.exhaustive ? SearchExhaustive(space, evaluate)
                          : SearchCoordinateDescent(space, space.Nearest(facts.setting),
                                                    options_.search_margin, evaluate);
  result_.interrupted = stop_.load();
  if (!search.measured.empty() && search.scores[search.best].feasible) {
    // The search's points and result_.points are in the same order.
    result_.best = search.best;
    result_.has_recommendation = true;
  }
  Restore();
  result_.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  *fatal_error = fatal_error_;
  return std::move(result_);
}

std::optional<Score> Tuner::Measure(const Setting& setting) {
  if (stop_.load() || !fatal_error_.empty()) return std::nullopt;
  PointResult point;
  point.setting = setting;
  progress_.PointStart(result_.points.size() + 1, result_.grid_size, options_.exhaustive, setting);
  std::string override_json;
  std::string error = OverrideConfig(config_json_, setting, &override_json);
  LoadError load{error, !error.empty()};
  if (error.empty()) load = control_.Load(override_json, &point.load_secs);
  if (load.fatal) {
    fatal_error_ = load.message;
    progress_.PointStopped();
    return std::nullopt;
  }
  if (load.message.empty()) {
    changed_ = true;
    load.message = CheckApplied(setting);
  }
  if (!load.message.empty()) {
    point.error = load.message;
    progress_.PointFailed(point);
  } else {
    progress_.PointLoaded(point);
    Sweep(&point);
  }
  point.score = ScoreSteps(point.steps, options_.sweep.latency_target_ms, &point.best_step);
  progress_.PointDone(point, options_.sweep.latency_target_ms);
  result_.points.push_back(point);
  return point.score;
}

void Tuner::Sweep(PointResult* point) {
  while (!stop_.load()) {
    const std::optional<int64_t> concurrency = NextConcurrency(options_.sweep, point->steps);
    if (!concurrency) break;
    loadgen::StepPlan plan;
    plan.value = double(*concurrency);
    plan.warmup_secs = options_.warmup_secs;
    plan.duration_secs = options_.duration_secs;
    // The load generator's line is rewritten in place: only for a terminal.
    plan.progress = !options_.quiet && ::isatty(STDERR_FILENO);
    const loadgen::StepResult step = loadgen::RunStep(client_, plan);
    const loadgen::LatencySummary& s = step.summary;
    StepMeasurement m{*concurrency, s.requests_per_second * options_.batch_size, s.p50_ns / 1e6,
                      s.p99_ns / 1e6, s.requests, s.errors, s.first_error};
    if (!step.drained && m.first_error.empty()) {
      m.errors += 1;
      m.first_error = "requests still unanswered 30 s after the step";
    }
    point->steps.push_back(m);
    progress_.Step(m, options_.sweep.latency_target_ms);
  }
}

std::string Tuner::CheckApplied(const Setting& setting) {
  std::string applied_json;
  ConfigFacts applied;
  std::string error = control_.FetchConfig(&applied_json);
  if (error.empty()) error = ReadConfigFacts(options_.model, applied_json, &applied);
  if (!error.empty()) return error;
  // A model that does not batch keeps its batching fields as they were.
  const bool same = facts_.batches ? applied.setting == setting
                                   : applied.setting.instances == setting.instances;
  return same ? "" : "the server did not apply the setting: it reports " + applied.setting.Describe();
}

void Tuner::Restore() {
  if (!changed_) {
    result_.restored = true;
    result_.restore_note = "the configuration was not changed";
    return;
  }
  const PointResult* best = result_.recommended();
  const bool keep = options_.keep_best && best != nullptr;
  std::string json = config_json_;
  if (keep) OverrideConfig(config_json_, best->setting, &json);
  double seconds = 0;
  const LoadError load = control_.Load(json, &seconds);
  if (!load.message.empty()) {
    result_.restore_note = "the original configuration was NOT restored: " + load.message;
    if (!result_.points.empty()) {
      result_.restore_note += "; the model may still serve " + result_.points.back().setting.Describe();
    }
    return;
  }
  result_.restored = !keep;
  result_.restore_note = keep ? "kept the recommended setting loaded (--keep-best); config.pbtxt is unchanged"
                              : "restored the original configuration (" + facts_.setting.Describe() + ")";
}

}  // namespace inferd::tune
