// C ABI: errors, messages, datatypes and version (server.h).
#include "core/api/error.h"
#include "core/common/datatype.h"

using inferd::GuardedCall;
using inferd::Status;

extern "C" {

INFERD_Error* INFERD_ApiVersion(uint32_t* major, uint32_t* minor) {
  return GuardedCall([&] {
    INFERD_REQUIRE_ARG(major);
    INFERD_REQUIRE_ARG(minor);
    *major = INFERD_API_VERSION_MAJOR;
    *minor = INFERD_API_VERSION_MINOR;
    return Status::Ok();
  });
}

const char* INFERD_DataTypeString(INFERD_DataType datatype) {
  return inferd::DataTypeName(datatype).data();
}

INFERD_DataType INFERD_StringToDataType(const char* name) {
  return name == nullptr ? INFERD_TYPE_INVALID : inferd::DataTypeFromName(name);
}

uint32_t INFERD_DataTypeByteSize(INFERD_DataType datatype) {
  return inferd::DataTypeByteSize(datatype);
}

INFERD_Error* INFERD_ErrorNew(INFERD_Error_Code code, const char* msg) {
  try {
    return new INFERD_Error{code, msg ? msg : "", 0};
  } catch (...) {
    return nullptr;
  }
}

void INFERD_ErrorDelete(INFERD_Error* error) { delete error; }

INFERD_Error_Code INFERD_ErrorCode(INFERD_Error* error) {
  return error ? error->code : INFERD_ERROR_UNKNOWN;
}

const char* INFERD_ErrorCodeString(INFERD_Error* error) {
  if (error == nullptr) return "OK";
  Status status(static_cast<Status::Code>(error->code), "");
  return status.CodeName().data();
}

const char* INFERD_ErrorMessage(INFERD_Error* error) {
  return error ? error->message.c_str() : "";
}

uint64_t INFERD_ErrorRetryAfterMs(INFERD_Error* error) {
  return error ? error->retry_after_ms : 0;
}

INFERD_Error* INFERD_MessageSerializeToJson(INFERD_Message* message, const char** base,
                                            size_t* byte_size) {
  return GuardedCall([&] {
    INFERD_REQUIRE_ARG(message);
    INFERD_REQUIRE_ARG(base);
    INFERD_REQUIRE_ARG(byte_size);
    *base = message->json.data();
    *byte_size = message->json.size();
    return Status::Ok();
  });
}

INFERD_Error* INFERD_MessageDelete(INFERD_Message* message) {
  delete message;
  return nullptr;
}

}  // extern "C"
