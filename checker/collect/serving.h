/*
 * serving.h: serving configurations as facts (serving.*), as pure
 * functions over buffers, beneath collect_serving.c (which reads the
 * --serving files and folders): which format a file is, each format's
 * fields as facts (serving.c), Java properties for TorchServe's
 * config.properties (serving_props.c), and a SavedModel's
 * fingerprint.pb (serving_fp.c).  The text format itself is
 * textproto.c's.
 *
 * Every field becomes a fact, known or not: a message's fields under
 * "PREFIX.FIELD", a nested message's under "PREFIX.FIELD.SUB", a field
 * repeated (written twice, written as a list, or one that the formats'
 * .proto declare repeated: input, output, instance_group, ...) as
 * "FIELD[i]" for messages and one value joined by ',' for scalars, a map
 * (messages of exactly "key" and "value") as "FIELD.KEY", a wrapper
 * ("{ value: N }") as its value, an empty message as "{}".  A field
 * whose name says it holds a secret (pass, secret, token, private_key,
 * credential, keystore, api_key) is recorded as "set" (or "empty"),
 * never with its value.  Names that come from the file (models, map
 * keys, versions, properties) are written with every byte but
 * [A-Za-z0-9_-] as %XX, so that a key never holds a '.' or a byte a
 * report would have to clean.
 *
 * Errors are EP_E_INPUT, "NAME:LINE: problem" or "NAME: problem"; they
 * name fields and keys, never quote a value.
 */
#ifndef EP_SERVING_H
#define EP_SERVING_H

#include <stddef.h>
#include <stdint.h>

#include "errors.h"
#include "strv.h"
#include "textproto.h"

enum ep_serving_format {
	EP_SERVING_UNKNOWN = 0,
	EP_SERVING_TRITON,		/* Triton's config.pbtxt (ModelConfig) */
	EP_SERVING_TFS_MODELS,		/* TF Serving's ModelServerConfig */
	EP_SERVING_TFS_BATCHING,	/* TF Serving's BatchingParameters */
	EP_SERVING_TORCHSERVE,		/* TorchServe's config.properties */
};

/* Facts in the order made: keys[i] = vals[i]. */
struct ep_serving_facts {
	struct ep_strv keys, vals;
};

void ep_serving_facts_clear(struct ep_serving_facts *f);

/* What a text-format file is, by its base name and its top-level
 * fields: "config.pbtxt", or a platform or backend field, is Triton; a
 * model_config_list TF Serving's model config; BatchingParameters'
 * fields (max_batch_size as a wrapper message) its batching parameters;
 * anything else EP_SERVING_UNKNOWN. */
enum ep_serving_format ep_serving_kind(const char *base,
    const struct ep_tp_msg *m);

/* 1 when a field or property called name holds a secret (its value is
 * never recorded). */
int ep_serving_secret(const char *name);

/* name as one key component: [A-Za-z0-9_-] kept, every other byte %XX
 * (upper case); "" as "%00".  A new string. */
char *ep_serving_name(const char *name, size_t len);

/* The facts of a text-format file of kind k (not UNKNOWN), appended to
 * out: Triton's under "serving.MODEL." (model: the name to use, from
 * the folder; NULL takes the file's name field), with "serving.MODEL.
 * versions" when versions is not NULL (the version folders present,
 * "1,3"; "" for none); TF Serving's model config under "serving.NAME."
 * for each config (its fields other than model_config_list under
 * "serving.tfserving."); batching parameters under "serving.batching.".
 * EP_E_INPUT naming file and line: a Triton config without a name and
 * none given, a TF Serving config without a name, a field that is a
 * message in one place and a value in another, a string holding a NUL
 * byte. */
int ep_serving_textproto_facts(struct ep_serving_facts *out,
    enum ep_serving_format k, const struct ep_tp_msg *m, const char *model,
    const char *versions, const char *file, struct ep_err *err);

/* One property of a Java properties file. */
struct ep_prop {
	char *key, *value;
	unsigned line;		/* where its logical line starts */
};

struct ep_props {
	struct ep_prop *v;
	size_t n, cap;
};

void ep_props_clear(struct ep_props *p);

/* Parse text[0..len) as java.util.Properties.load reads a file: comment
 * lines ('#' or '!'), key and value split at the first unescaped '=',
 * ':' or white space, a line ending in an odd number of backslashes
 * continued on the next (its leading white space dropped), the escapes
 * \t \n \r \f \uXXXX and '\' before any other character; a key given
 * twice keeps its last value, in its first place.  EP_E_INPUT
 * "NAME:LINE: ..." for a malformed \u escape or a NUL byte. */
int ep_props_parse(struct ep_props *out, const char *text, size_t len,
    const char *name, struct ep_err *err);

/* TorchServe's facts from its properties: "serving.torchserve.KEY" for
 * each, and for the models property (JSON: model -> version -> fields)
 * "serving.MODEL.VERSION.FIELD".  EP_E_INPUT naming file and line when
 * models is not a JSON object of objects. */
int ep_serving_torchserve_facts(struct ep_serving_facts *out,
    const struct ep_props *p, const char *file, struct ep_err *err);

/* A SavedModel's fingerprint.pb (TensorFlow's FingerprintDef: fields
 * 1-5 varints, 6 a VersionDef), in any order, unknown fields skipped. */
struct ep_fingerprint {
	uint64_t saved_model_checksum;		/* 1 */
	uint64_t graph_def_program_hash;	/* 2 */
	uint64_t signature_def_hash;		/* 3 */
	uint64_t saved_object_graph_hash;	/* 4 */
	uint64_t checkpoint_hash;		/* 5 */
	uint64_t producer;			/* 6.1 */
};

/* EP_E_INPUT "NAME: ..." for bytes that are not a protobuf message (a
 * varint past 10 bytes, a length past the end, a group or reserved wire
 * type, a known field of the wrong wire type). */
int ep_serving_fingerprint(struct ep_fingerprint *out, const unsigned char *b,
    size_t len, const char *name, struct ep_err *err);

#endif
