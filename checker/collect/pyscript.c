/*
 * pyscript.c: what envparity asks an interpreter, and how its answer is
 * read: the query script (its version, its site directories, its PEP 508
 * marker environment, as one marked JSON line), and the parser of that
 * line among whatever else the interpreter prints.  pyquery.c runs it,
 * confined, and caches the answer.
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "python.h"
#include "errors.h"
#include "strv.h"
#include "xalloc.h"

/*
 * Runs on Python 2.7 and 3.x, with -S: site.py's main() never runs, so no
 * .pth file in any site-packages (a line of which may be code a wheel
 * installed) and no sitecustomize or usercustomize executes.  site's own
 * functions still say where the directories are: Python 3's site.py does
 * nothing when imported under -S; Python 2.7's would run main(), so its
 * source is executed without that last line.  What main() would have done
 * that the answer depends on is done here as site.venv() does it: a
 * pyvenv.cfg beside the executable or one level up makes its directory
 * the prefix, first among PREFIXES (or the only one, and no user site,
 * when it leaves out the system site-packages).  A virtual environment's
 * base binary, run where it lies (pyinterp.c), is given the venv's root
 * and include-system-site-packages as its two arguments instead, and
 * reads nothing of the venv.  sys.version's first word is what
 * platform.python_version() returns.
 *
 * The user site is said where a plain run would use it: not with
 * PYTHONNOUSERSITE, not set-uid, not in a virtual environment that leaves
 * out the system site-packages.  It is reported whether or not it exists
 * yet, so that a cached answer stays right when it is created later; the
 * caller looks.
 *
 * "markers" is the PEP 508 marker environment, built as packaging's
 * default_environment() builds it (Python 2.7 has no sys.implementation:
 * "" and "0", as packaging said then), less platform.machine(),
 * release(), system() and version(): those are uname(2)'s, which the
 * caller reads itself at every capture, since a cached answer would hold
 * the kernel from before a reboot.  Importing platform costs a few ms,
 * once: the answer is cached.  json.dumps escapes everything outside
 * ASCII, so the answer is one line.
 */
const char ep_pyquery_script[] =
    "import sys, os, json, platform\n"
    "if sys.version_info[0] >= 3:\n"
    "    import site\n"
    "else:\n"
    "    import imp, re\n"
    "    f, n, d = imp.find_module('site')\n"
    "    try:\n"
    "        t = f.read()\n"
    "    finally:\n"
    "        f.close()\n"
    "    site = imp.new_module('site')\n"
    "    site.__file__ = n\n"
    "    exec(compile(re.sub(r'(?m)^main\\(\\)[ \\t]*$', 'pass', t), n, "
    "'exec'), site.__dict__)\n"
    "b = getattr(sys, 'base_prefix', getattr(sys, 'real_prefix', "
    "sys.prefix))\n"
    "r = list(getattr(site, 'PREFIXES', [sys.prefix, sys.exec_prefix]))\n"
    "p = sys.prefix\n"
    "d = os.path.dirname(os.path.abspath(sys.executable))\n"
    "f = [os.path.join(d, 'pyvenv.cfg'), "
    "os.path.join(os.path.dirname(d), 'pyvenv.cfg')]\n"
    "if len(sys.argv) == 3:\n"
    "    f = []\n"
    "    p = sys.prefix = sys.exec_prefix = sys.argv[1]\n"
    "    r = [p] + r if sys.argv[2] == 'true' else [p]\n"
    "for c in f:\n"
    "    if sys.version_info[0] >= 3 and os.path.isfile(c):\n"
    "        w = 'true'\n"
    "        for l in open(c, encoding='utf-8'):\n"
    "            k, e, v = l.partition('=')\n"
    "            if e and k.strip().lower() == "
    "'include-system-site-packages':\n"
    "                w = v.strip().lower()\n"
    "        p = sys.prefix = sys.exec_prefix = os.path.dirname(d)\n"
    "        r = [p] + r if w == 'true' else [p]\n"
    "        break\n"
    "site.PREFIXES = r\n"
    "u = None\n"
    "if (not os.environ.get('PYTHONNOUSERSITE') and "
    "os.getuid() == os.geteuid() and os.getgid() == os.getegid() and "
    "(p == b or b in r) and hasattr(site, 'getusersitepackages')):\n"
    "    u = site.getusersitepackages()\n"
    "s = list(getattr(site, 'getsitepackages', lambda: [])())\n"
    "i = getattr(sys, 'implementation', None)\n"
    "iv, im = '0', ''\n"
    "if i is not None:\n"
    "    v = i.version\n"
    "    iv = '%d.%d.%d' % (v[0], v[1], v[2])\n"
    "    if v[3] != 'final':\n"
    "        iv += v[3][0] + str(v[4])\n"
    "    im = i.name\n"
    "m = {'implementation_name': im, 'implementation_version': iv, "
    "'os_name': os.name, 'python_full_version': platform.python_version(), "
    "'platform_python_implementation': platform.python_implementation(), "
    "'python_version': '.'.join(platform.python_version_tuple()[:2]), "
    "'sys_platform': sys.platform}\n"
    "sys.stdout.write('" EP_PYQUERY_MARK "' + json.dumps({'version': "
    "sys.version.split()[0], 'user': u, 'site': s, 'markers': m}) + "
    "'\\n')\n";

void
ep_pyquery_clear(struct ep_pyquery *p)
{
	free(p->version);
	free(p->user_site);
	ep_strv_clear(&p->sites);
	for (size_t i = 0; i < EP_MV_N; i++) {
		free(p->markers[i]);
		p->markers[i] = NULL;
	}
	p->version = p->user_site = NULL;
}

int
ep_pyquery_parse(struct ep_pyquery *out, const char *text, size_t len,
    struct ep_err *err)
{
	const char *p = text, *end = text + len, *le;
	json_t *j = NULL, *v, *s;
	json_error_t jerr;
	size_t i;
	int rc = -1;

	memset(out, 0, sizeof *out);
	/* sitecustomize may print; find our line among whatever else. */
	for (;;) {
		le = memchr(p, '\n', (size_t)(end - p));
		if ((size_t)(end - p) >= sizeof EP_PYQUERY_MARK - 1 &&
		    memcmp(p, EP_PYQUERY_MARK, sizeof EP_PYQUERY_MARK - 1) == 0)
			break;
		if (le == NULL)
			return ep_err_set(err, EP_E_IO, "no answer in its "
			    "output");
		p = le + 1;
	}
	p += sizeof EP_PYQUERY_MARK - 1;
	if (le == NULL)
		le = end;
	if ((j = json_loadb(p, (size_t)(le - p), 0, &jerr)) == NULL) {
		ep_err_set(err, EP_E_IO, "garbled answer: %s", jerr.text);
		goto done;
	}
	v = json_object_get(j, "version");
	if (!json_is_string(v) || !isdigit((unsigned char)
	    *json_string_value(v)) || strchr(json_string_value(v), '.') ==
	    NULL) {
		ep_err_set(err, EP_E_IO, "garbled answer: no version");
		goto done;
	}
	out->version = xstrdup(json_string_value(v));
	if (json_is_string(v = json_object_get(j, "user")))
		out->user_site = xstrdup(json_string_value(v));
	else if (!json_is_null(v)) {
		ep_err_set(err, EP_E_IO, "garbled answer: bad user site");
		goto done;
	}
	if (!json_is_array(s = json_object_get(j, "site"))) {
		ep_err_set(err, EP_E_IO, "garbled answer: no site list");
		goto done;
	}
	json_array_foreach(s, i, v) {
		if (!json_is_string(v)) {
			ep_err_set(err, EP_E_IO, "garbled answer: bad site");
			goto done;
		}
		ep_strv_push(&out->sites, json_string_value(v));
	}
	/* The marker environment: strings, each where it is given. */
	s = json_object_get(j, "markers");
	if (s != NULL && !json_is_object(s)) {
		ep_err_set(err, EP_E_IO, "garbled answer: bad markers");
		goto done;
	}
	for (i = 0; i < EP_MV_N; i++) {
		v = json_object_get(s, ep_marker_vars[i]);
		if (v == NULL)
			continue;
		if (!json_is_string(v)) {
			ep_err_set(err, EP_E_IO, "garbled answer: bad marker "
			    "%s", ep_marker_vars[i]);
			goto done;
		}
		out->markers[i] = xstrdup(json_string_value(v));
	}
	rc = 0;
done:
	if (rc < 0)
		ep_pyquery_clear(out);
	json_decref(j);
	return rc;
}

