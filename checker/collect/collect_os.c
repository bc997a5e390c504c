/*
 * collect_os.c: os.id, os.version_id, os.kernel, os.arch, libc.version,
 * cpu.model, cpu.isa, cpu.count.  x86 and Arm name their CPUs in
 * /proc/cpuinfo differently: x86 in "model name" and "flags", arm64 in
 * "CPU implementer" and "CPU part" (numbers: the kernel prints no name)
 * and "Features"; ep_cpu_model reads either.
 */
#include <gnu/libc-version.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "collect.h"
#include "errors.h"
#include "files.h"
#include "str.h"
#include "strv.h"
#include "xalloc.h"

/* CPU features that change which kernels numerical libraries pick, and so
 * the bits they compute: SIMD width, FMA, reduced-precision dot products,
 * matrix engines.  x86 names from /proc/cpuinfo "flags", Arm names from
 * "Features". */
static const char *const isa_flags[] = {
	/* x86 */
	"amx_bf16", "amx_complex", "amx_fp16", "amx_int8", "amx_tile",
	"avx", "avx2", "avx512_4fmaps", "avx512_4vnniw", "avx512_bf16",
	"avx512_bitalg", "avx512_fp16", "avx512_vbmi2", "avx512_vnni",
	"avx512_vp2intersect", "avx512_vpopcntdq", "avx512bw", "avx512cd",
	"avx512dq", "avx512er", "avx512f", "avx512ifma", "avx512pf",
	"avx512vbmi", "avx512vl", "avx_ifma", "avx_ne_convert", "avx_vnni",
	"avx_vnni_int8", "f16c", "fma", "fma4", "sse", "sse2", "sse3",
	"sse4_1", "sse4_2", "sse4a", "ssse3",
	/* Arm */
	"asimd", "asimddp", "asimdfhm", "asimdhp", "bf16", "fcma", "fphp",
	"i8mm", "sme", "sme2", "sve", "sve2", "svebf16", "svei8mm",
	NULL,
};

char *
ep_os_release_value(const char *text, const char *key)
{
	size_t klen = strlen(key);
	const char *line = text;

	while (line != NULL && *line != '\0') {
		const char *end = strchr(line, '\n');
		size_t len = end ? (size_t)(end - line) : strlen(line);

		if (len > klen && strncmp(line, key, klen) == 0 &&
		    line[klen] == '=') {
			const char *v = line + klen + 1;
			size_t vlen = len - klen - 1;
			char *out = xmalloc(vlen + 1), *o = out;
			char q = 0;

			if (vlen > 0 && (v[0] == '"' || v[0] == '\'')) {
				q = v[0];
				v++;
				vlen--;
			}
			for (size_t i = 0; i < vlen; i++) {
				if (q != 0 && v[i] == q)
					break;
				if (q == '"' && v[i] == '\\' && i + 1 < vlen)
					i++;
				*o++ = v[i];
			}
			*o = '\0';
			return ep_trim(out);
		}
		line = end ? end + 1 : NULL;
	}
	return NULL;
}

/* Flags the kernel names otherwise than the vendors and compilers do:
 * Linux calls SSE3 "pni" (Prescott New Instructions) in /proc/cpuinfo
 * (arch/x86/include/asm/cpufeatures.h: X86_FEATURE_XMM3, "pni"). */
static const char *const isa_aliases[][2] = {
	{ "pni", "sse3" },
};

char *
ep_cpu_isa_filter(const char *flags)
{
	struct ep_strv found = { 0 };
	char *copy = xstrdup(flags), *save = NULL, *out;
	size_t len = 0;

	for (char *t = strtok_r(copy, " \t\n", &save); t != NULL;
	    t = strtok_r(NULL, " \t\n", &save)) {
		const char *name = t;

		for (size_t i = 0; i < sizeof isa_aliases /
		    sizeof isa_aliases[0]; i++)
			if (strcmp(t, isa_aliases[i][0]) == 0)
				name = isa_aliases[i][1];
		for (size_t i = 0; isa_flags[i] != NULL; i++)
			if (strcmp(name, isa_flags[i]) == 0 &&
			    !ep_strv_contains(&found, name))
				ep_strv_push(&found, name);
	}
	ep_strv_sort(&found);
	for (size_t i = 0; i < found.n; i++)
		len += strlen(found.v[i]) + 1;
	out = xcalloc(1, len + 1);
	for (size_t i = 0; i < found.n; i++) {
		if (i > 0)
			strcat(out, " ");
		strcat(out, found.v[i]);
	}
	ep_strv_clear(&found);
	free(copy);
	return out;
}

/* The value of the first "name : value" line of /proc/cpuinfo. */
static char *
cpuinfo_field(const char *text, const char *name)
{
	size_t nlen = strlen(name);

	for (const char *l = text; l != NULL && *l; ) {
		const char *end = strchr(l, '\n');
		size_t len = end ? (size_t)(end - l) : strlen(l);

		if (strncmp(l, name, nlen) == 0 &&
		    strspn(l + nlen, " \t") + nlen < len &&
		    l[nlen + strspn(l + nlen, " \t")] == ':') {
			const char *v = l + nlen + strspn(l + nlen, " \t") + 1;

			return ep_trim(xstrndup(v, len - (size_t)(v - l)));
		}
		l = end ? end + 1 : NULL;
	}
	return NULL;
}

/* Arm's cores by MIDR implementer and part, as the kernel prints them in
 * "CPU implementer" and "CPU part" (arch/arm64/include/asm/cputype.h),
 * named as lscpu names them: the server cores ML runs on.  A pair not
 * here is named by its numbers. */
static const struct {
	unsigned implementer, part;
	const char *name;
} arm_cores[] = {
	{ 0x41, 0xd07, "ARM Cortex-A57" },
	{ 0x41, 0xd08, "ARM Cortex-A72" },	/* AWS Graviton */
	{ 0x41, 0xd0c, "ARM Neoverse-N1" },	/* Graviton2, Ampere Altra */
	{ 0x41, 0xd40, "ARM Neoverse-V1" },	/* Graviton3 */
	{ 0x41, 0xd49, "ARM Neoverse-N2" },
	{ 0x41, 0xd4f, "ARM Neoverse-V2" },	/* NVIDIA Grace, Graviton4 */
	{ 0x41, 0xd83, "ARM Neoverse-V3AE" },
	{ 0x41, 0xd84, "ARM Neoverse-V3" },
	{ 0x41, 0xd8e, "ARM Neoverse-N3" },
	{ 0x46, 0x001, "Fujitsu A64FX" },
	{ 0x48, 0xd01, "HiSilicon Kunpeng-920" },
	{ 0x4e, 0x003, "NVIDIA Denver" },
	{ 0x4e, 0x004, "NVIDIA Carmel" },
	{ 0xc0, 0xac3, "Ampere Ampere-1" },
	{ 0xc0, 0xac4, "Ampere Ampere-1a" },
};

/* A "0x41"-style number (1 to 4 hex digits after "0x"), or -1. */
static long
cpuinfo_hex(const char *text, const char *name)
{
	char *v = cpuinfo_field(text, name);
	size_t digits = v != NULL ? strlen(v) : 0;
	long n = -1;

	if (digits > 2 && digits <= 6 && strncmp(v, "0x", 2) == 0 &&
	    strspn(v + 2, "0123456789abcdefABCDEF") == digits - 2)
		n = strtol(v + 2, NULL, 16);
	free(v);
	return n;
}

char *
ep_cpu_model(const char *cpuinfo)
{
	char *v;
	long impl, part;

	if ((v = cpuinfo_field(cpuinfo, "model name")) != NULL ||
	    (v = cpuinfo_field(cpuinfo, "Model")) != NULL)
		return v;
	impl = cpuinfo_hex(cpuinfo, "CPU implementer");
	part = cpuinfo_hex(cpuinfo, "CPU part");
	if (impl < 0 || part < 0)
		return NULL;
	for (size_t i = 0; i < sizeof arm_cores / sizeof arm_cores[0]; i++)
		if (arm_cores[i].implementer == (unsigned)impl &&
		    arm_cores[i].part == (unsigned)part)
			return xstrdup(arm_cores[i].name);
	return xasprintf("Arm implementer 0x%02lx part 0x%03lx", impl, part);
}

static void
collect_release(struct ep_collect *c)
{
	static const char *const paths[] = { "/etc/os-release",
	    "/usr/lib/os-release", NULL };
	struct ep_err err = { 0 };
	char *text = NULL, *v;

	for (size_t i = 0; paths[i] != NULL && text == NULL; i++)
		if (access(paths[i], F_OK) == 0)
			ep_read_file(&text, NULL, paths[i], 1 << 20, &err);
	if (text == NULL) {
		ep_manifest_unavailable(c->m, "os", "no readable os-release%s%s",
		    err.msg[0] ? ": " : "", err.msg);
		return;
	}
	if ((v = ep_os_release_value(text, "ID")) != NULL)
		ep_manifest_set(c->m, "os.id", v);
	free(v);
	if ((v = ep_os_release_value(text, "VERSION_ID")) != NULL)
		ep_manifest_set(c->m, "os.version_id", v);
	free(v);
	free(text);
}

static void
collect_cpu(struct ep_collect *c)
{
	struct ep_err err = { 0 };
	char *text = NULL, *v, *isa;
	long n = sysconf(_SC_NPROCESSORS_ONLN);

	if (n > 0)
		ep_manifest_setf(c->m, "cpu.count", "%ld", n);
	if (ep_read_file(&text, NULL, "/proc/cpuinfo", 64 << 20, &err) < 0) {
		ep_manifest_unavailable(c->m, "cpu", "%s", err.msg);
		return;
	}
	if ((v = ep_cpu_model(text)) != NULL)
		ep_manifest_set(c->m, "cpu.model", v);
	free(v);
	if ((v = cpuinfo_field(text, "flags")) == NULL)
		v = cpuinfo_field(text, "Features");
	if (v != NULL) {
		isa = ep_cpu_isa_filter(v);
		ep_manifest_set(c->m, "cpu.isa", isa);
		free(isa);
	}
	free(v);
	free(text);
}

int
ep_collect_os(struct ep_collect *c, struct ep_err *err)
{
	struct utsname u;

	(void)err;
	collect_release(c);
	if (uname(&u) == 0) {
		ep_manifest_set(c->m, "os.kernel", u.release);
		ep_manifest_set(c->m, "os.arch", u.machine);
	}
	ep_manifest_set(c->m, "libc.version", gnu_get_libc_version());
	collect_cpu(c);
	return 0;
}
