/* preload_empty.so: a preload library whose hooks only call through to libc.
 *
 * The floor of any LD_PRELOAD shim: the extra call, the PLT hop and the load
 * of the real function's pointer, with no checking at all.  A shim that is
 * within noise of this column costs nothing measurable. */
#undef _FORTIFY_SOURCE /* the fortified open() is an inline we could not define */

#define PRELOAD_CHECK(dirfd, path) ((void)(dirfd), (void)(path))

#include "preload_hooks.h"
