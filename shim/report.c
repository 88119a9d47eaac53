/* Telling the agent: one line on stderr written with a single write(2), and
 * one JSON record, sent to the launcher (which alone holds the log file, so
 * a sandboxed process can neither erase nor rewrite it) or, when the shim
 * runs alone, appended to the log file.  No malloc, no stdio, no locks. */
#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "shim.h"

static void send_record(const char *rec, size_t len)
{
	const char *sock = sbp_str(sbp_pol, sbp_pol->log_socket);

	if (sbp_pol->log_socket) {
		struct sockaddr_un a = {.sun_family = AF_UNIX};
		size_t n = strlen(sock);
		if (n + 1 > sizeof(a.sun_path))
			return;
		memcpy(a.sun_path + 1, sock, n); /* abstract: sun_path[0] = 0 */
		int fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
		if (fd < 0)
			return;
		sendto(fd, rec, len, MSG_DONTWAIT | MSG_NOSIGNAL, (struct sockaddr *)&a,
		       (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + n));
		sbp_sys_close(fd);
		return;
	}
	if (sbp_pol->log) {
		int fd = sbp_sys_openat(AT_FDCWD, sbp_str(sbp_pol, sbp_pol->log),
					O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
		if (fd < 0)
			return;
		char line[len + 1];
		memcpy(line, rec, len);
		line[len] = '\n';
		if (write(fd, line, len + 1) < 0) {
			/* nothing more to do: the message went to stderr */
		}
		sbp_sys_close(fd);
	}
}

void sbp_report(const char *call, const struct sbp_query *q, const struct sbp_verdict *v,
		const char *given, const char *resolved)
{
	char buf[2 * PATH_MAX + 1024]; /* hooks may run on a small signal stack */
	int saved = errno;

	if (!sbp_pol->quiet) {
		size_t n = sbp_format_denial(buf, sizeof(buf) - 1, sbp_pol, q, v, given, resolved);
		buf[n++] = '\n';
		if (write(2, buf, n) < 0) {
			/* stderr closed: the log still gets the record */
		}
	}
	if (sbp_pol->log_socket || sbp_pol->log) {
		struct timespec ts;
		clock_gettime(CLOCK_REALTIME, &ts);
		long long ms = (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
		size_t n = sbp_format_record(buf, sizeof(buf), sbp_pol, q, v, call, given, resolved, ms,
					     getpid(), sbp_exe);
		send_record(buf, n);
	}
	errno = saved;
}
