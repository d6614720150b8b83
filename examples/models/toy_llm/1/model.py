"""A toy text generator that follows the OpenAI API's tensor convention
(docs/openai-api.md), Triton's vLLM-style one: text_input, stream,
sampling_parameters (JSON), exclude_input_in_output in; text_output, with
finish_reason, num_input_tokens and num_output_tokens when asked for, out.

Deterministic: word i of the answer is VOCABULARY[(seed * 7 + i * 3 + prompt
words) % 16], each word one token (" word"). It honours max_tokens, stop and
seed; it counts the requests it saw cancelled in the custom metric
toy_llm_cancelled_total (what a client hanging up mid-stream causes).
"""

import json
import time

import numpy as np
import triton_python_backend_utils as pb_utils

VOCABULARY = ["alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel",
              "india", "juliet", "kilo", "lima", "mike", "november", "oscar", "papa"]
FINAL = pb_utils.TRITONSERVER_RESPONSE_COMPLETE_FINAL


def _input(request, name, default):
    tensor = pb_utils.get_input_tensor_by_name(request, name)
    if tensor is None:
        return default
    value = tensor.as_numpy().reshape(-1)[0]
    return value.decode("utf-8") if isinstance(value, bytes) else value


def _response(text, finish_reason, prompt_words, words, wants):
    tensors = [pb_utils.Tensor("text_output", np.array([text.encode("utf-8")], dtype=object))]
    if wants["finish_reason"] and finish_reason:
        tensors.append(pb_utils.Tensor("finish_reason",
                                       np.array([finish_reason.encode()], dtype=object)))
    if wants["num_input_tokens"]:
        tensors.append(pb_utils.Tensor("num_input_tokens", np.array([prompt_words], np.uint32)))
    if wants["num_output_tokens"]:
        tensors.append(pb_utils.Tensor("num_output_tokens", np.array([words], np.uint32)))
    return pb_utils.InferenceResponse(output_tensors=tensors)


class TritonPythonModel:
    def initialize(self, args):
        parameters = json.loads(args["model_config"]).get("parameters", {})
        self.words = int(parameters.get("words", {}).get("string_value", "12"))
        self.delay_s = int(parameters.get("delay_ms", {}).get("string_value", "0")) / 1000
        self.cancelled = pb_utils.MetricFamily(
            name="toy_llm_cancelled_total",
            description="Generations the toy model stopped because their request was cancelled",
            kind=pb_utils.MetricFamily.COUNTER).Metric(labels={})

    def execute(self, requests):
        for request in requests:
            self._generate(request, request.get_response_sender())
        return None

    def _tokens(self, prompt, sampling):
        """The words this request would say, and why they end."""
        seed = int(sampling.get("seed", 0))
        limit = sampling.get("max_tokens")
        count = self.words if limit is None else min(self.words, int(limit))
        reason = "length" if limit is not None and int(limit) < self.words else "stop"
        offset = seed * 7 + len(prompt.split())
        return [" " + VOCABULARY[(offset + i * 3) % 16] for i in range(count)], reason

    def _generate(self, request, sender):
        prompt = _input(request, "text_input", "")
        sampling = json.loads(_input(request, "sampling_parameters", "{}") or "{}")
        streaming = bool(_input(request, "stream", False))
        wants = {name: bool(_input(request, "return_" + name, False))
                 for name in ("finish_reason", "num_input_tokens", "num_output_tokens")}
        tokens, reason = self._tokens(prompt, sampling)
        stops = sampling.get("stop") or []
        prefix = "" if _input(request, "exclude_input_in_output", False) else prompt
        text, sent, words = "", 0, len(prompt.split())
        for i, token in enumerate(tokens):
            if request.is_cancelled():
                self.cancelled.increment(1)
                sender.send(flags=FINAL)
                return
            time.sleep(self.delay_s)
            candidate = text + token
            cut = min((candidate.find(s) for s in stops if s in candidate), default=-1)
            if cut >= 0:
                text, reason = candidate[:cut], "stop"
                break
            text = candidate
            if streaming and i < len(tokens) - 1:
                sender.send(_response((prefix if i == 0 else "") + token, "", words, 1, wants))
                sent = len(text)
        rest = (prefix if sent == 0 else "") + text[sent:]
        sender.send(_response(rest, reason, words, len(text[sent:].split()), wants), flags=FINAL)
