#include "auto_complete.h"

#include <cstring>

#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include "control_channel.h"
#include "shm_region.h"
#include "stub_process.h"

namespace inferd::python {

Status AutoCompleteConfig(const ModelSettings& settings, std::string* config_json) {
  const std::string label = settings.Label() + ": auto_complete_config: ";
  rapidjson::StringBuffer buffer;
  rapidjson::Writer<rapidjson::StringBuffer> w(buffer);
  w.StartObject();
  w.Key("model_file");
  w.String(settings.model_file.c_str());
  w.Key("label");
  w.String(settings.Label().c_str());
  w.Key("config");
  w.String(settings.config_json.c_str());
  w.EndObject();
  const uint64_t text_bytes = buffer.GetSize();
  // Room for the configuration both ways, whatever its size.
  const uint64_t bytes = std::max<uint64_t>(1 << 20, 4 * text_bytes + 65536);
  ShmRegion region;
  if (Status s = region.Create("inferd-python-autocomplete", bytes, bytes); !s.ok()) {
    return s.WithPrefix(label);
  }
  std::memcpy(region.base() + region.request_begin(), buffer.GetString(), text_bytes);
  ControlChannel main, stub_main, call, stub_call;
  if (!ControlChannel::Pair(&main, &stub_main) || !ControlChannel::Pair(&call, &stub_call)) {
    return Status::Unavailable(label + "cannot create the stub's control channels");
  }
  StubProcess process;  // killed and reaped on every way out
  if (Status s = process.Start(settings.StubArgv(), stub_main.fd(), stub_call.fd(), region.fd());
      !s.ok()) {
    return s.WithPrefix(label);
  }
  stub_main.Close();
  stub_call.Close();
  ControlMessage request;
  request.type = static_cast<uint32_t>(MessageType::kAutoComplete);
  request.offset = region.request_begin();
  request.size = text_bytes;
  main.Send(request);
  ControlMessage reply;
  while (main.Receive(&reply)) {
    if (reply.type != static_cast<uint32_t>(MessageType::kAutoCompleteDone)) continue;
    const uint64_t begin = region.ring_begin();
    if (reply.offset < begin || reply.size > region.ring_bytes() ||
        reply.offset - begin > region.ring_bytes() - reply.size) {
      return Status::Internal(label + "the stub answered outside its shared memory");
    }
    std::string text(region.base() + reply.offset, reply.size);
    if (reply.flags & kFlagError) return Status::InvalidArg(label + text);
    *config_json = std::move(text);
    main.Close();  // the stub exits at end of stream
    process.AwaitExit();
    return Status::Ok();
  }
  main.Close();
  return Status::Unavailable(label + "the Python stub " + process.Wait() + " before answering");
}

}  // namespace inferd::python
