/*
 * fuzz_textproto.c: the protobuf text format reader (collect/textproto.h)
 * on any bytes.  Beyond textproto.h's promises (a name is an identifier,
 * an integer is decimal, a message value has its message): a tree that
 * is read, written back as text format (every string byte escaped as
 * \ooo), reads back as the same tree; a failure leaves no tree and a
 * message naming the input.
 *
 * Built with driver.c, `fuzz_textproto --dump FILE...` prints each
 * file's tree as one JSON line ({"file":..., "fields":[...]} or
 * {"file":..., "error":...}; string values in hex) for
 * tests/cli/textproto_diff.py, which holds them to python3-protobuf's
 * text_format.
 */
#include "fuzz.h"
#include "textproto.h"

static int dump;

static void
emit(FILE *f, const struct ep_tp_msg *m, int bytes_escaped)
{
	for (size_t i = 0; i < m->n; i++) {
		const struct ep_tp_field *x = &m->v[i];

		fprintf(f, "%s", x->name);
		if (x->kind == EP_TP_MSG) {
			fputs(" {", f);
			emit(f, x->msg, bytes_escaped);
			fputs("}\n", f);
			continue;
		}
		fputs(": ", f);
		if (x->kind == EP_TP_STR) {
			fputc('"', f);
			for (size_t j = 0; j < x->len; j++)
				fprintf(f, "\\%03o", (unsigned char)x->value[j]);
			fputc('"', f);
		} else
			fputs(x->value, f);
		fputc('\n', f);
	}
}

static int
same(const struct ep_tp_msg *a, const struct ep_tp_msg *b)
{
	if (a->n != b->n)
		return 0;
	for (size_t i = 0; i < a->n; i++) {
		const struct ep_tp_field *x = &a->v[i], *y = &b->v[i];

		if (strcmp(x->name, y->name) != 0 || x->kind != y->kind)
			return 0;
		if (x->kind == EP_TP_MSG ? !same(x->msg, y->msg) :
		    x->len != y->len || memcmp(x->value, y->value, x->len) != 0)
			return 0;
	}
	return 1;
}

static void
check(const struct ep_tp_msg *m)
{
	for (size_t i = 0; i < m->n; i++) {
		const struct ep_tp_field *x = &m->v[i];
		const char *v = x->value;

		FZ_CHECK(x->name[0] != '\0' && strspn(x->name, "abcdefghijklm"
		    "nopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ_0123456789") ==
		    strlen(x->name) && !(x->name[0] >= '0' && x->name[0] <= '9'));
		FZ_CHECK((x->kind == EP_TP_MSG) == (x->msg != NULL));
		if (x->kind == EP_TP_MSG)
			check(x->msg);
		else if (x->kind == EP_TP_INT) {
			if (*v == '-')
				v++;
			FZ_CHECK(*v != '\0' && strspn(v, "0123456789") ==
			    strlen(v) && (v[0] != '0' || v[1] == '\0'));
			FZ_CHECK(strlen(v) <= 20);
		} else
			FZ_CHECK(v != NULL && v[x->len] == '\0');
	}
}

static void
json_tree(const struct ep_tp_msg *m)
{
	static const char *const kinds[] = { "msg", "str", "int", "float",
	    "ident" };

	putchar('[');
	for (size_t i = 0; i < m->n; i++) {
		const struct ep_tp_field *x = &m->v[i];

		printf("%s{\"name\":\"%s\",\"kind\":\"%s\",", i ? "," : "",
		    x->name, kinds[x->kind]);
		if (x->kind == EP_TP_MSG) {
			fputs("\"fields\":", stdout);
			json_tree(x->msg);
		} else {
			fputs("\"hex\":\"", stdout);
			for (size_t j = 0; j < x->len; j++)
				printf("%02x", (unsigned char)x->value[j]);
			putchar('"');
		}
		putchar('}');
	}
	putchar(']');
}

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	if (*argc > 1 && strcmp((*argv)[1], "--dump") == 0) {
		dump = 1;
		(*argv)[1] = (*argv)[0];
		(*argc)--;
		(*argv)++;
	}
	return 0;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ep_tp_msg *m = NULL, *again = NULL;
	struct ep_err err = { 0 };
	char *text = NULL;
	size_t len = 0;
	FILE *f;
	int rc;

	rc = ep_textproto_parse(&m, (const char *)data, size, "fuzz", &err);
	if (dump) {
		fputs("{\"ok\":", stdout);
		if (rc == 0) {
			fputs("true,\"fields\":", stdout);
			json_tree(m);
		} else
			fputs("false", stdout);
		fputs("}\n", stdout);
	}
	if (rc < 0) {
		FZ_CHECK(m == NULL && err.kind == EP_E_INPUT &&
		    strncmp(err.msg, "fuzz:", 5) == 0);
		return 0;
	}
	check(m);
	FZ_CHECK((f = open_memstream(&text, &len)) != NULL);
	emit(f, m, 1);
	fclose(f);
	rc = ep_textproto_parse(&again, text, len, "again", &err);
	if (rc < 0)
		fprintf(stderr, "%s\n", err.msg);
	FZ_CHECK(rc == 0 && same(m, again));
	free(text);
	ep_textproto_free(again);
	ep_textproto_free(m);
	return 0;
}
