#!/usr/bin/env node
// junit_consumers.mjs XML WORKDIR: read a JUnit report with the GitHub
// Actions that print what they read into the job's log, running their own
// code (tests/consumers/, vendored verbatim; see its README.md), and keep
// what they write to standard output, where the runner reads workflow
// commands:
//
//   dorny/test-reporter (reporter java-junit, use-actions-summary true, its
//   default): JavaJunitParser, then getReport, whose summary its main.ts
//   prints with core.info (src/main.ts, createReport);
//   mikepenz/action-junit-report (include_passed, annotate_notice and
//   annotate_only true, so that every case is printed and annotated):
//   parseTestReports, which prints one core.info line per annotation, then
//   annotateTestResult, which prints another and issues each annotation
//   through @actions/core's error(), warning() and notice().
//
// The TypeScript is transpiled with the typescript package (as their
// builds do, tsc) into WORKDIR/js.  Each write to standard output is
// kept: WORKDIR/plain.log holds what was printed as text (core.info and
// the like), WORKDIR/commands.log what @actions/core issued as a command
// (its issueCommand).  A command must be one line: one that is not is
// printed and the exit status is 1.  runner_commands.py then reads
// plain.log as the runner would.
import { mkdirSync, readFileSync, readdirSync, statSync, symlinkSync,
    writeFileSync } from 'fs';
import path from 'path';
import { fileURLToPath, pathToFileURL } from 'url';

const here = path.dirname(fileURLToPath(import.meta.url));
const repo = path.join(here, '..', '..');
const mods = path.join(repo, 'tools', 'node_modules');
const [xml, work] = process.argv.slice(2);
const js = path.join(work, 'js');

const ts = (await import(pathToFileURL(path.join(mods, 'typescript',
    'lib', 'typescript.js')))).default;

function transpile(from, to) {
	for (const name of readdirSync(from)) {
		const src = path.join(from, name);
		if (statSync(src).isDirectory()) {
			transpile(src, path.join(to, name));
			continue;
		}
		if (!name.endsWith('.ts'))
			continue;
		const out = ts.transpileModule(readFileSync(src, 'utf8'), {
			compilerOptions: {
				module: ts.ModuleKind.ES2022,
				target: ts.ScriptTarget.ES2022,
				isolatedModules: true,
				esModuleInterop: true,
			},
			fileName: src,
		});
		mkdirSync(to, { recursive: true });
		writeFileSync(path.join(to, name.replace(/\.ts$/, '.js')),
		    out.outputText);
	}
}
mkdirSync(js, { recursive: true });
transpile(path.join(repo, 'tests', 'consumers'), js);
writeFileSync(path.join(js, 'package.json'), '{"type": "module"}\n');
symlinkSync(mods, path.join(js, 'node_modules'));

// What reaches the runner, write by write.
const plain = [], commands = [];
const write = process.stdout.write.bind(process.stdout);
process.stdout.write = (chunk, ...rest) => {
	const text = chunk.toString();
	if (/\bissueCommand\b/.test(new Error().stack))
		commands.push(text);
	else
		plain.push(text);
	return true;
};
// No GITHUB_OUTPUT or GITHUB_STEP_SUMMARY file: nothing else is written.
for (const v of ['GITHUB_OUTPUT', 'GITHUB_STEP_SUMMARY', 'GITHUB_STATE',
    'GITHUB_ENV', 'GITHUB_WORKSPACE'])
	delete process.env[v];

const core = await import(pathToFileURL(path.join(mods, '@actions', 'core',
    'lib', 'core.js')));
const mod = (p) => import(pathToFileURL(path.join(js, p)));
let failed = 0;

// dorny/test-reporter, as its main.ts's createReport does with
// use-actions-summary true.
try {
	const { JavaJunitParser } = await mod('test-reporter/src/parsers/' +
	    'java-junit/java-junit-parser.js');
	const { getReport, DEFAULT_OPTIONS } = await mod('test-reporter/src/' +
	    'report/get-report.js');
	const parser = new JavaJunitParser({ workDir: work, trackedFiles: [],
	    parseErrors: true });
	const tr = await parser.parse(xml, readFileSync(xml, 'utf8'));
	const results = [tr];
	const passed = results.reduce((sum, r) => sum + r.passed, 0);
	const fails = results.reduce((sum, r) => sum + r.failed, 0);
	const skipped = results.reduce((sum, r) => sum + r.skipped, 0);
	const summary = getReport(results, { ...DEFAULT_OPTIONS,
	    useActionsSummary: true },
	    `${passed} passed, ${fails} failed and ${skipped} skipped `);
	core.info('Summary content:');
	core.info(summary);
} catch (e) {
	console.error(`test-reporter: ${e.stack}`);
	failed = 1;
}

// mikepenz/action-junit-report, annotate_only.
try {
	const { parseTestReports } = await mod('action-junit-report/src/' +
	    'testParser.js');
	const { annotateTestResult } = await mod('action-junit-report/src/' +
	    'annotator.js');
	const result = await parseTestReports('envparity', 'envparity', xml,
	    '', true, true, false, ['/build/', '/__pycache__/',
	    '/node_modules/'], undefined, '/', '', [], false, -1, true, true,
	    false);
	await annotateTestResult(result, 'token', '0'.repeat(40), true, true,
	    false, true, 'envparity');
	if (result.totalCount === 0)
		throw new Error('no test case read');
} catch (e) {
	console.error(`action-junit-report: ${e.stack}`);
	failed = 1;
}

process.stdout.write = write;
writeFileSync(path.join(work, 'plain.log'), plain.join(''));
writeFileSync(path.join(work, 'commands.log'), commands.join(''));
for (const c of commands)
	if (!/^[^\r\n]*\r?\n$/.test(c)) {
		console.log(`a command of more than one line: ${JSON.stringify(c)}`);
		failed = 1;
	}
console.log(`${plain.length} lines printed, ${commands.length} commands`);
process.exit(failed);
