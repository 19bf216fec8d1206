#!/usr/bin/env node
// Records what the REAL DSH (the published @deepseek-ai/* 0.1.0-rc.8 packages) decides for `bash`, `pwsh`, `write`
// and `edit` tool calls, and the schema each tool advertises, so Python tests can compare the model of DSH
// (toolkit.layers.execution, toolkit.knowledge.dsh_tools) against it offline.
//
//   node lab/dsh-fixtures/generate.mjs [--out tests/fixtures/dsh]
//
// Writes execution.json and schemas.json (2-space JSON, key order as produced, no timestamps; regenerating gives
// identical bytes). Nothing here re-implements DSH: each tool is registered by its own package's `apply`
// (dsh-tool-bash, dsh-tool-pwsh, dsh-tool-fs) into a stub context, and each case calls the registered tool's
// `execute` (dsh-tools `defineTool`: the schema check, then the tool's own checks, dsh-sandbox
// `validateEscalationArgs` and `approveEscalation`). The stub context only supplies what the tools ask for: the
// composition's sandbox mode (or none: no sandboxing executor / filesystem), a sandbox policy, an approval channel,
// a shell or filesystem that does nothing (it reports the sandbox mode the call would have run in), and optionally
// a jobs service. The approval channel is either a stub answering a fixed outcome or the REAL
// dsh-user-approval ApprovalService mounted in a real cordis Context (its policy, answerers and audit events).

import { mkdir, readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { outDir as outOption } from "./harness.mjs";
import { Context } from "@deepseek-ai/cordis";
import * as bashPkg from "@deepseek-ai/dsh-tool-bash";
import * as fsPkg from "@deepseek-ai/dsh-tool-fs";
import * as pwshPkg from "@deepseek-ai/dsh-tool-pwsh";
import { ApprovalService } from "@deepseek-ai/dsh-user-approval";

const HERE = path.dirname(fileURLToPath(import.meta.url));
const REPO = path.resolve(HERE, "../..");
const MODULES = path.join(HERE, "node_modules") + path.sep;
const DSH_VERSION = "0.1.0-rc.8";
const MODES = ["read-only", "workspace-write", "danger-full-access"];
const OUTCOMES = ["allowed-once", "rejected", "cancelled", "unavailable"];
const WORKSPACE = "/workspace";

const outDir = outOption("generate.mjs", path.join(REPO, "tests/fixtures/dsh"));

const BASE = { command: "ls", description: "List files in current directory" };
// [id, arguments]: every case runs in every mode with every approval outcome (the bash grid kept from the first
// version of this generator, records unchanged) and, for pwsh, the same grid.
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
const WIDEN = { sandbox_permissions: "danger-full-access", justification: "It needs the network." };
// Shell cases beyond the grid: run_in_background, workdir, timeoutMs and escalation-field types.
const SHELL_EXTRA = [
	["background", { ...BASE, run_in_background: true }],
	["background-false", { ...BASE, run_in_background: false }],
	["background-not-boolean", { ...BASE, run_in_background: "yes" }],
	["background-with-escalation", { ...BASE, run_in_background: true, ...WIDEN }],
	["workdir-relative", { ...BASE, workdir: "src" }],
	["workdir-absolute", { ...BASE, workdir: "/tmp" }],
	["workdir-empty", { ...BASE, workdir: "" }],
	["workdir-not-string", { ...BASE, workdir: 5 }],
	["timeout-fraction", { ...BASE, timeoutMs: 0.5 }],
	["timeout-string", { ...BASE, timeoutMs: "5000" }],
	["timeout-large", { ...BASE, timeoutMs: 1e12 }],
	["permissions-not-string", { ...BASE, sandbox_permissions: 1, justification: "It needs the network." }],
	["justification-not-string", { ...BASE, sandbox_permissions: "danger-full-access", justification: 5 }],
	["justification-null", { ...BASE, sandbox_permissions: "danger-full-access", justification: null }],
	["both-empty", { ...BASE, sandbox_permissions: "", justification: "" }],
	["undeclared-key", { ...BASE, shell: "zsh" }],
	["timeout-zero-and-escalation", { ...BASE, timeoutMs: 0, ...WIDEN }],
];
const BACKGROUND_CASES = new Set(["background", "background-false", "background-not-boolean", "background-with-escalation"]);
const FS_ESCALATION = [
	["permissions-without-justification", { sandbox_permissions: "danger-full-access" }],
	["justification-without-permissions", { justification: "The sandbox denied the write." }],
	["empty-justification", { sandbox_permissions: "danger-full-access", justification: "" }],
	["whitespace-justification", { sandbox_permissions: "danger-full-access", justification: " \t\n " }],
	["to-workspace-write", { sandbox_permissions: "workspace-write", justification: "It writes build output." }],
	["to-danger-full-access", { sandbox_permissions: "danger-full-access", justification: "It writes outside the workspace." }],
	["invalid-enum", { sandbox_permissions: "read-only", justification: "Narrow it." }],
	["invalid-enum-unknown", { sandbox_permissions: "full-access", justification: "Needs more." }],
	["justification-not-string", { sandbox_permissions: "danger-full-access", justification: 5 }],
	["justification-null", { sandbox_permissions: "danger-full-access", justification: null }],
];
const WRITE = { file_path: "notes.txt", content: "hello\n" };
const WRITE_CORPUS = [
	["relative-path", { ...WRITE }],
	["absolute-path", { ...WRITE, file_path: "/workspace/notes.txt" }],
	["outside-path", { ...WRITE, file_path: "/etc/hosts" }],
	["empty-content", { ...WRITE, content: "" }],
	["empty-file-path", { ...WRITE, file_path: "" }],
	["whitespace-file-path", { ...WRITE, file_path: " \t" }],
	["missing-file-path", { content: "hello\n" }],
	["missing-content", { file_path: "notes.txt" }],
	["file-path-not-string", { ...WRITE, file_path: 1 }],
	["content-not-string", { ...WRITE, content: ["a"] }],
	["undeclared-key", { ...WRITE, mode: "0644" }],
	["empty-file-path-and-escalation", { ...WRITE, file_path: "", sandbox_permissions: "danger-full-access" }],
	...FS_ESCALATION.map(([id, esc]) => [id, { ...WRITE, ...esc }]),
	["outside-path-to-danger-full-access", { ...WRITE, file_path: "/etc/hosts", ...FS_ESCALATION[5][1] }],
];
const EDIT = { file_path: "notes.txt", old_string: "hello", new_string: "goodbye" };
const EDIT_CORPUS = [
	["relative-path", { ...EDIT }],
	["absolute-path", { ...EDIT, file_path: "/workspace/notes.txt" }],
	["replace-all", { ...EDIT, replace_all: true }],
	["replace-all-not-boolean", { ...EDIT, replace_all: "yes" }],
	["empty-new-string", { ...EDIT, new_string: "" }],
	["empty-old-string", { ...EDIT, old_string: "" }],
	["whitespace-old-string", { ...EDIT, old_string: " " }],
	["same-strings", { ...EDIT, new_string: "hello" }],
	["both-empty", { ...EDIT, old_string: "", new_string: "" }],
	["empty-file-path", { ...EDIT, file_path: "" }],
	["whitespace-file-path", { ...EDIT, file_path: "  " }],
	["missing-file-path", { old_string: "hello", new_string: "goodbye" }],
	["missing-old-string", { file_path: "notes.txt", new_string: "goodbye" }],
	["missing-new-string", { file_path: "notes.txt", old_string: "hello" }],
	["old-string-not-string", { ...EDIT, old_string: 1 }],
	["same-strings-and-escalation", { ...EDIT, new_string: "hello", ...FS_ESCALATION[5][1] }],
	["empty-old-string-and-lone-justification", { ...EDIT, old_string: "", justification: "x" }],
	...FS_ESCALATION.map(([id, esc]) => [id, { ...EDIT, ...esc }]),
];
// The approval channels beyond a stub answering a fixed outcome (the REAL ApprovalService for the `service:` ones).
const CHANNELS = [
	"no-approval-service",
	"no-agent",
	"no-approval-service-no-agent",
	"service:no-answerer",
	...OUTCOMES.map((o) => `service:answer:${o}`),
	"service:answer:allowed-always",
	"service:answer:throws",
	"service:policy-never",
	"service:policy-never-answer:allowed-once",
	"service:no-open-turn",
	"service:aborted-signal",
];

/** The stack frame (package file:line and function) an error was constructed in: the DSH check that threw it. */
function thrownAt(err) {
	for (const line of String(err?.stack ?? "").split("\n").slice(1)) {
		const m = /^\s+at (?:(.*?) \()?(?:file:\/\/)?(.*?):(\d+):\d+\)?$/.exec(line);
		if (m && m[2].startsWith(MODULES)) return `${m[2].slice(MODULES.length)}:${m[3]} ${m[1] ?? "<anonymous>"}`;
	}
	return null;
}

/** The real approval service in a real cordis Context, answering as the channel says; its audit lands in `events`. */
async function realApproval(channel, events) {
	const ctx = new Context();
	const policy = channel.startsWith("service:policy-never") ? "never" : "ask";
	ctx.plugin(ApprovalService, { policy });
	await new Promise((resolve) => setImmediate(resolve));
	const answer = channel.match(/answer:(.*)$/)?.[1];
	if (answer === "throws")
		ctx.on("approval/request", () => {
			throw new Error("the answerer failed");
		});
	else if (answer !== undefined) ctx.on("approval/request", () => answer);
	if (channel !== "service:no-open-turn") events.push({ type: "turn/start", data: {} });
	return ctx.get("approval");
}

/**
 * A stub plugin context for one tool package: `mode` undefined means no sandboxing executor / filesystem is
 * composed. The approver is the channel's; `asked` collects what a stub approver was asked.
 */
function stubContext(pkg, { mode, approver, jobs = false, config = {} }, handed = {}) {
	const services = {
		...(mode === undefined ? {} : { sandboxPolicy: { resolve: () => ({ mode, workspaceRoot: WORKSPACE }) } }),
		...(approver === undefined ? {} : { approval: approver }),
		...(jobs
			? {
					jobs: {
						start: (job) => {
							job.run();
							return `job-1 (${job.kind})`;
						},
					},
				}
			: {}),
	};
	const registered = [];
	// what the shell / filesystem was handed: the sandbox policy mode (null: none)
	const hand = (policy) => {
		handed.ran_in = policy?.mode ?? null;
	};
	const ctx = {
		shell: {
			sandboxMode: mode,
			resolve: (request) => request,
			run: async (request) => {
				hand(request.sandboxPolicy);
				return {
					exitCode: 0,
					signal: null,
					timedOut: false,
					aborted: false,
					timeoutMs: request.timeoutMs ?? 120000,
					stdout: { text: `ran under ${request.sandboxPolicy?.mode}`, truncated: false },
					stderr: { text: "", truncated: false },
				};
			},
			start: (request) => {
				hand(request.sandboxPolicy);
				return { status: "exited", exitCode: 0, signal: null, kill: () => {}, done: Promise.resolve(), readOutput: () => ({ delta: "" }) };
			},
		},
		fs: {
			sandboxMode: mode,
			resolve: async (p, options) => ({ displayPath: p, cwd: options.cwd }),
			writeText: async (_target, content, _intent, _signal, policy) => {
				hand(policy);
				return { operation: "create", before: null, after: content, version: "v1" };
			},
			editText: async (_target, edit, _intent, _signal, policy) => {
				hand(policy);
				return { before: edit.oldString, after: edit.newString, version: "v1" };
			},
		},
		shellEnv: { collect: () => ({}) },
		systemPrompt: { section: () => {} },
		tools: { register: (tool) => registered.push(tool) },
		inject: () => {},
		waterfall: (...args) => args.at(-1)(),
		emit: () => {},
		get: (name) => services[name],
	};
	pkg.apply(ctx, pkg === fsPkg ? fsPkg.Config({}) : config);
	return registered;
}

const PACKAGES = { bash: bashPkg, pwsh: pwshPkg, write: fsPkg, edit: fsPkg };

function toolFor(tool, options, handed) {
	return stubContext(PACKAGES[tool], options, handed).find((t) => t.name === tool);
}

let lastThrownAt = null; // where the base grid's last error was thrown (kept outside its records)

/** The base grid's run (kept as it was, so its records stay byte-identical): a stub approver answering `outcome`. */
async function run(mode, outcome, args) {
	const asked = [];
	const approver = {
		request: async (req) => {
			asked.push({ toolName: req.toolName, callId: req.callId, reason: req.reason });
			return outcome;
		},
	};
	const tool = toolFor("bash", { mode, approver });
	const exec = { agent: { session: { header: { cwd: WORKSPACE } } }, callId: "call-1", signal: new AbortController().signal };
	let result;
	try {
		const value = await tool.execute(structuredClone(args), exec);
		result = { ok: true, ran_in: value.stdout.text.replace(/^ran under /, "") };
	} catch (err) {
		result = { ok: false, error: String(err?.message ?? err), errorName: err?.name ?? typeof err };
		lastThrownAt = thrownAt(err);
	}
	return { ...result, approval_asked: asked };
}

/** One call of `tool` in a composition, through `channel` (a fixed outcome, or one of CHANNELS). */
async function call(tool, { mode, channel, jobs = false, config = {} }, args) {
	const asked = [];
	const events = [];
	const controller = new AbortController();
	let approver;
	if (channel.startsWith("service:")) {
		approver = await realApproval(channel, events);
		if (channel === "service:aborted-signal") controller.abort();
	} else if (channel !== "no-approval-service" && channel !== "no-approval-service-no-agent") {
		const outcome = OUTCOMES.includes(channel) ? channel : "allowed-once";
		approver = {
			request: async (req) => {
				asked.push({ toolName: req.toolName, callId: req.callId, reason: req.reason });
				return outcome;
			},
		};
	}
	const handed = {};
	const registered = toolFor(tool, { mode, approver, jobs, config }, handed);
	const session = { header: { cwd: WORKSPACE }, events, append: (type, data) => events.push({ type, data }) };
	const noAgent = channel === "no-agent" || channel === "no-approval-service-no-agent";
	const exec = { ...(noAgent ? {} : { agent: { session } }), callId: "call-1", signal: controller.signal };
	let result;
	try {
		const value = await registered.execute(structuredClone(args), exec);
		result = { ok: true, ran_in: handed.ran_in, ...(value.kind === "background" ? { background: value.jobId } : {}) };
	} catch (err) {
		result = { ok: false, error: String(err?.message ?? err), errorName: err?.name ?? typeof err, thrown_at: thrownAt(err) };
	}
	for (const e of events) {
		if (e.type === "approval/asked") asked.push({ toolName: e.data.toolName, callId: e.data.callId, reason: e.data.reason });
	}
	const decided = events.filter((e) => e.type === "approval/decided").map((e) => e.data.outcome);
	return { ...result, approval_asked: asked, ...(channel.startsWith("service:") ? { approval_decided: decided } : {}) };
}

const records = [];
const base_thrown_at = {};
for (const [id, args] of CORPUS) {
	for (const mode of MODES) {
		// The approver is asked only for a strictly wider request; the other outcomes are run to show it is not.
		for (const outcome of OUTCOMES) {
			lastThrownAt = null;
			const got = await run(mode, outcome, args);
			records.push({ id: `${id}/${mode}/${outcome}`, case: id, mode, approval: outcome, arguments: args, dsh: got });
			if (!got.ok) base_thrown_at[`${id}/${mode}/${outcome}`] = lastThrownAt;
		}
	}
}

// The rest: every record names its tool, composition and approval channel.
const COMPOSITIONS = {
	// a sandboxing executor / filesystem in the record's mode, no jobs service (as the bash grid above)
	confined: { confined: true, jobs: false },
	// the same with a jobs service (background runs start a job)
	"confined-jobs": { confined: true, jobs: true },
	// enableRunInBackground: false (bash / pwsh config), with a jobs service
	"background-disabled": { confined: true, jobs: true, config: { enableRunInBackground: false } },
	// no sandboxing executor / filesystem: the escalation fields are not advertised (stage 4 guards them)
	unconfined: { confined: false, jobs: true },
};
async function add(tool, composition, caseId, args, modes, channels) {
	const comp = COMPOSITIONS[composition];
	for (const mode of comp.confined ? modes : [null]) {
		for (const channel of channels) {
			const got = await call(tool, { mode: mode ?? undefined, channel, jobs: comp.jobs, config: comp.config ?? {} }, args);
			records.push({
				id: `${tool}:${composition}:${caseId}/${mode ?? "no-sandbox"}/${channel}`,
				tool,
				composition,
				case: caseId,
				mode,
				channel,
				arguments: args,
				dsh: got,
			});
		}
	}
}
for (const [id, args] of SHELL_EXTRA) await add("bash", "confined", id, args, MODES, OUTCOMES);
for (const [id, args] of [...CORPUS, ...SHELL_EXTRA]) await add("pwsh", "confined", id, args, MODES, OUTCOMES);
for (const tool of ["bash", "pwsh"]) {
	for (const [id, args] of SHELL_EXTRA.filter(([c]) => BACKGROUND_CASES.has(c))) {
		await add(tool, "confined-jobs", id, args, MODES, ["allowed-once", "rejected"]);
		await add(tool, "background-disabled", id, args, MODES, ["allowed-once", "rejected"]);
	}
	for (const [id, args] of [...CORPUS, ...SHELL_EXTRA]) await add(tool, "unconfined", id, args, MODES, ["allowed-once"]);
}
for (const [tool, corpus] of [
	["write", WRITE_CORPUS],
	["edit", EDIT_CORPUS],
]) {
	for (const [id, args] of corpus) await add(tool, "confined", id, args, MODES, OUTCOMES);
	for (const [id, args] of corpus) await add(tool, "unconfined", id, args, MODES, ["allowed-once"]);
}
// Every approval channel, for a request wider than read-only (to-workspace-write) and one wider than every mode
// but danger-full-access (to-danger-full-access), in every mode: stage 5 runs before any channel is consulted.
for (const [tool, corpus] of [
	["bash", CORPUS],
	["pwsh", CORPUS],
	["write", WRITE_CORPUS],
	["edit", EDIT_CORPUS],
]) {
	for (const [id, args] of corpus.filter(([c]) => c === "to-workspace-write" || c === "to-danger-full-access"))
		await add(tool, "confined", id, args, MODES, CHANNELS);
	for (const [id, args] of corpus.filter(([c]) => c === "relative-path" || c === "no-escalation"))
		await add(tool, "confined", id, args, MODES, ["no-approval-service-no-agent", "service:no-open-turn"]);
}

const schemaTool = toolFor("bash", { mode: "read-only", approver: { request: async () => "allowed-once" } });
const doc = {
	generator: "lab/dsh-fixtures/generate.mjs",
	dsh_version: DSH_VERSION,
	packages: JSON.parse(await readFile(path.join(HERE, "package.json"), "utf8")).dependencies,
	entry: "@deepseek-ai/dsh-tool-bash lib/index.js apply -> registered tool execute (dsh-tools defineTool)",
	tool_result_text: "dsh-tools toolErrorResult: a thrown error becomes the tool result `Error: <message>`",
	parameters: schemaTool.parameters,
	entries: {
		bash: "@deepseek-ai/dsh-tool-bash lib/index.js apply -> registered `bash` execute",
		pwsh: "@deepseek-ai/dsh-tool-pwsh lib/index.js apply -> registered `pwsh` execute",
		write: "@deepseek-ai/dsh-tool-fs lib/index.js apply -> registered `write` execute (FsSandboxController.resolvePolicy)",
		edit: "@deepseek-ai/dsh-tool-fs lib/index.js apply -> registered `edit` execute (FsSandboxController.resolvePolicy)",
	},
	record_defaults: {
		tool: "bash",
		composition: "confined",
		channel: "the record's `approval`: a stub approver answering that outcome",
	},
	compositions: {
		confined: "a sandboxing executor / filesystem whose mode is the record's mode, a sandbox policy resolving it, no jobs service",
		"confined-jobs": "confined, with a jobs service",
		"background-disabled": "confined, with a jobs service, config enableRunInBackground: false",
		unconfined: "no sandboxing executor / filesystem (ctx.shell.sandboxMode / ctx.fs.sandboxMode undefined), no sandbox policy, a jobs service",
	},
	channels: {
		"<outcome>": "a stub approver answering that outcome (allowed-once, rejected, cancelled, unavailable)",
		"no-approval-service": "no approval service composed (ctx.get('approval') undefined)",
		"no-agent": "a stub approver, and a call with no agent (exec.agent undefined)",
		"no-approval-service-no-agent": "both",
		"service:no-answerer": "the real ApprovalService (policy ask) in an open turn, no approval/request answerer",
		"service:answer:<value>": "the real ApprovalService (policy ask), an answerer returning <value> (or throwing)",
		"service:policy-never": "the real ApprovalService with policy never",
		"service:policy-never-answer:allowed-once": "policy never, and an answerer that would allow",
		"service:no-open-turn": "the real ApprovalService, an answerer allowing, but no open turn in the session",
		"service:aborted-signal": "the real ApprovalService, an answerer allowing, the call's signal already aborted",
	},
	fields: {
		ran_in: "the sandbox policy mode the command / file operation was handed (null: no sandbox policy)",
		background: "the job id a background run returned",
		thrown_at: "the stack frame the thrown error was constructed in (package file:line function)",
		approval_asked: "every approval prompt raised (toolName, callId, reason)",
		approval_decided: "the real ApprovalService's approval/decided outcomes",
	},
	base_thrown_at,
	records,
};

// The schema each tool advertises, per composition and mode.
const schemas = [];
for (const tool of ["bash", "pwsh", "write", "edit"]) {
	const shell = tool === "bash" || tool === "pwsh";
	const variants = shell ? [{}, { enableRunInBackground: false }] : [{}];
	for (const config of variants) {
		for (const mode of [...MODES, null]) {
			const t = toolFor(tool, { mode: mode ?? undefined, approver: undefined, config });
			schemas.push({
				tool,
				composition: mode === null ? "unconfined" : "confined",
				mode,
				...(shell ? { enableRunInBackground: config.enableRunInBackground ?? true } : {}),
				description: t.description,
				parameters: t.parameters,
			});
		}
	}
}
const schemaDoc = {
	generator: "lab/dsh-fixtures/generate.mjs",
	dsh_version: DSH_VERSION,
	note: "the `description` and `parameters` each tool registers, per composition (confined: ctx.shell / ctx.fs sandboxMode = mode) and config",
	schemas,
};

await mkdir(outDir, { recursive: true });
await writeFile(path.join(outDir, "execution.json"), JSON.stringify(doc, null, 2) + "\n");
await writeFile(path.join(outDir, "schemas.json"), JSON.stringify(schemaDoc, null, 2) + "\n");
process.stdout.write(
	`wrote ${records.length} records to ${path.relative(REPO, path.join(outDir, "execution.json"))} and ${schemas.length} schemas to ${path.relative(REPO, path.join(outDir, "schemas.json"))}\n`,
);
