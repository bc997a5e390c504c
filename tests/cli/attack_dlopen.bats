#!/usr/bin/env bats
# attack_dlopen.bats: the judged environment tries to widen the Landlock
# rules of the helper that loads its libraries to the signing key.  A
# site-packages nvidia/*/lib that is a link to /, a library there that is
# a link to the key, a library on LD_LIBRARY_PATH that is one: the first
# two are never searched or taken (libsearch.c: a wheel holds no links),
# and no rule ever takes a tree that holds the key, whoever named it
# (childland.c); the spy library's constructor finds the key refused.

load setup
load git_daemon
load trust

# A library whose constructor reports whether it could read the key
# named on its parent's command line.
key_reader() { # out.so
	cat >kr.c <<EOF2
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
__attribute__((constructor)) static void
kr(void)
{
	char path[64], buf[8192], *key = NULL;
	FILE *out = fopen("$T/spy/report", "a");
	ssize_t n;
	int fd;

	if (out == NULL)
		return;
	snprintf(path, sizeof path, "/proc/%d/cmdline", (int)getppid());
	if ((fd = open(path, O_RDONLY)) >= 0 &&
	    (n = read(fd, buf, sizeof buf - 1)) > 0) {
		buf[n] = '\0';
		for (char *a = buf; a < buf + n; a += strlen(a) + 1)
			if (strcmp(a, "--sign-key") == 0)
				key = a + strlen(a) + 1;
	}
	fprintf(out, "ran as %d\n", (int)getuid());
	if (key != NULL && (fd = open(key, O_RDONLY)) >= 0 &&
	    (n = read(fd, path, sizeof path)) > 0)
		fprintf(out, "key-file: read %zd bytes\n", n);
	else
		fprintf(out, "key-file: denied\n");
	fclose(out);
}
int cudaRuntimeGetVersion(int *v) { *v = 13000; return 0; }
EOF2
	cc -shared -fPIC -o "$1" kr.c
}

@test "a site-packages nvidia/*/lib link to / does not open the key to a library's constructor" {
	needs_landlock
	trust_gate_setup
	mkdir -p site/nvidia/cuda_runtime/lib site/nvidia/zz
	key_reader site/nvidia/cuda_runtime/lib/libcudart.so.13
	ln -s / site/nvidia/zz/lib
	run gate --site-packages "$T/site"
	echo "$output"
	cat spy/report
	grep -q '^ran as ' spy/report
	grep -qx 'key-file: denied' spy/report
}

@test "a site-packages library that is a link to the key does not open the key's folder to another library's constructor" {
	needs_landlock
	trust_gate_setup
	mkdir -p site/nvidia/cuda_runtime/lib site/nvidia/cudnn/lib
	key_reader site/nvidia/cuda_runtime/lib/libcudart.so.13
	# Found by its name, judged by its real path: the key's folder
	# becomes "the library's directory" for every helper of the jail.
	ln -s "$T/keys/key.pem" site/nvidia/cudnn/lib/libcudnn.so.9
	run gate --site-packages "$T/site"
	echo "$output"
	cat spy/report
	grep -q '^ran as ' spy/report
	grep -qx 'key-file: denied' spy/report
}

@test "a library on LD_LIBRARY_PATH that is a link to the key does not open the key's folder to another library's constructor" {
	needs_landlock
	trust_gate_setup
	# The folder is the job's choice; what is in it, the judged
	# environment's (a venv's nvidia/cudnn/lib put on the path).
	mkdir -p lib nosite
	key_reader lib/libcudart.so.13
	ln -s "$T/keys/key.pem" lib/libcudnn.so.9
	LD_LIBRARY_PATH=$T/lib run gate --site-packages "$T/nosite"
	echo "$output"
	cat spy/report
	grep -q '^ran as ' spy/report
	grep -qx 'key-file: denied' spy/report
	# The folder the link led to was left out of the helpers' rules,
	# and the manifest says why.
	jq -r .meta.confinement.libraries m.json
	jq -r .meta.confinement.libraries m.json |
	    grep -qF "not allowed: $T/keys (holds the signing key ($T/keys/key.pem))"
}
