#include "wire_format.h"

#include <cstring>

namespace inferd::python {

namespace {

constexpr uint64_t kDataAlignment = 64;

uint64_t Pad(uint64_t n, uint64_t to = 8) { return (n + to - 1) / to * to; }

// Appends fixed-size fields at a cursor; the caller sized the block first.
class Writer {
 public:
  explicit Writer(char* dst) : dst_(dst) {}
  template <typename T>
  void Put(T value) {
    std::memcpy(dst_ + at_, &value, sizeof value);
    at_ += sizeof value;
  }
  void Bytes(const void* data, uint64_t size) {
    if (size > 0) std::memcpy(dst_ + at_, data, size);
    at_ += size;
  }
  void Align(uint64_t to = 8) {
    const uint64_t next = Pad(at_, to);
    std::memset(dst_ + at_, 0, next - at_);
    at_ = next;
  }
  uint64_t at() const { return at_; }
  void Seek(uint64_t at) { at_ = at; }

 private:
  char* const dst_;
  uint64_t at_ = 0;
};

uint64_t RequestRecordSize(const RequestView& r) {
  uint64_t n = 56 + Pad(r.id.size()) + Pad(r.parameters_json.size()) +
               Pad(r.correlation_id_string.size()) + Pad(r.traceparent.size());
  uint64_t names = 0;
  for (const auto& output : r.outputs) names += 4 + output.size();
  n += Pad(names);
  for (const auto& input : r.inputs) n += 32 + 8 * input.shape.size() + Pad(input.name.size());
  return n;
}

}  // namespace

uint64_t BatchBlockSize(const std::vector<RequestView>& requests) {
  uint64_t n = 8;
  for (const auto& r : requests) n += RequestRecordSize(r);
  n = Pad(n, kDataAlignment);
  for (const auto& r : requests) {
    for (const auto& input : r.inputs) n += Pad(input.byte_size, kDataAlignment);
  }
  return n;
}

void WriteBatchBlock(const std::vector<RequestView>& requests, char* dst, uint64_t block_offset) {
  Writer w(dst);
  w.Put<uint32_t>(static_cast<uint32_t>(requests.size()));
  w.Put<uint32_t>(0);
  uint64_t records = 8;
  for (const auto& r : requests) records += RequestRecordSize(r);
  uint64_t data_at = Pad(records, kDataAlignment);
  for (const auto& r : requests) {
    w.Put<uint64_t>(r.handle);
    w.Put<uint64_t>(r.correlation_id);
    w.Put<uint32_t>(r.flags);
    w.Put<uint32_t>(static_cast<uint32_t>(r.inputs.size()));
    w.Put<uint32_t>(static_cast<uint32_t>(r.outputs.size()));
    w.Put<uint32_t>(static_cast<uint32_t>(r.id.size()));
    w.Put<uint32_t>(static_cast<uint32_t>(r.parameters_json.size()));
    w.Put<uint32_t>(static_cast<uint32_t>(r.correlation_id_string.size()));
    w.Put<uint64_t>(r.timeout_us);
    w.Put<uint32_t>(static_cast<uint32_t>(r.traceparent.size()));
    w.Put<uint32_t>(0);
    for (std::string_view text : {r.id, std::string_view(r.parameters_json),
                                  r.correlation_id_string, r.traceparent}) {
      w.Bytes(text.data(), text.size());
      w.Align();
    }
    for (const auto& output : r.outputs) {
      w.Put<uint32_t>(static_cast<uint32_t>(output.size()));
      w.Bytes(output.data(), output.size());
    }
    w.Align();
    for (const auto& input : r.inputs) {
      w.Put<uint32_t>(static_cast<uint32_t>(input.name.size()));
      w.Put<uint32_t>(input.datatype);
      w.Put<uint32_t>(static_cast<uint32_t>(input.shape.size()));
      w.Put<uint32_t>(0);
      w.Put<uint64_t>(input.byte_size);
      w.Put<uint64_t>(block_offset + data_at);
      for (int64_t dim : input.shape) w.Put<int64_t>(dim);
      w.Bytes(input.name.data(), input.name.size());
      w.Align();
      // The data goes to its own place further on; the records stay compact.
      const uint64_t record_end = w.at();
      w.Seek(data_at);
      for (const auto& [data, size] : input.buffers) w.Bytes(data, size);
      data_at = Pad(data_at + input.byte_size, kDataAlignment);
      w.Seek(record_end);
    }
  }
}

namespace {

// Reads fixed-size fields, refusing to go past the block's end.
class Reader {
 public:
  Reader(const char* block, uint64_t size) : block_(block), size_(size) {}
  template <typename T>
  bool Get(T* value) {
    if (size_ - at_ < sizeof(T)) return false;
    std::memcpy(value, block_ + at_, sizeof(T));
    at_ += sizeof(T);
    return true;
  }
  bool Bytes(uint64_t n, const char** data) {
    if (size_ - at_ < n) return false;
    *data = block_ + at_;
    at_ += n;
    return true;
  }
  bool Align() {
    const uint64_t next = Pad(at_);
    if (next > size_) return false;
    at_ = next;
    return true;
  }

 private:
  const char* const block_;
  const uint64_t size_;
  uint64_t at_ = 0;
};

Status Broken(const std::string& what) {
  return Status::Internal("the Python stub sent a malformed block (" + what + ")");
}

// One tensor record (a response's output, a BLS request's input).
Status ParseTensor(Reader& r, OutputView* output) {
  uint32_t name_len = 0, dim_count = 0, reserved = 0;
  if (!r.Get(&name_len) || !r.Get(&output->datatype) || !r.Get(&dim_count) ||
      !r.Get(&reserved) || !r.Get(&output->byte_size)) {
    return Broken("tensor header");
  }
  if (dim_count > 64) return Broken("dimension count");
  output->shape.resize(dim_count);
  for (auto& dim : output->shape) {
    if (!r.Get(&dim)) return Broken("shape");
  }
  const char* name = nullptr;
  if (!r.Bytes(name_len, &name) || !r.Align()) return Broken("tensor name");
  output->name = std::string_view(name, name_len);
  if (!r.Bytes(output->byte_size, &output->data) || !r.Align()) return Broken("tensor data");
  return Status::Ok();
}

bool Text(Reader& r, uint32_t len, std::string_view* text) {
  const char* at = nullptr;
  if (!r.Bytes(len, &at) || !r.Align()) return false;
  *text = std::string_view(at, len);
  return true;
}

}  // namespace

Status ParseBlsRequest(const char* block, uint64_t size, BlsRequestView* request) {
  Reader r(block, size);
  uint32_t model_len = 0, inputs = 0, outputs = 0, id_len = 0, params_len = 0;
  uint32_t correlation_len = 0, trace_len = 0, unused = 0;
  if (!r.Get(&model_len) || !r.Get(&inputs) || !r.Get(&outputs) || !r.Get(&id_len) ||
      !r.Get(&params_len) || !r.Get(&request->flags) || !r.Get(&correlation_len) ||
      !r.Get(&request->options) || !r.Get(&request->version) || !r.Get(&request->correlation_id) ||
      !r.Get(&request->timeout_us) || !r.Get(&trace_len) || !r.Get(&unused)) {
    return Broken("request header");
  }
  if (!Text(r, model_len, &request->model) || !Text(r, id_len, &request->id) ||
      !Text(r, params_len, &request->parameters_json) ||
      !Text(r, correlation_len, &request->correlation_id_string) ||
      !Text(r, trace_len, &request->traceparent)) {
    return Broken("request texts");
  }
  if (outputs > size / 4 || inputs > size / 24) return Broken("tensor counts");
  request->outputs.resize(outputs);
  for (auto& name : request->outputs) {
    uint32_t len = 0;
    const char* at = nullptr;
    if (!r.Get(&len) || !r.Bytes(len, &at)) return Broken("output name");
    name = std::string_view(at, len);
  }
  if (!r.Align()) return Broken("output names");
  request->inputs.resize(inputs);
  for (auto& input : request->inputs) {
    if (Status s = ParseTensor(r, &input); !s.ok()) return s;
  }
  return Status::Ok();
}

uint64_t ResponseBlockSize(const ResponseView& response) {
  uint64_t n = 16 + Pad(response.has_error ? response.error.size() : 0);
  if (response.has_error) return n;
  for (const auto& out : response.outputs) {
    n += 24 + 8 * out.shape.size() + Pad(out.name.size()) + Pad(out.byte_size);
  }
  return n;
}

void WriteResponseBlock(const ResponseView& response, char* dst) {
  Writer w(dst);
  w.Put<uint32_t>(response.has_error ? 1 : 0);
  w.Put<uint32_t>(response.error_code);
  const uint64_t error_len = response.has_error ? response.error.size() : 0;
  w.Put<uint32_t>(static_cast<uint32_t>(error_len));
  w.Put<uint32_t>(response.has_error ? 0 : static_cast<uint32_t>(response.outputs.size()));
  w.Bytes(response.error.data(), error_len);
  w.Align();
  if (response.has_error) return;
  for (const auto& out : response.outputs) {
    w.Put<uint32_t>(static_cast<uint32_t>(out.name.size()));
    w.Put<uint32_t>(out.datatype);
    w.Put<uint32_t>(static_cast<uint32_t>(out.shape.size()));
    w.Put<uint32_t>(0);
    w.Put<uint64_t>(out.byte_size);
    for (int64_t dim : out.shape) w.Put<int64_t>(dim);
    w.Bytes(out.name.data(), out.name.size());
    w.Align();
    w.Bytes(out.data, out.byte_size);
    w.Align();
  }
}

Status ParseResponseBlock(const char* block, uint64_t size, ResponseView* response) {
  Reader r(block, size);
  uint32_t has_error = 0, error_len = 0, output_count = 0;
  if (!r.Get(&has_error) || !r.Get(&response->error_code) || !r.Get(&error_len) ||
      !r.Get(&output_count)) {
    return Broken("header");
  }
  response->has_error = has_error != 0;
  const char* text = nullptr;
  if (!r.Bytes(error_len, &text) || !r.Align()) return Broken("error text");
  response->error = std::string_view(text, error_len);
  response->outputs.clear();
  // Each output takes at least 24 bytes: a count beyond that is a lie.
  if (output_count > size / 24) return Broken("output count");
  response->outputs.resize(output_count);
  for (auto& output : response->outputs) {
    if (Status s = ParseTensor(r, &output); !s.ok()) return s;
  }
  return Status::Ok();
}

}  // namespace inferd::python
