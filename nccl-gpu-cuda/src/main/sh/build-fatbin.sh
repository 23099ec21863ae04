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

CANDIDATES="${NVCC:-} ${CUDA_HOME:+$CUDA_HOME/bin/nvcc} /usr/local/cuda/bin/nvcc"
find_nvcc() {
  for c in $CANDIDATES; do
    if [ -x "$c" ]; then echo "$c"; return 0; fi
  done
  command -v nvcc 2>/dev/null && return 0
  return 1
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

if [ "${NCCL4J_CUDA_SKIP:-false}" = "true" ]; then
  rm -f "$out"
  echo "nccl4j: CUDA kernels not built (-Dnccl4j.cuda.skip=true): the jar has no kernels.fatbin"
  exit 0
fi

if [ ! -f "$src/kernels.cu" ]; then
  echo "nccl4j: no kernels.cu in $src: the CUDA kernel sources are missing (set -Dnccl4j.cuda.src=<dir>, or build with -Dnccl4j.cuda.skip=true)" >&2
  exit 1
fi

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
# Up to date: the same nvcc, flags and sources as last time (NCCL4J_CUDA_STAMP records them, outside
# the jar's folder), and no source nor this script newer than the fatbin.
stamp=${NCCL4J_CUDA_STAMP:-}
what=$(echo "$nvcc" $flags "$src")
if [ -n "$stamp" ] && [ -f "$out" ] && [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$what" ] \
    && [ -z "$(find "$src" "$0" -newer "$out" -print 2>/dev/null | head -1)" ]; then
  echo "nccl4j: $out is up to date"
  exit 0
fi

mkdir -p "$(dirname "$out")"
tmp="$out.tmp.$$"
log="$out.log.$$"
trap 'rm -f "$tmp" "$log"' EXIT
# shellcheck disable=SC2086 # the flags are words
set -- "$nvcc" $flags -I "$src" -o "$tmp" "$src/kernels.cu"
echo "nccl4j: $*"
start=$(date +%s)
# nvcc's diagnostics: in the build log when it succeeds, in the failure's message (stderr) when not.
if ! "$@" > "$log" 2>&1; then
  { echo "nccl4j: nvcc failed building $src/kernels.cu:"; cat "$log"; } >&2
  exit 1
fi
cat "$log"
mv "$tmp" "$out"
[ -z "$stamp" ] || echo "$what" > "$stamp"
echo "nccl4j: built $out ($(wc -c < "$out") bytes) in $(( $(date +%s) - start )) s"
