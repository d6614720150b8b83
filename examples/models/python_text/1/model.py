"""Normalizes strings and counts their words: the kind of pre-processing a
Python model does in front of a neural network (examples/models/python_text)."""

import json

import numpy as np
import triton_python_backend_utils as pb_utils


class TritonPythonModel:
    def initialize(self, args):
        config = json.loads(args["model_config"])
        words = pb_utils.get_output_config_by_name(config, "WORDS")
        self.words_dtype = pb_utils.triton_string_to_numpy(words["data_type"])
        pb_utils.Logger.log_info(f"{args['model_instance_name']} ready")

    def execute(self, requests):
        responses = []
        for request in requests:
            text = pb_utils.get_input_tensor_by_name(request, "TEXT").as_numpy()
            if text.ndim != 1:
                responses.append(pb_utils.InferenceResponse(error=pb_utils.TritonError(
                    "TEXT must be a list of strings", pb_utils.TritonError.INVALID_ARG)))
                continue
            split = [item.decode("utf-8", "replace").lower().split() for item in text]
            normalized = np.array([" ".join(words).encode("utf-8") for words in split],
                                  dtype=np.object_)
            counts = np.array([len(words) for words in split], dtype=self.words_dtype)
            responses.append(pb_utils.InferenceResponse(output_tensors=[
                pb_utils.Tensor("NORMALIZED", normalized), pb_utils.Tensor("WORDS", counts)]))
        return responses
