/*
 * serving_fp.c: a SavedModel's fingerprint.pb, TensorFlow's binary
 * FingerprintDef (tensorflow/core/protobuf/fingerprint.proto, written by
 * cc/saved_model/fingerprinting.cc since TF 2.12): five uint64 varints
 * and a VersionDef.  TensorFlow writes field 6 first; any order is read,
 * and fields it may add later are skipped by their wire type.
 */
#include "serving.h"

#include <string.h>

/* A varint at *p (before end) into *v. */
static int
varint(uint64_t *v, const unsigned char **p, const unsigned char *end)
{
	*v = 0;
	for (unsigned shift = 0; shift < 70; shift += 7) {
		if (*p >= end)
			return -1;
		if (shift == 63 && (**p & 0x7e) != 0)
			return -1;	/* past 64 bits */
		*v |= (uint64_t)(**p & 0x7f) << shift;
		if ((*(*p)++ & 0x80) == 0)
			return 0;
	}
	return -1;
}

/* Skip one field's value of wire type wt at *p. */
static int
skip(const unsigned char **p, const unsigned char *end, unsigned wt)
{
	uint64_t n;

	switch (wt) {
	case 0:
		return varint(&n, p, end);
	case 1:
		n = 8;
		break;
	case 2:
		if (varint(&n, p, end) < 0)
			return -1;
		break;
	case 5:
		n = 4;
		break;
	default:
		return -1;	/* groups (3, 4) and the reserved 6, 7 */
	}
	if (n > (uint64_t)(end - *p))
		return -1;
	*p += n;
	return 0;
}

/* VersionDef: producer = 1 (int32 varint); the rest skipped. */
static int
version_def(uint64_t *producer, const unsigned char *p,
    const unsigned char *end)
{
	uint64_t tag;

	while (p < end) {
		if (varint(&tag, &p, end) < 0 || (tag >> 3) == 0)
			return -1;
		if ((tag >> 3) == 1 && (tag & 7) == 0) {
			if (varint(producer, &p, end) < 0)
				return -1;
		} else if (skip(&p, end, (unsigned)(tag & 7)) < 0)
			return -1;
	}
	return 0;
}

int
ep_serving_fingerprint(struct ep_fingerprint *out, const unsigned char *b,
    size_t len, const char *name, struct ep_err *err)
{
	const unsigned char *p = b, *end = b + len;
	uint64_t *fields[] = { NULL, &out->saved_model_checksum,
	    &out->graph_def_program_hash, &out->signature_def_hash,
	    &out->saved_object_graph_hash, &out->checkpoint_hash };
	uint64_t tag, n, num;
	unsigned wt;

	memset(out, 0, sizeof *out);
	while (p < end) {
		if (varint(&tag, &p, end) < 0)
			goto bad;
		num = tag >> 3;
		wt = (unsigned)(tag & 7);
		if (num == 0)
			goto bad;
		if (num >= 1 && num <= 5) {
			if (wt != 0 || varint(fields[num], &p, end) < 0)
				goto bad;
		} else if (num == 6) {
			if (wt != 2 || varint(&n, &p, end) < 0 ||
			    n > (uint64_t)(end - p) ||
			    version_def(&out->producer, p, p + n) < 0)
				goto bad;
			p += n;
		} else if (skip(&p, end, wt) < 0)
			goto bad;
	}
	return 0;
bad:
	memset(out, 0, sizeof *out);
	return ep_err_set(err, EP_E_INPUT, "%s: not a SavedModel fingerprint "
	    "(a malformed protobuf FingerprintDef at byte %zu)", name,
	    (size_t)(p - b));
}
