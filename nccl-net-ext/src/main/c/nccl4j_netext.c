/*
 * nccl4j_netext: the native half of nccl-net-ext.
 *
 * NCCL net plugins log through ncclDebugLogger_t, a C variadic function. Java cannot be
 * called back as a variadic function (FFM upcalls have fixed signatures), so plugins get
 * nccl4j_log: it formats the message with vsnprintf and hands the text to a plain callback that
 * Java registers (an FFM upcall stub) with nccl4j_set_log_sink.
 *
 * An upcall is only possible from a thread HotSpot can run Java on: a Java thread in native code
 * (one that called into the plugin) or a foreign thread the VM can attach. Plugins also log from
 * atexit cleanups, which run on the thread calling exit(): the VM thread after System.exit or
 * Runtime.halt (HotSpot aborts: "wrong thread state for upcall"), the launcher's main thread
 * after DestroyJavaVM (it aborts: "Could not attach thread for upcall"). So nccl4j_log writes a
 * line to stderr itself, in NCCL's format, when Java's shutdown has begun (nccl4j_log_shutdown,
 * from a shutdown hook) or when the VM says it cannot take this thread.
 *
 * Also here: nccl4j_prof_noop, the profiler callback handed to ncclNet_v10 init (some plugins
 * call it unconditionally), and nccl4j_sighandler, a documented convenience to read a signal's
 * current handler (the Java side uses sigaction through FFM directly; this helper is kept for
 * debugging from C and for tests).
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <jni.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#define NCCL4J_LOG_MAX 4096
#define NCCL4J_LOG_WARN 2

typedef void (*nccl4j_sink_t)(int level, unsigned long flags, const char *file, int line, const char *msg);
typedef jint (*nccl4j_created_vms_t)(JavaVM **vms, jsize size, jsize *n);

static nccl4j_sink_t volatile sink = NULL;
static JavaVM *volatile jvm = NULL;
static volatile int java_gone = 0;
static volatile int stderr_level = 0;

/*
 * Registers the callback that receives every formatted line; NULL drops lines. Called from Java,
 * so the VM is found here: the launcher loads libjvm globally, embedders link it.
 */
void nccl4j_set_log_sink(void *fn) {
  if (__atomic_load_n((void **)&jvm, __ATOMIC_ACQUIRE) == NULL) {
    nccl4j_created_vms_t created = (nccl4j_created_vms_t)dlsym(RTLD_DEFAULT, "JNI_GetCreatedJavaVMs");
    JavaVM *vm = NULL;
    jsize n = 0;
    if (created != NULL && created(&vm, 1, &n) == JNI_OK && n == 1) __atomic_store_n((void **)&jvm, vm, __ATOMIC_RELEASE);
  }
  __atomic_store_n((void **)&sink, fn, __ATOMIC_RELEASE);
}

/* The highest NCCL level (NCCL_DEBUG) of the lines nccl4j_log writes to stderr itself; 0: none. */
void nccl4j_set_log_level(int level) {
  __atomic_store_n(&stderr_level, level, __ATOMIC_RELEASE);
}

/* Java's shutdown has begun: from now on lines go to stderr, never to Java. */
void nccl4j_log_shutdown(void) {
  __atomic_store_n(&java_gone, 1, __ATOMIC_RELEASE);
}

/* Whether an upcall from this thread is safe now (see the top of this file). */
static int java_can_take_this_thread(void) {
  if (__atomic_load_n(&java_gone, __ATOMIC_ACQUIRE)) return 0;
  JavaVM *vm = (JavaVM *)__atomic_load_n((void **)&jvm, __ATOMIC_ACQUIRE);
  if (vm == NULL) return 1; /* no VM to ask: only the shutdown flag protects */
  JNIEnv *env = NULL;
  jint rc = (*vm)->GetEnv(vm, (void **)&env, JNI_VERSION_1_8);
  if (rc == JNI_OK) return 1; /* a Java thread: it can only be here through a downcall */
  if (rc != JNI_EDETACHED) return 0;
  /* Not a Java thread: the upcall would attach it. Ask first; the VM refuses its own threads and
   * any thread once it is destroyed. The upcall stub attaches it again for itself. */
  if ((*vm)->AttachCurrentThreadAsDaemon(vm, (void **)&env, NULL) != JNI_OK) return 0;
  (*vm)->DetachCurrentThread(vm);
  return 1;
}

/* NCCL's line format, without the device (unknown here): host:pid:tid [-] NCCL INFO msg. */
static void write_stderr(int level, const char *file, int line, const char *msg) {
  static const char *const names[] = {"NONE", "VERSION", "WARN", "INFO", "ABORT", "TRACE"};
  char host[256] = "?";
  gethostname(host, sizeof host - 1);
  host[strcspn(host, ".")] = '\0';
  const char *name = level >= 0 && level <= 5 ? names[level] : "INFO";
  char out[NCCL4J_LOG_MAX + 512];
  const char *f = file == NULL ? "?" : (strrchr(file, '/') ? strrchr(file, '/') + 1 : file);
  int n = level == NCCL4J_LOG_WARN
              ? snprintf(out, sizeof out, "\n%s:%d:%ld [-] %s:%d NCCL WARN %s\n", host, (int)getpid(), (long)syscall(SYS_gettid), f,
                         line, msg)
              : snprintf(out, sizeof out, "%s:%d:%ld [-] NCCL %s %s\n", host, (int)getpid(), (long)syscall(SYS_gettid), name, msg);
  if (n < 0) return;
  size_t len = (size_t)n < sizeof out ? (size_t)n : sizeof out - 1;
  /* One write: no stdio lock, which the exiting thread may hold. */
  ssize_t ignored = write(STDERR_FILENO, out, len);
  (void)ignored;
}

/* ncclDebugLogger_t: level, subsystem flags, source position, printf format and arguments. */
void nccl4j_log(int level, unsigned long flags, const char *file, int line, const char *fmt, ...) {
  nccl4j_sink_t s = (nccl4j_sink_t)__atomic_load_n((void **)&sink, __ATOMIC_ACQUIRE);
  if (s == NULL) return;
  int toJava = java_can_take_this_thread();
  if (!toJava && level > __atomic_load_n(&stderr_level, __ATOMIC_ACQUIRE)) return;
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
  if (toJava) {
    s(level, flags, file, line, buf);
  } else {
    write_stderr(level, file, line, buf);
  }
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
