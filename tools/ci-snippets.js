#!/usr/bin/env node
// tools/ci-snippets.js docs/ci.md: check that every ```yaml snippet in the
// file's "CI integration" section (the heading "# CI integration" or
// "## CI integration", to the next heading of its level or above) says
// what the files under ci/ say, so that the documentation cannot drift
// from what is tested.
//
// A GitHub snippet (it has jobs:) must be a part of one of
// ci/github/workflows/*.yml, and each `with:` it gives the action must be an
// input of ci/github/action.yml.  A GitLab snippet must be a part of
// ci/gitlab/example.gitlab-ci.yml, where an include of the template from
// another project stands for its include as a local file; each extends:
// must name a hidden job of ci/gitlab/envparity.gitlab-ci.yml.
//
// "A part of": every key the snippet has, the file has with the same
// value; a list in the snippet is a subsequence of the file's; a string is
// equal, or one line of the file's (a run: or script: cut short).
//
// Exit 0 consistent, 1 a snippet that is not (each named), 2 no such
// section or a file that cannot be read or parsed.
"use strict";

const fs = require("node:fs");
const path = require("node:path");
const yaml = require("js-yaml");

const root = path.resolve(__dirname, "..");
const load = (f) => yaml.load(fs.readFileSync(path.join(root, f), "utf8"));

function part(s, f) {
	if (s === null)
		return f === null;
	if (typeof s !== "object") {
		if (f === null || typeof f === "object")
			return false;
		const a = String(s).trim(), b = String(f).trim();
		return a === b || b.split("\n").some((l) => l.trim() === a);
	}
	if (Array.isArray(s)) {
		if (!Array.isArray(f))
			return false;
		let j = 0;
		for (const x of s) {
			while (j < f.length && !part(x, f[j]))
				j++;
			if (j === f.length)
				return false;
			j++;
		}
		return true;
	}
	if (f === null || typeof f !== "object" || Array.isArray(f))
		return false;
	return Object.keys(s).every((k) => k in f && part(s[k], f[k]));
}

function main() {
	const readme = process.argv[2];
	if (!readme || process.argv.length !== 3) {
		process.stderr.write("usage: tools/ci-snippets.js docs/ci.md\n");
		process.exit(2);
	}
	const text = fs.readFileSync(readme, "utf8");
	const head = /^(#{1,2}) CI integration$/m.exec(text);
	if (head === null) {
		process.stderr.write(`ci-snippets.js: ${readme}: no "CI integration" section\n`);
		process.exit(2);
	}
	const rest = text.slice(head.index + head[0].length);
	const end = rest.search(new RegExp(`^#{1,${head[1].length}} `, "m"));
	const section = end < 0 ? rest : rest.slice(0, end);
	const snippets = [...section.matchAll(/^```yaml\n([\s\S]*?)^```$/gm)].map((m) => m[1]);

	const action = load("ci/github/action.yml");
	const inputs = new Set(Object.keys(action.inputs || {}));
	const wfDir = "ci/github/workflows";
	const workflows = fs.readdirSync(path.join(root, wfDir)).filter((f) => f.endsWith(".yml"))
	    .map((f) => ({ f: `${wfDir}/${f}`, doc: load(`${wfDir}/${f}`) }));
	const tplPath = "ci/gitlab/envparity.gitlab-ci.yml";
	const template = load(tplPath);
	const example = load("ci/gitlab/example.gitlab-ci.yml");

	let bad = 0;
	const fail = (n, msg) => {
		bad++;
		process.stdout.write(`${readme}: yaml snippet ${n}: ${msg}\n`);
	};
	snippets.forEach((src, i) => {
		const n = i + 1;
		let doc;
		try {
			doc = yaml.load(src);
		} catch (e) {
			fail(n, `does not parse: ${e.message.split("\n")[0]}`);
			return;
		}
		if (doc && doc.jobs) {
			for (const job of Object.values(doc.jobs))
				for (const step of (job && job.steps) || [])
					if (step.uses && /\/ci\/github@/.test(step.uses))
						for (const k of Object.keys(step.with || {}))
							if (!inputs.has(k))
								fail(n, `with: ${k} is not an input of ci/github/action.yml`);
			if (!workflows.some((w) => part(doc, w.doc)))
				fail(n, `is not a part of any of ${wfDir}/*.yml`);
			return;
		}
		const gl = { ...doc };
		if (Array.isArray(gl.include))
			gl.include = gl.include.map((inc) => inc && inc.file === tplPath ?
			    { local: tplPath } : inc);
		for (const [name, job] of Object.entries(doc || {}))
			if (job && typeof job === "object" && job.extends !== undefined &&
			    !(job.extends in template))
				fail(n, `${name} extends ${job.extends}, not a job of ${tplPath}`);
		if (!part(gl, example))
			fail(n, "is not a part of ci/gitlab/example.gitlab-ci.yml");
	});
	if (snippets.length === 0)
		fail(0, "no yaml snippets in the section");
	else if (bad === 0)
		process.stdout.write(`${snippets.length} yaml snippets consistent with ci/\n`);
	process.exit(bad ? 1 : 0);
}

try {
	main();
} catch (e) {
	process.stderr.write(`ci-snippets.js: ${e.message}\n`);
	process.exit(2);
}
