#!/usr/bin/env node
// Records what the REAL pi-ai does with tool definitions, so Python tests can compare a model of pi-ai against it.
//
//   node lab/pi-ai-fixtures/generate.mjs [--out tests/fixtures/pi_ai]
//
// Writes (2-space JSON, key order as produced, no timestamps; regenerating gives identical bytes):
//   corpus.json          the tool definitions (corpus.mjs), double-application entries filled in by 1.6.0
//   make_strict.json         1.6.0 makeStrictJsonSchema on every corpus schema
//   make_strict_0.99.1.json  0.99.1 makeStrictJsonSchema on every corpus schema (0.82.1 and 0.73.1 have no transform)
//   convert_direct.json      convertResponsesTools called directly (1.6.0, 0.73.1, 0.82.1, 0.99.1)
//   wire.json                request bodies pi-ai sent through its providers to a loopback server
//   meta.json                versions, command, file list
//
// pi-ai is resolved from lab/client/node_modules (one install; aliases pi-ai-1.6.0, pi-ai-0.73.1, pi-ai-0.82.1 and
// pi-ai-0.99.1), by file path into dist/ (0.73.1 does not export openai-responses-shared, so bare specifiers would
// not reach it). 0.82.1 is the version DSH 0.1.0-rc.8 resolves (`^0.82.1`); 0.99.1 is the newest 0.x.
// Network: only the 127.0.0.1 server started here. Keys are fake.

import { mkdir, readFile, writeFile } from "node:fs/promises";
import http from "node:http";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import zlib from "node:zlib";
import { CORPUS } from "./corpus.mjs";

const HERE = path.dirname(fileURLToPath(import.meta.url));
const REPO = path.resolve(HERE, "../..");
const NM = path.resolve(HERE, "../client/node_modules");
const PKG = { "1.6.0": "pi-ai-1.6.0", "0.73.1": "pi-ai-0.73.1", "0.82.1": "pi-ai-0.82.1", "0.99.1": "pi-ai-0.99.1" };
const NEW_VERSIONS = ["0.82.1", "0.99.1"]; // recorded like 1.6.0, appended after the 1.6.0/0.73.1 records
const load = (version, rel) => import(pathToFileURL(path.join(NM, PKG[version], "dist", rel)).href);

const APIS = ["openai-responses", "openai-codex-responses", "openai-completions"];
const COMPATS = [undefined, true, false]; // compat.supportsStrictMode: unset, true, false
const API_KEY = "sk-lab-FAKE-pi-ai-fixtures-000000000000";
const SYSTEM_PROMPT = "You are a coding agent working in the user's workspace.";
const USER_TEXT = "List the workspace files.";
const FIXED_TS = 1767225600000;

// ------------------------------------------------------------------ args
let outDir = path.join(REPO, "tests/fixtures/pi_ai");
{
	const argv = process.argv.slice(2);
	for (let i = 0; i < argv.length; i++) {
		if (argv[i] === "--out" && i + 1 < argv.length) outDir = path.resolve(argv[++i]);
		else if (argv[i].startsWith("--out=")) outDir = path.resolve(argv[i].slice(6));
		else {
			process.stderr.write("usage: node lab/pi-ai-fixtures/generate.mjs [--out DIR]\n");
			process.exit(2);
		}
	}
}

// ------------------------------------------------------------------ library entry points
const cs160 = await load("1.6.0", "api/constrained-sampling.js");
const shared160 = await load("1.6.0", "api/openai-responses-shared.js");
const transcript160 = await load("1.6.0", "utils/transcript.js");
const shared073 = await load("0.73.1", "providers/openai-responses-shared.js");
const cs099 = await load("0.99.1", "api/constrained-sampling.js");
const shared082 = await load("0.82.1", "api/openai-responses-shared.js");
const shared099 = await load("0.99.1", "api/openai-responses-shared.js");
const transcript099 = await load("0.99.1", "utils/transcript.js");
const USED = {
	"1.6.0": {
		makeStrictJsonSchema: "dist/api/constrained-sampling.js makeStrictJsonSchema",
		convertResponsesTools: "dist/api/openai-responses-shared.js convertResponsesTools",
		normalizeContext: "dist/utils/transcript.js normalizeContext",
		"openai-responses": "dist/api/openai-responses.js stream",
		"openai-codex-responses": "dist/api/openai-codex-responses.js stream",
		"openai-completions": "dist/api/openai-completions.js stream",
	},
	"0.73.1": {
		convertResponsesTools: "dist/providers/openai-responses-shared.js convertResponsesTools",
		"openai-responses": "dist/providers/openai-responses.js streamOpenAIResponses",
		"openai-codex-responses": "dist/providers/openai-codex-responses.js streamOpenAICodexResponses",
		"openai-completions": "dist/providers/openai-completions.js streamOpenAICompletions",
	},
	"0.82.1": {
		convertResponsesTools: "dist/api/openai-responses-shared.js convertResponsesTools",
		"openai-responses": "dist/api/openai-responses.js stream",
		"openai-codex-responses": "dist/api/openai-codex-responses.js stream",
		"openai-completions": "dist/api/openai-completions.js stream",
	},
	"0.99.1": {
		makeStrictJsonSchema: "dist/api/constrained-sampling.js makeStrictJsonSchema",
		convertResponsesTools: "dist/api/openai-responses-shared.js convertResponsesTools",
		normalizeContext: "dist/utils/transcript.js normalizeContext",
		"openai-responses": "dist/api/openai-responses.js stream",
		"openai-codex-responses": "dist/api/openai-codex-responses.js stream",
		"openai-completions": "dist/api/openai-completions.js stream",
	},
};

async function loadStream(version, api) {
	if (version === "1.6.0" || version === "0.99.1") {
		const mod = await load(version, `api/${api}.js`);
		const transcript = version === "1.6.0" ? transcript160 : transcript099;
		return (model, context, options) => mod.stream(model, transcript.normalizeContext(context), options);
	}
	if (version === "0.82.1") return (await load(version, `api/${api}.js`)).stream; // takes the context as given
	const mod = await load(version, `providers/${api}.js`);
	return {
		"openai-responses": mod.streamOpenAIResponses,
		"openai-codex-responses": mod.streamOpenAICodexResponses,
		"openai-completions": mod.streamOpenAICompletions,
	}[api];
}

const jsonCopy = (v) => (v === undefined ? undefined : JSON.parse(JSON.stringify(v)));
const errorRecord = (err) => ({ error: String(err?.message ?? err), errorName: err?.constructor?.name ?? typeof err });

// ------------------------------------------------------------------ 1. corpus (+ double application)
const byId = new Map();
for (const entry of CORPUS) {
	if (entry.group === "double") {
		const src = byId.get(entry.derivedFrom);
		entry.tool = {
			name: entry.id,
			description: `Fixture tool ${entry.id}: pi-ai 1.6.0 makeStrictJsonSchema output of ${entry.derivedFrom}, fed again.`,
			parameters: cs160.makeStrictJsonSchema(src.tool.parameters),
		};
	}
	byId.set(entry.id, entry);
}
const corpus = { generator: "lab/pi-ai-fixtures/generate.mjs (corpus.mjs)", tools: CORPUS };

// ------------------------------------------------------------------ 2. make_strict
const strictRecords = (makeStrictJsonSchema) =>
	CORPUS.map((entry) => {
		try {
			return { id: entry.id, ok: true, schema: makeStrictJsonSchema(entry.tool.parameters) };
		} catch (err) {
			return { id: entry.id, ok: false, ...errorRecord(err) };
		}
	});
const makeStrict = strictRecords(cs160.makeStrictJsonSchema);
const makeStrict099 = strictRecords(cs099.makeStrictJsonSchema);
const transformable = new Set(makeStrict.filter((r) => r.ok).map((r) => r.id));

// ------------------------------------------------------------------ 3. direct convertResponsesTools
const withCS = (tool, cs) => (cs === undefined ? structuredClone(tool) : { ...structuredClone(tool), constrainedSampling: cs });
const PREFER = { type: "json_schema", strict: "prefer" };
const REQUIRE = { type: "json_schema", strict: "require" };
const bash = byId.get("bash").tool;
const oneOf = byId.get("kw_oneOf").tool;
const grammarTool = {
	name: "grammar_lark",
	description: "Fixture grammar tool.",
	parameters: { type: "object", properties: { input: { type: "string" } }, required: ["input"] },
	constrainedSampling: { type: "grammar", variants: { openai_lark: "start: /[a-z]+/" } },
};
const DIRECT_TOOLS_160 = [
	{ tool: "bash", constrainedSampling: null, def: bash },
	{ tool: "bash", constrainedSampling: PREFER, def: withCS(bash, PREFER) },
	{ tool: "bash", constrainedSampling: REQUIRE, def: withCS(bash, REQUIRE), extra: true },
	{ tool: "kw_oneOf", constrainedSampling: null, def: oneOf, extra: true },
	{ tool: "kw_oneOf", constrainedSampling: PREFER, def: withCS(oneOf, PREFER), extra: true },
	{ tool: "kw_oneOf", constrainedSampling: REQUIRE, def: withCS(oneOf, REQUIRE), extra: true },
];
const DIRECT_OPTIONS_160 = [
	undefined,
	{},
	{ supportsStrictMode: true },
	{ strict: null },
	{ strict: null, supportsStrictMode: true },
	{ strict: true },
	{ supportsStrictMode: false },
	{ strict: null, supportsStrictMode: false },
	{ strict: true, supportsStrictMode: false },
	{ strict: false },
];
function direct(convert, options, t) {
	const rec = { options: options === undefined ? null : options, optionsGiven: options !== undefined, tool: t.tool, constrainedSampling: t.constrainedSampling ?? null };
	if (t.extra) rec.extra = true;
	try {
		const out = options === undefined ? convert([structuredClone(t.def)]) : convert([structuredClone(t.def)], structuredClone(options));
		rec.ok = true;
		rec.result = jsonCopy(out);
	} catch (err) {
		rec.ok = false;
		Object.assign(rec, errorRecord(err));
	}
	return rec;
}
const direct160 = [];
for (const options of DIRECT_OPTIONS_160) for (const t of DIRECT_TOOLS_160) direct160.push(direct(shared160.convertResponsesTools, options, t));
for (const options of [undefined, { supportsOpenAIGrammarTools: true }, { supportsOpenAIGrammarTools: true, toolSearchResult: true }]) {
	direct160.push(direct(shared160.convertResponsesTools, options, { tool: "grammar_lark", constrainedSampling: grammarTool.constrainedSampling, def: grammarTool, extra: true }));
}
const direct073 = [];
for (const options of [undefined, {}, { strict: null }, { strict: true }, { strict: false }]) {
	for (const t of [
		{ tool: "bash", constrainedSampling: null, def: bash },
		{ tool: "bash", constrainedSampling: PREFER, def: withCS(bash, PREFER), extra: true },
		{ tool: "kw_oneOf", constrainedSampling: null, def: oneOf, extra: true },
	]) {
		direct073.push(direct(shared073.convertResponsesTools, options, t));
	}
}
// 0.82.1 and 0.99.1: the 1.6.0 calls, then the grammar tool and a plain tool with each deferral option
// (0.82.1 reads options.deferLoading, 0.99.1 and 1.6.0 read options.toolSearchResult).
const GRAMMAR_OPTIONS_NEW = [undefined, { supportsOpenAIGrammarTools: true }, { supportsOpenAIGrammarTools: true, toolSearchResult: true }, { supportsOpenAIGrammarTools: true, deferLoading: true }];
function directNew(convert) {
	const out = [];
	for (const options of DIRECT_OPTIONS_160) for (const t of DIRECT_TOOLS_160) out.push(direct(convert, options, t));
	for (const options of GRAMMAR_OPTIONS_NEW) {
		out.push(direct(convert, options, { tool: "grammar_lark", constrainedSampling: grammarTool.constrainedSampling, def: grammarTool, extra: true }));
	}
	for (const options of [{ toolSearchResult: true }, { deferLoading: true }]) out.push(direct(convert, options, { tool: "bash", constrainedSampling: null, def: bash, extra: true }));
	return out;
}
const convertDirect = {
	note: "Each call converts ONE tool. options null with optionsGiven false = called with no second argument. extra = beyond the docs/upstream.md#pi-ai-tool-conversion table.",
	"1.6.0": direct160,
	"0.73.1": direct073,
	"0.82.1": directNew(shared082.convertResponsesTools),
	"0.99.1": directNew(shared099.convertResponsesTools),
};

// ------------------------------------------------------------------ 4. wire
const seen = new Map(); // cell key -> [{method, path, contentEncoding, body}]
const USAGE = { input_tokens: 10, input_tokens_details: { cached_tokens: 0 }, output_tokens: 0, output_tokens_details: { reasoning_tokens: 0 }, total_tokens: 10 };
function respond(req, res, body) {
	const url = new URL(req.url, "http://stub");
	const key = decodeURIComponent(url.pathname.split("/")[1] ?? "");
	if (!seen.has(key)) seen.set(key, []);
	seen.get(key).push({ method: req.method, path: url.pathname.replace(`/${url.pathname.split("/")[1]}`, ""), body });
	const model = body?.model ?? "gw-coder";
	res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
	if (url.pathname.endsWith("/responses")) {
		const r = { id: "resp_fixture_0001", object: "response", created_at: 1767225600, model, output: [] };
		const frames = [
			{ type: "response.created", response: { ...r, status: "in_progress" }, sequence_number: 0 },
			{ type: "response.completed", response: { ...r, status: "completed", usage: USAGE }, sequence_number: 1 },
		];
		for (const f of frames) res.write(`event: ${f.type}\ndata: ${JSON.stringify(f)}\n\n`);
	} else {
		const base = { id: "chatcmpl-fixture-0001", object: "chat.completion.chunk", created: 1767225600, model };
		res.write(`data: ${JSON.stringify({ ...base, choices: [{ index: 0, delta: { role: "assistant", content: "" }, finish_reason: "stop" }] })}\n\n`);
		res.write(`data: ${JSON.stringify({ ...base, choices: [], usage: { prompt_tokens: 10, completion_tokens: 0, total_tokens: 10 } })}\n\n`);
		res.write("data: [DONE]\n\n");
	}
	res.end();
}
const server = http.createServer((req, res) => {
	const chunks = [];
	req.on("data", (c) => chunks.push(c));
	req.on("end", () => {
		let raw = Buffer.concat(chunks);
		const enc = req.headers["content-encoding"];
		if (enc === "zstd" && typeof zlib.zstdDecompressSync === "function") raw = zlib.zstdDecompressSync(raw);
		else if (enc === "gzip") raw = zlib.gunzipSync(raw);
		let body;
		try {
			body = JSON.parse(raw.toString("utf8"));
		} catch {
			body = raw.toString("utf8");
		}
		respond(req, res, body);
	});
});
server.on("upgrade", (req, socket) => socket.destroy()); // no WebSocket (Codex is forced to SSE)
await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
const PORT = server.address().port;

function fakeCodexJwt() {
	const b64url = (o) => Buffer.from(JSON.stringify(o)).toString("base64url");
	const payload = b64url({ sub: "lab-fake-user", "https://api.openai.com/auth": { chatgpt_account_id: "acct-lab-fake" } });
	if (/[-_]/.test(payload)) throw new Error("fake JWT payload is not atob-safe");
	return `${b64url({ alg: "none", typ: "JWT" })}.${payload}.`;
}

function buildModel(api, compat, key) {
	const prefix = `http://127.0.0.1:${PORT}/${encodeURIComponent(key)}`;
	const model = {
		id: "gw-coder",
		name: "gw-coder",
		api,
		provider: "gateway",
		baseUrl: api === "openai-codex-responses" ? prefix : `${prefix}/v1`,
		input: ["text"],
		cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 },
		reasoning: false,
		contextWindow: 262144,
		maxTokens: 32768,
	};
	if (compat !== undefined) model.compat = { supportsStrictMode: compat };
	return model;
}

function toolsOf(body) {
	if (!body || typeof body !== "object") return null;
	const out = {};
	if (body.tools !== undefined) out.tools = body.tools;
	const additional = Array.isArray(body.input) ? body.input.filter((i) => i?.type === "additional_tools") : [];
	if (additional.length) out.additional_tools = additional.map((i) => i.tools);
	return Object.keys(out).length === 1 && out.tools !== undefined ? out.tools : Object.keys(out).length ? out : null;
}

// Catalog models: the library's own entry, only baseUrl pointed at the loopback server.
async function findCatalog(version, provider, id) {
	if (version === "0.73.1") return (await load(version, "models.js")).getModel(provider, id); // 0.82.1 on: per provider
	const mod = await load(version, `providers/${provider}.models.js`);
	const list = Object.values(provider === "openai" ? mod.OPENAI_MODELS : mod.OPENAI_CODEX_MODELS);
	return list.find((m) => m.id === id);
}
function catalogModel(catalog, key) {
	const prefix = `http://127.0.0.1:${PORT}/${encodeURIComponent(key)}`;
	return { ...structuredClone(catalog), baseUrl: catalog.api === "openai-codex-responses" ? prefix : `${prefix}/v1` };
}
const CATALOG = [
	["1.6.0", "openai", "gpt-4.1"],
	["1.6.0", "openai-codex", "gpt-5.6-luna"],
	["0.73.1", "openai", "gpt-4.1"],
	["0.73.1", "openai-codex", "gpt-5.5"],
	["0.82.1", "openai", "gpt-4.1"],
	["0.82.1", "openai-codex", "gpt-5.6-luna"],
	["0.99.1", "openai", "gpt-4.1"],
	["0.99.1", "openai-codex", "gpt-5.6-luna"],
];
const hasConstrainedSampling = (version) => version !== "0.73.1";

let cellNo = 0;
async function runCell({ version, api, compat, toolset, tool, tools, catalog }) {
	const key = `c${String(++cellNo).padStart(4, "0")}`;
	const streamFn = await loadStream(version, api);
	const model = catalog ? catalogModel(catalog, key) : buildModel(api, compat, key);
	const context = {
		systemPrompt: SYSTEM_PROMPT,
		messages: [{ role: "user", content: [{ type: "text", text: USER_TEXT }], timestamp: FIXED_TS }],
		tools,
	};
	const options = { apiKey: api === "openai-codex-responses" ? fakeCodexJwt() : API_KEY, maxRetries: 0 };
	if (api === "openai-codex-responses") options.transport = "sse";
	const cell = { piAi: version, api };
	if (catalog) {
		cell.catalog = `${catalog.provider}/${catalog.id}`;
		cell.compat = model.compat === undefined ? null : jsonCopy(model.compat);
	} else cell.compat = compat === undefined ? null : { supportsStrictMode: compat };
	cell.toolset = toolset;
	if (tool !== undefined) cell.tool = tool;
	let message;
	let thrown;
	try {
		const s = streamFn(model, context, options);
		for await (const ev of s) {
			if (ev.type === "done") message = ev.message;
			else if (ev.type === "error") message = ev.error;
		}
		message ??= await s.result();
	} catch (err) {
		thrown = err;
	}
	const reqs = seen.get(key) ?? [];
	const body = reqs.length ? reqs[reqs.length - 1].body : null;
	cell.ok = thrown === undefined && message?.stopReason !== "error" && message?.stopReason !== "aborted";
	cell.stopReason = thrown ? null : (message?.stopReason ?? null);
	if (thrown) {
		cell.error = String(thrown.message);
		cell.thrownSynchronously = true;
	} else if (message?.errorMessage !== undefined) cell.error = message.errorMessage;
	else cell.error = null;
	cell.requests = reqs.length;
	cell.http = reqs.map((r) => ({ method: r.method, path: r.path }));
	cell.tools = toolsOf(body);
	cell.body = body;
	return cell;
}

const plainTools = CORPUS.filter((e) => transformable.has(e.id)).map((e) => structuredClone(e.tool));
const refused = CORPUS.filter((e) => !transformable.has(e.id));
const preferTools = CORPUS.map((e) => withCS(e.tool, PREFER)); // transformable + refused, corpus order
const requireTools = plainTools.map((t) => withCS(t, REQUIRE));

const cells = [];
async function gridCells(version) {
	for (const api of APIS) {
		for (const compat of COMPATS) {
			cells.push(await runCell({ version, api, compat, toolset: "plain", tools: plainTools }));
			if (!hasConstrainedSampling(version)) continue;
			cells.push(await runCell({ version, api, compat, toolset: "prefer", tools: preferTools }));
			cells.push(await runCell({ version, api, compat, toolset: "require", tools: requireTools }));
			for (const e of refused) {
				cells.push(await runCell({ version, api, compat, toolset: "require-single", tool: e.id, tools: [withCS(e.tool, REQUIRE)] }));
			}
		}
	}
}
async function catalogCells(version, provider, id) {
	const catalog = await findCatalog(version, provider, id);
	if (!catalog) throw new Error(`catalog model ${provider}/${id} not found in pi-ai ${version}`);
	for (const [toolset, tools] of hasConstrainedSampling(version) ? [["plain", plainTools], ["prefer", preferTools], ["require", requireTools]] : [["plain", plainTools]]) {
		cells.push(await runCell({ version, api: catalog.api, toolset, tools, catalog }));
	}
}
// 1.6.0 and 0.73.1 first (their records, in their original order), then each newer-modelled version, grid then catalog.
for (const version of ["1.6.0", "0.73.1"]) await gridCells(version);
for (const [version, provider, id] of CATALOG) if (!NEW_VERSIONS.includes(version)) await catalogCells(version, provider, id);
for (const version of NEW_VERSIONS) {
	await gridCells(version);
	for (const [v, provider, id] of CATALOG) if (v === version) await catalogCells(v, provider, id);
}
const wire = {
	note:
		"Custom model gw-coder (input [text], no catalog entry) with a custom 127.0.0.1 baseUrl. compat null = model has no compat. " +
		"toolset plain = transformable corpus tools (make_strict ok) without constrainedSampling; prefer = ALL corpus tools with " +
		'constrainedSampling {type:"json_schema",strict:"prefer"}; require = transformable tools with strict "require"; ' +
		"require-single = one tool untransformable by 1.6.0 with require (0.82.1 has no transform; 0.99.1 has no rule 4). tools = body.tools (or {tools, additional_tools} when the body " +
		"carries an additional_tools input item). http paths are relative to the per-cell prefix. Cells with `catalog` use the " +
		"library's catalog model (its own compat) with only baseUrl replaced.",
	toolsets: {
		plain: plainTools.map((t) => t.name),
		prefer: preferTools.map((t) => t.name),
		require: requireTools.map((t) => t.name),
		"require-single": refused.map((e) => e.id),
	},
	cells,
};
server.closeAllConnections?.();
server.close();

// ------------------------------------------------------------------ 5. write
const pretty = (v) => `${JSON.stringify(v, null, 2)}\n`;
const files = {
	"corpus.json": pretty(corpus),
	"make_strict.json": pretty(makeStrict),
	"make_strict_0.99.1.json": pretty(makeStrict099),
	"convert_direct.json": pretty(convertDirect),
	"wire.json": pretty(wire),
};
const pkgVersion = async (dir) => JSON.parse(await readFile(path.join(NM, dir, "package.json"), "utf8"));
const openaiFor = async (dir) => (await pkgVersion(`${dir}/node_modules/openai`).catch(() => pkgVersion("openai"))).version;
const p160 = await pkgVersion(PKG["1.6.0"]);
const p073 = await pkgVersion(PKG["0.73.1"]);
const p082 = await pkgVersion(PKG["0.82.1"]);
const p099 = await pkgVersion(PKG["0.99.1"]);
const meta = {
	generator: "lab/pi-ai-fixtures/generate.mjs",
	command: "node lab/pi-ai-fixtures/generate.mjs --out tests/fixtures/pi_ai",
	node: process.version,
	packages: {
		"pi-ai-1.6.0": `${p160.name}@${p160.version}`,
		"pi-ai-0.73.1": `${p073.name}@${p073.version}`,
		"pi-ai-0.82.1": `${p082.name}@${p082.version}`,
		"pi-ai-0.99.1": `${p099.name}@${p099.version}`,
		"openai (used by 0.73.1)": (await pkgVersion("openai")).version,
		"openai (used by 1.6.0)": (await pkgVersion(`${PKG["1.6.0"]}/node_modules/openai`)).version,
		"openai (used by 0.82.1)": await openaiFor(PKG["0.82.1"]),
		"openai (used by 0.99.1)": await openaiFor(PKG["0.99.1"]),
	},
	resolvedFrom: "lab/client/node_modules",
	functionsUsed: USED,
	notes: [
		"1.6.0 UnsupportedStrictJsonSchemaError is not exported; errorName is err.constructor.name (err.name is the inherited \"Error\").",
		"On node >= 22.15 Codex bodies are zstd-compressed; the server decompresses them, so body is always the JSON sent.",
		"0.82.1 has no makeStrictJsonSchema (dist/api/constrained-sampling.js exports only resolveJsonSchemaStrictSampling and grammar helpers), so it has no make_strict file.",
	],
	files: [...Object.keys(files), "meta.json"],
};
files["meta.json"] = pretty(meta);
await mkdir(outDir, { recursive: true });
for (const [name, text] of Object.entries(files)) await writeFile(path.join(outDir, name), text);
process.stdout.write(`wrote ${Object.keys(files).length} files to ${path.relative(process.cwd(), outDir) || "."} (${cells.length} wire cells)\n`);
process.exit(0);
