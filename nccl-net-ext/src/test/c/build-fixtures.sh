#!/bin/sh
# Builds the native test fixtures of nccl-net-ext (our own C code, test scope only) into <outdir>:
#   libnccl-net-fixture.so     TCP plugin "Fixture", exports ncclNetPlugin_v10, _v8 and _v4
#   libnccl-net-fixture-v8.so  the same, ncclNetPlugin_v8 only
#   libnccl-net-fixture-v4.so  the same, ncclNetPlugin_v4 only
#   libnccl-net-fixture-v3.so  the same, ncclNetPlugin_v3 only (older than nccl4j and NCCL 2.10 load)
#   libnccl-net-fixture-old.so the same, ncclNetPlugin_v4, _v3 and _v2, as plugins built for NCCL 2.4 to 2.9 do
#   libnccl-net-fixture-ack.so the same, ncclNetPlugin_v8 only, whose connect completes only after the
#                              peer's accept (as libfabric-based plugins' does)
#   libnccl-net-fixture-cuda.so the same, ncclNetPlugin_v10 and _v8, taking CUDA device memory too
#                              (NCCL_PTR_CUDA, staged through host memory with libcuda.so.1)
#   libnccl-net-atexit.so      ncclNetPlugin_v8 "AtExit" that logs from a thread of its own and from atexit
#   libnccl-net-nosym.so       a valid library without any ncclNetPlugin_* symbol
#   libnccl-net-initfail.so    ncclNetPlugin_v8 whose init logs a WARN and returns ncclInternalError
#   libnccl-net-sigsegv.so     replaces the SIGSEGV handler in its constructor; ncclNetPlugin_v8
#   fixture-driver             smoke test without Java: <outdir>/fixture-driver <outdir>
# Usage: sh build-fixtures.sh <outdir>    (Maven runs it in process-test-classes)
set -e
out=${1:?usage: build-fixtures.sh <outdir>}
src=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$out"
CC=${CC:-gcc}
WARN="-Wall -Wextra -Wno-unused-parameter -Werror -std=gnu11"
SO="-shared -fPIC -O2 -fvisibility=hidden $WARN"

$CC $SO -pthread -DFX_V10 -DFX_V8 -DFX_V4 -o "$out/libnccl-net-fixture.so" "$src/fixture_net.c"
$CC $SO -pthread -DFX_V8 -o "$out/libnccl-net-fixture-v8.so" "$src/fixture_net.c"
$CC $SO -pthread -DFX_V4 -o "$out/libnccl-net-fixture-v4.so" "$src/fixture_net.c"
$CC $SO -pthread -DFX_V3 -o "$out/libnccl-net-fixture-v3.so" "$src/fixture_net.c"
$CC $SO -pthread -DFX_V4 -DFX_V3 -DFX_V2 -o "$out/libnccl-net-fixture-old.so" "$src/fixture_net.c"
$CC $SO -pthread -DFX_V8 -DFX_ACK_CONNECT -o "$out/libnccl-net-fixture-ack.so" "$src/fixture_net.c"
$CC $SO -pthread -DFX_V10 -DFX_V8 -DFX_CUDA -o "$out/libnccl-net-fixture-cuda.so" "$src/fixture_net.c" -ldl
$CC $SO -pthread -o "$out/libnccl-net-atexit.so" "$src/atexit.c"
$CC $SO -o "$out/libnccl-net-nosym.so" "$src/nosym.c"
$CC $SO -o "$out/libnccl-net-initfail.so" "$src/initfail.c"
$CC $SO -o "$out/libnccl-net-sigsegv.so" "$src/sigsegv.c"
$CC -O2 $WARN -pthread -o "$out/fixture-driver" "$src/driver.c" -ldl
