#ifndef CLMDB_SHIM_H
#define CLMDB_SHIM_H
// LMDB's C API, as Debian's liblmdb-dev (0.9.24) installs it.
#include <lmdb.h>
#endif
