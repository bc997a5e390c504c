/*
 * test_serving.c: serving configurations as facts (collect/serving.h):
 * which format a file is, the facts of each (maps, wrappers, repeated
 * fields, secrets), Java properties as java.util.Properties reads them,
 * TorchServe's models JSON, TensorFlow's fingerprint.pb (the real file of
 * TF Serving's testdata, and malformed ones), and the collector on the
 * real configurations in tests/fixtures/serving: a repository, a model
 * folder, a lone config.pbtxt, and what it refuses.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "collect.h"
#include "files.h"
#include "serving.h"
#include "textproto.h"

#define FIX "tests/fixtures/serving"

static char tmpdir[64];

static int
setup(void **state)
{
	(void)state;
	return tu_scratch_make(tmpdir, sizeof tmpdir, "serving");
}

static int
teardown(void **state)
{
	(void)state;
	return tu_scratch_remove(tmpdir);
}

/* The facts of text as "k=v\n" lines, or "!" and the error. */
static char *
facts_of(enum ep_serving_format k, const char *text, const char *model,
    const char *versions)
{
	struct ep_serving_facts f = { 0 };
	struct ep_tp_msg *m = NULL;
	struct ep_err err = { 0 };
	char *out = NULL;
	size_t len;
	FILE *fp;

	assert_int_equal(ep_textproto_parse(&m, text, strlen(text), "f.pbtxt",
	    &err), 0);
	if (ep_serving_textproto_facts(&f, k, m, model, versions, "f.pbtxt",
	    &err) < 0)
		out = xasprintf("!%s", err.msg);
	else {
		fp = open_memstream(&out, &len);
		for (size_t i = 0; i < f.keys.n; i++)
			fprintf(fp, "%s=%s\n", f.keys.v[i], f.vals.v[i]);
		fclose(fp);
	}
	ep_serving_facts_clear(&f);
	ep_textproto_free(m);
	return out;
}

static void
facts_are(enum ep_serving_format k, const char *text, const char *model,
    const char *versions, const char *want)
{
	char *got = facts_of(k, text, model, versions);

	if (strcmp(got, want) != 0)
		fail_msg("input <%s>\nwant <%s>\ngot  <%s>", text, want, got);
	free(got);
}

static enum ep_serving_format
kind_of(const char *base, const char *text)
{
	struct ep_tp_msg *m = NULL;
	struct ep_err err = { 0 };
	enum ep_serving_format k;

	assert_int_equal(ep_textproto_parse(&m, text, strlen(text), base,
	    &err), 0);
	k = ep_serving_kind(base, m);
	ep_textproto_free(m);
	return k;
}

static void
test_kind(void **state)
{
	(void)state;
	assert_int_equal(kind_of("config.pbtxt", ""), EP_SERVING_TRITON);
	assert_int_equal(kind_of("x.pbtxt", "backend: 'python'"),
	    EP_SERVING_TRITON);
	assert_int_equal(kind_of("x.txt", "platform: 'onnxruntime_onnx' "
	    "max_batch_size: 8"), EP_SERVING_TRITON);
	assert_int_equal(kind_of("models.config", "model_config_list {}"),
	    EP_SERVING_TFS_MODELS);
	assert_int_equal(kind_of("b.txt", "max_batch_size { value: 8 }"),
	    EP_SERVING_TFS_BATCHING);
	assert_int_equal(kind_of("b.txt", "num_batch_threads { value: 8 }"),
	    EP_SERVING_TFS_BATCHING);
	assert_int_equal(kind_of("b.txt", "max_batch_size: 8"),
	    EP_SERVING_UNKNOWN);
	assert_int_equal(kind_of("b.txt", "foo: 1"), EP_SERVING_UNKNOWN);
}

static void
test_names(void **state)
{
	char *n;

	(void)state;
	n = ep_serving_name("resnet-152_v2", 13);
	assert_string_equal(n, "resnet-152_v2");
	free(n);
	n = ep_serving_name("a.b/c d\n\xff%", 10);
	assert_string_equal(n, "a%2Eb%2Fc%20d%0A%FF%25");
	free(n);
	n = ep_serving_name("", 0);
	assert_string_equal(n, "%00");
	free(n);
	assert_true(ep_serving_secret("keystore_pass"));
	assert_true(ep_serving_secret("private_key_file"));
	assert_true(ep_serving_secret("HF_TOKEN"));
	assert_true(ep_serving_secret("db_Password"));
	assert_true(ep_serving_secret("client_secret"));
	assert_false(ep_serving_secret("max_batch_size"));
	assert_false(ep_serving_secret("certificate_file"));
}

static void
test_triton_facts(void **state)
{
	(void)state;
	/* One instance_group is [0] as two are: the .proto says repeated. */
	facts_are(EP_SERVING_TRITON, "max_batch_size: 64 instance_group { "
	    "count: 2 kind: KIND_GPU gpus: [0, 1] }", "m", "1,3",
	    "serving.m.max_batch_size=64\n"
	    "serving.m.instance_group[0].count=2\n"
	    "serving.m.instance_group[0].kind=KIND_GPU\n"
	    "serving.m.instance_group[0].gpus=0,1\n"
	    "serving.m.versions=1,3\n");
	/* Unknown fields are kept; twice written, or a list, is repeated. */
	facts_are(EP_SERVING_TRITON, "name: 'x.y' future { a: 1 } "
	    "future { a: 2 } odd: [5] dynamic_batching { "
	    "max_queue_delay_microseconds: 100 preserve_ordering: true }",
	    NULL, NULL,
	    "serving.x%2Ey.name=x.y\n"
	    "serving.x%2Ey.future[0].a=1\n"
	    "serving.x%2Ey.future[1].a=2\n"
	    "serving.x%2Ey.odd=5\n"
	    "serving.x%2Ey.dynamic_batching.max_queue_delay_microseconds=100\n"
	    "serving.x%2Ey.dynamic_batching.preserve_ordering=true\n");
	/* Maps by key (the last of a key wins), wrappers by value, an
	 * empty message as {}. */
	facts_are(EP_SERVING_TRITON, "parameters { key: 'a.b' value: { "
	    "string_value: 'x' } } parameters { key: 'k' value: 'v1' } "
	    "parameters { key: 'k' value: 'v2' } version_policy { all {} } "
	    "response_cache { enable { value: true } }", "m", "",
	    "serving.m.parameters.a%2Eb.string_value=x\n"
	    "serving.m.parameters.k=v2\n"
	    "serving.m.version_policy.all={}\n"
	    "serving.m.response_cache.enable=true\n"
	    "serving.m.versions=\n");
	/* Secrets: that they are set, never their value. */
	facts_are(EP_SERVING_TRITON, "parameters { key: 'x' value: { "
	    "string_value: 'y' } } hf_token: 'hunter2' api_key: '' "
	    "credentials { user: 'u' }", "m", NULL,
	    "serving.m.parameters.x.string_value=y\n"
	    "serving.m.hf_token=set\n"
	    "serving.m.api_key=empty\n"
	    "serving.m.credentials=set\n");
	facts_are(EP_SERVING_TRITON, "max_batch_size: 1", NULL, NULL,
	    "!f.pbtxt: a Triton model configuration without a name, outside "
	    "a model folder");
	facts_are(EP_SERVING_TRITON, "a { b: 1 }\na: 2", "m", NULL,
	    "!f.pbtxt:1: field 'a' is a message in one place and a value in "
	    "another");
	facts_are(EP_SERVING_TRITON, "a: 'x\\0y'", "m", NULL,
	    "!f.pbtxt:1: field 'a': a string holding a NUL byte");
	/* Invalid UTF-8 made by escapes is repaired, not passed on. */
	facts_are(EP_SERVING_TRITON, "a: 'x\\377'", "m", NULL,
	    "serving.m.a=x\xef\xbf\xbd\n");
}

static void
test_tfs_facts(void **state)
{
	(void)state;
	facts_are(EP_SERVING_TFS_MODELS, "model_config_list { config { "
	    "name: 'a' base_path: '/m/a' model_platform: 'tensorflow' "
	    "model_version_policy { specific { versions: 1 versions: 2 } } "
	    "version_labels { key: 'stable' value: 1 } } config { name: 'b' "
	    "model_platform: 'tensorflow' model_version_policy { latest { "
	    "num_versions: 2 } } } } logging_config { x: 1 }", NULL, NULL,
	    "serving.a.name=a\n"
	    "serving.a.base_path=/m/a\n"
	    "serving.a.model_platform=tensorflow\n"
	    "serving.a.model_version_policy.specific.versions=1,2\n"
	    "serving.a.version_labels.stable=1\n"
	    "serving.b.name=b\n"
	    "serving.b.model_platform=tensorflow\n"
	    "serving.b.model_version_policy.latest.num_versions=2\n"
	    "serving.tfserving.logging_config.x=1\n");
	facts_are(EP_SERVING_TFS_MODELS, "model_config_list {\n config { "
	    "base_path: '/x' } }", NULL, NULL,
	    "!f.pbtxt:2: a model config without a name");
	facts_are(EP_SERVING_TFS_BATCHING, "max_batch_size { value: 128 } "
	    "batch_timeout_micros { value: 0 } allowed_batch_sizes: 32 "
	    "allowed_batch_sizes: 128 thread_pool_name { value: 'p' } "
	    "pad_variable_length_inputs: true", NULL, NULL,
	    "serving.batching.max_batch_size=128\n"
	    "serving.batching.batch_timeout_micros=0\n"
	    "serving.batching.allowed_batch_sizes=32,128\n"
	    "serving.batching.thread_pool_name=p\n"
	    "serving.batching.pad_variable_length_inputs=true\n");
	facts_are(EP_SERVING_UNKNOWN, "a: 1", NULL, NULL,
	    "!f.pbtxt: not a serving configuration envparity reads");
}

/* Properties as "k=v|" pairs, or "!" and the error. */
static void
props_are(const char *text, const char *want)
{
	struct ep_props p = { 0 };
	struct ep_err err = { 0 };
	char *got = NULL;
	size_t len;
	FILE *f;

	if (ep_props_parse(&p, text, strlen(text), "c.properties", &err) < 0)
		got = xasprintf("!%s", err.msg);
	else {
		f = open_memstream(&got, &len);
		for (size_t i = 0; i < p.n; i++)
			fprintf(f, "%s=%s@%u|", p.v[i].key, p.v[i].value,
			    p.v[i].line);
		fclose(f);
	}
	if (strcmp(got, want) != 0)
		fail_msg("input <%s>\nwant <%s>\ngot  <%s>", text, want, got);
	free(got);
	ep_props_clear(&p);
}

static void
test_props(void **state)
{
	(void)state;
	props_are("", "");
	props_are("a=1\nb: 2\nc 3\n  d\t=\t4  \n", "a=1@1|b=2@2|c=3@3|d=4  @4|");
	props_are("# c\n! c\n\n  #c=1\ne=", "e=@5|");
	props_are("k\n", "k=@1|");
	props_are("a=1\\\n   2\\\n 3\nb=4", "a=123@1|b=4@4|");
	props_are("a=x\\\\\nb=y", "a=x\\@1|b=y@2|");
	props_are("a\\=b=c\\:d\\ e", "a=b=c:d e@1|");
	props_are("a\\ b:\\t\\n\\u00e9\\q", "a b=\t\n\xc3\xa9q@1|");
	props_are("a=1\r\nb=2\rc=3", "a=1@1|b=2@2|c=3@3|");
	props_are("a=1\na=2\nb=3", "a=2@2|b=3@3|");
	props_are("# a comment \\\nx=1", "x=1@2|");
	props_are("a=\\u00", "!c.properties:1: a malformed \\uxxxx escape");
	props_are("a=1\n\nb=\\uzzzz", "!c.properties:3: a malformed \\uxxxx "
	    "escape");
	props_are("a=1\\", "a=1@1|");
}

static void
test_torchserve(void **state)
{
	struct ep_props p = { 0 };
	struct ep_serving_facts f = { 0 };
	struct ep_err err = { 0 };
	const char *t = "job_queue_size=100\nkeystore_pass=changeit\n"
	    "keystore_pass_empty=\nmodels={\\\n \"m.1\": {\\\n  \"1.0\": {"
	    "\"batchSize\": 8, \"maxBatchDelay\": 50, \"defaultVersion\": "
	    "true, \"marName\": \"m.mar\", \"x\": [1, \"a\"], \"y\": {}, "
	    "\"authToken\": \"s3cr3t\"}}}\n";
	char *all = NULL;
	size_t len;
	FILE *fp;

	(void)state;
	assert_int_equal(ep_props_parse(&p, t, strlen(t), "c", &err), 0);
	assert_int_equal(ep_serving_torchserve_facts(&f, &p, "c", &err), 0);
	fp = open_memstream(&all, &len);
	for (size_t i = 0; i < f.keys.n; i++)
		fprintf(fp, "%s=%s\n", f.keys.v[i], f.vals.v[i]);
	fclose(fp);
	assert_string_equal(all,
	    "serving.torchserve.job_queue_size=100\n"
	    "serving.torchserve.keystore_pass=set\n"
	    "serving.torchserve.keystore_pass_empty=empty\n"
	    "serving.m%2E1.1%2E0.batchSize=8\n"
	    "serving.m%2E1.1%2E0.maxBatchDelay=50\n"
	    "serving.m%2E1.1%2E0.defaultVersion=true\n"
	    "serving.m%2E1.1%2E0.marName=m.mar\n"
	    "serving.m%2E1.1%2E0.x[0]=1\n"
	    "serving.m%2E1.1%2E0.x[1]=a\n"
	    "serving.m%2E1.1%2E0.y={}\n"
	    "serving.m%2E1.1%2E0.authToken=set\n");
	assert_null(strstr(all, "changeit"));
	assert_null(strstr(all, "s3cr3t"));
	free(all);
	ep_serving_facts_clear(&f);
	ep_props_clear(&p);

	t = "a=1\nmodels={\\\n \"m\": 1}\n";
	assert_int_equal(ep_props_parse(&p, t, strlen(t), "c", &err), 0);
	assert_int_equal(ep_serving_torchserve_facts(&f, &p, "c", &err), -1);
	assert_string_equal(err.msg, "c:2: property 'models': a model whose "
	    "value is not an object of versions");
	ep_serving_facts_clear(&f);
	ep_props_clear(&p);
	t = "models={\"m\": \n";
	assert_int_equal(ep_props_parse(&p, t, strlen(t), "c", &err), 0);
	assert_int_equal(ep_serving_torchserve_facts(&f, &p, "c", &err), -1);
	assert_string_equal(err.msg, "c:1: property 'models' is not JSON "
	    "(line 1, column 6 of its value)");
	ep_serving_facts_clear(&f);
	ep_props_clear(&p);
}

static void
test_fingerprint(void **state)
{
	struct ep_fingerprint fp;
	struct ep_err err = { 0 };
	char *buf;
	size_t len;
	/* Fields 2 and 1 in order, an unknown field 9 of each wire type. */
	const unsigned char small[] = { 0x10, 0x05, 0x08, 0x07, 0x48, 0x01,
	    0x49, 1, 2, 3, 4, 5, 6, 7, 8, 0x4a, 0x01, 0xff, 0x4d, 1, 2, 3, 4,
	    0x32, 0x04, 0x08, 0x02, 0x10, 0x01 };
	const unsigned char bad_len[] = { 0x32, 0x05, 0x08, 0x01 };
	const unsigned char bad_wt[] = { 0x08 | 0x02, 0x00 };
	const unsigned char group[] = { 0x4b };
	const unsigned char long_varint[] = { 0x08, 0xff, 0xff, 0xff, 0xff,
	    0xff, 0xff, 0xff, 0xff, 0xff, 0x02 };

	(void)state;
	assert_int_equal(ep_read_file(&buf, &len, FIX "/saved_model_half_"
	    "plus_two_tf2_cpu/00000123/fingerprint.pb", 4096, &err), 0);
	assert_int_equal(ep_serving_fingerprint(&fp, (unsigned char *)buf,
	    len, "fp", &err), 0);
	assert_true(fp.saved_model_checksum == 3202314178945370836ULL);
	assert_true(fp.graph_def_program_hash == 13265581747292989307ULL);
	assert_true(fp.signature_def_hash == 3442878103270210563ULL);
	assert_true(fp.saved_object_graph_hash == 16227935890437681837ULL);
	assert_true(fp.checkpoint_hash == 17568057568585441542ULL);
	assert_true(fp.producer == 1);
	free(buf);

	assert_int_equal(ep_serving_fingerprint(&fp, small, sizeof small,
	    "s", &err), 0);
	assert_true(fp.graph_def_program_hash == 5 &&
	    fp.saved_model_checksum == 7 && fp.producer == 2);
	assert_int_equal(ep_serving_fingerprint(&fp, bad_len, sizeof bad_len,
	    "b", &err), -1);
	assert_string_equal(err.msg, "b: not a SavedModel fingerprint (a "
	    "malformed protobuf FingerprintDef at byte 2)");
	assert_int_equal(ep_serving_fingerprint(&fp, bad_wt, sizeof bad_wt,
	    "b", &err), -1);
	assert_int_equal(ep_serving_fingerprint(&fp, group, sizeof group,
	    "b", &err), -1);
	assert_int_equal(ep_serving_fingerprint(&fp, long_varint,
	    sizeof long_varint, "b", &err), -1);
	assert_true(fp.checkpoint_hash == 0);
}

/* The collector on paths; *mp gets the manifest (or NULL on failure). */
static int
collect(struct ep_manifest **mp, struct ep_err *err, const char *const *paths,
    size_t n)
{
	struct ep_capture_opts o = { 0 };
	struct ep_collect c = { 0 };
	int rc;

	for (size_t i = 0; i < n; i++)
		ep_strv_push(&o.servings, paths[i]);
	c.opts = &o;
	c.m = ep_manifest_new();
	memset(err, 0, sizeof *err);
	rc = ep_collect_serving(&c, err);
	ep_strv_clear(&o.servings);
	if (rc < 0) {
		ep_manifest_free(c.m);
		c.m = NULL;
	}
	*mp = c.m;
	return rc;
}

static void
write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static void
test_collect(void **state)
{
	struct ep_manifest *m = NULL;
	struct ep_err err;
	const char *paths[3];
	char *p, *q, *r;

	(void)state;
	/* A repository: every model, its versions. */
	paths[0] = FIX "/triton";
	paths[1] = FIX "/tfserving/batching_parameters.txt";
	assert_int_equal(collect(&m, &err, paths, 2), 0);
	assert_string_equal(ep_manifest_get(m, "serving.bert_base_trt_gpu."
	    "dynamic_batching.max_queue_delay_microseconds"), "200000");
	assert_string_equal(ep_manifest_get(m, "serving.bert_base_trt_gpu."
	    "instance_group[0].count"), "2");
	assert_string_equal(ep_manifest_get(m, "serving.densenet_onnx."
	    "versions"), "1");
	assert_string_equal(ep_manifest_get(m, "serving.densenet_onnx."
	    "input[0].dims"), "3,224,224");
	assert_string_equal(ep_manifest_get(m, "serving.batching."
	    "num_batch_threads"), "8");
	ep_manifest_free(m);

	/* A model folder, named after the folder; version folders counted
	 * by number, "0..." and non-numbers left out. */
	p = xasprintf("%s/my_model", tmpdir);
	assert_int_equal(mkdir(p, 0755), 0);
	q = xasprintf("%s/config.pbtxt", p);
	write_file(q, "backend: 'python'\nmax_batch_size: 8\n");
	for (size_t i = 0; i < 5; i++) {
		static const char *const v[] = { "10", "2", "01", "x", "3" };
		char *d = xasprintf("%s/%s", p, v[i]);

		assert_int_equal(mkdir(d, 0755), 0);
		free(d);
	}
	paths[0] = p;
	assert_int_equal(collect(&m, &err, paths, 1), 0);
	assert_string_equal(ep_manifest_get(m, "serving.my_model.versions"),
	    "2,3,10");
	assert_string_equal(ep_manifest_get(m, "serving.my_model.backend"),
	    "python");
	ep_manifest_free(m);
	/* The config.pbtxt alone: the same. */
	paths[0] = q;
	assert_int_equal(collect(&m, &err, paths, 1), 0);
	assert_string_equal(ep_manifest_get(m, "serving.my_model.versions"),
	    "2,3,10");
	ep_manifest_free(m);

	/* Two configs of one name in one file. */
	r = xasprintf("%s/models.config", tmpdir);
	write_file(r, "model_config_list { config { name: 'a' base_path: '/a' } "
	    "config { name: 'a' base_path: '/b' } }");
	paths[0] = r;
	assert_int_equal(collect(&m, &err, paths, 1), -1);
	assert_null(m);
	assert_non_null(strstr(err.msg, "serving.a.name is given twice"));
	unlink(r);
	free(r);

	/* One model twice. */
	paths[0] = p;
	paths[1] = q;
	assert_int_equal(collect(&m, &err, paths, 2), -1);
	assert_non_null(strstr(err.msg, "serving.my_model.backend is given "
	    "twice"));

	/* A malformed file: the line, nothing kept. */
	write_file(q, "backend: 'python'\nmax_batch_size 8\n");
	paths[0] = p;
	assert_int_equal(collect(&m, &err, paths, 1), -1);
	assert_null(m);
	assert_non_null(strstr(err.msg, "/my_model/config.pbtxt:2: field "
	    "'max_batch_size': expected ':' or '{'"));
	free(q);

	/* A repository without a model; a folder without a config said. */
	paths[0] = tmpdir;
	q = xasprintf("%s/my_model/config.pbtxt", tmpdir);
	unlink(q);
	free(q);
	assert_int_equal(collect(&m, &err, paths, 1), -1);
	assert_non_null(strstr(err.msg, ": no config.pbtxt in the folder or "
	    "its model folders"));

	/* A FIFO where a config.pbtxt would be is no model (and no hang). */
	q = xasprintf("%s/fifo_model", tmpdir);
	r = xasprintf("%s/config.pbtxt", q);
	assert_int_equal(mkdir(q, 0755), 0);
	assert_int_equal(mkfifo(r, 0644), 0);
	paths[0] = q;
	assert_int_equal(collect(&m, &err, paths, 1), -1);
	assert_non_null(strstr(err.msg, "/fifo_model: no config.pbtxt in the "
	    "folder or its model folders"));
	unlink(r);
	free(r);
	free(q);

	/* A file in no known format, and one missing. */
	q = xasprintf("%s/other.txt", tmpdir);
	write_file(q, "foo: 1\n");
	paths[0] = q;
	assert_int_equal(collect(&m, &err, paths, 1), -1);
	assert_non_null(strstr(err.msg, "/other.txt: not a serving "
	    "configuration envparity reads"));
	paths[0] = "/nonexistent/config.pbtxt";
	assert_int_equal(collect(&m, &err, paths, 1), -1);
	assert_string_equal(err.msg, "--serving /nonexistent/config.pbtxt: "
	    "No such file or directory");
	free(q);
	free(p);
}

static void
test_fingerprints(void **state)
{
	struct ep_capture_opts o = { 0 };
	struct ep_collect c = { 0 };
	struct ep_err err = { 0 };
	char *bad = xasprintf("%s/bad", tmpdir), *f;
	const char *k = "artifact." FIX "/saved_model_half_plus_two_tf2_cpu/"
	    "00000123.fingerprint.";
	char key[256];

	(void)state;
	ep_strv_push(&o.artifacts, FIX "/saved_model_half_plus_two_tf2_cpu/"
	    "00000123/");
	ep_strv_push(&o.artifacts, FIX "/torchserve/config.properties");
	ep_strv_push(&o.artifacts, FIX "/triton");
	c.opts = &o;
	c.m = ep_manifest_new();
	assert_int_equal(ep_collect_fingerprints(&c, &err), 0);
	snprintf(key, sizeof key, "%ssingleprint", k);
	assert_string_equal(ep_manifest_get(c.m, key), "13265581747292989307/"
	    "3442878103270210563/16227935890437681837/17568057568585441542");
	snprintf(key, sizeof key, "%ssaved_model_checksum", k);
	assert_string_equal(ep_manifest_get(c.m, key), "3202314178945370836");
	snprintf(key, sizeof key, "%sproducer", k);
	assert_string_equal(ep_manifest_get(c.m, key), "1");
	assert_null(ep_manifest_get(c.m, "artifact." FIX "/triton."
	    "fingerprint.producer"));
	ep_manifest_free(c.m);
	ep_strv_clear(&o.artifacts);

	assert_int_equal(mkdir(bad, 0755), 0);
	f = xasprintf("%s/fingerprint.pb", bad);
	write_file(f, "\x0f");
	ep_strv_push(&o.artifacts, bad);
	c.m = ep_manifest_new();
	assert_int_equal(ep_collect_fingerprints(&c, &err), -1);
	assert_non_null(strstr(err.msg, "/bad/fingerprint.pb: not a "
	    "SavedModel fingerprint"));
	ep_manifest_free(c.m);
	ep_strv_clear(&o.artifacts);
	free(f);
	free(bad);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_kind),
		cmocka_unit_test(test_names),
		cmocka_unit_test(test_triton_facts),
		cmocka_unit_test(test_tfs_facts),
		cmocka_unit_test(test_props),
		cmocka_unit_test(test_torchserve),
		cmocka_unit_test(test_fingerprint),
		cmocka_unit_test(test_collect),
		cmocka_unit_test(test_fingerprints),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
