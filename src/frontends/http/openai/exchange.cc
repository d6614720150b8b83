// One OpenAI request's choices, as their responses come.
#include "http/openai/exchange.h"

#include <cctype>
#include <cstring>
#include <ctime>
#include <random>
#include <utility>

#include "common/response_reader.h"

namespace inferd::http::openai {
namespace {

// BYTES elements (4-byte little-endian length, then the bytes), joined.
Status JoinBytes(const ResponseOutput& output, std::string* out) {
  const auto* data = static_cast<const char*>(output.base);
  size_t offset = 0;
  while (offset < output.byte_size) {
    uint32_t length = 0;
    if (output.byte_size - offset < sizeof length) break;
    std::memcpy(&length, data + offset, sizeof length);
    offset += sizeof length;
    if (output.byte_size - offset < length) {
      return Status::Internal(std::string("output '") + output.name + "' is malformed BYTES");
    }
    out->append(data + offset, length);
    offset += length;
  }
  return Status::Ok();
}

// The first element of an integer output; nullopt for another datatype.
std::optional<int64_t> FirstInteger(const ResponseOutput& output) {
  const auto* data = static_cast<const char*>(output.base);
  auto read = [&]<typename T>(T) -> std::optional<int64_t> {
    if (output.byte_size < sizeof(T)) return std::nullopt;
    T value;
    std::memcpy(&value, data, sizeof value);
    return static_cast<int64_t>(value);
  };
  switch (output.datatype) {
    case INFERD_TYPE_INT32: return read(int32_t{});
    case INFERD_TYPE_INT64: return read(int64_t{});
    case INFERD_TYPE_UINT32: return read(uint32_t{});
    case INFERD_TYPE_UINT64: return read(uint64_t{});
    default: return std::nullopt;
  }
}

Status ReadEmbedding(const ResponseOutput& output, ResponseContent* content) {
  if (output.datatype != INFERD_TYPE_FP32) {
    return Status::Internal("output 'embedding' must be FP32");
  }
  content->embedding.resize(output.byte_size / sizeof(float));
  std::memcpy(content->embedding.data(), output.base, content->embedding.size() * sizeof(float));
  content->has_embedding = true;
  return Status::Ok();
}

std::string RandomId() {
  static constexpr char kHex[] = "0123456789abcdef";
  std::random_device device;
  std::string id(24, '0');
  for (char& c : id) c = kHex[device() % 16];
  return id;
}

}  // namespace

Status ReadResponseContent(INFERD_InferenceResponse* response, ResponseContent* content) {
  ResponseSummary summary;
  RETURN_IF_ERROR(ReadResponseSummary(response, &summary));
  for (uint32_t i = 0; i < summary.output_count; ++i) {
    ResponseOutput output;
    RETURN_IF_ERROR(ReadResponseOutput(response, i, "HTTP", &output));
    const std::string_view name = output.name;
    if (name == kTextOutput && output.datatype == INFERD_TYPE_BYTES) {
      RETURN_IF_ERROR(JoinBytes(output, &content->text));
    } else if (name == kFinishReasonOutput && output.datatype == INFERD_TYPE_BYTES) {
      RETURN_IF_ERROR(JoinBytes(output, &content->finish_reason));
    } else if (name == kNumInputTokensOutput) {
      content->input_tokens = FirstInteger(output);
    } else if (name == kNumOutputTokensOutput) {
      content->output_tokens = FirstInteger(output);
    } else if (name == kEmbeddingOutput) {
      RETURN_IF_ERROR(ReadEmbedding(output, content));
    }
  }
  return Status::Ok();
}

int64_t EstimateTokens(std::string_view text) {
  int64_t words = 0;
  bool in_word = false;
  for (const char c : text) {
    const bool space = std::isspace(static_cast<unsigned char>(c)) != 0;
    if (!space && !in_word) ++words;
    in_word = !space;
  }
  return words;
}

Exchange::Exchange(ApiRequest request, ModelConvention convention,
                   std::vector<std::string> prompts, Clock::time_point start)
    : request_(std::move(request)),
      convention_(std::move(convention)),
      prompts_(std::move(prompts)),
      prompt_tokens_reported_(prompts_.size()),
      choices_(prompts_.size() * static_cast<size_t>(request_.n)),
      id_(RandomId()),
      created_(static_cast<int64_t>(std::time(nullptr))),
      start_(start) {}

std::string Exchange::CurrentBody() const {
  return GenerateBody(convention_, request_, prompt(),
                      static_cast<int64_t>(current_ % static_cast<size_t>(request_.n)));
}

bool Exchange::Add(ResponseContent content, Clock::time_point now, std::string* delta) {
  delta->clear();
  Choice& choice = choices_[current_];
  if (content.input_tokens) prompt_tokens_reported_[current_ / request_.n] = content.input_tokens;
  if (content.has_embedding) choice.embedding = std::move(content.embedding);
  if (!content.finish_reason.empty()) model_finish_reason_ = content.finish_reason;
  if (choice.cut || content.text.empty()) return false;
  if (!first_token_) first_token_ = now;
  if (content.output_tokens) {
    choice.tokens_reported = true;
    choice.output_tokens += *content.output_tokens;
  }
  const size_t old_size = choice.text.size();
  choice.text.append(content.text);
  if (CutAtStop(old_size)) {
    choice.cut = true;
    choice.finish_reason = "stop";
  }
  if (choice.text.size() > old_size) *delta = choice.text.substr(old_size);
  const std::optional<int64_t>& max_tokens = request_.sampling.max_tokens;
  if (!choice.cut && max_tokens && !convention_.Has("sampling_parameters")) {
    const int64_t tokens =
        choice.tokens_reported ? choice.output_tokens : EstimateTokens(choice.text);
    if (tokens >= *max_tokens) {
      choice.cut = true;
      choice.finish_reason = "length";
    }
  }
  return choice.cut;
}

bool Exchange::CutAtStop(size_t from) {
  std::string& text = choices_[current_].text;
  size_t cut = std::string::npos;
  for (const std::string& stop : request_.sampling.stop) {
    // A stop string may straddle the previous response and this one.
    const size_t begin = from >= stop.size() - 1 ? from - (stop.size() - 1) : 0;
    const size_t found = text.find(stop, begin);
    if (found < cut) cut = found;
  }
  if (cut == std::string::npos) return false;
  text.resize(cut);
  return true;
}

void Exchange::EndChoice() {
  Choice& choice = choices_[current_];
  if (!choice.tokens_reported) choice.output_tokens = EstimateTokens(choice.text);
  if (choice.finish_reason.empty()) {
    if (model_finish_reason_ == "stop" || model_finish_reason_ == "length") {
      choice.finish_reason = model_finish_reason_;
    } else {
      const std::optional<int64_t>& max_tokens = request_.sampling.max_tokens;
      choice.finish_reason = max_tokens && choice.output_tokens >= *max_tokens ? "length" : "stop";
    }
  }
  model_finish_reason_.clear();
}

bool Exchange::Next() {
  if (current_ + 1 >= choices_.size()) return false;
  ++current_;
  return true;
}

int64_t Exchange::prompt_tokens() const {
  int64_t total = 0;
  for (size_t i = 0; i < prompts_.size(); ++i) {
    total += prompt_tokens_reported_[i].value_or(EstimateTokens(prompts_[i]));
  }
  return total;
}

int64_t Exchange::completion_tokens() const {
  int64_t total = 0;
  for (const Choice& choice : choices_) total += choice.output_tokens;
  return total;
}

}  // namespace inferd::http::openai
