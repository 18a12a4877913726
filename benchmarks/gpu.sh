#!/usr/bin/env bash
# What a lent GPU machine should measure, in one script under 8 minutes.
#
#   benchmarks/gpu.sh [--device cuda|cpu] [--tiny] [--out DIR]
#
# 1. The smoke DAG (configs/smoke.yaml) in a fresh folder, every job granted a GPU
#    (resources gpu=1: skillneurons.infra.device puts its model on CUDA), on all cores;
#    the DAG's wall time.
# 2. python -m benchmarks.gpu: the batched prompt-tuning trials and perturbation sweeps
#    at k = 1, 3, 8 and 16 (ratio batched / one at a time), paper B's attribution and
#    neuron-only training on a random Llama of 7B's shape cut to 8 layers.
#
# --tiny (tests/test_gpu_script.py, on CPU): the DAG only up to one task's splits, tiny
# models, two points per curve: it checks the script, it measures nothing.
# Run from the repository root; PYTHON and SNAKEMAKE default to the project's venv.
set -euo pipefail

device=cuda
tiny=""
out=""
while [[ $# -gt 0 ]]; do
    case "$1" in
        --device) device="$2"; shift 2 ;;
        --tiny) tiny="--tiny"; shift ;;
        --out) out="$2"; shift 2 ;;
        *) echo "unknown option $1 (--device cuda|cpu, --tiny, --out DIR)" >&2; exit 2 ;;
    esac
done

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
python=${PYTHON:-$root/.venv/bin/python}
snakemake=${SNAKEMAKE:-$(dirname "$python")/snakemake}
out=${out:-$(mktemp -d)}
mkdir -p "$out"
for name in Snakefile workflow config.yaml configs profiles; do
    ln -sfn "$root/$name" "$out/$name"
done
export PYTHONPATH="$root/workflow:$root${PYTHONPATH:+:$PYTHONPATH}"

echo "== smoke DAG on $device (in $out)"
targets=()
if [[ -n "$tiny" ]]; then
    targets=(data/splits/syn_sst2/train.parquet)
fi
resources=()
if [[ "$device" != cpu ]]; then
    resources=(--default-resources gpu=1)
fi
start=$(date +%s)
(cd "$out" && "$snakemake" --configfile configs/smoke.yaml --cores "$(nproc)" \
    "${resources[@]}" --quiet rules -- "${targets[@]}")
echo "smoke DAG: $(( $(date +%s) - start )) s wall"

echo "== batching curves, attribution and neuron-only training on $device"
"$python" -m benchmarks.gpu --device "$device" $tiny
