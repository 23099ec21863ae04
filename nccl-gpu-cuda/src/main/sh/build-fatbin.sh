#!/bin/sh
# Builds the CUDA backend's kernels into one fatbin (a resource of the nccl-gpu-cuda jar).
#
#   build-fatbin.sh <out.fatbin> <cuda-src-dir>   compile <cuda-src-dir>/kernels.cu into <out.fatbin>
#   build-fatbin.sh --find-nvcc                   print the nvcc it would use, exit 1 if none
#
# NCCL4J_CUDA_SKIP=true (Maven: -Dnccl4j.cuda.skip=true) builds nothing and removes <out.fatbin>,
# so the jar has no kernels and the backend reports it. NCCL4J_CUDA_STAMP names a file recording
# the last build's nvcc, flags and sources, so that an unchanged build does not run nvcc again.
# nvcc is looked for in $NVCC, $CUDA_HOME/bin, /usr/local/cuda/bin, then PATH.
#
# SASS for every architecture nvcc 13 still targets from Turing on (sm_70, Volta, was dropped in
# CUDA 13), plus PTX of the newest so that later GPUs JIT it. --no-compress keeps every entry
# plain, so the fatbin reader (org.nccl4j.gpu.cuda.fatbin.Fatbin) can list its kernels.
# --threads 0 compiles the architectures in parallel (one thread per CPU).
set -eu
COMPILE_KERNELS=$(dirname "$0")/compile-kernels.sh
. "$COMPILE_KERNELS"
find_nvcc() {
  find_compiler nvcc "${NVCC:-}" "${CUDA_HOME:+$CUDA_HOME/bin/nvcc}" /usr/local/cuda/bin/nvcc
}

if [ "${1:-}" = "--find-nvcc" ]; then
  find_nvcc
  exit $?
fi
if [ $# -ne 2 ]; then
  echo "usage: $0 <out.fatbin> <cuda-src-dir> | --find-nvcc" >&2
  exit 2
fi
out=$1
src=$2
kernels_inputs "${NCCL4J_CUDA_SKIP:-false}" "$out" "$src" CUDA nccl4j.cuda
if ! nvcc=$(find_nvcc); then
  echo "nccl4j: nvcc not found (looked in: ${NVCC:+NVCC=$NVCC, }${CUDA_HOME:+CUDA_HOME=$CUDA_HOME/bin, }/usr/local/cuda/bin, PATH=$PATH): install the CUDA toolkit (CUDA 12.8+), set NVCC, or build with -Dnccl4j.cuda.skip=true (the jar then has no kernels and the cuda backend reports it)" >&2
  exit 1
fi

flags="-fatbin -O3 -std=c++17 -lineinfo --no-compress --threads 0
  -gencode arch=compute_75,code=sm_75
  -gencode arch=compute_80,code=sm_80
  -gencode arch=compute_90,code=sm_90
  -gencode arch=compute_100,code=sm_100
  -gencode arch=compute_100,code=compute_100"
compile_kernels "$nvcc" "$flags" "$out" "$src" "${NCCL4J_CUDA_STAMP:-}" "$0"
