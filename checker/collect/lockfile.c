/*
 * lockfile.c: the choice of format by file name, and the dispatch to the
 * parsers: requirements*.txt (lockfile_req.c), poetry.lock and uv.lock
 * (lockfile_toml.c, their TOML in lockfile_tomlsyn.c), Pipfile.lock
 * (lockfile_pipfile.c), conda explicit files (lockfile_conda.c).  Under
 * them: the pin list (lockfile_pins.c) and the text (lockfile_text.c).
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
	/* Before requirements*.txt: "requirements.explicit.txt" is conda. */
	if (ep_endswith(b, ".explicit.txt") ||
	    (ep_startswith(b, "conda-") && ep_endswith(b, ".lock") &&
	    strlen(b) > strlen("conda-.lock")))
		return EP_LOCK_CONDA;
	if (ep_startswith(b, "requirements") && ep_endswith(b, ".txt"))
		return EP_LOCK_REQUIREMENTS;
	return EP_LOCK_OTHER;
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
	case EP_LOCK_OTHER:
		break;
	}
	return 0;
}
