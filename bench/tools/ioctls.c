// SPDX-License-Identifier: GPL-2.0-only
/*
 * ioctls N: make N ioctl() calls that are not KVM's (FIONREAD on a pipe),
 * as a host's other programs and its vCPUs' KVM_RUN do, and print what
 * one took: wall and CPU nanoseconds.  bench/ioctls.sh runs it untraced
 * and under `mmuscope record --light`, whose sys_exit_ioctl sees them all.
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

static double now(clockid_t clock)
{
	struct timespec ts;

	clock_gettime(clock, &ts);
	return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 0;
	double wall, cpu;
	int fds[2], avail;

	if (n <= 0 || pipe(fds)) {
		fprintf(stderr, "usage: ioctls N (N > 0)\n");
		return 2;
	}
	wall = now(CLOCK_MONOTONIC);
	cpu = now(CLOCK_PROCESS_CPUTIME_ID);
	for (long i = 0; i < n; i++)
		if (ioctl(fds[0], FIONREAD, &avail)) {
			perror("ioctl");
			return 1;
		}
	cpu = now(CLOCK_PROCESS_CPUTIME_ID) - cpu;
	wall = now(CLOCK_MONOTONIC) - wall;
	printf("ioctls %ld wall_ns %.1f cpu_ns %.1f\n", n, wall / (double)n, cpu / (double)n);
	return 0;
}
