/*
 * lockfile_pipfile.c: Pipfile.lock (JSON): the names and "==V" versions of
 * every category: "default" (Pipfile's [packages]), "develop"
 * ([dev-packages]) and each other one pipenv writes as a section of its
 * own ([gpu], [prereq]: every top-level key but "_meta"); each pin keeps
 * its category (as its group), its markers, its index's name and its
 * first hash.
 */
#include "lockfile.h"
#include "errors.h"
#include "str.h"
#include "xalloc.h"

#include <stdlib.h>
#include <string.h>

#include <jansson.h>

/* The string at key of obj, or with key NULL the first string of the
 * array obj; NULL when there is none (hashes and index are kept, never
 * required). */
static const char *
pipfile_str(json_t *obj, const char *key)
{
	json_t *v = key != NULL ? json_object_get(obj, key) :
	    json_array_get(obj, 0);

	return json_is_string(v) ? json_string_value(v) : NULL;
}

/* Pipenv writes "version": "==1.2.3"; git and path entries have none. */
static int
pipfile_section(struct ep_pins *pins, json_t *sect, const char *which,
    const char *name, struct ep_err *err)
{
	const char *pkg, *v;
	json_t *entry, *ver;
	char *norm, *text;
	size_t n0;

	if (!json_is_object(sect))
		return ep_err_set(err, EP_E_INPUT, "%s: \"%s\" is not an "
		    "object", name, which);
	json_object_foreach(sect, pkg, entry) {
		if (!ep_lock_valid_name(pkg, strlen(pkg)))
			return ep_err_set(err, EP_E_INPUT, "%s: \"%s\" has a "
			    "key that is not a package name", name, which);
		if (!json_is_object(entry))
			return ep_err_set(err, EP_E_INPUT, "%s: %s.%s is not "
			    "an object", name, which, pkg);
		if ((ver = json_object_get(entry, "version")) == NULL)
			continue;
		if (!json_is_string(ver))
			return ep_err_set(err, EP_E_INPUT, "%s: %s.%s.version "
			    "is not a string", name, which, pkg);
		v = json_string_value(ver);
		if (ep_startswith(v, "==="))
			v += 3;
		else if (ep_startswith(v, "=="))
			v += 2;
		text = ep_trim(xstrdup(v));
		norm = ep_lock_pep503(pkg, strlen(pkg));
		/* What it applies to is its markers, in its category; where
		 * it comes from, the name of its index (a [[source]] of the
		 * Pipfile). */
		n0 = pins->n;
		ep_pins_add_at(pins, norm, text[0] != '\0' ? text : "*",
		    pipfile_str(entry, "markers"), pipfile_str(entry, "index"),
		    pipfile_str(json_object_get(entry, "hashes"), NULL));
		ep_pins_set_group(pins, n0, which);
		free(norm);
		free(text);
	}
	return 0;
}

int
ep_lock_parse_pipfile(struct ep_pins *out, const char *buf, size_t len,
    const char *name, struct ep_err *err)
{
	struct ep_pins pins = { 0 };
	json_error_t je;
	json_t *root, *sect;
	const char *key;
	char *near;
	int rc = -1;

	buf = ep_lock_skip_bom(buf, &len);
	if ((root = json_loadb(buf, len, 0, &je)) == NULL) {
		/* jansson quotes the token it choked on: it could be a
		 * source URL with a password in it. */
		if ((near = strstr(je.text, " near ")) != NULL)
			*near = '\0';
		return ep_err_set(err, EP_E_INPUT, "%s:%d: not valid JSON: %s",
		    name, je.line > 0 ? je.line : 1, je.text);
	}
	if (!json_is_object(root)) {
		ep_err_set(err, EP_E_INPUT, "%s:1: not a Pipfile.lock (the top "
		    "level is not an object)", name);
		goto done;
	}
	json_object_foreach(root, key, sect) {
		if (strcmp(key, "_meta") == 0)
			continue;
		/* A category is named in messages: a name of the kind a
		 * Pipfile table has, never any text. */
		if (!ep_lock_valid_name(key, strlen(key)) || strlen(key) > 64) {
			ep_err_set(err, EP_E_INPUT, "%s: a category whose name "
			    "is not letters, digits, '-', '_' and '.'", name);
			goto done;
		}
		if (pipfile_section(&pins, sect, key, name, err) < 0)
			goto done;
	}
	if (json_object_get(root, "default") == NULL &&
	    json_object_get(root, "develop") == NULL) {
		ep_err_set(err, EP_E_INPUT, "%s:1: not a Pipfile.lock (no "
		    "\"default\" or \"develop\" section)", name);
		goto done;
	}
	ep_pins_take(out, &pins);
	rc = 0;
done:
	ep_pins_clear(&pins);
	json_decref(root);
	return rc;
}
