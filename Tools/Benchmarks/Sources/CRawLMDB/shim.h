#ifndef CRAWLMDB_SHIM_H
#define CRAWLMDB_SHIM_H
// LMDB's C API for the raw-LMDB baseline, as the harness's own system library: the main package
// does not export its CLMDB.
#include <lmdb.h>
#endif
