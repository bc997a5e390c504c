/*
 * framework.h: what TensorFlow, PyTorch and JAX were built for, read
 * from the files their wheels install, never by importing them
 * (collect_framework.c; shared/research/frameworks.md has the formats
 * and their generators):
 *
 *   tensorflow/python/platform/build_info.py   a Python literal:
 *       build_info = collections.OrderedDict([('cuda_version', '12.2'),
 *       ...]) (or a plain dict in older builds); read by a small literal
 *       reader, never executed
 *   torch/version.py                   __version__ = '2.5.1+cu124',
 *       cuda: Optional[str] = '12.4', hip, git_version
 *   torch/include/caffe2/core/macros.h {"CUDNN_VERSION", "9.1.0"}, \
 *   jaxlib/version.py                  _version, _release_version
 *   the frameworks' METADATA           Requires-Dist: nvidia-...==...
 *
 * The parsers are pure functions on buffers, for the unit tests.
 */
#ifndef EP_FRAMEWORK_H
#define EP_FRAMEWORK_H

#include <stddef.h>

#include "strv.h"

/* build_info.py: its pairs, keys into *keys and values into *vals (each
 * value as text: a string as itself, True/False as "true"/"false", None
 * as "", a number as written, a list or tuple of those joined by ","),
 * in file order.  The literal is the value of the first top-level
 * statement "build_info = " (as ep_fw_py_assign finds it): a dict
 * {'k': v, ...} or [collections.]OrderedDict([('k', v), ...]), comments,
 * line breaks and trailing commas as Python allows them, ending the
 * statement (a comment or a ';' may follow).  -1, with nothing added,
 * when text holds no such literal: when the value is code (dict(...), a
 * call, an operator, a name), cut short, or has a string holding a NUL
 * byte (a NUL never cuts a value short). */
int ep_fw_build_info_parse(struct ep_strv *keys, struct ep_strv *vals,
    const char *text, size_t len);

/* The value of the first top-level assignment "NAME = 'v'" or "NAME:
 * TYPE = 'v'" in Python source (quotes ' or "), a new string; "" for
 * None, "true"/"false" for True/False; NULL when there is none or its
 * value is not a plain literal that ends the statement ("'12' + x" is
 * not).  Top-level: at the start of a line, not inside a string (a
 * docstring's line "cuda = '9.0'" assigns nothing), brackets or a
 * continued line; "NAME == v" and "NAME_X = v" are not NAME's. */
char *ep_fw_py_assign(const char *text, size_t len, const char *name);

/* The value of {"NAME", "VALUE"} in a C header's build strings
 * (caffe2/core/macros.h, that spacing), a new string, or NULL (also
 * when VALUE runs past its line or holds a NUL). */
char *ep_fw_build_string(const char *text, size_t len, const char *name);

/* The Requires-Dist values of a core metadata header block (the field
 * name in any case; LF or CRLF), each appended to *out in file order.
 * The block ends at its blank line, or at a line holding a NUL (binary,
 * as ep_pymeta_parse reads it). */
void ep_fw_requires(struct ep_strv *out, const char *text, size_t len);

/* Of a Requires-Dist value ("nvidia-cudnn-cu12==9.1.0.70; platform_system
 * == \"Linux\"", "nvidia-cudnn-cu12 (>=9.8,<10.0); extra == 'with-cuda'"):
 * the PEP 503 name into *name and the version specifier, without
 * parentheses or white space, into *spec ("" for none); the
 * requirement's own extras ("name[a,b]") are skipped; *extra gets the
 * extra the marker names (extra == 'x' or "x"), or NULL.  A URL
 * requirement ("name @ https://...") names an artifact, not a version:
 * *spec is "", and nothing of the URL (which may hold credentials) is
 * returned; its marker, after white space, counts.  All new strings.
 * -1, all three NULL, when value has no valid name. */
int ep_fw_requirement(char **name, char **spec, char **extra,
    const char *value);

#endif
