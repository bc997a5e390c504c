/*
 * lockfile.c: the choice of format, by file name or (for a file the user
 * named) by what it contains, and the dispatch to the parsers:
 * requirements files (lockfile_req.c), poetry.lock, uv.lock, pdm.lock and
 * pylock.toml (lockfile_toml.c, their TOML in lockfile_tomlsyn.c),
 * Pipfile.lock (lockfile_pipfile.c), conda explicit files
 * (lockfile_conda.c), conda-lock.yml and pixi.lock (lockfile_yaml.c).
 * Under them: the pin list (lockfile_pins.c) and the text
 * (lockfile_text.c).
 */
#include "lockfile.h"
#include "errors.h"
#include "str.h"

#include <string.h>

enum ep_lock_format
ep_lock_format_of(const char *path)
{
	const char *b = strrchr(path, '/');

	b = b != NULL ? b + 1 : path;
	if (strcmp(b, "poetry.lock") == 0)
		return EP_LOCK_POETRY;
	if (strcmp(b, "uv.lock") == 0)
		return EP_LOCK_UV;
	if (strcmp(b, "Pipfile.lock") == 0)
		return EP_LOCK_PIPFILE;
	if (strcmp(b, "pdm.lock") == 0)
		return EP_LOCK_PDM;
	if (strcmp(b, "pixi.lock") == 0)
		return EP_LOCK_PIXI;
	/* PEP 751: pylock.toml, or pylock.NAME.toml with no dot in NAME. */
	if (strcmp(b, "pylock.toml") == 0 || (ep_startswith(b, "pylock.") &&
	    ep_endswith(b, ".toml") && strlen(b) > strlen("pylock..toml") &&
	    strchr(b + strlen("pylock."), '.') == b + strlen(b) - 5))
		return EP_LOCK_PYLOCK;
	/* conda-lock's default name, and NAME.conda-lock.yml. */
	if (strcmp(b, "conda-lock.yml") == 0 ||
	    ep_endswith(b, ".conda-lock.yml"))
		return EP_LOCK_CONDA_LOCK;
	/* Before requirements*.txt: "requirements.explicit.txt" is conda. */
	if (ep_endswith(b, ".explicit.txt") ||
	    (ep_startswith(b, "conda-") && ep_endswith(b, ".lock") &&
	    strlen(b) > strlen("conda-.lock")))
		return EP_LOCK_CONDA;
	if (ep_startswith(b, "requirements") && ep_endswith(b, ".txt"))
		return EP_LOCK_REQUIREMENTS;
	return EP_LOCK_OTHER;
}

/* 1 if the n bytes of a line at s start with word, then any blanks, then
 * sep (0: nothing more is asked). */
static int
line_key(const char *s, size_t n, const char *word, char sep)
{
	size_t w = strlen(word);

	if (n < w || memcmp(s, word, w) != 0)
		return 0;
	if (sep == 0)
		return 1;
	while (w < n && (s[w] == ' ' || s[w] == '\t'))
		w++;
	return w < n && s[w] == sep;
}

enum ep_lock_format
ep_lock_format_sniff(const char *buf, size_t len)
{
	struct ep_lock_lines l;
	const char *s;
	size_t n, i;
	int tables = 0, root_version = 0, pkg = 0, pdm = 0;

	buf = ep_lock_skip_bom(buf, &len);
	for (i = 0; i < len && strchr(" \t\r\n", buf[i]) != NULL; i++)
		;
	if (i < len && buf[i] == '{')
		return EP_LOCK_PIPFILE;
	ep_lock_lines_init(&l, buf, len);
	while (ep_lock_next_line(&l, &s, &n)) {
		if (n == strlen("@EXPLICIT") && memcmp(s, "@EXPLICIT", n) == 0)
			return EP_LOCK_CONDA;
		if (line_key(s, n, "environments", ':'))
			return EP_LOCK_PIXI;
		if (line_key(s, n, "package", ':'))
			return EP_LOCK_CONDA_LOCK;
		if (line_key(s, n, "[[packages]]", 0))
			return EP_LOCK_PYLOCK;
		if (line_key(s, n, "[[package]]", 0))
			pkg = 1;
		if (line_key(s, n, "lock_version", '='))
			pdm = 1;
		if (n > 0 && s[0] == '[')
			tables = 1;
		if (!tables && line_key(s, n, "version", '='))
			root_version = 1;
	}
	if (!pkg)
		return EP_LOCK_OTHER;
	return pdm ? EP_LOCK_PDM : root_version ? EP_LOCK_UV : EP_LOCK_POETRY;
}

const char *
ep_lock_format_name(enum ep_lock_format f)
{
	switch (f) {
	case EP_LOCK_REQUIREMENTS:
		return "requirements";
	case EP_LOCK_POETRY:
		return "poetry";
	case EP_LOCK_UV:
		return "uv";
	case EP_LOCK_PIPFILE:
		return "pipfile";
	case EP_LOCK_CONDA:
		return "conda";
	case EP_LOCK_PYLOCK:
		return "pylock";
	case EP_LOCK_PDM:
		return "pdm";
	case EP_LOCK_CONDA_LOCK:
		return "conda-lock";
	case EP_LOCK_PIXI:
		return "pixi";
	case EP_LOCK_OTHER:
		break;
	}
	return "other";
}

int
ep_lock_parse(struct ep_pins *out, enum ep_lock_format f, const char *buf,
    size_t len, const char *name, struct ep_err *err)
{
	switch (f) {
	case EP_LOCK_REQUIREMENTS:
		return ep_lock_parse_requirements(out, buf, len, name, err);
	case EP_LOCK_POETRY:
		return ep_lock_parse_toml(out, buf, len, name, 0, err);
	case EP_LOCK_UV:
		return ep_lock_parse_toml(out, buf, len, name, 1, err);
	case EP_LOCK_PIPFILE:
		return ep_lock_parse_pipfile(out, buf, len, name, err);
	case EP_LOCK_CONDA:
		return ep_lock_parse_conda(out, buf, len, name, err);
	case EP_LOCK_PYLOCK:
		return ep_lock_parse_pylock(out, buf, len, name, err);
	case EP_LOCK_PDM:
		return ep_lock_parse_pdm(out, buf, len, name, err);
	case EP_LOCK_CONDA_LOCK:
		return ep_lock_parse_conda_lock(out, buf, len, name, err);
	case EP_LOCK_PIXI:
		return ep_lock_parse_pixi(out, buf, len, name, err);
	case EP_LOCK_OTHER:
		break;
	}
	return 0;
}
