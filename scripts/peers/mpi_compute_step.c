/*
 * Open MPI's side of `nccl4j perf -z 2 --compute-us US`: float32 AllReduce (sum, out of place)
 * calls, each after the same compute step as nccl4j's (ComputeStep: multiply-adds over a private
 * 256 KiB array for US microseconds), timed per call on every rank; a call's own time is its least
 * time over ranks (the last rank to arrive waits for nobody), and the printed time is the median
 * over calls, as perf prints it.
 *
 * usage: mpirun -np N mpi_compute_step -c US -b BYTES [-n ITERS] [-w WARMUP]
 * prints: bytes median_us p90_us
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define WORK_FLOATS (64 * 1024)

static float work[WORK_FLOATS];
static volatile float sink;

static double now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return 1e9 * (double)ts.tv_sec + (double)ts.tv_nsec;
}

static void compute_step(double nanos) {
  double end = now_ns() + nanos;
  float acc = 0;
  do {
    for (int i = 0; i < WORK_FLOATS; i++) {
      float v = work[i] * 0.999f + 0.001f;
      work[i] = v;
      acc += v;
    }
  } while (now_ns() < end);
  sink = acc;
}

static int cmp(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

int main(int argc, char **argv) {
  long us = 0, bytes = 16384, iters = 2000, warmup = 500;
  int opt;
  MPI_Init(&argc, &argv);
  while ((opt = getopt(argc, argv, "c:b:n:w:")) != -1) {
    switch (opt) {
    case 'c': us = atol(optarg); break;
    case 'b': bytes = atol(optarg); break;
    case 'n': iters = atol(optarg); break;
    case 'w': warmup = atol(optarg); break;
    default:
      fprintf(stderr, "usage: mpi_compute_step -c US -b BYTES [-n ITERS] [-w WARMUP]\n");
      MPI_Abort(MPI_COMM_WORLD, 2);
    }
  }
  int rank, nranks;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &nranks);
  size_t cnt = (size_t)bytes / sizeof(float);
  float *sbuf = malloc((cnt + 1) * sizeof(float)), *rbuf = malloc((cnt + 1) * sizeof(float));
  double *own = malloc((size_t)iters * sizeof(double)), *least = malloc((size_t)iters * sizeof(double));
  for (size_t i = 0; i < cnt; i++) sbuf[i] = (float)(rank + 1);
  for (long i = 0; i < warmup; i++) {
    compute_step(us * 1e3);
    MPI_Allreduce(sbuf, rbuf, (int)cnt, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
  }
  long wrong = 0;
  for (size_t i = 0; i < cnt; i++) wrong += rbuf[i] != (float)(nranks * (nranks + 1) / 2);
  for (long i = 0; i < iters; i++) {
    compute_step(us * 1e3);
    double t = now_ns();
    MPI_Allreduce(sbuf, rbuf, (int)cnt, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
    own[i] = now_ns() - t;
  }
  MPI_Allreduce(own, least, (int)iters, MPI_DOUBLE, MPI_MIN, MPI_COMM_WORLD);
  MPI_Allreduce(MPI_IN_PLACE, &wrong, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
  qsort(least, (size_t)iters, sizeof(double), cmp);
  if (rank == 0) {
    if (wrong) fprintf(stderr, "mpi_compute_step: %ld wrong elements\n", wrong);
    printf("%ld %.2f %.2f\n", bytes, least[iters / 2] / 1e3, least[iters * 9 / 10] / 1e3);
  }
  MPI_Finalize();
  return wrong ? 1 : 0;
}
