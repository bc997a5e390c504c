/*
 * opt.c: the one parser of the command line, and the help and option
 * list rendered from the same tables (opt.h).  getopt_long does the
 * scanning (abbreviations, "-qo FILE", "--json=FILE", permutation); its
 * table and option string are built from the command's declared one
 * each time, so nothing is declared twice.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "opt.h"
#include "strv.h"
#include "xalloc.h"

/* The help's second column (after tmux's and GNU's: a name that does
 * not leave two spaces before it takes the line's rest). */
#define HELP_COL	23

struct flat {
	const struct ep_opt **v;
	size_t *base;
	const struct ep_optgroup **from;
	size_t n, cap;
};

static void
flatten(struct flat *fl, const struct ep_opt *t, size_t base,
    const struct ep_optgroup *g)
{
	for (const struct ep_opt *o = t; o->kind != EP_OPTK_END; o++) {
		if (o->kind == EP_OPTK_GROUP) {
			flatten(fl, o->group->opts, base + o->off, o->group);
			continue;
		}
		if (o->kind == EP_OPTK_TEXT)
			continue;
		if (fl->n == fl->cap) {
			fl->cap = fl->cap ? 2 * fl->cap : 32;
			fl->v = xreallocarray(fl->v, fl->cap, sizeof *fl->v);
			fl->base = xreallocarray(fl->base, fl->cap,
			    sizeof *fl->base);
			fl->from = xreallocarray(fl->from, fl->cap,
			    sizeof *fl->from);
		}
		fl->v[fl->n] = o;
		fl->base[fl->n] = base;
		fl->from[fl->n++] = g;
	}
}

void
ep_opt_flatten(const struct ep_opt ***out, size_t **base,
    const struct ep_optgroup ***from, size_t *n, const struct ep_cmd *self)
{
	struct flat fl = { 0 };

	if (self->opts != NULL)
		flatten(&fl, self->opts, 0, NULL);
	*out = fl.v;
	*base = fl.base;
	*from = fl.from;
	*n = fl.n;
}

int
ep_opt_code(const struct ep_opt *o, size_t i)
{
	return o->letter != 0 ? (unsigned char)o->letter : 0x100 + (int)i;
}

static int
apply(const struct ep_opt *o, void *field, const char *arg,
    struct ep_err *err)
{
	switch (o->kind) {
	case EP_OPTK_FLAG:
		*(int *)field = o->set;
		return 0;
	case EP_OPTK_STR:
		*(const char **)field = arg;
		return 0;
	case EP_OPTK_STRV:
		ep_strv_push(field, arg);
		return 0;
	case EP_OPTK_FN:
		return o->fn(field, arg, err);
	default:
		return 0;
	}
}

/* getopt_long's table and option string for the flattened options. */
static char *
getopt_tables(struct option **longopts, const struct ep_cmd *self,
    const struct ep_opt *const *v, size_t n)
{
	char *s = xmalloc(3 * n + 3), *p = s;
	struct option *lo = xcalloc(n + 1, sizeof *lo);

	if (self->in_order)
		*p++ = '+';
	*p++ = ':';
	for (size_t i = 0; i < n; i++) {
		lo[i].name = v[i]->name;
		lo[i].has_arg = v[i]->arg == EP_ARG_NONE ? no_argument :
		    v[i]->arg == EP_ARG_REQUIRED ? required_argument :
		    optional_argument;
		lo[i].val = ep_opt_code(v[i], i);
		if (v[i]->letter == 0)
			continue;
		*p++ = v[i]->letter;
		if (v[i]->arg != EP_ARG_NONE)
			*p++ = ':';
		if (v[i]->arg == EP_ARG_OPTIONAL)
			*p++ = ':';
	}
	*p = '\0';
	*longopts = lo;
	return s;
}

static ssize_t
find_code(const struct ep_opt *const *v, size_t n, int c)
{
	for (size_t i = 0; i < n; i++)
		if (ep_opt_code(v[i], i) == c)
			return (ssize_t)i;
	return -1;
}

int
ep_opt_parse(struct ep_cmd_args *args, int *exit_code,
    const struct ep_cmd *self, void *st, int argc, char **argv)
{
	const struct ep_opt **v;
	const struct ep_optgroup **from;
	struct option *longopts = NULL;
	struct ep_err err = { 0 };
	size_t *base, n;
	char *optstr;
	ssize_t i;
	int c, rc = -1;

	memset(args, 0, sizeof *args);
	*exit_code = EP_EXIT_OK;
	ep_opt_flatten(&v, &base, &from, &n, self);
	optstr = getopt_tables(&longopts, self, v, n);
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, optstr, longopts, NULL)) != -1) {
		if ((i = find_code(v, n, c)) < 0) {
			*exit_code = ep_cmd_bad_option(self, c, longopts, argv);
			goto done;
		}
		if (v[i]->kind == EP_OPTK_HELP) {
			ep_opt_help(stdout, self);
			*exit_code = EP_EXIT_OK;
			goto done;
		}
		if (apply(v[i], (char *)st + base[i] + v[i]->off, optarg,
		    &err) < 0) {
			*exit_code = ep_cmd_usage_error(self, "%s", err.msg);
			goto done;
		}
		if (from[i] != NULL)
			args->groups |= from[i]->bit;
	}
	args->v = argv + optind;
	args->n = argc - optind;
	if (self->max_operands >= 0 && args->n > self->max_operands) {
		*exit_code = ep_cmd_usage_error(self, "unexpected argument "
		    "'%s'", args->v[self->max_operands]);
		goto done;
	}
	rc = 0;
done:
	free(optstr);
	free(longopts);
	free(v);
	free(base);
	free(from);
	return rc;
}

/* Lines after the first of an option's help start at the second
 * column. */
static void
help_text(FILE *f, const char *text)
{
	const char *nl;

	while ((nl = strchr(text, '\n')) != NULL) {
		fprintf(f, "%.*s\n%*s", (int)(nl - text), text, HELP_COL, "");
		text = nl + 1;
	}
	fprintf(f, "%s\n", text);
}

static void
help_line(FILE *f, const struct ep_opt *o)
{
	char left[128], letter[8] = "";
	int len;

	if (o->letter)
		snprintf(letter, sizeof letter, "-%c, ", o->letter);
	len = snprintf(left, sizeof left, "  %s--%s%s%s%s", letter, o->name,
	    o->arg == EP_ARG_OPTIONAL ? "[=" : o->value ? " " : "",
	    o->value ? o->value : "", o->arg == EP_ARG_OPTIONAL ? "]" : "");
	if (len <= HELP_COL - 2)
		fprintf(f, "%-*s", HELP_COL, left);
	else
		fprintf(f, "%s  ", left);
	help_text(f, o->help != NULL ? o->help : "");
}

static void
help_table(FILE *f, const struct ep_opt *t)
{
	for (const struct ep_opt *o = t; o->kind != EP_OPTK_END; o++) {
		if (o->kind == EP_OPTK_GROUP) {
			if (o->group->heading != NULL)
				fprintf(f, "\n%s\n", o->group->heading);
			help_table(f, o->group->opts);
			if (o->group->footer != NULL)
				fprintf(f, "%s\n", o->group->footer);
			if (o->help != NULL)
				fprintf(f, "%s\n", o->help);
		} else if (o->kind == EP_OPTK_TEXT)
			fprintf(f, "%s\n", o->help);
		else if (!o->hidden)
			help_line(f, o);
	}
}

void
ep_opt_help(FILE *f, const struct ep_cmd *self)
{
	const char *ex;

	fputs(self->usage, f);
	if (self->opts != NULL)
		help_table(f, self->opts);
	if ((ex = ep_cmd_examples(self)) != NULL)
		fprintf(f, "\nExamples:\n%s", ex);
	if (self->footer != NULL)
		fprintf(f, "\n%s", self->footer);
}

void
ep_opt_list(FILE *f, const struct ep_cmd *self)
{
	const struct ep_opt **v;
	const struct ep_optgroup **from;
	size_t *base, n;

	ep_opt_flatten(&v, &base, &from, &n, self);
	for (size_t i = 0; i < n; i++) {
		if (v[i]->hidden)
			continue;
		if (v[i]->letter)
			fprintf(f, "-%c ", v[i]->letter);
		fprintf(f, "--%s", v[i]->name);
		if (v[i]->arg != EP_ARG_NONE)
			fprintf(f, " %s", v[i]->value ? v[i]->value : "VALUE");
		if (from[i] != NULL)
			fprintf(f, " (%s)", from[i]->name);
		fputc('\n', f);
	}
	free(v);
	free(base);
	free(from);
}
