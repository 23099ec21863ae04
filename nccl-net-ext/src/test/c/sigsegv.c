/*
 * nccl4j test fixture: a library whose constructor replaces the SIGSEGV handler at dlopen time,
 * as PSM's libinfinipath does (pulled in by some libfabric builds). HotSpot relies on its own
 * SIGSEGV handler, so an adapter must compare the handlers before and after dlopen and refuse
 * such a plugin. It exports ncclNetPlugin_v8 so that only that check keeps it from being used;
 * every entry point fails.
 *
 * Unlike libinfinipath, the handler chains to the handler it replaced, so a JVM that loaded
 * this library (and did not restore its handler) keeps working; set
 * NCCL4J_FIXTURE_SIGSEGV_FATAL=1 before loading to make it fatal, as the real one is.
 */
#define _GNU_SOURCE
#define ND_NAME "SigSegv"
#define ND_WHY "this fixture must be refused after dlopen (it replaced the SIGSEGV handler)"
#include "fixture_nodata.h"

#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static struct sigaction previous;
static int fatal;

static void segvHandler(int sig, siginfo_t *info, void *ucontext) {
  if (fatal) {
    static const char msg[] = "libnccl-net-sigsegv: caught SIGSEGV (test fixture), exiting\n";
    ssize_t ignored = write(2, msg, sizeof msg - 1);
    (void)ignored;
    _exit(139);
  }
  if (previous.sa_flags & SA_SIGINFO) {
    if (previous.sa_sigaction != NULL) previous.sa_sigaction(sig, info, ucontext);
    return;
  }
  if (previous.sa_handler == SIG_IGN) return;
  if (previous.sa_handler == SIG_DFL) {
    signal(sig, SIG_DFL);
    raise(sig);
    return;
  }
  previous.sa_handler(sig);
}

__attribute__((constructor)) static void installHandler(void) {
  const char *f = getenv("NCCL4J_FIXTURE_SIGSEGV_FATAL");
  fatal = f != NULL && strcmp(f, "1") == 0;
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_sigaction = segvHandler;
  sa.sa_flags = SA_SIGINFO | SA_ONSTACK | SA_RESTART;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGSEGV, &sa, &previous);
}

/* Exported so that the library looks like a plugin; reaching any of these is a test failure. */
FX_EXPORT int nccl4jFixtureSigsegvHandlerInstalled(void) {
  struct sigaction now;
  sigaction(SIGSEGV, NULL, &now);
  return (now.sa_flags & SA_SIGINFO) && now.sa_sigaction == segvHandler;
}

static ncclResult_t sgInit(ncclDebugLogger_t logFunction) {
  ndLogger = logFunction;
  return ndFail();
}

ND_EXPORT_V8(sgInit, ndDevices);
