// The stub's calls beyond inference (see stub_instance.h): custom metrics
// (pb_utils.MetricFamily, Metric) through backend_metrics.h, and the model
// loading API (pb_utils.load_model, unload_model, is_model_ready) through the
// server's repository calls. They arrive on the main channel, in order with
// the stub's responses, so a response the client has was counted before it;
// answers go back on the call channel as kControlReply.
#include <cstring>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "backend_io.h"
#include "inferd/backend_metrics.h"
#include "inferd/server_models.h"
#include "model_control.h"
#include "stub_instance.h"

namespace inferd::python {
namespace {

// A control block's byte strings (control_message.h); false when malformed.
bool ParseParts(const char* data, uint64_t size, std::vector<std::string_view>* parts) {
  if (size < 8) return false;
  uint32_t count;
  std::memcpy(&count, data, 4);
  uint64_t at = 8;
  for (uint32_t i = 0; i < count; ++i) {
    uint64_t length;
    if (size - at < 8) return false;
    std::memcpy(&length, data + at, 8);
    at += 8;
    if (length > size - at) return false;
    parts->emplace_back(data + at, length);
    at += (length + 7) & ~uint64_t{7};
    if (at > size) at = size;
  }
  return true;
}

uint64_t Bits(double value) {
  uint64_t bits;
  std::memcpy(&bits, &value, sizeof bits);
  return bits;
}

double FromBits(uint64_t bits) {
  double value;
  std::memcpy(&value, &bits, sizeof value);
  return value;
}

Status MetricFamilyNew(INFERD_Model* model, uint32_t kind,
                       const std::vector<std::string_view>& parts, uint64_t* handle) {
  if (parts.size() != 2) return Status::InvalidArg("a metric family needs a name and a description");
  const std::string name(parts[0]), description(parts[1]);
  return FromError(INFERD_ModelMetricFamilyNew(model, static_cast<INFERD_MetricKind>(kind),
                                               name.c_str(), description.c_str(), handle));
}

Status MetricNew(INFERD_Model* model, bool has_buckets,
                 const std::vector<std::string_view>& parts, uint64_t* handle) {
  if (parts.size() < 2 || parts[0].size() != 8 || parts[1].size() % 8 != 0 ||
      parts.size() % 2 != 0) {
    return Status::InvalidArg("malformed metric creation from the stub");
  }
  uint64_t family;
  std::memcpy(&family, parts[0].data(), 8);
  std::vector<double> buckets(parts[1].size() / 8);
  if (!buckets.empty()) std::memcpy(buckets.data(), parts[1].data(), parts[1].size());
  std::vector<std::string> texts(parts.begin() + 2, parts.end());
  std::vector<const char*> names, values;
  for (size_t i = 0; i < texts.size(); i += 2) {
    names.push_back(texts[i].c_str());
    values.push_back(texts[i + 1].c_str());
  }
  // No bounds at all is a histogram of one bucket (+Inf): a pointer, not NULL.
  static const double kNoBounds = 0;
  const double* bounds = buckets.empty() ? &kNoBounds : buckets.data();
  return FromError(INFERD_ModelMetricNew(
      model, family, names.data(), values.data(), static_cast<uint32_t>(names.size()),
      has_buckets ? bounds : nullptr, static_cast<uint32_t>(buckets.size()), handle));
}

}  // namespace

void StubInstance::OnControlCall(const ControlMessage& m) {
  INFERD_Model* model = settings_.model;
  const auto type = static_cast<MessageType>(m.type);
  if (type == MessageType::kMetricUpdate) {
    OnMetricUpdate(m);
    return;
  }
  if (type == MessageType::kMetricDelete) {
    {
      MutexLock lock(&mu_);
      metric_handles_.erase(m.id);
    }
    INFERD_ErrorDelete(INFERD_ModelMetricDelete(model, m.id));
    return;
  }
  if (type == MessageType::kMetricValue) {
    double value = 0;
    Status s = FromError(INFERD_ModelMetricValue(model, m.offset, &value));
    ControlReply(m.id, s, Bits(value));
    return;
  }
  std::vector<std::string_view> parts;
  const bool parsed = InRing(m) && ParseParts(region_.base() + m.offset, m.size, &parts);
  if (!parsed) {
    Consume(m);
    ControlReply(m.id, Status::Internal("the Python stub sent a malformed call"), 0);
    return;
  }
  uint64_t handle = 0;
  Status s;
  switch (type) {
    case MessageType::kMetricFamilyNew:
      s = MetricFamilyNew(model, m.flags, parts, &handle);
      break;
    case MessageType::kMetricNew:
      s = MetricNew(model, (m.flags & 1) != 0, parts, &handle);
      break;
    default:
      OnModelControl(m, parts);  // consumes the block itself
      return;
  }
  Consume(m);
  if (s.ok()) {
    MutexLock lock(&mu_);
    metric_handles_.insert(handle);
  }
  ControlReply(m.id, s, handle);
}

void StubInstance::OnMetricUpdate(const ControlMessage& m) {
  const double value = FromBits(m.offset);
  INFERD_Error* error = nullptr;
  switch (static_cast<MetricOp>(m.flags)) {
    case MetricOp::kIncrement:
      error = INFERD_ModelMetricIncrement(settings_.model, m.id, value);
      break;
    case MetricOp::kSet:
      error = INFERD_ModelMetricSet(settings_.model, m.id, value);
      break;
    case MetricOp::kObserve:
      error = INFERD_ModelMetricObserve(settings_.model, m.id, value);
      break;
    default:
      error = INFERD_ErrorNew(INFERD_ERROR_INVALID_ARG, "unknown metric operation");
  }
  // The stub checked the kind and the value: what fails here is the model's
  // use of a metric it deleted, or the stub's mistake; not the client's.
  if (Status s = FromError(error); !s.ok()) LogLine('W', Label() + ": custom metric: " + s.message());
}

void StubInstance::OnModelControl(const ControlMessage& m,
                                  const std::vector<std::string_view>& parts) {
  const auto type = static_cast<MessageType>(m.type);
  const std::string name = parts.empty() ? "" : std::string(parts[0]);
  if (type == MessageType::kModelReady) {
    int64_t version = -1;
    if (parts.size() == 2 && parts[1].size() == 8) std::memcpy(&version, parts[1].data(), 8);
    Consume(m);
    bool ready = false;
    Status s = FromError(INFERD_ServerModelIsReady(server_, name.c_str(), version, &ready));
    // As Triton: a model the server does not know is not ready, not an error.
    if (s.code() == Status::Code::kNotFound) s = Status::Ok();
    ControlReply(m.id, s, ready ? 1 : 0);
    return;
  }
  std::function<Status()> op;
  if (type == MessageType::kModelUnload) {
    op = [server = server_, name, dependents = (m.flags & 1) != 0] {
      return FromError(INFERD_ServerUnloadModel(server, name.c_str(), dependents));
    };
  } else if (type == MessageType::kModelLoad && parts.size() >= 2 && parts.size() % 2 == 0) {
    op = LoadCall(name, (m.flags & 1) != 0, parts);
  } else {
    Consume(m);
    ControlReply(m.id, Status::Internal("the Python stub sent a malformed call"), 0);
    return;
  }
  Consume(m);  // the call owns copies of what it needs
  StartModelControl(m.id, name, type == MessageType::kModelLoad, std::move(op));
}

std::function<Status()> StubInstance::LoadCall(const std::string& name, bool has_config,
                                               const std::vector<std::string_view>& parts) {
  struct Load {
    std::string name;
    std::string config;
    bool has_config = false;
    std::vector<std::string> paths, contents;
  };
  auto load = std::make_shared<Load>();
  load->name = name;
  load->has_config = has_config;
  load->config = std::string(parts[1]);
  for (size_t i = 2; i + 1 < parts.size(); i += 2) {
    load->paths.emplace_back(parts[i]);
    load->contents.emplace_back(parts[i + 1]);
  }
  return [server = server_, load] {
    std::vector<const char*> paths;
    std::vector<const void*> contents;
    std::vector<size_t> sizes;
    for (size_t i = 0; i < load->paths.size(); ++i) {
      paths.push_back(load->paths[i].c_str());
      contents.push_back(load->contents[i].data());
      sizes.push_back(load->contents[i].size());
    }
    return FromError(INFERD_ServerLoadModel(
        server, load->name.c_str(), load->has_config ? load->config.c_str() : nullptr,
        paths.data(), contents.data(), sizes.data(), static_cast<uint32_t>(paths.size())));
  };
}

void StubInstance::StartModelControl(uint64_t id, const std::string& name, bool load,
                                     std::function<Status()> op) {
  const std::string what = std::string(load ? "load" : "unload") + " of model '" + name + "'";
  if (name == settings_.model_name) {
    // The model itself: its load or unload waits for the requests of this
    // version to end, this one included. It starts now and the model goes
    // on (Triton's unload does not wait either); its outcome is logged.
    ControlReply(id, Status::Ok(), 0);
    RunModelControl(std::move(op), [what, label = Label()](const Status& s) {
      if (!s.ok()) LogLine('E', label + ": the " + what + " it asked for failed: " + s.message());
    });
    return;
  }
  uint64_t generation;
  {
    MutexLock lock(&mu_);
    generation = generation_;
    ++control_in_flight_;
  }
  RunModelControl(std::move(op), [this, id, generation](const Status& s) {
    bool asker_lives;  // a stub that died meanwhile is not told; its successor never asked
    {
      MutexLock lock(&mu_);
      asker_lives = generation == generation_;
    }
    if (asker_lives) ControlReply(id, s, 0);
    MutexLock lock(&mu_);
    --control_in_flight_;
    cv_.SignalAll();
  });
}

void StubInstance::ControlReply(uint64_t id, const Status& status, uint64_t result) {
  ControlMessage reply = MakeMessage(MessageType::kControlReply, id, result);
  MutexLock lock(&mu_);
  if (call_fd_ < 0) return;
  if (!status.ok()) {
    const std::string& text = status.message();
    const std::optional<uint64_t> block = allocator_->Allocate(text.size());
    reply.flags = kFlagError | (static_cast<uint32_t>(status.code()) << 8);
    reply.offset = 0;
    if (block) {
      std::memcpy(region_.base() + *block, text.data(), text.size());
      bls_blocks_.insert(*block);  // freed as BLS responses are: kBlsFree
      reply.flags |= kFlagHasBlock;
      reply.offset = *block;
      reply.size = text.size();
    }
  }
  ControlChannel::SendTo(call_fd_, reply);
}

void StubInstance::DropMetricHandles() {
  std::unordered_set<uint64_t> handles;
  {
    MutexLock lock(&mu_);
    handles.swap(metric_handles_);
  }
  // Metrics before families is not needed: a metric's handle holds its family.
  for (uint64_t handle : handles) {
    INFERD_ErrorDelete(INFERD_ModelMetricDelete(settings_.model, handle));
  }
}

}  // namespace inferd::python
