#!/bin/sh
# Builds the HIP backend's kernels, from the CUDA backend's kernel source, into one clang offload
# bundle of AMD GPU code objects (a resource of the nccl-gpu-hip jar, for hipModuleLoadData).
#
#   build-code-objects.sh <out.hipfb> <kernel-src-dir>   compile <kernel-src-dir>/kernels.cu
#   build-code-objects.sh --find-hipcc                   print the hipcc it would use, exit 1 if none
#
# NCCL4J_HIP_SKIP=true (Maven: -Dnccl4j.hip.skip=true) builds nothing and removes <out.hipfb>, so
# the jar has no kernels and the backend reports it. NCCL4J_HIP_STAMP names a file recording the
# last build's hipcc, flags and sources, so that an unchanged build does not run hipcc again.
# hipcc is looked for in $HIPCC, $ROCM_PATH/bin, /opt/rocm/bin, then PATH (Debian's hipcc
# package: /usr/bin/hipcc, ROCm 5.2 with clang 15).
#
# Targets: CDNA1 (gfx908, MI100), CDNA2 (gfx90a, MI200) and the first CDNA3 id (gfx940); clang 15
# knows no gfx941/gfx942 (MI300A/X), whose code objects need a newer ROCm. HIP_PLATFORM=amd: a
# machine with nvcc too would otherwise have hipcc run nvcc.
set -eu
# The steps nccl-gpu-cuda's fatbin build takes too: compiler search, inputs, up-to-date check.
COMPILE_KERNELS=$(dirname "$0")/../../../../nccl-gpu-cuda/src/main/sh/compile-kernels.sh
. "$COMPILE_KERNELS"
find_hipcc() {
  find_compiler hipcc "${HIPCC:-}" "${ROCM_PATH:+$ROCM_PATH/bin/hipcc}" /opt/rocm/bin/hipcc
}

if [ "${1:-}" = "--find-hipcc" ]; then
  find_hipcc
  exit $?
fi
if [ $# -ne 2 ]; then
  echo "usage: $0 <out.hipfb> <kernel-src-dir> | --find-hipcc" >&2
  exit 2
fi
out=$1
src=$2
kernels_inputs "${NCCL4J_HIP_SKIP:-false}" "$out" "$src" HIP nccl4j.hip
if ! hipcc=$(find_hipcc); then
  echo "nccl4j: hipcc not found (looked in: ${HIPCC:+HIPCC=$HIPCC, }${ROCM_PATH:+ROCM_PATH=$ROCM_PATH/bin, }/opt/rocm/bin, PATH=$PATH): install it (Debian: apt-get install hipcc libamdhip64-dev), set HIPCC, or build with -Dnccl4j.hip.skip=true (the jar then has no kernels and the hip backend reports it)" >&2
  exit 1
fi
export HIP_PLATFORM=amd

flags="-x hip --genco -O3 -std=c++17
  --offload-arch=gfx908
  --offload-arch=gfx90a
  --offload-arch=gfx940"
compile_kernels "$hipcc" "$flags" "$out" "$src" "${NCCL4J_HIP_STAMP:-}" "$0"
