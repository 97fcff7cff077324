#!/usr/bin/env bash
# Decode service of the SGLang prefill-decode deployment (DeepSeek-V4-Flash, decode on GPU4-7).
# Tuned settings here are recorded in knobs/: check them with `kb check` before changing them.
set -euo pipefail

export CUDA_VISIBLE_DEVICES=4,5,6,7
# knobs/sglang-sm120-mma-target-ctas.yaml: split-K MMA target CTAs on sm_120 (default 256).
export SGLANG_SM120_MMA_TARGET_CTAS=512

exec python -m sglang.launch_server \
  --model-path "${MODEL_PATH:?set MODEL_PATH}" \
  --disaggregation-mode decode \
  "$@"
