// JSON and binary inference request bodies (RapidJSON writer) and the HTTP head.
#include "loadgen/http_request.h"

#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <bit>
#include <cctype>
#include <cmath>
#include <cstring>

namespace inferd::loadgen {
namespace {

using Writer = rapidjson::Writer<rapidjson::StringBuffer>;

template <typename T>
T Load(const char* p) {
  T value;
  std::memcpy(&value, p, sizeof(T));
  return value;
}

float HalfToFloat(uint16_t h) {
  const int exponent = (h >> 10) & 0x1F;
  const int mantissa = h & 0x3FF;
  float value;
  if (exponent == 0) value = std::ldexp(float(mantissa), -24);
  else if (exponent == 31) value = mantissa ? NAN : INFINITY;
  else value = std::ldexp(float(mantissa | 0x400), exponent - 25);
  return (h & 0x8000) ? -value : value;
}

// The tensor's elements as a flat JSON array.
void WriteData(const GeneratedTensor& tensor, Writer& w) {
  const std::string& t = tensor.datatype;
  const char* p = tensor.bytes.data();
  const char* end = p + tensor.bytes.size();
  w.StartArray();
  while (p < end) {
    if (t == "BYTES") {
      const uint32_t length = Load<uint32_t>(p);
      w.String(p + 4, length);
      p += 4 + length;
      continue;
    }
    if (t == "BOOL") w.Bool(*p != 0);
    else if (t == "UINT8") w.Uint(Load<uint8_t>(p));
    else if (t == "UINT16") w.Uint(Load<uint16_t>(p));
    else if (t == "UINT32") w.Uint(Load<uint32_t>(p));
    else if (t == "UINT64") w.Uint64(Load<uint64_t>(p));
    else if (t == "INT8") w.Int(Load<int8_t>(p));
    else if (t == "INT16") w.Int(Load<int16_t>(p));
    else if (t == "INT32") w.Int(Load<int32_t>(p));
    else if (t == "INT64") w.Int64(Load<int64_t>(p));
    else if (t == "FP16") w.Double(HalfToFloat(Load<uint16_t>(p)));
    else if (t == "BF16") w.Double(std::bit_cast<float>(uint32_t(Load<uint16_t>(p)) << 16));
    else if (t == "FP32") w.Double(Load<float>(p));
    else if (t == "FP64") w.Double(Load<double>(p));
    p += DatatypeSize(t);
  }
  w.EndArray();
}

}  // namespace

std::string ModelTarget(const std::string& model, const std::string& version,
                        const std::string& action) {
  auto encode = [](const std::string& text) {
    static constexpr char kHex[] = "0123456789ABCDEF";
    std::string out;
    for (unsigned char c : text) {
      if (std::isalnum(c) || c == '-' || c == '_' || c == '.' || c == '~') {
        out.push_back(char(c));
      } else {
        out += {'%', kHex[c >> 4], kHex[c & 15]};
      }
    }
    return out;
  };
  std::string target = "/v2/models/" + encode(model);
  if (!version.empty()) target += "/versions/" + encode(version);
  if (!action.empty()) target += "/" + action;
  return target;
}

std::string InferRequestBody(const std::vector<GeneratedTensor>& inputs, bool binary,
                             size_t* header_length) {
  rapidjson::StringBuffer buffer;
  Writer w(buffer);
  w.StartObject();
  w.Key("inputs");
  w.StartArray();
  for (const GeneratedTensor& input : inputs) {
    w.StartObject();
    w.Key("name");
    w.String(input.name.c_str(), input.name.size());
    w.Key("shape");
    w.StartArray();
    for (int64_t dim : input.shape) w.Int64(dim);
    w.EndArray();
    w.Key("datatype");
    w.String(input.datatype.c_str(), input.datatype.size());
    if (binary) {
      w.Key("parameters");
      w.StartObject();
      w.Key("binary_data_size");
      w.Uint64(input.bytes.size());
      w.EndObject();
    } else {
      w.Key("data");
      WriteData(input, w);
    }
    w.EndObject();
  }
  w.EndArray();
  if (binary) {
    w.Key("parameters");
    w.StartObject();
    w.Key("binary_data_output");
    w.Bool(true);
    w.EndObject();
  }
  w.EndObject();
  std::string body(buffer.GetString(), buffer.GetSize());
  *header_length = body.size();
  if (binary) {
    for (const GeneratedTensor& input : inputs) body += input.bytes;
  }
  return body;
}

std::string InferHttpRequest(const std::string& host, const std::string& target,
                             const std::vector<GeneratedTensor>& inputs, bool binary) {
  size_t header_length = 0;
  const std::string body = InferRequestBody(inputs, binary, &header_length);
  std::string request = "POST " + target + " HTTP/1.1\r\nHost: " + host + "\r\n";
  if (binary) {
    request += "Content-Type: application/octet-stream\r\n";
    request += "Inference-Header-Content-Length: " + std::to_string(header_length) + "\r\n";
  } else {
    request += "Content-Type: application/json\r\n";
  }
  request += "Content-Length: " + std::to_string(body.size()) + "\r\n\r\n";
  return request + body;
}

}  // namespace inferd::loadgen
