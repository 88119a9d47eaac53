/* micro: time one hooked libc file operation, natively or under a preload
 * library, and print nanoseconds per operation.
 *
 *   micro OP ITER DIR
 *
 * OP is one of the operations below, ITER how many times to do it, DIR a
 * writable directory (absolute path) under which micro builds its own tree
 * DIR/a/b/c/d/e/ on every run, so each run is self-contained whatever ran
 * before it.  Prints one line on stdout:
 *
 *   micro OP ITER MEDIAN_NS MIN_NS
 *
 * Only plain libc calls are timed (no stdio, no malloc in the loop), so what
 * a preload library adds to those calls is what shows.  The clock is
 * clock_gettime(CLOCK_MONOTONIC), a vDSO call no shim hooks.  Each run first
 * does a warm-up (a tenth of ITER: page cache, dentry cache, the shim's lazy
 * symbol lookups and first-call setup), then ITER operations in BATCHES
 * timed batches, and reports the median and the fastest batch, in ns per
 * operation: one preemption on a shared machine spoils one batch, not the
 * run.
 *
 * Two more OPs help the driver:
 *   micro setup 0 DIR    build the tree and exit
 *   micro whoami 0 DIR   print which loaded object provides each timed libc
 *                        function, to prove a preload library is in place
 *
 * Exit status: 0, 1 on bad usage, 2 when a call fails (a shim that denies
 * what the benchmark does must not pass as fast).
 */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define BATCHES 10
#define DEPTH_DIR "a/b/c/d/e"

static char dir_abs[4096];   /* DIR/a/b/c/d/e */
static char file_abs[4096];  /* DIR/a/b/c/d/e/f.txt: exists */
static char new_abs[4096];   /* DIR/a/b/c/d/e/new: created and removed */
static char ren_a[4096];     /* DIR/a/b/c/d/e/ren_a: exists between iterations */
static char ren_b[4096];     /* DIR/a/b/c/d/e/ren_b */
static char sub_abs[4096];   /* DIR/a/b/c/d/e/sub: made and removed */
static const char file_rel[] = DEPTH_DIR "/f.txt";

static const char *op_name;

static void die(const char *call, const char *path)
{
	int e = errno;
	fprintf(stderr, "micro %s: %s(%s): %s\n", op_name, call, path, strerror(e));
	exit(2);
}

static void join(char *out, size_t size, const char *a, const char *b)
{
	int n = snprintf(out, size, "%s/%s", a, b);
	if (n < 0 || (size_t)n >= size) {
		fprintf(stderr, "micro: path too long: %s/%s\n", a, b);
		exit(1);
	}
}

/* mkdir -p DIR/a/b/c/d/e, then put the files each op expects in place and
 * remove what an interrupted earlier run may have left. */
static void setup(const char *dir)
{
	char p[4096];
	size_t len = strlen(dir);
	static const char *const parts[] = { "a", "b", "c", "d", "e" };

	if (dir[0] != '/') {
		fprintf(stderr, "micro: DIR must be absolute: %s\n", dir);
		exit(1);
	}
	if (len + 1 >= sizeof p) {
		fprintf(stderr, "micro: DIR too long\n");
		exit(1);
	}
	memcpy(p, dir, len + 1);
	if (mkdir(p, 0755) < 0 && errno != EEXIST)
		die("mkdir", p);
	for (size_t i = 0; i < sizeof parts / sizeof parts[0]; i++) {
		int n = snprintf(p + len, sizeof p - len, "/%s", parts[i]);
		if (n < 0 || (size_t)n >= sizeof p - len) {
			fprintf(stderr, "micro: DIR too long\n");
			exit(1);
		}
		len += (size_t)n;
		if (mkdir(p, 0755) < 0 && errno != EEXIST)
			die("mkdir", p);
	}
	join(dir_abs, sizeof dir_abs, dir, DEPTH_DIR);
	join(file_abs, sizeof file_abs, dir_abs, "f.txt");
	join(new_abs, sizeof new_abs, dir_abs, "new");
	join(ren_a, sizeof ren_a, dir_abs, "ren_a");
	join(ren_b, sizeof ren_b, dir_abs, "ren_b");
	join(sub_abs, sizeof sub_abs, dir_abs, "sub");

	const char *const files[] = { file_abs, ren_a };
	for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
		int fd = open(files[i], O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
		if (fd < 0)
			die("open", files[i]);
		if (write(fd, "x\n", 2) != 2)
			die("write", files[i]);
		if (close(fd) < 0)
			die("close", files[i]);
	}
	if (unlink(new_abs) < 0 && errno != ENOENT)
		die("unlink", new_abs);
	if (unlink(ren_b) < 0 && errno != ENOENT)
		die("unlink", ren_b);
	if (rmdir(sub_abs) < 0 && errno != ENOENT)
		die("rmdir", sub_abs);
}

/* ---- the operations: each does N iterations and fails loudly ---- */

static void op_open(long n)
{
	for (long i = 0; i < n; i++) {
		int fd = open(file_abs, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			die("open", file_abs);
		close(fd);
	}
}

static void op_open_rel(long n)
{
	for (long i = 0; i < n; i++) {
		int fd = open(file_rel, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			die("open", file_rel);
		close(fd);
	}
}

static void op_create(long n)
{
	for (long i = 0; i < n; i++) {
		int fd = open(new_abs, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
		if (fd < 0)
			die("open", new_abs);
		close(fd);
		if (unlink(new_abs) < 0)
			die("unlink", new_abs);
	}
}

static void op_rename(long n)
{
	for (long i = 0; i < n; i++) {
		if (rename(ren_a, ren_b) < 0)
			die("rename", ren_a);
		if (rename(ren_b, ren_a) < 0)
			die("rename", ren_b);
	}
}

static void op_mkdir(long n)
{
	for (long i = 0; i < n; i++) {
		if (mkdir(sub_abs, 0755) < 0)
			die("mkdir", sub_abs);
		if (rmdir(sub_abs) < 0)
			die("rmdir", sub_abs);
	}
}

static void op_stat(long n)
{
	struct stat st;
	for (long i = 0; i < n; i++)
		if (stat(file_abs, &st) < 0)
			die("stat", file_abs);
}

static void op_access(long n)
{
	for (long i = 0; i < n; i++)
		if (access(file_abs, R_OK) < 0)
			die("access", file_abs);
}

static const struct op {
	const char *name;
	void (*run)(long n);
	int relative; /* chdir(DIR) first */
	const char *what;
} ops[] = {
	{ "open", op_open, 0, "open(O_RDONLY)+close, absolute path 6 components deep" },
	{ "open_rel", op_open_rel, 1, "open(O_RDONLY)+close, relative path after chdir(DIR)" },
	{ "create", op_create, 0, "open(O_CREAT|O_WRONLY)+close+unlink" },
	{ "rename", op_rename, 0, "rename A->B then B->A (one iteration = both)" },
	{ "mkdir", op_mkdir, 0, "mkdir+rmdir" },
	{ "stat", op_stat, 0, "stat of an existing file" },
	{ "access", op_access, 0, "access(R_OK) of an existing file" },
};

static double now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

/* Which object each timed function resolves to from here: the preload
 * library when one is in place, libc otherwise. */
static void whoami(void)
{
	static const char *const names[] = { "open", "openat", "creat", "rename", "renameat",
					     "mkdir", "rmdir", "unlink", "stat", "access" };
	for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
		void *f = dlsym(RTLD_DEFAULT, names[i]);
		Dl_info info;
		const char *obj = "?";
		if (f && dladdr(f, &info) && info.dli_fname)
			obj = info.dli_fname;
		printf("%s %s\n", names[i], obj);
	}
}

static void usage(void)
{
	fprintf(stderr, "usage: micro OP ITER DIR\n  OP: setup whoami");
	for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++)
		fprintf(stderr, " %s", ops[i].name);
	fprintf(stderr, "\n");
	for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++)
		fprintf(stderr, "  %-9s %s\n", ops[i].name, ops[i].what);
	exit(1);
}

int main(int argc, char **argv)
{
	if (argc != 4)
		usage();
	op_name = argv[1];
	char *end;
	errno = 0;
	long iter = strtol(argv[2], &end, 10);
	if (errno || *end || end == argv[2] || iter < 0)
		usage();
	const char *dir = argv[3];

	if (strcmp(op_name, "whoami") == 0) {
		whoami();
		return 0;
	}
	const struct op *op = NULL;
	for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++)
		if (strcmp(op_name, ops[i].name) == 0)
			op = &ops[i];
	if (!op && strcmp(op_name, "setup") != 0)
		usage();

	setup(dir);
	if (!op)
		return 0;
	if (iter < BATCHES)
		usage();
	if (op->relative && chdir(dir) < 0)
		die("chdir", dir);

	op->run(iter / 10 > 0 ? iter / 10 : 1); /* warm-up */

	long per = iter / BATCHES;
	double batch[BATCHES];
	for (int b = 0; b < BATCHES; b++) {
		double t0 = now_ns();
		op->run(per);
		batch[b] = (now_ns() - t0) / (double)per;
	}
	qsort(batch, BATCHES, sizeof batch[0], cmp_double);
	printf("micro %s %ld %.1f %.1f\n", op_name, per * BATCHES,
	       (batch[(BATCHES - 1) / 2] + batch[BATCHES / 2]) / 2, batch[0]);
	return 0;
}
