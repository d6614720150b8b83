// inferd's two C ABIs (server.h for frontends and embedding applications,
// backend.h for backends) share what is here: the export macro, errors,
// JSON messages, tensor datatypes and memory types, request parameter types,
// and the flags of requests and responses. A backend that includes only
// backend.h sees this and nothing of the server API.
//
// Conventions, for both ABIs:
// - A function returning INFERD_Error* returns NULL on success. A non-NULL error
//   is owned by the caller, who frees it with INFERD_ErrorDelete.
// - Objects created by an INFERD_*New function are owned by the caller and freed
//   with the matching INFERD_*Delete, unless a function says it takes ownership.
// - Strings returned through `const char**` live as long as the object they were
//   read from, unless stated otherwise.
// - Every function may be called from any thread. Callbacks run on server threads
//   and must not block for long.
// - No C++ exception crosses either boundary.
#ifndef INFERD_ABI_COMMON_H_
#define INFERD_ABI_COMMON_H_

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__)
#define INFERD_EXPORT __attribute__((visibility("default")))
#else
#define INFERD_EXPORT
#endif

struct INFERD_Error;
struct INFERD_Message;

typedef struct INFERD_Error INFERD_Error;
typedef struct INFERD_Message INFERD_Message;

// ---------------------------------------------------------------------------
// Data types and memory

// Tensor element types: the KServe v2 datatypes.
typedef enum INFERD_DataType_enum {
  INFERD_TYPE_INVALID = 0,
  INFERD_TYPE_BOOL,
  INFERD_TYPE_UINT8,
  INFERD_TYPE_UINT16,
  INFERD_TYPE_UINT32,
  INFERD_TYPE_UINT64,
  INFERD_TYPE_INT8,
  INFERD_TYPE_INT16,
  INFERD_TYPE_INT32,
  INFERD_TYPE_INT64,
  INFERD_TYPE_FP16,
  INFERD_TYPE_FP32,
  INFERD_TYPE_FP64,
  INFERD_TYPE_BYTES,
  INFERD_TYPE_BF16
} INFERD_DataType;

// The protocol name of `datatype` ("FP32", "BYTES", ...); a static string.
INFERD_EXPORT const char* INFERD_DataTypeString(INFERD_DataType datatype);
// The datatype named `name`, or INFERD_TYPE_INVALID.
INFERD_EXPORT INFERD_DataType INFERD_StringToDataType(const char* name);
// Bytes per element; 0 for BYTES (variable) and INVALID.
INFERD_EXPORT uint32_t INFERD_DataTypeByteSize(INFERD_DataType datatype);

// Where a buffer lives. Only CPU memory is served today; the others exist so
// GPU backends and CUDA shared memory fit without an ABI change.
typedef enum INFERD_MemoryType_enum {
  INFERD_MEMORY_CPU = 0,
  INFERD_MEMORY_CPU_PINNED,
  INFERD_MEMORY_GPU
} INFERD_MemoryType;

// ---------------------------------------------------------------------------
// Errors

// Error codes. Each maps to one HTTP status and one gRPC status code.
typedef enum INFERD_Error_Code_enum {
  INFERD_ERROR_UNKNOWN = 0,    // HTTP 400, gRPC UNKNOWN
  INFERD_ERROR_INTERNAL,       // HTTP 500, gRPC INTERNAL
  INFERD_ERROR_NOT_FOUND,      // HTTP 404, gRPC NOT_FOUND
  INFERD_ERROR_INVALID_ARG,    // HTTP 400, gRPC INVALID_ARGUMENT
  INFERD_ERROR_UNAVAILABLE,    // HTTP 503, gRPC UNAVAILABLE
  INFERD_ERROR_UNSUPPORTED,    // HTTP 501, gRPC UNIMPLEMENTED
  INFERD_ERROR_ALREADY_EXISTS, // HTTP 400, gRPC ALREADY_EXISTS
  INFERD_ERROR_CANCELLED,      // HTTP 400, gRPC CANCELLED
  // Refused by admission control; INFERD_ErrorRetryAfterMs (server.h) says
  // when to try again.
  INFERD_ERROR_RESOURCE_EXHAUSTED  // HTTP 429, gRPC RESOURCE_EXHAUSTED
} INFERD_Error_Code;

// A new error; the caller owns it. `msg` is copied.
INFERD_EXPORT INFERD_Error* INFERD_ErrorNew(INFERD_Error_Code code, const char* msg);
INFERD_EXPORT void INFERD_ErrorDelete(INFERD_Error* error);
INFERD_EXPORT INFERD_Error_Code INFERD_ErrorCode(INFERD_Error* error);
// The code's name ("NOT_FOUND", ...); a static string.
INFERD_EXPORT const char* INFERD_ErrorCodeString(INFERD_Error* error);
// The message; lives as long as `error`.
INFERD_EXPORT const char* INFERD_ErrorMessage(INFERD_Error* error);

// ---------------------------------------------------------------------------
// Messages: JSON documents returned by the server (metadata, config, index).

// Points *base at the JSON text (not NUL-terminated) and sets *byte_size. The
// text lives as long as `message`.
INFERD_EXPORT INFERD_Error* INFERD_MessageSerializeToJson(INFERD_Message* message,
                                                          const char** base, size_t* byte_size);
INFERD_EXPORT INFERD_Error* INFERD_MessageDelete(INFERD_Message* message);

// ---------------------------------------------------------------------------
// Request parameters and flags

// The type of a request parameter, as a backend reads it (backend.h).
typedef enum INFERD_ParameterType_enum {
  INFERD_PARAMETER_STRING = 0,  // value: const char*, NUL-terminated
  INFERD_PARAMETER_INT,         // value: int64_t
  INFERD_PARAMETER_BOOL,        // value: bool
  INFERD_PARAMETER_DOUBLE       // value: double
} INFERD_ParameterType;

// Request flags.
typedef enum INFERD_RequestFlag_enum {
  INFERD_REQUEST_FLAG_SEQUENCE_START = 1,
  INFERD_REQUEST_FLAG_SEQUENCE_END = 2
} INFERD_RequestFlag;

// Release flags: passed to the release callback (ALL only), and by a backend
// to INFERD_RequestRelease (ALL, or RESCHEDULE: backend.h).
typedef enum INFERD_RequestReleaseFlag_enum {
  INFERD_REQUEST_RELEASE_ALL = 1,        // the server holds no reference any more
  INFERD_REQUEST_RELEASE_RESCHEDULE = 2  // run the request again (iterative sequences)
} INFERD_RequestReleaseFlag;

// Response flags passed to the response callback.
typedef enum INFERD_ResponseCompleteFlag_enum {
  INFERD_RESPONSE_COMPLETE_FINAL = 1  // no more responses follow for this request
} INFERD_ResponseCompleteFlag;

#ifdef __cplusplus
}  // extern "C"
#endif

#endif  // INFERD_ABI_COMMON_H_
