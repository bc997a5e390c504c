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

#include "util.h"

/* build_info.py: its pairs, keys into *keys and values into *vals (each
 * value as text: a string as itself, True/False as "true"/"false", None
 * as "", a list of strings joined by ","), in file order.  -1 when text
 * holds no build_info literal this reader can read (then nothing is
 * added). */
int ep_fw_build_info_parse(struct ep_strv *keys, struct ep_strv *vals,
    const char *text, size_t len);

/* The value of a top-level assignment "NAME = 'v'" or "NAME: TYPE = 'v'"
 * in Python source (the first one; quotes ' or "), a new string; "" for
 * None; NULL when there is none or its value is not a plain literal. */
char *ep_fw_py_assign(const char *text, size_t len, const char *name);

/* The value of {"NAME", "VALUE"} in a C header's build strings
 * (caffe2/core/macros.h), a new string, or NULL. */
char *ep_fw_build_string(const char *text, size_t len, const char *name);

/* The Requires-Dist values of a core metadata header block, each
 * appended to *out in file order. */
void ep_fw_requires(struct ep_strv *out, const char *text, size_t len);

/* Of a Requires-Dist value ("nvidia-cudnn-cu12==9.1.0.70; platform_system
 * == \"Linux\"", "nvidia-cudnn-cu12 (>=9.8,<10.0); extra == 'with-cuda'"):
 * the PEP 503 name into *name and the version specifier, without
 * parentheses or spaces, into *spec ("" for none); *extra gets the
 * extra the marker names, or NULL.  All new strings.  -1 when value has
 * no valid name. */
int ep_fw_requirement(char **name, char **spec, char **extra,
    const char *value);

#endif
