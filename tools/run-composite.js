#!/usr/bin/env node
// tools/run-composite.js ACTION.yml RESULT.json [NAME=VALUE...]: run a
// composite GitHub action's run: steps here, in bash, the way the runner
// does, so that its glue is tested for real and not only its YAML.
//
// Like the runner: inputs are the action's defaults overridden by
// NAME=VALUE (an unknown or missing required input is an error); each
// step's if: (default success()), env:, working-directory: and shell are
// honoured; ${{ }} is evaluated over inputs, steps (outputs, outcome),
// github (action_path, workspace, ...), runner (temp, os) and env; a run:
// step is `bash --noprofile --norc -eo pipefail FILE` with a fresh
// GITHUB_OUTPUT whose name=value and name<<EOF lines become the step's
// outputs; GITHUB_ACTIONS=true, GITHUB_ACTION_PATH and RUNNER_TEMP are
// set; GITHUB_STEP_SUMMARY is kept from the environment (else a file in
// RUNNER_TEMP).  A uses: step is not run: it is recorded, with its with:
// evaluated, in RESULT's "uses" for the caller to assert on.
//
// The expression language is the subset actions use: literals, context
// paths, == != ! && || ( ) and always() success() failure() cancelled().
//
// RESULT.json: {"conclusion", "outputs", "steps": {id: {outcome,
// exit_code (null unless run), outputs}}, "uses": [{"uses", "with"}]};
// a step without an id is named __stepN.  Exit 0 when every step that
// ran succeeded, 1 when one failed, 2 on a usage or action error.
"use strict";

const fs = require("node:fs");
const os = require("node:os");
const path = require("node:path");
const { spawnSync } = require("node:child_process");
const yaml = require("js-yaml");

function die(msg) {
	process.stderr.write(`run-composite.js: ${msg}\n`);
	process.exit(2);
}

function tokenize(src) {
	const toks = [];
	let i = 0;
	while (i < src.length) {
		const c = src[i];
		if (/\s/.test(c)) { i++; continue; }
		const two = src.slice(i, i + 2);
		if (["==", "!=", "&&", "||", "<=", ">="].includes(two)) {
			toks.push({ op: two }); i += 2; continue;
		}
		if ("!()<>,".includes(c)) { toks.push({ op: c }); i++; continue; }
		if (c === "'") {
			let s = "";
			i++;
			for (;;) {
				if (i >= src.length)
					throw new Error(`unterminated string in ${src}`);
				if (src[i] === "'" && src[i + 1] === "'") { s += "'"; i += 2; continue; }
				if (src[i] === "'") { i++; break; }
				s += src[i++];
			}
			toks.push({ str: s });
			continue;
		}
		const m = /^[A-Za-z0-9_][A-Za-z0-9_.\-]*/.exec(src.slice(i));
		if (!m)
			throw new Error(`unexpected '${c}' in ${src}`);
		toks.push({ word: m[0] });
		i += m[0].length;
	}
	return toks;
}

function evaluate(src, ctx) {
	const toks = tokenize(src);
	let p = 0;
	const peek = () => toks[p];
	const isOp = (op) => toks[p] && toks[p].op === op;
	const eq = (a, b) => (typeof a === "string" && typeof b === "string") ?
	    a.toLowerCase() === b.toLowerCase() : a === b;
	function primary() {
		const t = toks[p++];
		if (!t)
			throw new Error(`unexpected end of ${src}`);
		if (t.op === "!")
			return !truthy(primary());
		if (t.op === "(") {
			const v = or();
			if (!isOp(")"))
				throw new Error(`missing ) in ${src}`);
			p++;
			return v;
		}
		if (t.str !== undefined)
			return t.str;
		const w = t.word;
		if (isOp("(")) {
			p++;
			if (!isOp(")"))
				throw new Error(`arguments are not supported: ${src}`);
			p++;
			if (w === "always") return true;
			if (w === "success") return !ctx.failed;
			if (w === "failure") return ctx.failed;
			if (w === "cancelled") return false;
			throw new Error(`unknown function ${w}()`);
		}
		if (w === "true") return true;
		if (w === "false") return false;
		if (w === "null") return null;
		if (/^[0-9]/.test(w)) return Number(w);
		let v = ctx;
		for (const part of w.split(".")) {
			v = (v !== null && typeof v === "object" && part in v) ? v[part] : null;
		}
		return v === undefined ? null : v;
	}
	function cmp() {
		let v = primary();
		while (peek() && ["==", "!=", "<", ">", "<=", ">="].includes(peek().op)) {
			const op = toks[p++].op;
			const r = primary();
			if (op === "==") v = eq(v, r);
			else if (op === "!=") v = !eq(v, r);
			else if (op === "<") v = Number(v) < Number(r);
			else if (op === ">") v = Number(v) > Number(r);
			else if (op === "<=") v = Number(v) <= Number(r);
			else v = Number(v) >= Number(r);
		}
		return v;
	}
	function and() {
		let v = cmp();
		while (isOp("&&")) { p++; const r = cmp(); v = truthy(v) ? r : v; }
		return v;
	}
	function or() {
		let v = and();
		while (isOp("||")) { p++; const r = and(); v = truthy(v) ? v : r; }
		return v;
	}
	const v = or();
	if (p !== toks.length)
		throw new Error(`trailing tokens in ${src}`);
	return v;
}

function truthy(v) {
	return !(v === false || v === null || v === undefined || v === "" || v === 0);
}

function str(v) {
	if (v === null || v === undefined) return "";
	if (typeof v === "object") return JSON.stringify(v);
	return String(v);
}

// "a ${{ x }} b" with each expression evaluated; a value that is one
// expression alone keeps its type (for if:).
function template(s, ctx) {
	if (typeof s !== "string")
		return s;
	const whole = /^\s*\$\{\{((?:(?!\}\})[\s\S])*)\}\}\s*$/.exec(s);
	if (whole)
		return evaluate(whole[1], ctx);
	return s.replace(/\$\{\{([\s\S]*?)\}\}/g, (_, e) => str(evaluate(e, ctx)));
}

function readOutputs(file) {
	const out = {};
	const lines = fs.readFileSync(file, "utf8").split("\n");
	for (let i = 0; i < lines.length; i++) {
		const l = lines[i];
		if (l === "")
			continue;
		const h = /^([^=<]+)<<(.+)$/.exec(l);
		if (h) {
			const body = [];
			for (i++; i < lines.length && lines[i] !== h[2]; i++)
				body.push(lines[i]);
			if (i >= lines.length)
				throw new Error(`GITHUB_OUTPUT: no closing ${h[2]} for ${h[1]}`);
			out[h[1]] = body.join("\n");
			continue;
		}
		const e = l.indexOf("=");
		if (e <= 0)
			throw new Error(`GITHUB_OUTPUT: malformed line: ${l}`);
		out[l.slice(0, e)] = l.slice(e + 1);
	}
	return out;
}

function main() {
	const [actionFile, resultFile, ...pairs] = process.argv.slice(2);
	if (!actionFile || !resultFile)
		die("usage: tools/run-composite.js ACTION.yml RESULT.json [NAME=VALUE...]");
	const action = yaml.load(fs.readFileSync(actionFile, "utf8"));
	if (!action || !action.runs || action.runs.using !== "composite")
		die(`${actionFile}: not a composite action`);

	const inputs = {};
	for (const [k, d] of Object.entries(action.inputs || {}))
		inputs[k] = d && d.default !== undefined ? str(d.default) : "";
	for (const pair of pairs) {
		const e = pair.indexOf("=");
		if (e <= 0)
			die(`input ${pair}: not NAME=VALUE`);
		const k = pair.slice(0, e);
		if (!(k in inputs))
			die(`input ${k}: the action has no such input`);
		inputs[k] = pair.slice(e + 1);
	}
	for (const [k, d] of Object.entries(action.inputs || {}))
		if (d && d.required && inputs[k] === "")
			die(`input ${k}: required`);

	const workspace = process.env.GITHUB_WORKSPACE || process.cwd();
	const temp = process.env.RUNNER_TEMP || fs.mkdtempSync(path.join(os.tmpdir(), "runner-"));
	const actionPath = path.dirname(path.resolve(actionFile));
	const summary = process.env.GITHUB_STEP_SUMMARY || path.join(temp, "step-summary.md");
	const baseEnv = { ...process.env, GITHUB_ACTIONS: "true", CI: "true",
	    GITHUB_ACTION_PATH: actionPath, GITHUB_WORKSPACE: workspace,
	    RUNNER_TEMP: temp, RUNNER_OS: "Linux", GITHUB_STEP_SUMMARY: summary };
	const ctx = {
		inputs, steps: {}, env: baseEnv, failed: false,
		github: { action_path: actionPath, workspace, event_name: "workflow_dispatch" },
		runner: { temp, os: "Linux" },
	};
	const uses = [];

	action.runs.steps.forEach((step, n) => {
		const id = step.id || `__step${n + 1}`;
		const cond = step.if === undefined ? "success()" : String(step.if)
		    .replace(/^\s*\$\{\{([\s\S]*)\}\}\s*$/, "$1");
		let run = truthy(evaluate(cond, ctx));
		let outcome = "skipped", outputs = {}, exitCode = null;
		if (run && step.uses) {
			const w = {};
			for (const [k, v] of Object.entries(step.with || {}))
				w[k] = str(template(v, ctx));
			uses.push({ uses: step.uses, with: w });
			process.stderr.write(`run-composite.js: not run here: ${step.uses}\n`);
			outcome = "success";
		} else if (run) {
			const env = { ...baseEnv };
			for (const [k, v] of Object.entries(step.env || {}))
				env[k] = str(template(v, ctx));
			const out = path.join(temp, `output-${n + 1}`);
			fs.writeFileSync(out, "");
			env.GITHUB_OUTPUT = out;
			const script = path.join(temp, `step-${n + 1}.sh`);
			fs.writeFileSync(script, step.run);
			const shell = step.shell || "bash";
			if (shell !== "bash")
				die(`step ${id}: shell ${shell} is not supported here`);
			const wd = step["working-directory"] !== undefined ?
			    path.resolve(workspace, str(template(step["working-directory"], ctx))) : workspace;
			const r = spawnSync("bash", ["--noprofile", "--norc", "-eo", "pipefail", script],
			    { cwd: wd, env, stdio: "inherit" });
			exitCode = r.status;
			outcome = r.status === 0 ? "success" : "failure";
			outputs = readOutputs(out);
		}
		if (outcome === "failure")
			ctx.failed = true;
		ctx.steps[id] = { outcome, conclusion: outcome, outputs, exitCode };
	});

	const outputs = {};
	for (const [k, d] of Object.entries(action.outputs || {}))
		outputs[k] = str(template(d.value, ctx));
	const steps = {};
	for (const [k, v] of Object.entries(ctx.steps))
		steps[k] = { outcome: v.outcome, exit_code: v.exitCode, outputs: v.outputs };
	const result = { conclusion: ctx.failed ? "failure" : "success", outputs, steps, uses };
	fs.writeFileSync(resultFile, JSON.stringify(result, null, 2) + "\n");
	process.exit(ctx.failed ? 1 : 0);
}

try {
	main();
} catch (e) {
	die(e.message);
}
