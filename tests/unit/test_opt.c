/*
 * test_opt.c: the command layer's option tables and their parser
 * (checker/opt.c): no two options of a command share a long name, a
 * short letter or a getopt code; every option the help shows is in it,
 * aligned; the parser fills the fields, marks the groups given, stops
 * at a bad value and at --help with the documented exit codes; the
 * report options are the report writers.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "opt.h"
#include "report.h"
#include "storeopt.h"

/* Every command: names, letters and codes unique; a value's kind and
 * its name agree; what is shown has help. */
static void
test_tables_unique(void **state)
{
	const struct ep_opt **v;
	const struct ep_optgroup **from;
	size_t *base, n, ncmd = 0;

	(void)state;
	for (size_t c = 0; ep_cmd_table[c] != NULL; c++, ncmd++) {
		const struct ep_cmd *cmd = ep_cmd_table[c];

		ep_opt_flatten(&v, &base, &from, &n, cmd);
		assert_true(n > 0);
		for (size_t i = 0; i < n; i++) {
			assert_non_null(v[i]->name);
			assert_true(v[i]->kind != EP_OPTK_END);
			if (!v[i]->hidden) {
				assert_non_null(v[i]->help);
				/* Shown values are named. */
				assert_true((v[i]->arg == EP_ARG_NONE) ==
				    (v[i]->value == NULL));
			}
			if (v[i]->kind == EP_OPTK_STR ||
			    v[i]->kind == EP_OPTK_STRV)
				assert_int_equal(v[i]->arg, EP_ARG_REQUIRED);
			if (v[i]->kind == EP_OPTK_FN)
				assert_non_null(v[i]->fn);
			for (size_t k = 0; k < i; k++) {
				if (strcmp(v[i]->name, v[k]->name) == 0)
					fail_msg("%s: --%s twice", cmd->name,
					    v[i]->name);
				if (v[i]->letter && v[i]->letter ==
				    v[k]->letter)
					fail_msg("%s: -%c twice", cmd->name,
					    v[i]->letter);
				if (ep_opt_code(v[i], i) == ep_opt_code(v[k], k))
					fail_msg("%s: --%s and --%s share a "
					    "code", cmd->name, v[i]->name,
					    v[k]->name);
			}
		}
		free(v);
		free(base);
		free(from);
	}
	assert_int_equal(ncmd, 15);
}

/* The help of every command names each option it shows once, at the
 * start of a line, its help at the second column. */
static void
test_help_lists_every_option(void **state)
{
	const struct ep_opt **v;
	const struct ep_optgroup **from;
	size_t *base, n, len;
	char *text, *line, want[96];
	FILE *f;

	(void)state;
	for (size_t c = 0; ep_cmd_table[c] != NULL; c++) {
		const struct ep_cmd *cmd = ep_cmd_table[c];

		f = open_memstream(&text, &len);
		ep_opt_help(f, cmd);
		fclose(f);
		ep_opt_flatten(&v, &base, &from, &n, cmd);
		for (size_t i = 0; i < n; i++) {
			if (v[i]->hidden)
				continue;
			if (v[i]->letter)
				snprintf(want, sizeof want, "\n  -%c, --%s",
				    v[i]->letter, v[i]->name);
			else
				snprintf(want, sizeof want, "\n  --%s",
				    v[i]->name);
			if ((line = strstr(text, want)) == NULL)
				fail_msg("%s --help lacks %s", cmd->name,
				    want + 1);
			/* The name, its value, then the help at column 23,
			 * or two spaces after a longer name. */
			line++;
			len = strlen(want) - 1;
			if (v[i]->value != NULL) {
				assert_int_equal(line[len], ' ');
				assert_int_equal(strncmp(line + len + 1,
				    v[i]->value, strlen(v[i]->value)), 0);
				len += 1 + strlen(v[i]->value);
			}
			if (len <= 21)
				assert_true(strspn(line + len, " ") ==
				    23 - len && line[23] != '\n');
			else
				assert_true(strncmp(line + len, "  ", 2) == 0 &&
				    line[len + 2] != ' ');
		}
		assert_int_equal(strncmp(text, "usage: envparity ", 17), 0);
		free(v);
		free(base);
		free(from);
		free(text);
	}
}

/* A command of the test's own, with a group. */
struct t_opts {
	struct ep_reportopt ropt;
	const char *out;
	int quiet;
	int expiry;
	struct ep_strv many;
};

#define TO struct t_opts
static const struct ep_opt t_table[] = {
	EP_OPT_STR("output", 'o', "FILE", TO, out, "write there"),
	EP_OPT_FLAG("quiet", 'q', TO, quiet, "say less"),
	EP_OPT_FN("expiry-warning", 0, "DAYS", TO, expiry, ep_og_expiry,
	    "warn early"),
	EP_OPT_STRV("many", 0, "X", TO, many, "repeatable"),
	EP_OPT_HELP,
	EP_OPT_GROUP(ep_og_report, TO, ropt, NULL),
	EP_OPT_END,
};
#undef TO

static const struct ep_cmd t_cmd = {
	.name = "t",
	.usage = "usage: envparity t\n\n",
	.opts = t_table,
	.max_operands = 1,
};

static int
parse(struct ep_cmd_args *args, struct t_opts *o, int *rc, int argc,
    char **argv)
{
	memset(o, 0, sizeof *o);
	o->expiry = 14;
	return ep_opt_parse(args, rc, &t_cmd, o, argc, argv);
}

static void
test_parse(void **state)
{
	char *ok[] = { "t", "-qo", "out.json", "--json=r.json", "--many", "a",
	    "--many", "b", "--expiry-warning", "3", "operand", NULL };
	char *bad_value[] = { "t", "--expiry-warning", "soon", NULL };
	char *unknown[] = { "t", "--jsn", "x", NULL };
	char *two[] = { "t", "a", "b", NULL };
	char *help[] = { "t", "--he", NULL };
	struct ep_cmd_args args;
	struct t_opts o;
	int rc = -7;

	(void)state;
	assert_int_equal(parse(&args, &o, &rc, 11, ok), 0);
	assert_int_equal(rc, EP_EXIT_OK);
	assert_int_equal(o.quiet, 1);
	assert_string_equal(o.out, "out.json");
	assert_string_equal(o.ropt.json, "r.json");
	assert_int_equal(o.many.n, 2);
	assert_string_equal(o.many.v[1], "b");
	assert_int_equal(o.expiry, 3);
	assert_int_equal(args.n, 1);
	assert_string_equal(args.v[0], "operand");
	assert_true(args.groups & EP_OG_REPORT);
	assert_false(args.groups & EP_OG_STORE);
	ep_strv_clear(&o.many);

	assert_int_equal(parse(&args, &o, &rc, 3, bad_value), -1);
	assert_int_equal(rc, EP_EXIT_USAGE);
	assert_int_equal(parse(&args, &o, &rc, 3, unknown), -1);
	assert_int_equal(rc, EP_EXIT_USAGE);
	assert_int_equal(parse(&args, &o, &rc, 3, two), -1);
	assert_int_equal(rc, EP_EXIT_USAGE);
	rc = -7;
	assert_int_equal(parse(&args, &o, &rc, 2, help), -1);
	assert_int_equal(rc, EP_EXIT_OK);
}

/* The report options and the writers (reports.c's ep_report_writers)
 * are one list: each writer has its option, "--NAME FILE" filling the
 * path the writer reads, and the group has no report option without a
 * writer. */
static void
test_report_options_are_writers(void **state)
{
	const struct ep_opt *opt;
	size_t nopts = 0;

	(void)state;
	for (opt = ep_og_report.opts; opt->kind != EP_OPTK_END; opt++)
		if (opt->kind == EP_OPTK_STR)
			nopts++;
	assert_int_equal(nopts, EP_REPORT_NFORMATS);
	for (int f = 0; f < EP_REPORT_NFORMATS; f++) {
		const struct ep_report_writer *w = &ep_report_writers[f];
		const struct ep_opt *found = NULL;
		char flag[64];

		for (opt = ep_og_report.opts; opt->kind != EP_OPTK_END; opt++)
			if (opt->name != NULL && strcmp(opt->name, w->name) == 0)
				found = opt;
		assert_non_null(found);
		assert_int_equal(found->kind, EP_OPTK_STR);
		assert_int_equal(found->off, w->path_offset);
		snprintf(flag, sizeof(flag), "--%s", found->name);
		assert_string_equal(flag, w->option);
	}
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_tables_unique),
		cmocka_unit_test(test_help_lists_every_option),
		cmocka_unit_test(test_parse),
		cmocka_unit_test(test_report_options_are_writers),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
