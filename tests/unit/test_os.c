/* test_os.c: os-release parsing, the CPU's name and ISA filter (x86 and
 * arm64 /proc/cpuinfo), the env allowlist. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "collect.h"
#include "errors.h"
#include "files.h"

static void
test_os_release(void **state)
{
	const char *text =
	    "PRETTY_NAME=\"Debian GNU/Linux 12 (bookworm)\"\n"
	    "NAME='Debian GNU/Linux'\n"
	    "VERSION_ID=\"12\"\n"
	    "ID=debian\n"
	    "ID_LIKE=\"ubuntu debian\"\n"
	    "QUOTED=\"a \\\"b\\\" c\"\n";
	char *v;

	(void)state;
	v = ep_os_release_value(text, "ID");
	assert_string_equal(v, "debian");	/* not ID_LIKE's value */
	free(v);
	v = ep_os_release_value(text, "VERSION_ID");
	assert_string_equal(v, "12");
	free(v);
	v = ep_os_release_value(text, "NAME");
	assert_string_equal(v, "Debian GNU/Linux");
	free(v);
	v = ep_os_release_value(text, "QUOTED");
	assert_string_equal(v, "a \"b\" c");
	free(v);
	assert_null(ep_os_release_value(text, "VERSION_CODENAME"));
	assert_null(ep_os_release_value("", "ID"));
}

static void
test_isa_filter(void **state)
{
	char *s;

	(void)state;
	s = ep_cpu_isa_filter("fpu vme sse2 sse avx2 fma avx512f amx_tile "
	    "aes pclmulqdq sse2 avx512_bf16 ht");
	assert_string_equal(s, "amx_tile avx2 avx512_bf16 avx512f fma sse sse2");
	free(s);
	/* The kernel's "pni" is SSE3 (a real Xeon's flags, shortened). */
	s = ep_cpu_isa_filter("fpu vme de pse tsc msr pae mce cx8 apic sep "
	    "mtrr pge mca cmov pat pse36 clflush mmx fxsr sse sse2 ss ht "
	    "syscall nx pdpe1gb rdtscp lm constant_tsc rep_good nopl "
	    "xtopology cpuid pni pclmulqdq ssse3 fma cx16 pcid sse4_1 "
	    "sse4_2 x2apic movbe popcnt aes xsave avx f16c rdrand "
	    "hypervisor lahf_lm abm avx2 avx512f");
	assert_string_equal(s, "avx avx2 avx512f f16c fma sse sse2 sse3 "
	    "sse4_1 sse4_2 ssse3");
	free(s);
	s = ep_cpu_isa_filter("pni sse3 pni");
	assert_string_equal(s, "sse3");
	free(s);
	s = ep_cpu_isa_filter("fp asimd evtstrm aes sve bf16 i8mm");
	assert_string_equal(s, "asimd bf16 i8mm sve");
	free(s);
	s = ep_cpu_isa_filter("");
	assert_string_equal(s, "");
	free(s);
}

/* The CPU's name: x86's "model name"; on arm64, which prints numbers,
 * the core named from them (a Grace CPU's /proc/cpuinfo, 72 blocks:
 * tests/fixtures/arm64), else the numbers themselves. */
static void
test_cpu_model(void **state)
{
	struct ep_err err = { 0 };
	char *text = NULL, *v;

	(void)state;
	v = ep_cpu_model("processor\t: 0\nvendor_id\t: GenuineIntel\n"
	    "model name\t: Intel(R) Xeon(R) Platinum 8480+\nflags\t: fpu\n");
	assert_string_equal(v, "Intel(R) Xeon(R) Platinum 8480+");
	free(v);
	assert_int_equal(ep_read_file(&text, NULL,
	    "tests/fixtures/arm64/grace/proc/cpuinfo", 1 << 20, &err), 0);
	v = ep_cpu_model(text);
	assert_string_equal(v, "ARM Neoverse-V2");
	free(v);
	v = ep_cpu_isa_filter(strstr(text, "Features\t: ") + 11);
	assert_string_equal(v, "asimd asimddp asimdfhm asimdhp bf16 fcma "
	    "fphp i8mm sve sve2 svebf16 svei8mm");
	free(v);
	free(text);
	/* A board's own "Model" line (Raspberry Pi kernels) wins, as
	 * before; a pair not in the table is named by its numbers. */
	v = ep_cpu_model("CPU implementer\t: 0x41\nCPU part\t: 0xd08\n"
	    "Model\t\t: Raspberry Pi 4 Model B Rev 1.4\n");
	assert_string_equal(v, "Raspberry Pi 4 Model B Rev 1.4");
	free(v);
	v = ep_cpu_model("CPU implementer\t: 0x61\nCPU part\t: 0x039\n");
	assert_string_equal(v, "Arm implementer 0x61 part 0x039");
	free(v);
	v = ep_cpu_model("CPU implementer\t: 0xc0\nCPU part\t: 0xac3\n");
	assert_string_equal(v, "Ampere Ampere-1");
	free(v);
	/* Nothing, half a pair, or not numbers: no name. */
	assert_null(ep_cpu_model(""));
	assert_null(ep_cpu_model("CPU implementer\t: 0x41\n"));
	assert_null(ep_cpu_model("CPU implementer\t: ARM\nCPU part\t: 0xd4f\n"));
	assert_null(ep_cpu_model("CPU implementer\t: 0x\nCPU part\t: 0xd4f\n"));
	assert_null(ep_cpu_model("CPU implementer\t: 0x41zz\nCPU part\t: 0xd4f\n"));
	assert_null(ep_cpu_model("CPU implementer\t: 0x 41\nCPU part\t: 0xd4f\n"));
	assert_null(ep_cpu_model("CPU implementer\t: 0x0x41\nCPU part\t: 0xd4f\n"));
	assert_null(ep_cpu_model("CPU implementer\t: 0x41\nCPU part\t: 0x12345\n"));
}

static void
test_env_allowlist(void **state)
{
	struct ep_manifest *m = ep_manifest_new();
	struct ep_capture_opts o = { 0 };
	struct ep_collect c = { .opts = &o, .m = m };
	const char *key;
	json_t *v;

	(void)state;
	/* Sorted and unique, so it reads as a list and a lookup could
	 * bsearch it. */
	for (size_t i = 1; ep_env_allowlist[i] != NULL; i++)
		assert_true(strcmp(ep_env_allowlist[i - 1],
		    ep_env_allowlist[i]) < 0);

	setenv("CUBLAS_WORKSPACE_CONFIG", ":4096:8", 1);
	setenv("AWS_SECRET_ACCESS_KEY", "hunter2", 1);
	setenv("ENVPARITY_GIT_TOKEN", "ghp_secret", 1);
	setenv("CUDA_VISIBLE_DEVICES_EXTRA", "x", 1);
	assert_int_equal(ep_collect_env(&c, NULL), 0);
	assert_string_equal(ep_manifest_get(m, "env.CUBLAS_WORKSPACE_CONFIG"),
	    ":4096:8");
	json_object_foreach(m->facts, key, v) {
		const char *name = key + strlen("env.");
		int listed = 0;

		assert_true(strncmp(key, "env.", 4) == 0);
		for (size_t i = 0; ep_env_allowlist[i] != NULL; i++)
			listed |= strcmp(ep_env_allowlist[i], name) == 0;
		assert_true(listed);
		assert_null(strstr(json_string_value(v), "hunter2"));
		assert_null(strstr(json_string_value(v), "ghp_secret"));
	}
	ep_manifest_free(m);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_os_release),
		cmocka_unit_test(test_isa_filter),
		cmocka_unit_test(test_cpu_model),
		cmocka_unit_test(test_env_allowlist),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
