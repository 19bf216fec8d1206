#!/usr/bin/env node
// Self-test for run.mjs: starts a throwaway stub on 127.0.0.1 (port 0), runs run.mjs against it for every
// pi-ai version x api, and asserts on what pi-ai actually sent (strict, images, tool-result loop, retries).
//
//   node lab/client/selftest.mjs        exits 0 when every check passes, 1 otherwise
//   SELFTEST_KEEP=1 node lab/client/selftest.mjs   also keeps the generated scenarios and transcripts
//
// The stub does not depend on lab/gateway.py. Routing: the first path segment is a per-run key; a key
// containing "rate-limit" answers 429. Otherwise the stub answers with one function call per request until
// the request carries TOOL_ROUNDS tool outputs, then with a short text message.

import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import http from "node:http";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";

const HERE = path.dirname(fileURLToPath(import.meta.url));
const RUN = path.join(HERE, "run.mjs");
const TOOL_ROUNDS = 2;
const API_KEY = "sk-lab-FAKE-0000000000000000000000";
const PNG_1X1 = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==";
const PLACEHOLDER = "(image omitted: model does not support images)";

// ---------------------------------------------------------------- stub server

/** Recorded requests per run key: {method, url, headers, body (parsed JSON or raw text)}. */
const seen = new Map();
const upgrades = [];

function sse(res, frames, { named }) {
	res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache", connection: "keep-alive" });
	for (const f of frames) {
		if (f === "[DONE]") res.write("data: [DONE]\n\n");
		else res.write(`${named ? `event: ${f.type}\n` : ""}data: ${JSON.stringify(f)}\n\n`);
	}
	res.end();
}

const pad = (n) => String(n).padStart(4, "0");
const USAGE_RESPONSES = { input_tokens: 42, input_tokens_details: { cached_tokens: 0 }, output_tokens: 17, output_tokens_details: { reasoning_tokens: 0 }, total_tokens: 59 };

// docs/upstream.md#openai-responses-sse function-call stream (ids numbered per round), preceded by response.created.
function responsesFunctionCall(n, model) {
	const fc = `fc_local_${pad(n)}`;
	const call = `call_local_${pad(n)}`;
	const resp = `resp_local_${pad(n)}`;
	const args = '{"command":"ls -la","description":"List files","timeoutMs":null,"workdir":null,"sandbox_permissions":null,"justification":null}';
	const item = { id: fc, type: "function_call", status: "completed", arguments: args, call_id: call, name: "bash" };
	return [
		{ type: "response.created", response: { id: resp, object: "response", created_at: 1767225600, status: "in_progress", model, output: [] }, sequence_number: 0 },
		{ type: "response.output_item.added", output_index: 0, item: { id: fc, type: "function_call", status: "in_progress", arguments: "", call_id: call, name: "bash" }, sequence_number: 2 },
		{ type: "response.function_call_arguments.delta", item_id: fc, output_index: 0, delta: '{"command":"ls -la","description":"List files","timeoutMs":null', sequence_number: 3 },
		{ type: "response.function_call_arguments.delta", item_id: fc, output_index: 0, delta: ',"workdir":null,"sandbox_permissions":null,"justification":null}', sequence_number: 4 },
		{ type: "response.function_call_arguments.done", item_id: fc, output_index: 0, name: "bash", arguments: args, sequence_number: 5 },
		{ type: "response.output_item.done", output_index: 0, item, sequence_number: 6 },
		{ type: "response.completed", response: { id: resp, object: "response", created_at: 1767225600, status: "completed", model, output: [item], usage: USAGE_RESPONSES }, sequence_number: 7 },
	];
}

function responsesText(n, model, text) {
	const msg = `msg_local_${pad(n)}`;
	const resp = `resp_local_${pad(n)}`;
	const part = { type: "output_text", text, annotations: [] };
	const item = { id: msg, type: "message", status: "completed", role: "assistant", content: [part] };
	return [
		{ type: "response.created", response: { id: resp, object: "response", created_at: 1767225600, status: "in_progress", model, output: [] }, sequence_number: 0 },
		{ type: "response.output_item.added", output_index: 0, item: { ...item, status: "in_progress", content: [] }, sequence_number: 1 },
		{ type: "response.content_part.added", item_id: msg, output_index: 0, content_index: 0, part: { ...part, text: "" }, sequence_number: 2 },
		{ type: "response.output_text.delta", item_id: msg, output_index: 0, content_index: 0, delta: text, logprobs: [], sequence_number: 3 },
		{ type: "response.output_text.done", item_id: msg, output_index: 0, content_index: 0, text, logprobs: [], sequence_number: 4 },
		{ type: "response.content_part.done", item_id: msg, output_index: 0, content_index: 0, part, sequence_number: 5 },
		{ type: "response.output_item.done", output_index: 0, item, sequence_number: 6 },
		{ type: "response.completed", response: { id: resp, object: "response", created_at: 1767225600, status: "completed", model, output: [item], usage: USAGE_RESPONSES }, sequence_number: 7 },
	];
}

// docs/upstream.md#chat-completions stream.
function completionsFunctionCall(n, model) {
	const base = { id: `chatcmpl-local-${pad(n)}`, object: "chat.completion.chunk", created: 1767225600, model };
	return [
		{ ...base, choices: [{ index: 0, delta: { role: "assistant", content: null, tool_calls: [{ index: 0, id: `call_local_${pad(n)}`, type: "function", function: { name: "bash", arguments: "" } }] }, finish_reason: null }] },
		{ ...base, choices: [{ index: 0, delta: { tool_calls: [{ index: 0, function: { arguments: '{"command":"ls -la","description":"List files","timeoutMs":null' } }] }, finish_reason: null }] },
		{ ...base, choices: [{ index: 0, delta: { tool_calls: [{ index: 0, function: { arguments: ',"workdir":null,"sandbox_permissions":null,"justification":null}' } }] }, finish_reason: null }] },
		{ ...base, choices: [{ index: 0, delta: {}, finish_reason: "tool_calls" }] },
		{ ...base, choices: [], usage: { prompt_tokens: 42, completion_tokens: 17, total_tokens: 59 } },
		"[DONE]",
	];
}

function completionsText(n, model, text) {
	const base = { id: `chatcmpl-local-${pad(n)}`, object: "chat.completion.chunk", created: 1767225600, model };
	return [
		{ ...base, choices: [{ index: 0, delta: { role: "assistant", content: text }, finish_reason: null }] },
		{ ...base, choices: [{ index: 0, delta: {}, finish_reason: "stop" }] },
		{ ...base, choices: [], usage: { prompt_tokens: 42, completion_tokens: 5, total_tokens: 47 } },
		"[DONE]",
	];
}

function handle(req, res, raw) {
	const url = new URL(req.url, "http://stub");
	const key = url.pathname.split("/")[1] ?? "";
	let body;
	try {
		body = JSON.parse(raw);
	} catch {
		body = raw;
	}
	if (!seen.has(key)) seen.set(key, []);
	seen.get(key).push({ method: req.method, path: url.pathname, headers: req.headers, body });

	if (key.includes("rate-limit")) {
		res.writeHead(429, { "content-type": "application/json", "retry-after": "1" });
		res.end(JSON.stringify({ error: { message: "Rate limit reached (scripted).", type: "requests", param: null, code: "rate_limit_exceeded" } }));
		return;
	}
	const model = body?.model ?? "unknown";
	if (url.pathname.endsWith("/v1/responses") || url.pathname.endsWith("/codex/responses")) {
		const outputs = (body.input ?? []).filter((it) => it.type === "function_call_output").length;
		const frames = outputs < TOOL_ROUNDS ? responsesFunctionCall(outputs + 1, model) : responsesText(outputs + 1, model, "All done.");
		sse(res, frames, { named: true });
	} else if (url.pathname.endsWith("/v1/chat/completions")) {
		const outputs = (body.messages ?? []).filter((m) => m.role === "tool").length;
		const frames = outputs < TOOL_ROUNDS ? completionsFunctionCall(outputs + 1, model) : completionsText(outputs + 1, model, "All done.");
		sse(res, frames, { named: false });
	} else {
		res.writeHead(404, { "content-type": "application/json" });
		res.end(JSON.stringify({ error: { message: `no route ${url.pathname}`, type: "invalid_request_error", param: null, code: null } }));
	}
}

const server = http.createServer((req, res) => {
	const chunks = [];
	req.on("data", (c) => chunks.push(c));
	req.on("end", () => handle(req, res, Buffer.concat(chunks).toString("utf8")));
});
server.on("upgrade", (req, socket) => {
	upgrades.push(req.url);
	socket.destroy();
});
await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
const PORT = server.address().port;

// ---------------------------------------------------------------- running run.mjs

const tmp = await mkdtemp(path.join(tmpdir(), "lab-client-selftest-"));

const BASH_PARAMETERS = {
	type: "object",
	properties: {
		command: { type: "string", description: "The bash command to execute." },
		description: { type: "string", description: "Clear, concise description of what this command does in active voice, 5-10 words." },
		timeoutMs: { type: "number", description: "Timeout in milliseconds." },
		workdir: { type: "string", description: "Working directory for this command." },
		run_in_background: { type: "boolean", description: "Run in the background and return a job id immediately." },
		sandbox_permissions: { type: "string", description: "The wider sandbox mode this command needs.", enum: ["workspace-write", "danger-full-access"] },
		justification: { type: "string", description: "Required with sandbox_permissions: one sentence for the user explaining why." },
	},
	required: ["command", "description"],
};

function scenario(key, { piAi, api, input, compat, constrainedSampling, maxRequests = 4, toolResults, image = true }) {
	const prefix = `http://127.0.0.1:${PORT}/${key}`;
	const content = [{ type: "text", text: "List the files, then look at this screenshot." }];
	if (image) content.push({ type: "image", data: PNG_1X1, mimeType: "image/png" });
	const model = { id: "gw-coder", name: "GW Coder", contextWindow: 262144, maxTokens: 32768, reasoning: false };
	if (input !== undefined) model.input = input;
	if (compat !== undefined) model.compat = compat;
	const tool = { name: "bash", description: "Run a bash command in the workspace.", parameters: BASH_PARAMETERS };
	if (constrainedSampling !== undefined) tool.constrainedSampling = constrainedSampling;
	return {
		name: key,
		piAi,
		api,
		baseUrl: api === "openai-codex-responses" ? prefix : `${prefix}/v1`,
		provider: "gateway",
		model,
		apiKey: API_KEY,
		systemPrompt: "You are DeepSeek Harness, a coding agent.",
		tools: [tool],
		messages: [{ role: "user", content }],
		toolResults: toolResults ?? [
			{ text: "Error: invalid justification: expected a non-empty sentence", isError: true },
			{ text: "total 0\ndrwxr-xr-x 2 lab lab 40 Jan  1 00:00 .", isError: false },
		],
		maxRequests,
	};
}

function runClient(args) {
	return new Promise((resolve) => {
		execFile(process.execPath, [RUN, ...args], { cwd: HERE, timeout: 60_000 }, (err, stdout, stderr) => {
			resolve({ code: err ? (typeof err.code === "number" ? err.code : 1) : 0, stdout, stderr });
		});
	});
}

async function run(key, opts) {
	const s = scenario(key, opts);
	const file = path.join(tmp, `${key}.json`);
	const out = path.join(tmp, `${key}.transcript.json`);
	await writeFile(file, JSON.stringify(s, null, 2));
	const r = await runClient([file, "--out", out]);
	assert.equal(r.code, 0, `${key}: run.mjs exited ${r.code}: ${r.stderr}`);
	const transcript = JSON.parse(await readFile(out, "utf8"));
	return { s, transcript, reqs: seen.get(key) ?? [] };
}

// ---------------------------------------------------------------- helpers for assertions

const toolsOf = (body) => body.tools ?? [];
function strictOf(api, body) {
	const tool = toolsOf(body)[0];
	assert.ok(tool, "request has a tool");
	const holder = api === "openai-completions" ? tool.function : tool;
	return Object.hasOwn(holder, "strict") ? holder.strict : "absent";
}
function userParts(api, body) {
	if (api === "openai-completions") return body.messages.find((m) => m.role === "user").content;
	return body.input.find((it) => it.role === "user").content;
}

const results = [];
const strictTable = [];
async function check(name, fn) {
	try {
		await fn();
		results.push({ name, ok: true });
	} catch (err) {
		results.push({ name, ok: false, err });
	}
}

function commonLoopChecks({ s, transcript, reqs }, api) {
	// Transcript shape and the tool-result loop.
	assert.equal(transcript.scenario, s.name);
	assert.equal(transcript.piAi, s.piAi);
	assert.equal(transcript.api, api);
	assert.equal(transcript.requests.length, TOOL_ROUNDS + 1, "two tool rounds then a text answer");
	assert.equal(reqs.length, TOOL_ROUNDS + 1, "stub saw one HTTP request per transcript request");
	for (let i = 0; i < TOOL_ROUNDS; i++) {
		const r = transcript.requests[i];
		assert.equal(r.stopReason, "toolUse");
		const calls = r.assistant.content.filter((b) => b.type === "toolCall");
		assert.equal(calls.length, 1);
		assert.equal(calls[0].name, "bash");
		assert.deepEqual(calls[0].arguments, { command: "ls -la", description: "List files", timeoutMs: null, workdir: null, sandbox_permissions: null, justification: null });
		assert.ok(calls[0].id.includes(`call_local_${pad(i + 1)}`), `call id ${calls[0].id}`);
		assert.equal(r.toolResultsSent.length, 1);
		assert.equal(r.toolResultsSent[0].toolCallId, calls[0].id);
		assert.equal(r.toolResultsSent[0].content[0].text, s.toolResults[i].text);
		assert.equal(r.toolResultsSent[0].isError, s.toolResults[i].isError);
		assert.deepEqual(r.http, [{ method: "POST", path: reqs[i].path, status: 200 }]);
	}
	const last = transcript.requests.at(-1);
	assert.equal(last.stopReason, "stop");
	assert.deepEqual(last.assistant.content.filter((b) => b.type === "text").map((b) => b.text), ["All done."]);
	assert.deepEqual(transcript.final, { stopReason: "stop", stoppedBy: "stopReason" });

	// The scripted tool results went out on the wire, in order.
	const finalBody = reqs.at(-1).body;
	const outputs =
		api === "openai-completions"
			? finalBody.messages.filter((m) => m.role === "tool").map((m) => (typeof m.content === "string" ? m.content : m.content.map((p) => p.text).join("")))
			: finalBody.input.filter((it) => it.type === "function_call_output").map((it) => it.output);
	assert.deepEqual(outputs, s.toolResults.map((r) => r.text));

	// The payload pi-ai reported through onPayload is what the stub received (when the version has the hook).
	for (const [i, r] of transcript.requests.entries()) {
		assert.ok(r.payload, `request ${i} has an onPayload payload`);
		assert.deepEqual(r.payload, reqs[i].body, `request ${i}: payload differs from the body on the wire`);
	}

	// Auth: fake keys only.
	for (const q of reqs) {
		if (api === "openai-codex-responses") {
			assert.match(q.headers.authorization, /^Bearer [A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.$/);
			assert.equal(q.headers["chatgpt-account-id"], "acct-lab-fake");
			assert.equal(q.path, `/${s.name}/codex/responses`);
		} else {
			assert.equal(q.headers.authorization, `Bearer ${API_KEY}`);
		}
	}
}

// ---------------------------------------------------------------- the matrix

const RESPONSES = "openai-responses";
const CODEX = "openai-codex-responses";
const COMPLETIONS = "openai-completions";

// Expected strict per docs/upstream.md#pi-ai-observed-strict (plain tool).
const matrix = [
	{ piAi: "1.6.0", api: RESPONSES, compat: undefined, strict: "absent" },
	{ piAi: "1.6.0", api: RESPONSES, compat: { supportsStrictMode: true }, strict: false },
	{ piAi: "1.6.0", api: RESPONSES, compat: { supportsStrictMode: false }, strict: "absent" },
	{ piAi: "1.6.0", api: CODEX, compat: undefined, strict: null },
	{ piAi: "1.6.0", api: CODEX, compat: { supportsStrictMode: true }, strict: null },
	{ piAi: "1.6.0", api: CODEX, compat: { supportsStrictMode: false }, strict: "absent" },
	{ piAi: "1.6.0", api: COMPLETIONS, compat: undefined, strict: "absent" },
	{ piAi: "1.6.0", api: COMPLETIONS, compat: { supportsStrictMode: true }, strict: false },
	{ piAi: "1.6.0", api: COMPLETIONS, compat: { supportsStrictMode: false }, strict: "absent" },
	{ piAi: "0.73.1", api: RESPONSES, compat: undefined, strict: false },
	{ piAi: "0.73.1", api: RESPONSES, compat: { supportsStrictMode: true }, strict: false },
	{ piAi: "0.73.1", api: RESPONSES, compat: { supportsStrictMode: false }, strict: false },
	{ piAi: "0.73.1", api: CODEX, compat: undefined, strict: null },
	{ piAi: "0.73.1", api: CODEX, compat: { supportsStrictMode: false }, strict: null },
	{ piAi: "0.73.1", api: COMPLETIONS, compat: undefined, strict: false },
	{ piAi: "0.73.1", api: COMPLETIONS, compat: { supportsStrictMode: true }, strict: false },
	{ piAi: "0.73.1", api: COMPLETIONS, compat: { supportsStrictMode: false }, strict: "absent" },
];

const jobs = [];
let n = 0;
for (const row of matrix) {
	const compatTag = row.compat === undefined ? "nocompat" : `strict${row.compat.supportsStrictMode}`;
	for (const input of [undefined, ["text", "image"]]) {
		const key = `t${++n}-${row.piAi}-${row.api}-${compatTag}-${input ? "vision" : "noinput"}`;
		jobs.push(
			(async () => {
				const out = await run(key, { piAi: row.piAi, api: row.api, compat: row.compat, input }).catch((err) => ({ err }));
				await check(`${key}: loop, payload, auth`, () => {
					if (out.err) throw out.err;
					commonLoopChecks(out, row.api);
				});
				await check(`${key}: strict ${JSON.stringify(row.strict)}`, () => {
					if (out.err) throw out.err;
					const values = out.reqs.map((q) => strictOf(row.api, q.body));
					strictTable.push({ piAi: row.piAi, api: row.api, compat: compatTag, input: input ? "text,image" : "(omitted)", strict: values[0] });
					for (const v of values) assert.deepEqual(v, row.strict);
					// Plain tool: schema sent unchanged (no strict transform).
					assert.deepEqual((row.api === COMPLETIONS ? toolsOf(out.reqs[0].body)[0].function : toolsOf(out.reqs[0].body)[0]).parameters, BASH_PARAMETERS);
				});
				await check(`${key}: image ${input ? "sent" : "placeholder"}`, () => {
					if (out.err) throw out.err;
					assert.deepEqual(out.transcript.model.input, input ?? ["text"]);
					for (const q of out.reqs) {
						const parts = userParts(row.api, q.body);
						const flat = JSON.stringify(parts);
						if (input) {
							assert.ok(!flat.includes(PLACEHOLDER), "no placeholder for a vision model");
							if (row.api === COMPLETIONS) {
								assert.ok(parts.some((p) => p.type === "image_url" && p.image_url.url === `data:image/png;base64,${PNG_1X1}`), flat);
							} else {
								assert.ok(parts.some((p) => p.type === "input_image" && p.image_url === `data:image/png;base64,${PNG_1X1}`), flat);
							}
						} else {
							assert.ok(!flat.includes(PNG_1X1), "image data must not be sent to a text-only model");
							const textType = row.api === COMPLETIONS ? "text" : "input_text";
							assert.ok(parts.some((p) => p.type === textType && p.text === PLACEHOLDER), flat);
						}
					}
				});
				if (row.api === CODEX) {
					await check(`${key}: codex body`, () => {
						if (out.err) throw out.err;
						const body = out.reqs[0].body;
						if (row.piAi === "0.73.1") assert.equal(body.instructions, "You are DeepSeek Harness, a coding agent.");
						else assert.equal(body.instructions, undefined);
						assert.equal(out.reqs[0].headers["content-encoding"], undefined, "node 20: no zstd");
					});
				}
			})(),
		);
	}
}

// constrainedSampling prefer (1.6.0 only honours it): strict true + transformed schema where strict is supported.
for (const [api, compat, expect] of [
	[RESPONSES, { supportsStrictMode: true }, true],
	[RESPONSES, undefined, "absent"],
	[CODEX, undefined, true],
	[COMPLETIONS, { supportsStrictMode: true }, true],
]) {
	const key = `t${++n}-1.6.0-${api}-prefer-${compat ? "strict" : "nocompat"}`;
	jobs.push(
		(async () => {
			const out = await run(key, { piAi: "1.6.0", api, compat, constrainedSampling: { type: "json_schema", strict: "prefer" }, image: false }).catch((err) => ({ err }));
			await check(`${key}: prefer -> strict ${JSON.stringify(expect)}`, () => {
				if (out.err) throw out.err;
				const body = out.reqs[0].body;
				assert.deepEqual(strictOf(api, body), expect);
				strictTable.push({ piAi: "1.6.0", api, compat: `${compat ? "strictTrue" : "nocompat"}+prefer`, input: "(omitted)", strict: strictOf(api, body) });
				const params = api === COMPLETIONS ? body.tools[0].function.parameters : body.tools[0].parameters;
				if (expect === true) {
					assert.deepEqual(params.required, Object.keys(BASH_PARAMETERS.properties));
					assert.equal(params.additionalProperties, false);
					assert.deepEqual(params.properties.workdir, { anyOf: [BASH_PARAMETERS.properties.workdir, { type: "null" }] });
				} else {
					assert.deepEqual(params, BASH_PARAMETERS);
				}
			});
		})(),
	);
}

// Scripted tool results run out -> "ok"; maxRequests stops the loop.
jobs.push(
	(async () => {
		const key = `t${++n}-1.6.0-maxrequests`;
		const out = await run(key, { piAi: "1.6.0", api: RESPONSES, maxRequests: 2, toolResults: [{ text: "first", isError: true }], image: false }).catch((err) => ({ err }));
		await check(`${key}: fallback "ok" and maxRequests`, () => {
			if (out.err) throw out.err;
			assert.equal(out.transcript.requests.length, 2);
			assert.equal(out.reqs.length, 2);
			assert.deepEqual(out.transcript.requests.map((r) => r.toolResultsSent[0].content[0].text), ["first", "ok"]);
			assert.deepEqual(out.transcript.requests.map((r) => r.toolResultsSent[0].isError), [true, false]);
			assert.deepEqual(out.transcript.final, { stopReason: "toolUse", stoppedBy: "maxRequests" });
		});
	})(),
);

// 429: an error stop reason is data (exit 0), recorded once; retries are off where pi-ai lets us turn them off.
for (const [piAi, api, attempts] of [
	["1.6.0", RESPONSES, 1],
	["1.6.0", CODEX, 1],
	["1.6.0", COMPLETIONS, 1],
	["0.73.1", RESPONSES, 1],
	["0.73.1", COMPLETIONS, 1],
	["0.73.1", CODEX, 4], // hard-coded MAX_RETRIES = 3 (1 s, 2 s, 4 s backoff); cannot be disabled
]) {
	const key = `t${++n}-${piAi}-${api}-rate-limit`;
	jobs.push(
		(async () => {
			const out = await run(key, { piAi, api, image: false }).catch((err) => ({ err }));
			await check(`${key}: 429 -> error stop, ${attempts} HTTP attempt(s)`, () => {
				if (out.err) throw out.err;
				assert.equal(out.transcript.requests.length, 1);
				const r = out.transcript.requests[0];
				assert.equal(r.stopReason, "error");
				assert.match(r.errorMessage, /rate limit|usage limit/i);
				assert.equal(out.transcript.final.stopReason, "error");
				assert.equal(out.transcript.final.stoppedBy, "error");
				assert.equal(out.reqs.length, attempts);
				assert.deepEqual(r.http.map((h) => h.status), Array.from({ length: attempts }, () => 429));
				strictTable.push({ piAi, api, compat: "rate-limit", input: "-", strict: `error: ${r.errorMessage}` });
			});
		})(),
	);
}

// Bad scenarios: non-zero exit, one line on stderr.
jobs.push(
	(async () => {
		const bad = path.join(tmp, "bad.json");
		await writeFile(bad, "{not json");
		const r1 = await runClient([bad]);
		const remote = path.join(tmp, "remote.json");
		await writeFile(remote, JSON.stringify({ ...scenario("remote", { piAi: "1.6.0", api: RESPONSES }), baseUrl: "https://api.openai.com/v1" }));
		const r2 = await runClient([remote]);
		const realKey = path.join(tmp, "realkey.json");
		await writeFile(realKey, JSON.stringify({ ...scenario("realkey", { piAi: "1.6.0", api: RESPONSES }), apiKey: "sk-proj-abc" }));
		const r3 = await runClient([realKey]);
		const r4 = await runClient([path.join(tmp, "missing.json")]);
		await check("bad scenarios exit non-zero with one stderr line", () => {
			for (const r of [r1, r2, r3, r4]) {
				assert.notEqual(r.code, 0);
				assert.equal(r.stdout, "");
				assert.equal(r.stderr.trimEnd().split("\n").length, 1, r.stderr);
			}
			assert.equal(seen.has("remote"), false);
			assert.equal(seen.has("realkey"), false);
		});
	})(),
);

await Promise.all(jobs);
await check("no WebSocket upgrade was attempted (Codex forced to SSE)", () => assert.deepEqual(upgrades, []));

server.close();
server.closeAllConnections?.();
if (process.env.SELFTEST_KEEP) console.log(`scenarios and transcripts kept in ${tmp}`);
else await rm(tmp, { recursive: true, force: true });

// ---------------------------------------------------------------- report

strictTable.sort((a, b) => `${a.piAi}${a.api}${a.compat}${a.input}`.localeCompare(`${b.piAi}${b.api}${b.compat}${b.input}`));
console.log("observed strict (first request, plain tool unless noted):");
for (const row of strictTable) console.log(`  ${row.piAi.padEnd(7)} ${row.api.padEnd(23)} ${row.compat.padEnd(20)} input=${row.input.padEnd(11)} strict=${JSON.stringify(row.strict)}`);
const failed = results.filter((r) => !r.ok);
for (const r of results) console.log(`${r.ok ? "ok  " : "FAIL"} ${r.name}`);
for (const r of failed) console.error(`\nFAIL ${r.name}\n${r.err?.stack ?? r.err}`);
console.log(`\n${results.length - failed.length}/${results.length} checks passed`);
process.exit(failed.length ? 1 : 0);
