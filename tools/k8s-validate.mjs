#!/usr/bin/env node
// tools/k8s-validate.mjs FILE...: validate every YAML document of each
// FILE as a Kubernetes object, offline, with kubernetes-models (the
// OpenAPI schemas of the Kubernetes API compiled to validators).  For each
// document it prints
//
//   FILE: KIND/NAME: valid
//   FILE: KIND/NAME: PATH MESSAGE (line N)      one line per problem
//
// kubernetes-models follows the API's schemas, which allow properties they
// do not name: a misspelt field (`comand:`) passes it, and the API server
// would drop it with at most a warning.  So every mapping is also checked
// against the properties the model declares for it (its TypeScript
// declarations, the same OpenAPI definitions): a key the model does not
// have is an error, `unknown field "comand" (did you mean "command"?)`.
// Free-form maps (labels, nodeSelector, limits) are not checked.
//
// Exit 0 when every document is valid, 1 when one is invalid or of an
// apiVersion/kind kubernetes-models does not know, 2 when a file cannot be
// read, is not YAML or holds no document (2 wins over 1), or on a usage
// error.

import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { parseAllDocuments, LineCounter } from "yaml";

const here = path.dirname(fileURLToPath(import.meta.url));

// The directory of an installed package, found the way Node finds it:
// node_modules/NAME in FROM or one of its parents.
function packageDir(from, name) {
	for (let d = from; ; d = path.dirname(d)) {
		const p = path.join(d, "node_modules", name);
		if (fs.existsSync(path.join(p, "package.json")))
			return p;
		if (path.dirname(d) === d)
			throw new Error(`package ${name} is not installed (tools/deps.sh test installs it)`);
	}
}

// ---- The models' declared properties, from their .d.ts files ----------

// Split S at depth 0 (outside { } < > ( ) [ ]) on the character SEP.
function splitTop(s, sep) {
	const out = [];
	let depth = 0, start = 0;
	for (let i = 0; i < s.length; i++) {
		const c = s[i];
		if ("{<([".includes(c))
			depth++;
		else if ("}>)]".includes(c))
			depth--;
		else if (c === sep && depth === 0) {
			out.push(s.slice(start, i));
			start = i + 1;
		}
	}
	out.push(s.slice(start));
	return out.map((x) => x.trim()).filter((x) => x !== "");
}

// A model: { props: Map(name -> type) } where a type is
//   { ref: FILE } an object of the model in FILE (another .d.ts),
//   { array: FILE } a list of them, { map: FILE } a map of them,
//   null anything else (a scalar, a list of scalars, a free-form map).
// A .d.ts with no interface (Quantity, IntOrString: a type alias) is a
// leaf: model() returns null.
const models = new Map();

function model(file) {
	if (models.has(file))
		return models.get(file);
	let src;
	try {
		src = fs.readFileSync(file, "utf8");
	} catch (e) {
		throw new Error(`cannot read the model ${file}: ${e.message}`);
	}
	src = src.replace(/\/\*[\s\S]*?\*\//g, "").replace(/^\s*\/\/.*$/gm, "");
	const imports = new Map();
	for (const m of src.matchAll(/import\s*\{([^}]*)\}\s*from\s*"([^"]+)"/g))
		for (const name of m[1].split(","))
			imports.set(name.trim(), m[2]);
	const head = /export interface \w+(?: extends [\w, ]+)? \{/.exec(src);
	if (!head) {
		models.set(file, null);
		return null;
	}
	// The interface's body: from its "{" to the matching "}".
	let depth = 0, i = head.index + head[0].length - 1, end = -1;
	for (; i < src.length; i++) {
		if (src[i] === "{")
			depth++;
		else if (src[i] === "}" && --depth === 0) {
			end = i;
			break;
		}
	}
	if (end < 0)
		throw new Error(`cannot parse the model ${file}`);
	const body = src.slice(head.index + head[0].length, end);
	const resolve = (ident) => {
		const spec = imports.get(ident);
		if (!spec)
			return null;
		let base;
		if (spec.startsWith("."))
			base = path.resolve(path.dirname(file), spec);
		else {
			// @scope/pkg/sub/path or pkg/sub/path
			const parts = spec.split("/");
			const n = spec.startsWith("@") ? 2 : 1;
			base = path.join(packageDir(path.dirname(file), parts.slice(0, n).join("/")),
			    ...parts.slice(n));
		}
		return base.replace(/\.js$/, "") + ".d.ts";
	};
	const props = new Map();
	for (const member of splitTop(body, ";")) {
		const m = /^"([^"]+)"\??:\s*([\s\S]+)$/.exec(member) ||
		    /^([A-Za-z_$][\w$]*)\??:\s*([\s\S]+)$/.exec(member);
		if (!m)
			continue;
		const t = m[2].trim();
		let type = null, r;
		if ((r = /^(I\w+)$/.exec(t)) && resolve(r[1]))
			type = { ref: resolve(r[1]) };
		else if ((r = /^Array<(I\w+)>$/.exec(t)) && resolve(r[1]))
			type = { array: resolve(r[1]) };
		else if ((r = /^\{\s*\[key: string\]:\s*(I\w+);?\s*\}$/.exec(t)) && resolve(r[1]))
			type = { map: resolve(r[1]) };
		props.set(m[1], type);
	}
	if (props.size === 0)
		throw new Error(`no properties found in the model ${file}`);
	const mod = { props };
	models.set(file, mod);
	return mod;
}

// Levenshtein distance, for "did you mean".
function distance(a, b) {
	const d = Array.from({ length: a.length + 1 }, (_, i) => [i]);
	for (let j = 1; j <= b.length; j++)
		d[0][j] = j;
	for (let i = 1; i <= a.length; i++)
		for (let j = 1; j <= b.length; j++)
			d[i][j] = Math.min(d[i - 1][j] + 1, d[i][j - 1] + 1,
			    d[i - 1][j - 1] + (a[i - 1].toLowerCase() === b[j - 1].toLowerCase() ? 0 : 1));
	return d[a.length][b.length];
}

// Unknown keys of OBJ (at PATH, a list of keys) under the model in FILE,
// and below it; each { path, message }.
function unknownFields(obj, file, at, out) {
	if (obj === null || typeof obj !== "object" || Array.isArray(obj))
		return; // the schema validation reports a wrong type
	const mod = model(file);
	if (!mod)
		return;
	for (const [k, v] of Object.entries(obj)) {
		if (!mod.props.has(k)) {
			let near = null, best = 3;
			for (const p of mod.props.keys()) {
				const dist = distance(k, p);
				if (dist < best) {
					best = dist;
					near = p;
				}
			}
			out.push({ path: at, key: k,
			    message: `unknown field "${k}"` + (near ? ` (did you mean "${near}"?)` : "") });
			continue;
		}
		const t = mod.props.get(k);
		if (!t || v === null || typeof v !== "object")
			continue;
		if (t.ref)
			unknownFields(v, t.ref, [...at, k], out);
		else if (t.array && Array.isArray(v))
			v.forEach((e, i) => unknownFields(e, t.array, [...at, k, i], out));
		else if (t.map && !Array.isArray(v))
			for (const [mk, mv] of Object.entries(v))
				unknownFields(mv, t.map, [...at, k, mk], out);
	}
}

// ---- Documents ----------------------------------------------------------

// The module and class of an apiVersion/kind, or null.
async function modelClass(apiVersion, kind) {
	if (typeof apiVersion !== "string" || typeof kind !== "string" ||
	    !/^[a-z0-9.-]+(\/[a-z0-9]+)?$/.test(apiVersion) || !/^[A-Z]\w*$/.test(kind))
		return null;
	let mod;
	try {
		mod = await import(`kubernetes-models/${apiVersion}`);
	} catch (e) {
		if (e.code === "ERR_PACKAGE_PATH_NOT_EXPORTED" || e.code === "ERR_MODULE_NOT_FOUND")
			return null;
		throw e;
	}
	const Cls = mod[kind];
	if (typeof Cls !== "function" || Cls.kind !== kind)
		return null;
	return { Cls, dts: path.join(packageDir(here, "kubernetes-models"), apiVersion, `${kind}.d.ts`) };
}

const pointer = (keys) => keys.map((k) => "/" + String(k).replace(/~/g, "~0").replace(/\//g, "~1")).join("");
const unpointer = (p) => p.split("/").slice(1).map((k) => k.replace(/~1/g, "/").replace(/~0/g, "~"));

function ajvMessage(e) {
	let msg = `${e.instancePath || "/"} ${e.message}`;
	if (e.keyword === "enum" && e.params && e.params.allowedValues)
		msg += `: ${e.params.allowedValues.join(", ")}`;
	return msg;
}

async function checkFile(file, report) {
	let text;
	try {
		text = fs.readFileSync(file, "utf8");
	} catch (e) {
		report(2, `${file}: cannot read: ${e.code === "ENOENT" ? "no such file" : e.message}`);
		return;
	}
	const lc = new LineCounter();
	const docs = parseAllDocuments(text, { lineCounter: lc, prettyErrors: false });
	const line = (offset) => lc.linePos(offset).line;
	let broken = false;
	for (const doc of docs)
		for (const e of doc.errors) {
			report(2, `${file}:${line(e.pos[0])}: YAML error: ${e.message.split("\n")[0]}`);
			broken = true;
		}
	if (broken)
		return;
	let n = 0, objects = 0;
	for (const doc of docs) {
		const obj = doc.toJS({ maxAliasCount: 100 });
		n++;
		if (obj === null || obj === undefined)
			continue; // an empty document ("---" at the end)
		objects++;
		const docLine = doc.contents && doc.contents.range ? line(doc.contents.range[0]) : 1;
		if (typeof obj !== "object" || Array.isArray(obj)) {
			report(1, `${file}:${docLine}: document ${n}: not a mapping, not a Kubernetes object`);
			continue;
		}
		const meta = obj.metadata && typeof obj.metadata === "object" ? obj.metadata : {};
		const id = `${obj.kind ?? "(no kind)"}/${meta.name ?? meta.generateName ?? `(document ${n})`}`;
		const where = (keys) => {
			const node = keys.length ? doc.getIn(keys, true) : doc.contents;
			return node && node.range ? ` (line ${line(node.range[0])})` : "";
		};
		const found = await modelClass(obj.apiVersion, obj.kind);
		if (!found) {
			report(1, `${file}: ${id}: unknown apiVersion/kind "${obj.apiVersion}" "${obj.kind}" (not in kubernetes-models)${where([])}`);
			continue;
		}
		const problems = [];
		try {
			new found.Cls(obj).validate();
		} catch (e) {
			if (!Array.isArray(e.errors))
				throw e;
			for (const err of e.errors)
				problems.push(ajvMessage(err) + where(unpointer(err.instancePath)));
		}
		const unknown = [];
		unknownFields(obj, found.dts, [], unknown);
		for (const u of unknown)
			problems.push(`${pointer(u.path) || "/"}: ${u.message}${where([...u.path, u.key]) || where(u.path)}`);
		if (problems.length === 0)
			report(0, `${file}: ${id}: valid`);
		for (const p of [...new Set(problems)])
			report(1, `${file}: ${id}: ${p}`);
	}
	if (objects === 0)
		report(2, `${file}: no YAML documents, nothing to validate`);
}

const files = process.argv.slice(2);
if (files.length === 0 || files.some((f) => f === "-h" || f === "--help")) {
	process.stderr.write("usage: node tools/k8s-validate.mjs FILE...\n");
	process.exit(2);
}
let status = 0;
const report = (level, line) => {
	(level === 2 ? process.stderr : process.stdout).write(line + "\n");
	status = Math.max(status, level);
};
try {
	for (const f of files)
		await checkFile(f, report);
} catch (e) {
	process.stderr.write(`k8s-validate.mjs: ${e.message}\n`);
	process.exit(2);
}
process.exitCode = status;
