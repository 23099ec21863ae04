/*
 * nccl4j_netext: the native half of nccl-net-ext.
 *
 * NCCL net plugins log through ncclDebugLogger_t, a C variadic function. Java cannot be
 * called back as a variadic function (FFM upcalls have fixed signatures), so plugins get
 * nccl4j_log: it formats the message with vsnprintf and hands the text to a plain callback that
 * Java registers (an FFM upcall stub) with nccl4j_set_log_sink.
 *
 * Also here: nccl4j_prof_noop, the profiler callback handed to ncclNet_v10 init (some plugins
 * call it unconditionally), and nccl4j_sighandler, a documented convenience to read a signal's
 * current handler (the Java side uses sigaction through FFM directly; this helper is kept for
 * debugging from C and for tests).
 */
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#define NCCL4J_LOG_MAX 4096

typedef void (*nccl4j_sink_t)(int level, unsigned long flags, const char *file, int line, const char *msg);

static nccl4j_sink_t volatile sink = NULL;

/* Registers the callback that receives every formatted line; NULL drops lines. */
void nccl4j_set_log_sink(void *fn) {
  __atomic_store_n((void **)&sink, fn, __ATOMIC_RELEASE);
}

/* ncclDebugLogger_t: level, subsystem flags, source position, printf format and arguments. */
void nccl4j_log(int level, unsigned long flags, const char *file, int line, const char *fmt, ...) {
  nccl4j_sink_t s = (nccl4j_sink_t)__atomic_load_n((void **)&sink, __ATOMIC_ACQUIRE);
  if (s == NULL) return;
  char buf[NCCL4J_LOG_MAX];
  buf[0] = '\0';
  if (fmt != NULL) {
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(buf, sizeof(buf), fmt, ap);
    va_end(ap);
    if (n < 0) {
      snprintf(buf, sizeof(buf), "(unformattable log line: %s)", fmt);
    } else if ((size_t)n >= sizeof(buf)) {
      memcpy(buf + sizeof(buf) - 5, "...", 4); /* truncated: mark it */
    }
  }
  s(level, flags, file, line, buf);
}

/* ncclProfilerCallback_t for ncclNet_v10 init: records nothing, returns ncclSuccess. */
int nccl4j_prof_noop(void **eHandle, int type, void *phandle, int64_t pluginId, void *extData) {
  (void)type; (void)phandle; (void)pluginId; (void)extData;
  if (eHandle != NULL) *eHandle = NULL;
  return 0;
}

/*
 * Writes the address of signal sig's current handler (sa_sigaction or sa_handler, the same
 * word) into *out; returns sigaction's result (0 on success, -1 with errno set).
 */
int nccl4j_sighandler(int sig, void **out) {
  struct sigaction old;
  memset(&old, 0, sizeof(old));
  int rc = sigaction(sig, NULL, &old);
  if (out != NULL) *out = rc == 0 ? (void *)old.sa_sigaction : NULL;
  return rc;
}
