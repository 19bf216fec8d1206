#!/usr/bin/env node
// Records what the REAL DSH (published @deepseek-ai/dsh-tool-bash 0.1.0-rc.8 and the packages it runs on) decides
// for bash tool calls, so Python tests can compare the model of DSH (toolkit.layers.execution) against it offline.
//
//   node lab/dsh-fixtures/generate.mjs [--out tests/fixtures/dsh]
//
// Writes execution.json (2-space JSON, key order as produced, no timestamps; regenerating gives identical bytes).
// Nothing here re-implements DSH: the bash tool is registered by dsh-tool-bash's own `apply` into a stub context,
// and each case calls the registered tool's `execute` (dsh-tools `defineTool`: the schema check, then
// `validateBashArgs`, `validateEscalationArgs` and dsh-sandbox `approveEscalation`). The stub context only supplies
// what the tool asks for: the session's sandbox mode, a sandbox policy, an approver answering the case's outcome,
// and a shell that runs nothing (it reports the sandbox mode the command would have run in).

import { mkdir, readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { apply } from "@deepseek-ai/dsh-tool-bash";

const HERE = path.dirname(fileURLToPath(import.meta.url));
const REPO = path.resolve(HERE, "../..");
const DSH_VERSION = "0.1.0-rc.8";
const MODES = ["read-only", "workspace-write", "danger-full-access"];
const OUTCOMES = ["allowed-once", "rejected", "cancelled", "unavailable"];
const WORKSPACE = "/workspace";

let outDir = path.join(REPO, "tests/fixtures/dsh");
{
	const argv = process.argv.slice(2);
	for (let i = 0; i < argv.length; i++) {
		if (argv[i] === "--out" && i + 1 < argv.length) outDir = path.resolve(argv[++i]);
		else if (argv[i].startsWith("--out=")) outDir = path.resolve(argv[i].slice(6));
		else {
			process.stderr.write("usage: node lab/dsh-fixtures/generate.mjs [--out DIR]\n");
			process.exit(2);
		}
	}
}

const BASE = { command: "ls", description: "List files in current directory" };
// [id, arguments]: every case runs in every mode with every approval outcome.
const CORPUS = [
	["no-escalation", { ...BASE }],
	["no-escalation-timeout", { ...BASE, timeoutMs: 5000 }],
	["permissions-without-justification", { ...BASE, sandbox_permissions: "danger-full-access" }],
	["justification-without-permissions", { ...BASE, justification: "The sandbox denied the write." }],
	["empty-justification", { ...BASE, sandbox_permissions: "danger-full-access", justification: "" }],
	["whitespace-justification", { ...BASE, sandbox_permissions: "danger-full-access", justification: " \t\n " }],
	["to-workspace-write", { ...BASE, sandbox_permissions: "workspace-write", justification: "It writes build output." }],
	[
		"to-danger-full-access",
		{ ...BASE, sandbox_permissions: "danger-full-access", justification: "It needs the network." },
	],
	["invalid-enum", { ...BASE, sandbox_permissions: "read-only", justification: "Narrow it." }],
	["invalid-enum-unknown", { ...BASE, sandbox_permissions: "full-access", justification: "Needs more." }],
	["empty-command", { command: "  ", description: "List files" }],
	["empty-description", { command: "ls", description: "" }],
	["missing-description", { command: "ls" }],
	["command-not-string", { command: 1, description: "List files" }],
	["timeout-zero", { ...BASE, timeoutMs: 0 }],
	["timeout-negative", { ...BASE, timeoutMs: -5 }],
	["escalation-and-empty-command", { command: "", description: "x", sandbox_permissions: "danger-full-access" }],
];

function stubContext(mode, outcome, asked) {
	const services = {
		sandboxPolicy: { resolve: () => ({ mode, workspaceRoot: WORKSPACE }) },
		approval: {
			request: async (req) => {
				asked.push({ toolName: req.toolName, callId: req.callId, reason: req.reason });
				return outcome;
			},
		},
	};
	const registered = [];
	const ctx = {
		shell: {
			sandboxMode: mode,
			resolve: (request) => request,
			run: async (request) => ({
				exitCode: 0,
				signal: null,
				timedOut: false,
				aborted: false,
				timeoutMs: request.timeoutMs ?? 120000,
				stdout: { text: `ran under ${request.sandboxPolicy?.mode}`, truncated: false },
				stderr: { text: "", truncated: false },
			}),
		},
		shellEnv: { collect: () => ({}) },
		systemPrompt: { section: () => {} },
		tools: { register: (tool) => registered.push(tool) },
		get: (name) => services[name],
	};
	apply(ctx, {});
	return registered[0];
}

async function run(mode, outcome, args) {
	const asked = [];
	const tool = stubContext(mode, outcome, asked);
	const exec = { agent: { session: { header: { cwd: WORKSPACE } } }, callId: "call-1", signal: new AbortController().signal };
	let result;
	try {
		const value = await tool.execute(structuredClone(args), exec);
		result = { ok: true, ran_in: value.stdout.text.replace(/^ran under /, "") };
	} catch (err) {
		result = { ok: false, error: String(err?.message ?? err), errorName: err?.name ?? typeof err };
	}
	return { ...result, approval_asked: asked };
}

const records = [];
for (const [id, args] of CORPUS) {
	for (const mode of MODES) {
		// The approver is asked only for a strictly wider request; the other outcomes are run to show it is not.
		for (const outcome of OUTCOMES) {
			const got = await run(mode, outcome, args);
			records.push({ id: `${id}/${mode}/${outcome}`, case: id, mode, approval: outcome, arguments: args, dsh: got });
		}
	}
}

const schemaTool = stubContext("read-only", "allowed-once", []);
const doc = {
	generator: "lab/dsh-fixtures/generate.mjs",
	dsh_version: DSH_VERSION,
	packages: JSON.parse(await readFile(path.join(HERE, "package.json"), "utf8")).dependencies,
	entry: "@deepseek-ai/dsh-tool-bash lib/index.js apply -> registered tool execute (dsh-tools defineTool)",
	tool_result_text: "dsh-tools toolErrorResult: a thrown error becomes the tool result `Error: <message>`",
	parameters: schemaTool.parameters,
	records,
};
await mkdir(outDir, { recursive: true });
await writeFile(path.join(outDir, "execution.json"), JSON.stringify(doc, null, 2) + "\n");
process.stdout.write(`wrote ${records.length} records to ${path.relative(REPO, path.join(outDir, "execution.json"))}\n`);
