// The C ABI offered to backends (backend.h, backend_bls.h), first half: the
// API version and the accessors over the backend library, model version and
// instance objects. Requests and responses: backend_request_api.cc.
#include "core/api/error.h"
#include "core/backend/backend_library.h"
#include "core/common/copy_workers.h"
#include "core/config/model_config_json.h"
#include "core/model/model_instance.h"
#include "core/model/model_version.h"
#include "inferd/backend.h"
#include "inferd/backend_bls.h"

#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <cstring>
#include <vector>

using inferd::BackendLibrary;
using inferd::GuardedCall;
using inferd::GuardedRead;
using inferd::ModelInstance;
using inferd::ModelVersion;
using inferd::Status;

namespace {

std::string SettingsJson(const std::map<std::string, std::string>& settings) {
  rapidjson::StringBuffer buffer;
  rapidjson::Writer<rapidjson::StringBuffer> w(buffer);
  w.StartObject();
  for (const auto& [key, value] : settings) {
    w.Key(key.c_str());
    w.String(value.c_str());
  }
  w.EndObject();
  return std::string(buffer.GetString(), buffer.GetSize());
}

}  // namespace

extern "C" {

INFERD_Error* INFERD_BackendApiVersion(uint32_t* major, uint32_t* minor) {
  return GuardedCall([&] {
    INFERD_REQUIRE_ARG(major);
    INFERD_REQUIRE_ARG(minor);
    *major = INFERD_BACKEND_API_VERSION_MAJOR;
    *minor = INFERD_BACKEND_API_VERSION_MINOR;
    return Status::Ok();
  });
}

// --- Backend

INFERD_Error* INFERD_BackendName(INFERD_Backend* backend, const char** name) {
  return GuardedRead(backend, name,
                     [&] { return BackendLibrary::FromHandle(backend)->name().c_str(); });
}

INFERD_Error* INFERD_BackendConfig(INFERD_Backend* backend, INFERD_Message** config) {
  return GuardedRead(backend, config, [&] {
    return new INFERD_Message{SettingsJson(BackendLibrary::FromHandle(backend)->settings())};
  });
}

INFERD_Error* INFERD_BackendSetState(INFERD_Backend* backend, void* state) {
  return GuardedCall([&] {
    INFERD_REQUIRE_ARG(backend);
    BackendLibrary::FromHandle(backend)->state = state;
    return Status::Ok();
  });
}

INFERD_Error* INFERD_BackendState(INFERD_Backend* backend, void** state) {
  return GuardedRead(backend, state, [&] { return BackendLibrary::FromHandle(backend)->state; });
}

// --- Model

INFERD_Error* INFERD_ModelName(INFERD_Model* model, const char** name) {
  return GuardedRead(model, name, [&] { return ModelVersion::FromHandle(model)->name().c_str(); });
}

INFERD_Error* INFERD_ModelVersion(INFERD_Model* model, uint64_t* version) {
  return GuardedRead(model, version, [&] {
    return static_cast<uint64_t>(ModelVersion::FromHandle(model)->version());
  });
}

INFERD_Error* INFERD_ModelRepositoryPath(INFERD_Model* model, const char** path) {
  return GuardedRead(model, path,
                     [&] { return ModelVersion::FromHandle(model)->model_dir().c_str(); });
}

INFERD_Error* INFERD_ModelConfig(INFERD_Model* model, INFERD_Message** config) {
  return GuardedRead(model, config, [&] {
    return new INFERD_Message{ModelVersion::FromHandle(model)->config_json()};
  });
}

INFERD_Error* INFERD_ModelAutoCompleteConfig(INFERD_Model* model, bool* auto_complete) {
  return GuardedRead(model, auto_complete,
                     [&] { return ModelVersion::FromHandle(model)->may_complete_config(); });
}

INFERD_Error* INFERD_ModelSetConfig(INFERD_Model* model, const char* config_json) {
  return GuardedCall([&] {
    INFERD_REQUIRE_ARG(model);
    INFERD_REQUIRE_ARG(config_json);
    inference::ModelConfig config;
    RETURN_IF_ERROR(inferd::ModelConfigFromJson(config_json, &config));
    return ModelVersion::FromHandle(model)->CompleteConfig(std::move(config));
  });
}

INFERD_Error* INFERD_ModelBackend(INFERD_Model* model, INFERD_Backend** backend) {
  return GuardedRead(model, backend,
                     [&] { return ModelVersion::FromHandle(model)->backend().handle(); });
}

INFERD_Error* INFERD_ModelServer(INFERD_Model* model, INFERD_Server** server) {
  return GuardedRead(model, server, [&] {
    return reinterpret_cast<INFERD_Server*>(ModelVersion::FromHandle(model)->server());
  });
}

INFERD_Error* INFERD_ModelSetState(INFERD_Model* model, void* state) {
  return GuardedCall([&] {
    INFERD_REQUIRE_ARG(model);
    ModelVersion::FromHandle(model)->state = state;
    return Status::Ok();
  });
}

INFERD_Error* INFERD_ModelState(INFERD_Model* model, void** state) {
  return GuardedRead(model, state, [&] { return ModelVersion::FromHandle(model)->state; });
}

// --- Instance

INFERD_Error* INFERD_ModelInstanceName(INFERD_ModelInstance* instance, const char** name) {
  return GuardedRead(instance, name,
                     [&] { return ModelInstance::FromHandle(instance)->name().c_str(); });
}

INFERD_Error* INFERD_ModelInstanceKind(INFERD_ModelInstance* instance, INFERD_InstanceKind* kind) {
  return GuardedRead(instance, kind, [&] { return ModelInstance::FromHandle(instance)->kind(); });
}

INFERD_Error* INFERD_ModelInstanceDeviceId(INFERD_ModelInstance* instance, int32_t* device_id) {
  return GuardedRead(instance, device_id,
                     [&] { return ModelInstance::FromHandle(instance)->device_id(); });
}

INFERD_Error* INFERD_ModelInstanceCopyBuffers(INFERD_ModelInstance* instance,
                                             const INFERD_MemoryCopy* copies, uint32_t count) {
  return GuardedCall([&] {
    INFERD_REQUIRE_ARG(instance);
    if (count == 0) return Status::Ok();
    INFERD_REQUIRE_ARG(copies);
    std::vector<inferd::MemoryCopy> work;
    work.reserve(count);
    for (uint32_t i = 0; i < count; ++i) {
      if (copies[i].byte_size > 0 && (copies[i].dst == nullptr || copies[i].src == nullptr)) {
        return Status::InvalidArg("copy " + std::to_string(i) + " of " + std::to_string(count) +
                                  " has a null source or destination");
      }
      work.push_back({copies[i].dst, copies[i].src, static_cast<size_t>(copies[i].byte_size)});
    }
    inferd::CopyWorkers* workers = ModelInstance::FromHandle(instance)->model()->copy_workers();
    if (workers != nullptr) {
      workers->Copy(work);
    } else {
      for (const inferd::MemoryCopy& copy : work) {
        if (copy.byte_size > 0) std::memcpy(copy.dst, copy.src, copy.byte_size);
      }
    }
    return Status::Ok();
  });
}

INFERD_Error* INFERD_ModelInstanceSetExecuteOnAnyThread(INFERD_ModelInstance* instance,
                                                       bool allowed) {
  return GuardedCall([&] {
    INFERD_REQUIRE_ARG(instance);
    ModelInstance::FromHandle(instance)->AllowExecuteOnAnyThread(allowed);
    return Status::Ok();
  });
}

INFERD_Error* INFERD_ModelInstanceReportComputeTimes(INFERD_ModelInstance* instance,
                                                     uint64_t compute_start_ns,
                                                     uint64_t compute_end_ns) {
  return GuardedCall([&] {
    INFERD_REQUIRE_ARG(instance);
    if (compute_end_ns < compute_start_ns) {
      return Status::InvalidArg("compute end " + std::to_string(compute_end_ns) +
                                " is before compute start " + std::to_string(compute_start_ns));
    }
    ModelInstance::FromHandle(instance)->ReportComputeTimes(compute_start_ns, compute_end_ns);
    return Status::Ok();
  });
}

INFERD_Error* INFERD_ModelInstanceModel(INFERD_ModelInstance* instance, INFERD_Model** model) {
  return GuardedRead(instance, model,
                     [&] { return ModelInstance::FromHandle(instance)->model()->handle(); });
}

INFERD_Error* INFERD_ModelInstanceSetState(INFERD_ModelInstance* instance, void* state) {
  return GuardedCall([&] {
    INFERD_REQUIRE_ARG(instance);
    ModelInstance::FromHandle(instance)->state = state;
    return Status::Ok();
  });
}

INFERD_Error* INFERD_ModelInstanceState(INFERD_ModelInstance* instance, void** state) {
  return GuardedRead(instance, state, [&] { return ModelInstance::FromHandle(instance)->state; });
}

}  // extern "C"
