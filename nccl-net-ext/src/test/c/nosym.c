/*
 * nccl4j test fixture: a valid shared library that exports no ncclNetPlugin_* symbol, so an
 * adapter's dlsym probe (v10 down to v4) finds nothing and must say so.
 */
__attribute__((visibility("default"))) int nccl4jFixtureNoPlugin(void) { return 42; }
