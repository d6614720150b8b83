#include "core/infer/inference_response.h"

#include <cstdlib>
#include <cstring>

#include "core/common/c_error.h"
#include "core/common/datatype.h"
#include "core/infer/classification.h"
#include "core/infer/response_caching.h"
#include "core/infer/response_allocator.h"
#include "core/infer/bound_model.h"
#include "core/common/logging.h"
#include "core/stats/model_statistics.h"
#include "core/timing/clock.h"
#include "core/trace/request_trace.h"

namespace inferd {

InferenceResponse::InferenceResponse(const InferenceRequest& request)
    : request_(const_cast<InferenceRequest*>(&request)),
      route_(request.route),
      id_(request.id),
      model_name_(request.model_name()),
      model_version_(request.model() ? request.model()->version() : -1),
      wanted_outputs_(request.outputs),
      order_number_(request.order_number),
      client_route_(request.client_route),
      sender_(request.sender()) {
  if (request.model() != nullptr && request.model()->decoupled()) {
    created_ns_ = request.model()->clock().NowNs();
  }
  const std::shared_ptr<RequestTrace>& trace = request.trace;
  if (trace) traceparent_ = trace->traceparent();
  if (trace && trace->At(TracePoint::kComputeStart) != 0 &&
      trace->At(TracePoint::kComputeEnd) == 0) {
    TraceNow(trace, TracePoint::kComputeOutputStart);
  }
}

InferenceResponse::InferenceResponse(const InferenceRequest& request, Status error)
    : InferenceResponse(request) {
  error_ = std::move(error);
}

InferenceResponse::~InferenceResponse() {
  DropOutputs(false);
  INFERD_ErrorDelete(c_error_);
}

StatusOr<OutputTensor*> InferenceResponse::AddOutput(std::string name, INFERD_DataType datatype,
                                                     const int64_t* shape, uint32_t dim_count) {
  for (const auto& existing : outputs_) {
    if (existing->name == name) {
      return Status::AlreadyExists("model '" + model_name_ + "': output '" + name +
                                   "' was already added to the response");
    }
  }
  auto output = std::make_unique<OutputTensor>();
  output->response = this;
  output->requested = false;
  if (wanted_outputs_) {
    for (const std::string& wanted : *wanted_outputs_) {
      if (wanted == name) output->requested = true;
    }
  }
  for (const auto& [classified, class_count] : request_->classifications) {
    if (classified == name) output->class_count = class_count;
  }
  output->name = std::move(name);
  output->datatype = datatype;
  output->shape.assign(shape, shape + dim_count);
  outputs_.push_back(std::move(output));
  return outputs_.back().get();
}

Status InferenceResponse::AllocateScratch(OutputTensor* output, uint64_t byte_size) {
  output->buffer = byte_size ? std::malloc(byte_size) : nullptr;
  if (byte_size && output->buffer == nullptr) return Status::Internal("out of memory");
  output->byte_size = byte_size;
  output->memory_type = INFERD_MEMORY_CPU;
  output->memory_type_id = 0;
  output->scratch = true;
  if (route_.allocator == nullptr) output->requested = false;
  return Status::Ok();
}

Status InferenceResponse::AllocateFromClient(OutputTensor* output, uint64_t byte_size,
                                             INFERD_MemoryType memory_type,
                                             int64_t memory_type_id) {
  INFERD_MemoryType actual_type = INFERD_MEMORY_CPU;
  int64_t actual_id = 0;
  void* buffer = nullptr;
  void* buffer_userp = nullptr;
  auto allocate = [&] {
    return TakeError(route_.allocator->alloc_fn(
        route_.allocator, output->name.c_str(), byte_size, memory_type, memory_type_id,
        route_.allocator_userp, &buffer, &buffer_userp, &actual_type, &actual_id));
  };
  // With a sender, FINAL may come from another thread at any moment; the
  // client's allocator is called only while the request is open.
  Status allocated = sender_ ? sender_->AllocateWhileOpen(allocate) : allocate();
  RETURN_IF_ERROR(allocated.WithPrefix("model '" + model_name_ + "': allocating output '" +
                                       output->name + "': "));
  if (byte_size > 0 && buffer == nullptr) {
    return Status::Internal("model '" + model_name_ + "': the allocator gave no memory for '" +
                            output->name + "'");
  }
  output->buffer = buffer;
  output->buffer_userp = buffer_userp;
  output->byte_size = byte_size;
  output->memory_type = actual_type;
  output->memory_type_id = actual_id;
  return Status::Ok();
}

Status InferenceResponse::AllocateBuffer(OutputTensor* output, uint64_t byte_size,
                                         INFERD_MemoryType* memory_type,
                                         int64_t* memory_type_id) {
  if (output->buffer != nullptr || output->byte_size != 0) {
    return Status::AlreadyExists("model '" + model_name_ + "': output '" + output->name +
                                 "' already has a buffer");
  }
  for (const StateSink& sink : request_->state_sinks) {
    if (sink.output_name != output->name) continue;
    if (byte_size != sink.bytes) {
      return Status::InvalidArg("model '" + model_name_ + "': state output '" + output->name +
                                "' has " + std::to_string(byte_size) + " bytes, its state " +
                                std::to_string(sink.bytes));
    }
    sink.target->resize(byte_size);
    output->buffer = sink.target->data();
    output->byte_size = byte_size;
    output->state = true;
    output->requested = false;  // the client never sees it
    *memory_type = INFERD_MEMORY_CPU;
    *memory_type_id = 0;
    return Status::Ok();
  }
  if (!output->requested || route_.allocator == nullptr || output->class_count > 0) {
    // Scratch memory for an output nobody will read, or only its classes.
    RETURN_IF_ERROR(AllocateScratch(output, byte_size));
  } else {
    RETURN_IF_ERROR(AllocateFromClient(output, byte_size, *memory_type, *memory_type_id));
  }
  *memory_type = output->memory_type;
  *memory_type_id = output->memory_type_id;
  return Status::Ok();
}

void InferenceResponse::ReleaseBuffer(OutputTensor& output) {
  if (output.buffer == nullptr && output.byte_size == 0) {
    // Nothing to free; the kind is reset below all the same: an empty scratch
    // output that classification then gives the client's allocator must not
    // be freed as scratch later (a crash grpc_infer_fuzz found: class_count
    // on an output of 0 elements).
  } else if (output.state) {
    // The sequence's memory: it stays with the sequence.
  } else if (output.scratch) {
    std::free(output.buffer);
  } else if (route_.allocator->release_fn != nullptr) {
    INFERD_ErrorDelete(route_.allocator->release_fn(route_.allocator, output.buffer,
                                                    output.buffer_userp, output.byte_size,
                                                    output.memory_type,
                                                    output.memory_type_id));
  }
  output.buffer = nullptr;
  output.byte_size = 0;
  output.scratch = false;
  output.state = false;
}

Status InferenceResponse::ClassifyOutputs() {
  static const std::vector<std::string> kNoLabels;
  const BoundModel* model = request_->model();
  for (const auto& output : outputs_) {
    if (output->class_count == 0 || !output->requested) continue;
    const std::string what = "model '" + model_name_ + "': output '" + output->name + "'";
    ASSIGN_OR_RETURN(Classification classes,
                     Classify(output->buffer, output->byte_size, output->datatype, output->shape,
                              model != nullptr && model->batches(),
                              output->class_count,
                              model != nullptr ? model->OutputLabels(output->name) : kNoLabels,
                              what));
    ReleaseBuffer(*output);
    output->datatype = INFERD_TYPE_BYTES;
    output->shape = std::move(classes.shape);
    output->class_count = 0;  // what it holds now goes to the client as it is
    INFERD_MemoryType memory_type = INFERD_MEMORY_CPU;
    int64_t memory_type_id = 0;
    RETURN_IF_ERROR(AllocateBuffer(output.get(), classes.data.size(), &memory_type,
                                   &memory_type_id));
    if (memory_type == INFERD_MEMORY_GPU) {
      return Status::Unsupported(what + ": the allocator gave GPU memory for its classes");
    }
    if (!classes.data.empty()) std::memcpy(output->buffer, classes.data.data(), classes.data.size());
  }
  return Status::Ok();
}

void InferenceResponse::DropOutputs(bool only_unrequested) {
  std::erase_if(outputs_, [&](std::unique_ptr<OutputTensor>& output) {
    if (only_unrequested && output->requested) return false;
    ReleaseBuffer(*output);
    return true;
  });
}

Status InferenceResponse::Send(std::unique_ptr<InferenceResponse> self, uint32_t flags,
                               Status error) {
  if (self->sender_ != nullptr) {
    ResponseSender* sender = self->sender_.get();
    return sender->Send(std::move(self), flags, std::move(error));
  }
  // Without a sender the backend still holds the request: it is alive.
  if (self->request_->final_sent()) {
    LOG_ERROR("model '{}': the backend sent a response after the final one; dropped",
              self->model_name_);
    return Status::Internal("model '" + self->model_name_ +
                            "': a response was sent after the request's final response; it "
                            "was dropped");
  }
  Deliver(std::move(self), flags, std::move(error));
  return Status::Ok();
}

namespace {

// Stored before the client sees the response, so its next identical request hits.
void StoreInCache(InferenceRequest& request, CachedResponse response) {
  CacheMiss& miss = *request.cache_miss;
  const Clock& clock = request.model()->clock();
  const uint64_t start = clock.NowNs();
  miss.cache->Insert(std::move(miss.key), std::move(response));
  request.model()->stats().RecordCacheMiss(miss.lookup_ns + (clock.NowNs() - start));
  request.cache_miss.reset();
}

}  // namespace

void InferenceResponse::Deliver(std::unique_ptr<InferenceResponse> self, uint32_t flags,
                                Status error) {
  if (!error.ok()) {
    self->error_ = std::move(error);
    self->DropOutputs(false);
  } else {
    self->DropOutputs(true);
    // Raw outputs are cached (before classification): a hit classifies them again.
    std::optional<CachedResponse> to_cache;
    if (self->request_->cache_miss != nullptr && (flags & INFERD_RESPONSE_COMPLETE_FINAL)) {
      to_cache = CopyForCache(*self);
    }
    if (Status classified = self->ClassifyOutputs(); !classified.ok()) {
      self->error_ = std::move(classified);
      self->DropOutputs(false);
    } else if (to_cache) {
      StoreInCache(*self->request_, std::move(*to_cache));
    }
  }
  InferenceRequest& request = *self->request_;
  request.NoteResponseSent(self->created_ns_, &self->error_);
  if (flags & INFERD_RESPONSE_COMPLETE_FINAL) request.MarkFinalSent();
  INFERD_InferenceResponseCompleteFn fn = self->route_.response_fn;
  void* userp = self->route_.response_userp;
  if (fn == nullptr) return;  // nobody listens; the response is freed here
  fn(reinterpret_cast<INFERD_InferenceResponse*>(self.release()), flags, userp);
}

void InferenceResponse::DeliverFinalFlag(InferenceRequest& request) {
  request.NoteResponseSent(0, nullptr);
  request.MarkFinalSent();
  const ResponseRoute route = request.route;
  if (route.response_fn != nullptr) {
    route.response_fn(nullptr, INFERD_RESPONSE_COMPLETE_FINAL, route.response_userp);
  }
}

INFERD_Error* InferenceResponse::c_error() {
  if (error_.ok()) return nullptr;
  if (c_error_ == nullptr) c_error_ = ToError(error_);
  return c_error_;
}

}  // namespace inferd
