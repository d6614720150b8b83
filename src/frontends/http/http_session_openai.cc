// The OpenAI-compatible API on one HTTP connection (http/openai/): a
// request's choices run one after another as generate requests over the
// model's tensor convention; a streaming request answers each response as a
// chunk event and ends with "data: [DONE]", through the generate stream's
// writer (WriteStream); any other is answered once its last choice ended.
#include <string>
#include <utility>

#include "common/server_error.h"
#include "http/access_check.h"
#include "http/http_session.h"
#include "http/openai/model_list.h"
#include "http/openai/openai_response.h"

namespace inferd::http {
using boost::system::error_code;

namespace {

openai::ApiError ErrorOf(const Status& status, const std::string& model) {
  if (status.code() == Status::Code::kNotFound) return openai::ModelNotFound(model, status.message());
  return openai::FromStatus(status, HttpStatusFromCode(status.code()));
}

openai::ApiKind KindOf(Endpoint endpoint) {
  if (endpoint == Endpoint::kOpenAiChatCompletions) return openai::ApiKind::kChat;
  if (endpoint == Endpoint::kOpenAiEmbeddings) return openai::ApiKind::kEmbedding;
  return openai::ApiKind::kCompletion;
}

// The prompts the choices are generated from: a chat's through its template.
Status PromptsOf(const openai::ApiRequest& request, const openai::ModelConvention& convention,
                 std::vector<std::string>* prompts) {
  if (request.kind != openai::ApiKind::kChat) {
    *prompts = request.prompts;
    return Status::Ok();
  }
  std::string prompt;
  RETURN_IF_ERROR(openai::ApplyChatTemplate(convention.chat_template, request.messages, &prompt));
  prompts->push_back(std::move(prompt));
  return Status::Ok();
}

}  // namespace

template <typename Transport>
void BasicHttpSession<Transport>::StartOpenAi(const Route& route) {
  if (route.endpoint == Endpoint::kOpenAiModels || route.endpoint == Endpoint::kOpenAiModel) {
    return AnswerOpenAiModels(route);
  }
  std::string body;
  if (!TakeDecodedBody(&body)) return;
  openai::ApiRequest request;
  if (openai::ApiError e = ParseApiRequest(KindOf(route.endpoint), body, &request); !e.ok()) {
    return WriteOpenAiError(e);
  }
  if (shared_.access != nullptr) {
    access_ = shared_.access->FinishModelCheck(std::move(access_), request.model);
    if (!access_.allowed()) return WriteError(AccessError(access_));
  }
  openai::ModelConvention convention;
  if (Status s = DescribeModel(shared_.server, request.model, &convention); !s.ok()) {
    return WriteOpenAiError(ErrorOf(s, request.model));
  }
  if (Status s = CheckConvention(convention, request.model); !s.ok()) {
    return WriteOpenAiError(openai::BadRequest("model", s.message()));
  }
  std::vector<std::string> prompts;
  if (Status s = PromptsOf(request, convention, &prompts); !s.ok()) {
    return WriteOpenAiError(openai::FromStatus(s, 500));
  }
  openai_route_ = Route();
  openai_route_.endpoint = Endpoint::kModelGenerateStream;
  openai_route_.model = request.model;
  openai_error_ = openai::ApiError();
  client_gone_ = false;
  if (request.stream) {
    stream_ = Stream();
    // HTTP/1.0 has no chunks: its stream ends when the connection closes.
    if (http_version_ != 11) {
      stream_.framing = BodyFraming::kUntilClose;
      keep_alive_ = false;
    }
  }
  openai_ = std::make_unique<openai::Exchange>(std::move(request), std::move(convention),
                                               std::move(prompts), openai::Clock::now());
  if (shared_.openai_timeout.count() > 0) {
    openai_timer_.expires_after(shared_.openai_timeout);
    openai_timer_.async_wait([self = this->shared_from_this(), serial = ++openai_serial_](
                                 error_code ec) {
      if (!ec) self->OnOpenAiTimeout(serial);
    });
  }
  SubmitOpenAiChoice();
}

template <typename Transport>
void BasicHttpSession<Transport>::AnswerOpenAiModels(const Route& route) {
  StatusOr<std::string> answer = openai::ModelsAnswer(shared_.server, route.model);
  if (!answer.ok()) return WriteOpenAiError(ErrorOf(answer.status(), route.model));
  WriteBody(200, std::move(answer).value());
}

template <typename Transport>
void BasicHttpSession<Transport>::SubmitOpenAiChoice() {
  openai_first_chunk_ = true;
  auto context = std::make_unique<InferContext>(this->shared_from_this(),
                                                transport_.get_executor(), openai_->CurrentBody(),
                                                InferContext::Reply::kOpenAi);
  ApplyKeyPriority(*context);
  if (Status s = InferContext::SubmitGenerate(context, shared_.server, shared_.allocator,
                                              openai_route_, openai_->convention().inputs);
      !s.ok()) {
    return FailOpenAi(ErrorOf(s, openai_route_.model));
  }
  inflight_ = context.release();  // the server's callbacks own it now
  if (!watching_) WatchForDisconnect();
}

template <typename Transport>
void BasicHttpSession<Transport>::OnOpenAiResponse(InferContext& context,
                                                   INFERD_InferenceResponse* response,
                                                   uint32_t flags) {
  if (response != nullptr) {
    if (closed_ || openai_ == nullptr) {
      DiscardServerError(INFERD_InferenceResponseDelete(response));
    } else {
      TakeOpenAiResponse(context, response);
    }
  }
  if ((flags & INFERD_RESPONSE_COMPLETE_FINAL) == 0) return;
  if (inflight_ == &context) inflight_ = nullptr;
  // The context may hold the last reference to this session.
  const auto self = this->shared_from_this();
  context.Unref();
  if (openai_ == nullptr) return;
  if (closed_ || client_gone_) {
    // Nobody reads the rest: the model was told (the watch cancelled it).
    RecordOpenAi("cancelled");
    DropOpenAi();
    return Close();
  }
  if (!openai_error_.ok()) return FailOpenAi(openai_error_);
  EndOpenAiChoice();
}

template <typename Transport>
void BasicHttpSession<Transport>::TakeOpenAiResponse(InferContext& context,
                                                     INFERD_InferenceResponse* response) {
  openai::ResponseContent content;
  const Status status = openai::ReadResponseContent(response, &content);
  DiscardServerError(INFERD_InferenceResponseDelete(response));
  // After a cut or a hang-up the model's "cancelled" is expected, not a failure.
  const bool ended = openai_->choice(openai_->current()).cut || client_gone_;
  if (!openai_error_.ok() || ended) return;
  if (!status.ok()) {
    openai_error_ = openai::FromStatus(status, HttpStatusFromCode(status.code()));
    return context.Cancel();
  }
  std::string delta;
  if (openai_->Add(std::move(content), openai::Clock::now(), &delta)) context.Cancel();
  if (!openai_->request().stream || delta.empty()) return;
  SseEvent& event = NewOpenAiEvent();
  {
    JsonWriter writer(event.json());
    openai::RenderChunk(*openai_, delta, openai_first_chunk_, "", &writer);
  }
  openai_first_chunk_ = false;
  SendOpenAiEvent(event);
}

template <typename Transport>
void BasicHttpSession<Transport>::EndOpenAiChoice() {
  openai_->EndChoice();
  const openai::Choice& choice = openai_->choice(openai_->current());
  if (openai_->request().kind == openai::ApiKind::kEmbedding && !choice.has_embedding()) {
    return FailOpenAi(openai::FromStatus(
        Status::Internal("model '" + openai_->request().model +
                         "' returned no FP32 output 'embedding'"),
        500));
  }
  if (openai_->request().stream) {
    SseEvent& event = NewOpenAiEvent();
    {
      JsonWriter writer(event.json());
      openai::RenderChunk(*openai_, "", openai_first_chunk_, choice.finish_reason, &writer);
    }
    SendOpenAiEvent(event);
  }
  if (openai_->Next()) return SubmitOpenAiChoice();
  FinishOpenAi();
}

template <typename Transport>
void BasicHttpSession<Transport>::FinishOpenAi() {
  RecordOpenAi("");
  if (!openai_->request().stream) {
    json_.Clear();
    {
      JsonWriter writer(json_);
      openai::RenderAnswer(*openai_, &writer);
    }
    DropOpenAi();
    StopWatching();
    return WriteBody(200, std::string(json_.GetString(), json_.GetSize()));
  }
  if (openai_->request().include_usage) {
    SseEvent& event = NewOpenAiEvent();
    {
      JsonWriter writer(event.json());
      openai::RenderUsageChunk(*openai_, &writer);
    }
    SendOpenAiEvent(event);
  }
  DropOpenAi();
  EndOpenAiStream();
}

template <typename Transport>
void BasicHttpSession<Transport>::FailOpenAi(const openai::ApiError& error) {
  RecordOpenAi("error");
  const bool streaming = openai_ != nullptr && openai_->request().stream;
  DropOpenAi();
  if (!streaming || (!stream_.started && stream_.events.empty())) {
    StopWatching();
    return WriteOpenAiError(error);
  }
  // The stream has begun: the error is an event, as OpenAI sends it.
  SseEvent& event = NewOpenAiEvent();
  {
    JsonWriter writer(event.json());
    openai::RenderError(error, &writer);
  }
  SendOpenAiEvent(event);
  EndOpenAiStream();
}

template <typename Transport>
void BasicHttpSession<Transport>::EndOpenAiStream() {
  SseEvent& done = NewOpenAiEvent();
  for (const char c : std::string_view("[DONE]")) done.json().Put(c);
  stream_.final = true;
  SendOpenAiEvent(done);
}

template <typename Transport>
SseEvent& BasicHttpSession<Transport>::NewOpenAiEvent() {
  return stream_.events.emplace_back();
}

template <typename Transport>
void BasicHttpSession<Transport>::SendOpenAiEvent(SseEvent& event) {
  event.Finish(stream_.framing == BodyFraming::kChunked);
  if (!stream_.writing) WriteStream();
}

template <typename Transport>
void BasicHttpSession<Transport>::RecordOpenAi(std::string_view override_reason) {
  if (shared_.openai_metrics == nullptr || openai_ == nullptr) return;
  openai::RequestRecord record;
  record.model = openai_->request().model;
  if (!override_reason.empty()) {
    record.finish_reasons.emplace_back(override_reason);
  } else {
    for (size_t i = 0; i < openai_->choice_count(); ++i) {
      const std::string& reason = openai_->choice(i).finish_reason;
      record.finish_reasons.push_back(reason.empty() ? "stop" : reason);
    }
  }
  record.prompt_tokens = openai_->prompt_tokens();
  record.completion_tokens = openai_->completion_tokens();
  if (const auto first = openai_->first_token()) {
    using Seconds = std::chrono::duration<double>;
    record.time_to_first_token_s = Seconds(*first - openai_->start()).count();
    record.generation_s = Seconds(openai::Clock::now() - *first).count();
  }
  shared_.openai_metrics->Record(record);
}

template <typename Transport>
void BasicHttpSession<Transport>::OnOpenAiTimeout(uint64_t serial) {
  if (openai_ == nullptr || serial != openai_serial_ || !openai_error_.ok()) return;
  openai_error_ = openai::ApiError{
      504, "the request took longer than --openai-timeout-secs (" +
               std::to_string(shared_.openai_timeout.count()) + " s) allows",
      "timeout", "", "timeout", {}};
  // Its FINAL ends the request with the error (FailOpenAi).
  if (inflight_ != nullptr) inflight_->Cancel();
}

template <typename Transport>
void BasicHttpSession<Transport>::DropOpenAi() {
  openai_.reset();
  openai_timer_.cancel();
}

template <typename Transport>
void BasicHttpSession<Transport>::WriteOpenAiError(const openai::ApiError& error) {
  json_.Clear();
  {
    JsonWriter writer(json_);
    openai::RenderError(error, &writer);
  }
  WriteBody(error.http_status, std::string(json_.GetString(), json_.GetSize()), kJsonContentType,
            error.headers);
}

#define INFERD_INSTANTIATE_OPENAI(Transport)                                                \
  template void BasicHttpSession<Transport>::StartOpenAi(const Route&);                     \
  template void BasicHttpSession<Transport>::AnswerOpenAiModels(const Route&);              \
  template void BasicHttpSession<Transport>::SubmitOpenAiChoice();                          \
  template void BasicHttpSession<Transport>::OnOpenAiResponse(                              \
      InferContext&, INFERD_InferenceResponse*, uint32_t);                                  \
  template void BasicHttpSession<Transport>::TakeOpenAiResponse(InferContext&,              \
                                                                INFERD_InferenceResponse*); \
  template void BasicHttpSession<Transport>::EndOpenAiChoice();                             \
  template void BasicHttpSession<Transport>::FinishOpenAi();                                \
  template void BasicHttpSession<Transport>::FailOpenAi(const openai::ApiError&);           \
  template void BasicHttpSession<Transport>::EndOpenAiStream();                             \
  template SseEvent& BasicHttpSession<Transport>::NewOpenAiEvent();                         \
  template void BasicHttpSession<Transport>::SendOpenAiEvent(SseEvent&);                    \
  template void BasicHttpSession<Transport>::RecordOpenAi(std::string_view);                \
  template void BasicHttpSession<Transport>::OnOpenAiTimeout(uint64_t);                     \
  template void BasicHttpSession<Transport>::DropOpenAi();                                  \
  template void BasicHttpSession<Transport>::WriteOpenAiError(const openai::ApiError&);
INFERD_INSTANTIATE_OPENAI(PlainTransport)
#if INFERD_HTTP_TLS
INFERD_INSTANTIATE_OPENAI(TlsTransport)
#endif
#undef INFERD_INSTANTIATE_OPENAI

}  // namespace inferd::http
