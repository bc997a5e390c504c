#!/usr/bin/env node
// dsse_sigstore.js ENVELOPE PUB.pem: verify a DSSE envelope offline with
// sigstore-js (@sigstore/verify and @sigstore/bundle from
// tools/node_modules), the verifier npm's own provenance checks use.
// The envelope is wrapped in a bundle v0.3 with a public-key hint and no
// transparency log, timestamp or certificate (every threshold 0), so
// that only the signature over DSSE's PAE is judged (sigstore-js checks
// the first signature).  Prints "OK _type predicateType verdict" and
// exits 0, or "FAIL CODE message" and exits 1.
'use strict';
const fs = require('fs');
const path = require('path');
const crypto = require('crypto');

const mods = path.join(__dirname, '..', '..', 'tools', 'node_modules');
const { bundleFromJSON } = require(path.join(mods, '@sigstore', 'bundle'));
const { Verifier, toSignedEntity, toTrustMaterial } =
    require(path.join(mods, '@sigstore', 'verify'));

const [envFile, pubFile] = process.argv.slice(2);
const env = JSON.parse(fs.readFileSync(envFile, 'utf8'));
const spki = crypto.createPublicKey(fs.readFileSync(pubFile))
    .export({ type: 'spki', format: 'der' });
// envparity's keyid: the SHA-256 of the DER SubjectPublicKeyInfo.
const keyid = crypto.createHash('sha256').update(spki).digest('hex');

try {
	const bundle = bundleFromJSON({
		mediaType: 'application/vnd.dev.sigstore.bundle.v0.3+json',
		verificationMaterial: {
			publicKey: { hint: keyid },
			tlogEntries: [],
			timestampVerificationData: { rfc3161Timestamps: [] },
		},
		dsseEnvelope: env,
	});
	const trust = toTrustMaterial({
		mediaType: 'application/vnd.dev.sigstore.trustedroot+json;version=0.1',
		tlogs: [], certificateAuthorities: [], ctlogs: [],
		timestampAuthorities: [],
	}, { [keyid]: { rawBytes: spki, keyDetails: 'PKIX_ED25519' } });
	new Verifier(trust, { tlogThreshold: 0, ctlogThreshold: 0,
	    timestampThreshold: 0 }).verify(toSignedEntity(bundle));
	if (env.payloadType !== 'application/vnd.in-toto+json')
		throw Object.assign(new Error('payloadType ' + env.payloadType),
		    { code: 'PAYLOAD_TYPE' });
	const st = JSON.parse(Buffer.from(env.payload, 'base64').toString());
	console.log('OK', st._type, st.predicateType, st.predicate.verdict);
} catch (e) {
	console.log('FAIL', e.code || e.name, e.message);
	process.exit(1);
}
