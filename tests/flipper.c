/* Race helper: one thread keeps swapping a symlink in the workspace between
 * an allowed place and a forbidden one while the main thread writes through
 * it.  Run under the shim, nothing may ever land in the forbidden place.
 *
 *   flipper final|dir|mkdir WS OUTSIDE ITERATIONS
 *
 * final: WS/l -> WS/ok or OUTSIDE/victim; open(WS/l, O_WRONLY|O_CREAT|O_TRUNC)
 * dir:   WS/d -> WS/okdir or OUTSIDE;      open(WS/d/f, O_WRONLY|O_CREAT)
 * mkdir: WS/d -> WS/okdir or OUTSIDE;      mkdir(WS/d/sub) + rmdir
 * truncate: WS/l -> WS/ok or OUTSIDE/victim; truncate(WS/l, 0)
 * cwd:   the other thread chdir()s between WS and OUTSIDE; open("f", O_CREAT)
 * Prints "ok=N denied=M". */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static atomic_int done;
static char link_path[4096], tmp_path[4096], good[4096], bad[4096];

static const char *ws_dir, *out_dir;

static void *flip(void *arg)
{
	if (arg) {
		for (unsigned i = 0; !atomic_load(&done); i++)
			if (chdir(i % 2 ? out_dir : ws_dir) < 0)
				perror("chdir");
		return NULL;
	}
	for (unsigned i = 0; !atomic_load(&done); i++) {
		unlink(tmp_path);
		if (symlink(i % 2 ? bad : good, tmp_path) == 0)
			rename(tmp_path, link_path);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	if (argc != 5) {
		fprintf(stderr, "usage: flipper final|dir|mkdir|truncate|cwd WS OUTSIDE ITERATIONS\n");
		return 2;
	}
	const char *mode = argv[1], *ws = argv[2], *out = argv[3];
	long iters = atol(argv[4]);
	bool trunc = !strcmp(mode, "truncate"), cwd = !strcmp(mode, "cwd");
	bool final = !strcmp(mode, "final") || trunc;
	ws_dir = ws;
	out_dir = out;
	char target[4200];

	snprintf(link_path, sizeof(link_path), "%s/%s", ws, final ? "l" : "d");
	snprintf(tmp_path, sizeof(tmp_path), "%s/tmp-link", ws);
	snprintf(good, sizeof(good), "%s/%s", ws, final ? "ok" : "okdir");
	snprintf(bad, sizeof(bad), final ? "%s/victim" : "%s", out);
	if (!final)
		mkdir(good, 0755);
	else
		close(open(good, O_WRONLY | O_CREAT, 0644));
	unlink(link_path);
	if (symlink(good, link_path) < 0) {
		perror("symlink");
		return 2;
	}
	snprintf(target, sizeof(target), "%s/%s", link_path, !strcmp(mode, "dir") ? "f" : "sub");

	pthread_t t;
	pthread_create(&t, NULL, flip, cwd ? "cwd" : NULL);
	long ok = 0, denied = 0;
	for (long i = 0; i < iters; i++) {
		if (cwd) {
			int fd = open("f", O_WRONLY | O_CREAT, 0644);
			if (fd >= 0) {
				ok++;
				close(fd);
			} else if (errno == EACCES) {
				denied++;
			}
		} else if (trunc) {
			if (truncate(link_path, 0) == 0)
				ok++;
			else if (errno == EACCES)
				denied++;
		} else if (final) {
			int fd = open(link_path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
			if (fd >= 0) {
				ok++;
				if (write(fd, "pwned\n", 6) < 0)
					perror("write");
				close(fd);
			} else if (errno == EACCES) {
				denied++;
			}
		} else if (!strcmp(mode, "dir")) {
			int fd = open(target, O_WRONLY | O_CREAT, 0644);
			if (fd >= 0) {
				ok++;
				close(fd);
				unlink(target);
			} else if (errno == EACCES) {
				denied++;
			}
		} else {
			if (mkdir(target, 0755) == 0) {
				ok++;
				rmdir(target);
			} else if (errno == EACCES) {
				denied++;
			}
		}
	}
	atomic_store(&done, 1);
	pthread_join(t, NULL);
	printf("ok=%ld denied=%ld\n", ok, denied);
	return 0;
}
