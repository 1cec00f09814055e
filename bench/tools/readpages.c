// SPDX-License-Identifier: GPL-2.0-only
/*
 * readpages: the floor under a live drain.  Reads every
 * per_cpu/cpuN/trace_pipe_raw of a tracing directory with plain read()
 * calls of one page, as a reader of the kernel's buffers must, and does
 * nothing with the bytes.  `make bench` sets `mmuscope record` beside it.
 *
 *   readpages DIR [PAGE_SIZE]     prints "<pages> <bytes> <seconds>"
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	size_t page = argc > 2 ? strtoul(argv[2], NULL, 0) : 4096;
	unsigned long long pages = 0, bytes = 0;
	char path[4096], *buf;
	double t0;

	if (argc < 2 || !page) {
		fprintf(stderr, "usage: readpages DIR [PAGE_SIZE]\n");
		return 2;
	}
	buf = malloc(page);
	if (!buf)
		return 1;
	t0 = now();
	for (unsigned int cpu = 0;; cpu++) {
		ssize_t n;
		int fd;

		snprintf(path, sizeof(path), "%s/per_cpu/cpu%u/trace_pipe_raw", argv[1], cpu);
		fd = open(path, O_RDONLY);
		if (fd < 0) {
			if (errno == ENOENT && cpu)
				break;
			fprintf(stderr, "readpages: %s: %s\n", path, strerror(errno));
			return 1;
		}
		while ((n = read(fd, buf, page)) > 0) {
			pages++;
			bytes += (unsigned long long)n;
		}
		close(fd);
		if (n < 0) {
			fprintf(stderr, "readpages: %s: %s\n", path, strerror(errno));
			return 1;
		}
	}
	printf("%llu %llu %.6f\n", pages, bytes, now() - t0);
	free(buf);
	return 0;
}
