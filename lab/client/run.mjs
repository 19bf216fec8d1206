#!/usr/bin/env node
// Incident-lab client: runs one scripted conversation through the real pi-ai and writes a transcript.
//
//   node lab/client/run.mjs SCENARIO.json [--out TRANSCRIPT.json]
//
// Exit status: 0 whenever the conversation ran (an error stop reason from pi-ai is data, not a failure);
// 2 for bad usage or a bad scenario file; 3 when pi-ai could not be loaded or threw before streaming.
// On a non-zero exit one line saying why goes to stderr.
//
// How the pi-ai Model is built (mirrors DSH llm-pi-ai for a custom route, see docs/upstream.md#dsh-settings):
//   {id, name (default id), api, provider, baseUrl, input, cost: all zero, reasoning (default false),
//    contextWindow (default 262144), maxTokens (default 32768), compat (only when the scenario gives it)}
//   `input`: DSH resolves `declaredInput(entry.input) ?? catalog.input ?? [...defaultInput]`, and a custom
//   route has no catalog entry and defaultInput `[text]`. So a scenario that omits `model.input` (or gives
//   an empty list, which DSH treats as undeclared) gets `input: ["text"]`, exactly what DSH passes for such
//   a model. Images then reach pi-ai's own gate, which replaces them by a placeholder.
//   `maxTokens` is only put on the Model; no per-request maxTokens/temperature/reasoning options are passed.
//
// Request options: apiKey, maxRetries 0, onPayload (records the payload, never replaces it), transport "sse"
// for Codex (its default "auto" tries a WebSocket first), optional timeoutMs from the scenario.
// Retries: 1.6.0 already defaults to none (SDK maxRetries hard-coded 0, pi-ai's own retry loop and Codex
// default 0). 0.73.1 passes maxRetries to the OpenAI SDK (default 2), so 0 turns them off for
// responses/completions; its Codex provider retries 429/5xx up to 3 times whatever the options say. No sessionId, so no prompt_cache_key or session headers.
//
// Transcript: {scenario, piAi, api, model (the Model object passed to pi-ai), notes?, requests: [{index, stopReason,
//   errorMessage?, assistant: {content (blocks as pi-ai returned them)}, responseId?, usage?, diagnostics?,
//   http: [{method, path, status | error}] (every HTTP attempt, retries included), payload? (from onPayload, which
//   both 1.6.0 and 0.73.1 offer; absent when pi-ai failed before building it), toolResultsSent: [...]}],
//   final: {stopReason, stoppedBy: "stopReason" | "error" | "maxRequests", errorMessage?}}
//
// Safety: baseUrl must point at 127.0.0.1/localhost; apiKey must be a fake lab key (it must contain "FAKE").
// For openai-codex-responses the key is always a fake unsigned JWT built here (the scenario's apiKey is
// not sent): pi-ai needs its chatgpt_account_id claim for the chatgpt-account-id header.

import { readFile, writeFile } from "node:fs/promises";

const VERSIONS = ["1.6.0", "0.73.1"];
const APIS = ["openai-responses", "openai-codex-responses", "openai-completions"];
const LOCAL_HOSTS = new Set(["127.0.0.1", "localhost", "[::1]"]);
const FAKE_ACCOUNT_ID = "acct-lab-fake";
const FALLBACK_TOOL_RESULT = { text: "ok", isError: false };

class UsageError extends Error {}

function die(code, message) {
	process.stderr.write(`run.mjs: ${String(message).replace(/\s+/g, " ").trim()}\n`);
	process.exit(code);
}

function parseArgs(argv) {
	let scenarioPath;
	let outPath;
	for (let i = 0; i < argv.length; i++) {
		const arg = argv[i];
		if (arg === "--out") {
			if (i + 1 >= argv.length) throw new UsageError("--out needs a file name");
			outPath = argv[++i];
		} else if (arg.startsWith("--out=")) {
			outPath = arg.slice("--out=".length);
		} else if (arg.startsWith("-")) {
			throw new UsageError(`unknown option ${arg}; usage: node run.mjs SCENARIO.json [--out TRANSCRIPT.json]`);
		} else if (scenarioPath === undefined) {
			scenarioPath = arg;
		} else {
			throw new UsageError(`unexpected argument ${arg}`);
		}
	}
	if (!scenarioPath) throw new UsageError("usage: node run.mjs SCENARIO.json [--out TRANSCRIPT.json]");
	return { scenarioPath, outPath };
}

const isObject = (v) => v !== null && typeof v === "object" && !Array.isArray(v);

function check(cond, message) {
	if (!cond) throw new UsageError(`bad scenario: ${message}`);
}

function validateScenario(s) {
	check(isObject(s), "top level must be an object");
	check(typeof s.name === "string" && s.name.length > 0, "name must be a non-empty string");
	check(VERSIONS.includes(s.piAi), `piAi must be one of ${VERSIONS.join(", ")}`);
	check(APIS.includes(s.api), `api must be one of ${APIS.join(", ")}`);
	check(typeof s.baseUrl === "string", "baseUrl must be a string");
	let url;
	try {
		url = new URL(s.baseUrl);
	} catch {
		check(false, `baseUrl is not a URL: ${s.baseUrl}`);
	}
	check(url.protocol === "http:" || url.protocol === "https:", "baseUrl must be http(s)");
	check(LOCAL_HOSTS.has(url.hostname), `baseUrl must point at 127.0.0.1, not ${url.hostname}`);
	check(s.provider === undefined || (typeof s.provider === "string" && s.provider.length > 0), "provider must be a non-empty string");
	check(isObject(s.model), "model must be an object");
	const m = s.model;
	check(typeof m.id === "string" && m.id.length > 0, "model.id must be a non-empty string");
	check(m.name === undefined || typeof m.name === "string", "model.name must be a string");
	if (m.input !== undefined) {
		check(Array.isArray(m.input) && m.input.every((x) => x === "text" || x === "image"), 'model.input must be a list of "text"/"image"');
	}
	check(m.compat === undefined || isObject(m.compat), "model.compat must be an object");
	for (const k of ["contextWindow", "maxTokens"]) {
		check(m[k] === undefined || (Number.isInteger(m[k]) && m[k] >= 1), `model.${k} must be a positive integer`);
	}
	check(m.reasoning === undefined || typeof m.reasoning === "boolean", "model.reasoning must be a boolean");
	if (s.api !== "openai-codex-responses") {
		check(typeof s.apiKey === "string" && s.apiKey.length > 0, "apiKey must be a non-empty string");
	}
	if (s.apiKey !== undefined) {
		check(typeof s.apiKey === "string" && s.apiKey.includes("FAKE"), 'apiKey must be a fake lab key (containing "FAKE")');
	}
	check(s.systemPrompt === undefined || typeof s.systemPrompt === "string", "systemPrompt must be a string");
	check(s.tools === undefined || Array.isArray(s.tools), "tools must be a list");
	for (const [i, t] of (s.tools ?? []).entries()) {
		check(isObject(t) && typeof t.name === "string" && t.name.length > 0, `tools[${i}].name must be a non-empty string`);
		check(typeof t.description === "string", `tools[${i}].description must be a string`);
		check(isObject(t.parameters), `tools[${i}].parameters must be an object`);
	}
	check(Array.isArray(s.messages) && s.messages.length > 0, "messages must be a non-empty list");
	for (const [i, msg] of s.messages.entries()) {
		check(isObject(msg) && typeof msg.role === "string", `messages[${i}] needs a role`);
		check(typeof msg.content === "string" || Array.isArray(msg.content), `messages[${i}].content must be a string or a list`);
	}
	check(s.toolResults === undefined || Array.isArray(s.toolResults), "toolResults must be a list");
	for (const [i, r] of (s.toolResults ?? []).entries()) {
		check(isObject(r) && typeof r.text === "string", `toolResults[${i}].text must be a string`);
		check(r.isError === undefined || typeof r.isError === "boolean", `toolResults[${i}].isError must be a boolean`);
	}
	check(s.maxRequests === undefined || (Number.isInteger(s.maxRequests) && s.maxRequests >= 1), "maxRequests must be a positive integer");
	check(s.timeoutMs === undefined || (Number.isInteger(s.timeoutMs) && s.timeoutMs >= 1), "timeoutMs must be a positive integer");
}

/** Fake unsigned JWT carrying only the claim pi-ai's Codex provider reads. Never a real credential. */
function fakeCodexJwt(accountId = FAKE_ACCOUNT_ID) {
	const b64url = (obj) => Buffer.from(JSON.stringify(obj)).toString("base64url");
	const header = b64url({ alg: "none", typ: "JWT" });
	const payload = b64url({ sub: "lab-fake-user", "https://api.openai.com/auth": { chatgpt_account_id: accountId } });
	// pi-ai decodes the payload with atob(), which rejects the base64url characters "-" and "_".
	if (/[-_]/.test(payload)) throw new Error("fake JWT payload is not atob-safe");
	return `${header}.${payload}.`;
}

function buildModel(s) {
	const m = s.model;
	const declaredInput = Array.isArray(m.input) && m.input.length > 0 ? [...m.input] : undefined;
	const model = {
		id: m.id,
		name: m.name ?? m.id,
		api: s.api,
		provider: s.provider ?? "gateway",
		baseUrl: s.baseUrl,
		input: declaredInput ?? ["text"], // DSH route defaultInput [text]
		cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 },
		reasoning: m.reasoning ?? false,
		contextWindow: m.contextWindow ?? 262144,
		maxTokens: m.maxTokens ?? 32768,
	};
	if (m.compat !== undefined) model.compat = structuredClone(m.compat);
	return model;
}

function buildTools(s) {
	return (s.tools ?? []).map((t) => {
		const tool = { name: t.name, description: t.description, parameters: structuredClone(t.parameters) };
		if (t.constrainedSampling !== undefined) tool.constrainedSampling = structuredClone(t.constrainedSampling);
		return tool;
	});
}

async function loadStream(version, api) {
	if (version === "1.6.0") {
		const { normalizeContext } = await import("pi-ai-1.6.0/utils/transcript");
		const mod = await import(`pi-ai-1.6.0/api/${api}`);
		// 1.6.0 API modules take a TranscriptContext (system prompt and tools folded into a leading system message).
		return (model, context, options) => mod.stream(model, normalizeContext(context), options);
	}
	const mod = await import(`pi-ai-0.73.1/${api}`);
	const fn = {
		"openai-responses": mod.streamOpenAIResponses,
		"openai-codex-responses": mod.streamOpenAICodexResponses,
		"openai-completions": mod.streamOpenAICompletions,
	}[api];
	if (typeof fn !== "function") throw new Error(`pi-ai 0.73.1 has no stream function for ${api}`);
	return fn;
}

// Every HTTP exchange pi-ai makes goes through globalThis.fetch (the OpenAI SDK picks it up when pi-ai builds
// a client per request; Codex calls it directly). This wrapper only observes: it records the status of each
// attempt, so SDK-level failures (where pi-ai's onResponse hook never fires) and retries are visible.
let httpLog = [];
const realFetch = globalThis.fetch;
globalThis.fetch = async function observedFetch(input, init) {
	const url = new URL(typeof input === "string" || input instanceof URL ? String(input) : input.url);
	const entry = { method: init?.method ?? (typeof input === "object" && "method" in input ? input.method : "GET"), path: url.pathname };
	httpLog.push(entry);
	try {
		const response = await realFetch(input, init);
		entry.status = response.status;
		return response;
	} catch (err) {
		entry.error = err?.cause?.code ?? err?.name ?? "fetch failed";
		throw err;
	}
};

const jsonCopy = (v) => (v === undefined ? undefined : JSON.parse(JSON.stringify(v)));

async function runConversation(s, streamFn) {
	const model = buildModel(s);
	const tools = buildTools(s);
	const apiKey = s.api === "openai-codex-responses" ? fakeCodexJwt() : s.apiKey;
	const maxRequests = s.maxRequests ?? 4;
	const scripted = [...(s.toolResults ?? [])];
	const messages = s.messages.map((msg) => ({ ...structuredClone(msg), timestamp: msg.timestamp ?? Date.now() }));

	const transcript = { scenario: s.name, piAi: s.piAi, api: s.api, model: jsonCopy(model), requests: [], final: undefined };
	const notes = [];
	if (s.piAi === "0.73.1" && s.api === "openai-codex-responses") {
		notes.push("pi-ai 0.73.1 Codex retries 429/5xx up to 3 times (hard-coded MAX_RETRIES); maxRetries cannot disable it");
	}
	if (notes.length) transcript.notes = notes;

	let final;
	for (let index = 0; index < maxRequests; index++) {
		let payload;
		const httpResponses = [];
		httpLog = httpResponses;
		const options = {
			apiKey,
			maxRetries: 0,
			onPayload: (p) => {
				payload = jsonCopy(p);
				return undefined;
			},
		};
		if (s.api === "openai-codex-responses") options.transport = "sse";
		if (s.timeoutMs !== undefined) options.timeoutMs = s.timeoutMs;

		const context = { systemPrompt: s.systemPrompt, messages, tools };
		let eventStream;
		try {
			eventStream = streamFn(model, context, options);
		} catch (err) {
			// Thrown synchronously, before any request: not data.
			err.piAiThrew = true;
			throw err;
		}
		let message;
		for await (const ev of eventStream) {
			if (ev.type === "done") message = ev.message;
			else if (ev.type === "error") message = ev.error;
		}
		message ??= await eventStream.result();

		const record = { index, stopReason: message.stopReason };
		if (message.errorMessage !== undefined) record.errorMessage = message.errorMessage;
		record.assistant = { content: jsonCopy(message.content) };
		if (message.responseId !== undefined) record.responseId = message.responseId;
		if (message.usage !== undefined) record.usage = jsonCopy(message.usage);
		if (message.diagnostics !== undefined) record.diagnostics = jsonCopy(message.diagnostics);
		record.http = httpResponses;
		if (payload !== undefined) record.payload = payload;
		record.toolResultsSent = [];
		transcript.requests.push(record);
		messages.push(message);

		const toolCalls = message.content.filter((b) => b.type === "toolCall");
		if (message.stopReason !== "toolUse" || toolCalls.length === 0) {
			final = { stopReason: message.stopReason, stoppedBy: message.stopReason === "error" || message.stopReason === "aborted" ? "error" : "stopReason" };
			if (message.errorMessage !== undefined) final.errorMessage = message.errorMessage;
			break;
		}
		for (const call of toolCalls) {
			const r = scripted.length > 0 ? scripted.shift() : FALLBACK_TOOL_RESULT;
			const result = {
				role: "toolResult",
				toolCallId: call.id,
				toolName: call.name,
				content: [{ type: "text", text: r.text }],
				isError: r.isError ?? false,
				timestamp: Date.now(),
			};
			messages.push(result);
			record.toolResultsSent.push({ toolCallId: result.toolCallId, toolName: result.toolName, content: result.content, isError: result.isError });
		}
		if (index === maxRequests - 1) {
			final = { stopReason: message.stopReason, stoppedBy: "maxRequests" };
		}
	}
	transcript.final = final;
	return transcript;
}

async function main() {
	let args;
	let scenario;
	try {
		args = parseArgs(process.argv.slice(2));
		let text;
		try {
			text = await readFile(args.scenarioPath, "utf8");
		} catch (err) {
			throw new UsageError(`cannot read scenario ${args.scenarioPath}: ${err.message}`);
		}
		try {
			scenario = JSON.parse(text);
		} catch (err) {
			throw new UsageError(`scenario ${args.scenarioPath} is not JSON: ${err.message}`);
		}
		validateScenario(scenario);
	} catch (err) {
		die(2, err instanceof UsageError ? err.message : `bad scenario: ${err.message}`);
	}

	let streamFn;
	try {
		streamFn = await loadStream(scenario.piAi, scenario.api);
	} catch (err) {
		die(3, `cannot load pi-ai ${scenario.piAi} ${scenario.api}: ${err.message}`);
	}

	let transcript;
	try {
		transcript = await runConversation(scenario, streamFn);
	} catch (err) {
		die(3, `pi-ai threw${err.piAiThrew ? " before streaming" : ""}: ${err.message}`);
	}

	const out = `${JSON.stringify(transcript, null, 2)}\n`;
	if (args.outPath) await writeFile(args.outPath, out);
	else process.stdout.write(out);
	// Idle keep-alive sockets must not hold the process open (stdout to a pipe or file is synchronous here).
	process.exit(0);
}

await main();
