// Element-wise reductions with NCCL 2.10.3's semantics (reduce_kernel.h), bit for bit what the
// host backend's reducers compute (org.nccl4j.core.reduce):
// - integers wrap on SUM and PROD; unsigned types compare and divide as unsigned;
// - float MAX/MIN: a NaN operand is ignored unless both are, -0.0 is below +0.0;
// - float16/bfloat16 compute in float and round back to nearest-even (CUDA writes NaN as 0x7fff);
// - AVG sums: floating types pre-multiply each rank's own input by the rounded reciprocal of
//   nranks, integer types divide the full sum by nranks, truncating.
// Float arithmetic goes through the _rn intrinsics so that nvcc never contracts it into an FMA.
// The reduction is a run-time value of the reducer (one instantiation per element type, not per
// type and op: nvcc's time and the fatbin's size grow with every instantiation); the switch is
// uniform across a block, so it costs a few instructions per element of memory-bound loops.
#pragma once

#include "common.h"

N4J_DEVICE float n4j_fmax(float x, float y) {
  if (x != x) return y;
  if (y != y) return x;
  if (x > y) return x;
  if (y > x) return y;
  return signbit(x) ? y : x;
}
N4J_DEVICE float n4j_fmin(float x, float y) {
  if (x != x) return y;
  if (y != y) return x;
  if (x < y) return x;
  if (y < x) return y;
  return signbit(x) ? x : y;
}
N4J_DEVICE double n4j_dmax(double x, double y) {
  if (x != x) return y;
  if (y != y) return x;
  if (x > y) return x;
  if (y > x) return y;
  return signbit(x) ? y : x;
}
N4J_DEVICE double n4j_dmin(double x, double y) {
  if (x != x) return y;
  if (y != y) return x;
  if (x < y) return x;
  if (y < x) return y;
  return signbit(x) ? x : y;
}

// Integers: T is the storage type, U its unsigned twin for wrapping arithmetic.
template <typename T, typename U> struct n4j_int_red {
  int op, nranks;
  bool kPre, kPost;  // whether pre() and post() change anything
  __device__ n4j_int_red(int o, int n) : op(o), nranks(n), kPre(false), kPost(o == N4J_AVG) {}
  __device__ T apply(T a, T b) const {
    switch (op) {
      case N4J_PROD: return (T)((U)a * (U)b);
      case N4J_MAX: return a < b ? b : a;
      case N4J_MIN: return a < b ? a : b;
      default: return (T)((U)a + (U)b);  // SUM, AVG
    }
  }
  __device__ T pre(T x) const { return x; }
  __device__ T post(T x) const { return (T)(x / (T)nranks); }
};

struct n4j_f32_red {
  int op;
  float rcp;
  bool kPre, kPost;
  __device__ n4j_f32_red(int o, int n)
      : op(o), rcp(o == N4J_AVG ? __frcp_rn((float)n) : 1.0f), kPre(o == N4J_AVG), kPost(false) {}
  __device__ float apply(float a, float b) const {
    switch (op) {
      case N4J_PROD: return __fmul_rn(a, b);
      case N4J_MAX: return n4j_fmax(a, b);
      case N4J_MIN: return n4j_fmin(a, b);
      default: return __fadd_rn(a, b);
    }
  }
  __device__ float pre(float x) const { return __fmul_rn(x, rcp); }
  __device__ float post(float x) const { return x; }
};

struct n4j_f64_red {
  int op;
  double rcp;
  bool kPre, kPost;
  __device__ n4j_f64_red(int o, int n)
      : op(o), rcp(o == N4J_AVG ? __drcp_rn((double)n) : 1.0), kPre(o == N4J_AVG), kPost(false) {}
  __device__ double apply(double a, double b) const {
    switch (op) {
      case N4J_PROD: return __dmul_rn(a, b);
      case N4J_MAX: return n4j_dmax(a, b);
      case N4J_MIN: return n4j_dmin(a, b);
      default: return __dadd_rn(a, b);
    }
  }
  __device__ double pre(double x) const { return __dmul_rn(x, rcp); }
  __device__ double post(double x) const { return x; }
};

// float16 and bfloat16: H is the storage type, conversions to and from float round to nearest-even.
N4J_DEVICE float n4j_to_float(__half x) { return __half2float(x); }
N4J_DEVICE float n4j_to_float(n4j_bf16 x) { return n4j_bf16_to_float(x); }
template <typename H> N4J_DEVICE H n4j_from_float(float x);
template <> __device__ __forceinline__ __half n4j_from_float<__half>(float x) { return __float2half_rn(x); }
template <> __device__ __forceinline__ n4j_bf16 n4j_from_float<n4j_bf16>(float x) { return n4j_float_to_bf16(x); }

template <typename H> struct n4j_f16_red {
  int op;
  float scale;  // the reciprocal rounded to H, widened: x * scale is exact in float and rounds once
  bool kPre, kPost;
  __device__ n4j_f16_red(int o, int n)
      : op(o), scale(o == N4J_AVG ? n4j_to_float(n4j_from_float<H>(__frcp_rn((float)n))) : 1.0f),
        kPre(o == N4J_AVG), kPost(false) {}
  __device__ H apply(H a, H b) const {
    float x = n4j_to_float(a), y = n4j_to_float(b);
    switch (op) {
      case N4J_PROD: return n4j_from_float<H>(__fmul_rn(x, y));
      case N4J_MAX: return n4j_from_float<H>(n4j_fmax(x, y));
      case N4J_MIN: return n4j_from_float<H>(n4j_fmin(x, y));
      default: return n4j_from_float<H>(__fadd_rn(x, y));
    }
  }
  __device__ H pre(H x) const { return n4j_from_float<H>(__fmul_rn(n4j_to_float(x), scale)); }
  __device__ H post(H x) const { return x; }
};

// Calls F::run<T, Red>(args...) for the element type; false for a type or reduction it does not know.
template <typename F, typename... A>
N4J_DEVICE bool n4j_dispatch(int dtype, int redop, A... args) {
  if (redop < N4J_SUM || redop > N4J_AVG) return false;
  switch (dtype) {
    case N4J_INT8: F::template run<int8_t, n4j_int_red<int8_t, uint8_t>>(args...); return true;
    case N4J_UINT8: F::template run<uint8_t, n4j_int_red<uint8_t, uint8_t>>(args...); return true;
    case N4J_INT32: F::template run<int32_t, n4j_int_red<int32_t, uint32_t>>(args...); return true;
    case N4J_UINT32: F::template run<uint32_t, n4j_int_red<uint32_t, uint32_t>>(args...); return true;
    case N4J_INT64: F::template run<int64_t, n4j_int_red<int64_t, uint64_t>>(args...); return true;
    case N4J_UINT64: F::template run<uint64_t, n4j_int_red<uint64_t, uint64_t>>(args...); return true;
    case N4J_FLOAT16: F::template run<__half, n4j_f16_red<__half>>(args...); return true;
    case N4J_FLOAT32: F::template run<float, n4j_f32_red>(args...); return true;
    case N4J_FLOAT64: F::template run<double, n4j_f64_red>(args...); return true;
    case N4J_BFLOAT16: F::template run<n4j_bf16, n4j_f16_red<n4j_bf16>>(args...); return true;
  }
  return false;
}
