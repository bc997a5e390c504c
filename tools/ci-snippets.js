#!/usr/bin/env node
// tools/ci-snippets.js [--extract DIR] FILE...: every ```yaml snippet of
// the given Markdown files (docs/*.md, README.md) is a CI document that
// runs as written and says what the files under ci/ say, so that the
// documentation can neither drift from what is tested nor show what the
// validators would refuse.
//
// Each snippet is one of:
//   - a GitHub Actions workflow (it has jobs:): a whole workflow (on: and
//     jobs:), a part of one of ci/github/workflows/*.yml, and each `with:`
//     it gives the action an input of ci/github/action.yml;
//   - a GitLab pipeline (it has include:, stages: or a job with extends: or
//     script:): a part of ci/gitlab/example.gitlab-ci.yml, where an include
//     of the template from another project stands for its include as a
//     local file, and each extends: names a job of
//     ci/gitlab/envparity.gitlab-ci.yml;
//   - Kubernetes objects (apiVersion: and kind:): each a part of one of
//     the objects in ci/kubernetes/*.yaml.
// Any other snippet is an error: nothing the validators cannot judge is
// passed over.
//
// "A part of": every key the snippet has, the file has with the same
// value; a list in the snippet is a subsequence of the file's; a string is
// equal, or one line of the file's (a run: or script: cut short).
//
// With --extract DIR each snippet is also written for the real validators
// (tests/cli/ci.bats runs them once over all): DIR/github/STEM-N.yml,
// DIR/gitlab/STEM-N.gitlab-ci.yml (the template's include made local, as
// a project holding ci/gitlab/ would have it) and DIR/kubernetes/STEM-N.yaml,
// N counting the snippets of the file STEM.md from 1; one line per snippet
// on standard output: "FILE:LINE: KIND PATH".
//
// Exit 0 consistent, 1 a snippet that is not (each named with its file and
// line), 2 usage, no snippet in any file, or a file that cannot be read or
// parsed.
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

const isObj = (d) => d !== null && typeof d === "object" && !Array.isArray(d);

// The kind of a snippet's documents: github, gitlab, kubernetes or null.
function kind(docs) {
	if (docs.length > 0 && docs.every((d) => isObj(d) && "apiVersion" in d && "kind" in d))
		return "kubernetes";
	if (docs.length !== 1 || !isObj(docs[0]))
		return null;
	const d = docs[0];
	if ("jobs" in d)
		return "github";
	if ("include" in d || "stages" in d ||
	    Object.values(d).some((j) => isObj(j) && ("extends" in j || "script" in j)))
		return "gitlab";
	return null;
}

// The ```yaml (or ```yml) snippets of a Markdown text, with their lines.
function snippets(text) {
	const out = [];
	for (const m of text.matchAll(/^```ya?ml[ \t]*\n([\s\S]*?)^```[ \t]*$/gm))
		out.push({ src: m[1], line: text.slice(0, m.index).split("\n").length });
	return out;
}

function main() {
	const argv = process.argv.slice(2);
	let dir = null;
	if (argv[0] === "--extract") {
		dir = argv[1];
		argv.splice(0, 2);
	}
	if (argv.length === 0 || dir === undefined || argv.some((a) => a.startsWith("-"))) {
		process.stderr.write("usage: tools/ci-snippets.js [--extract DIR] FILE...\n");
		process.exit(2);
	}

	const action = load("ci/github/action.yml");
	const inputs = new Set(Object.keys(action.inputs || {}));
	const ls = (d, re) => fs.readdirSync(path.join(root, d)).filter((f) => re.test(f))
	    .sort().map((f) => `${d}/${f}`);
	const wfDir = "ci/github/workflows";
	const workflows = ls(wfDir, /\.ya?ml$/).map((f) => ({ f, doc: load(f) }));
	const tplPath = "ci/gitlab/envparity.gitlab-ci.yml";
	const template = load(tplPath);
	const example = load("ci/gitlab/example.gitlab-ci.yml");
	const k8sDir = "ci/kubernetes";
	const objects = ls(k8sDir, /\.ya?ml$/).flatMap((f) =>
	    yaml.loadAll(fs.readFileSync(path.join(root, f), "utf8")).filter(isObj));

	let bad = 0, count = 0;
	const counts = { github: 0, gitlab: 0, kubernetes: 0 };
	for (const file of argv) {
		const text = fs.readFileSync(file, "utf8");
		const stem = path.basename(file).replace(/\.md$/i, "");
		snippets(text).forEach(({ src, line }, i) => {
			const where = `${file}:${line}`;
			const fail = (msg) => {
				bad++;
				process.stdout.write(`${where}: yaml snippet: ${msg}\n`);
			};
			count++;
			let docs;
			try {
				docs = yaml.loadAll(src).filter((d) => d !== null && d !== undefined);
			} catch (e) {
				fail(`does not parse: ${e.message.split("\n")[0]}`);
				return;
			}
			const k = kind(docs);
			if (k === null) {
				fail("not a GitHub workflow, a GitLab pipeline or Kubernetes objects: no validator can judge it");
				return;
			}
			counts[k]++;
			const doc = docs[0];
			let out = src;
			if (k === "github") {
				if (!("on" in doc))
					fail("a workflow without on: (show the whole workflow: the validators judge it as written)");
				for (const job of Object.values(doc.jobs || {}))
					for (const step of (job && job.steps) || [])
						if (step && step.uses && /\/ci\/github@/.test(step.uses))
							for (const key of Object.keys(step.with || {}))
								if (!inputs.has(key))
									fail(`with: ${key} is not an input of ci/github/action.yml`);
				if (!workflows.some((w) => part(doc, w.doc)))
					fail(`is not a part of any of ${wfDir}/*.yml`);
			} else if (k === "gitlab") {
				const gl = { ...doc };
				if (Array.isArray(gl.include))
					gl.include = gl.include.map((inc) => inc && inc.file === tplPath ?
					    { local: tplPath } : inc);
				for (const [name, job] of Object.entries(doc))
					if (isObj(job) && job.extends !== undefined &&
					    ![].concat(job.extends).every((e) => e in template))
						fail(`${name} extends ${job.extends}, not a job of ${tplPath}`);
				if (!part(gl, example))
					fail("is not a part of ci/gitlab/example.gitlab-ci.yml");
				out = yaml.dump(gl, { lineWidth: -1 });
			} else {
				docs.forEach((d, j) => {
					if (!objects.some((o) => part(d, o)))
						fail(`document ${j + 1} (${d.kind}) is not a part of any object of ${k8sDir}/*.yaml`);
				});
			}
			if (dir !== null) {
				const ext = { github: ".yml", gitlab: ".gitlab-ci.yml", kubernetes: ".yaml" }[k];
				const p = path.join(dir, k, `${stem}-${i + 1}${ext}`);
				fs.mkdirSync(path.dirname(p), { recursive: true });
				fs.writeFileSync(p, out);
				process.stdout.write(`${where}: ${k} ${p}\n`);
			}
		});
	}
	if (count === 0) {
		process.stderr.write(`ci-snippets.js: no yaml snippets in ${argv.join(" ")}\n`);
		process.exit(2);
	}
	if (bad === 0)
		process.stdout.write(`${count} yaml snippets consistent with ci/ ` +
		    `(${counts.github} GitHub, ${counts.gitlab} GitLab, ${counts.kubernetes} Kubernetes)\n`);
	process.exit(bad ? 1 : 0);
}

try {
	main();
} catch (e) {
	process.stderr.write(`ci-snippets.js: ${e.message}\n`);
	process.exit(2);
}
