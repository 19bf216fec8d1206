#!/usr/bin/env node
// Records the tools array the REAL Vercel AI SDK sends, so Python tests can compare a model of it
// (toolkit/knowledge/ai_sdk_tools.py) against it offline.
//
//   npm ci --prefix lab/ai-sdk-fixtures --no-audit --no-fund
//   node lab/ai-sdk-fixtures/generate.mjs [--out tests/fixtures/ai_sdk]
//
// Writes (2-space JSON, key order as produced, no timestamps; regenerating gives identical bytes):
//   wire.json   one cell per api x option x toolset: the options, the request path, body.tools as sent, the warnings
//   meta.json   versions, command, the dist functions that build the tools array
//
// Tools come from tests/fixtures/pi_ai/corpus.json (the shared corpus) plus two lab-made schemas that exercise the
// openai provider's schema normalisation (a regex lookaround pattern, a singleton allOf $ref). Each is defined with
// tool({description, inputSchema: jsonSchema(schema), strict}) and sent through generateText to a 127.0.0.1 server
// (port 0) that answers with a minimal non-streaming Responses or Chat Completions reply. Keys are fake.

import { mkdir, readFile, writeFile } from "node:fs/promises";
import http from "node:http";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { createOpenAI } from "@ai-sdk/openai";
import { createOpenAICompatible } from "@ai-sdk/openai-compatible";
import { generateText, jsonSchema, tool } from "ai";

globalThis.AI_SDK_LOG_WARNINGS = false; // warnings are recorded per cell instead of printed

const HERE = path.dirname(fileURLToPath(import.meta.url));
const REPO = path.resolve(HERE, "../..");
const NM = path.join(HERE, "node_modules");
const API_KEY = "sk-lab-FAKE-ai-sdk-fixtures-00000000000";
const MODEL = "gw-coder";
const SYSTEM_PROMPT = "You are a coding agent working in the user's workspace.";
const USER_TEXT = "List the workspace files.";

// ------------------------------------------------------------------ args
let outDir = path.join(REPO, "tests/fixtures/ai_sdk");
{
	const argv = process.argv.slice(2);
	for (let i = 0; i < argv.length; i++) {
		if (argv[i] === "--out" && i + 1 < argv.length) outDir = path.resolve(argv[++i]);
		else if (argv[i].startsWith("--out=")) outDir = path.resolve(argv[i].slice(6));
		else {
			process.stderr.write("usage: node lab/ai-sdk-fixtures/generate.mjs [--out DIR]\n");
			process.exit(2);
		}
	}
}

// ------------------------------------------------------------------ tools
const CORPUS_FILE = "tests/fixtures/pi_ai/corpus.json";
const corpus = JSON.parse(await readFile(path.join(REPO, CORPUS_FILE), "utf8"));
const byId = new Map(corpus.tools.map((e) => [e.id, e.tool]));
// bash (DSH), nested object, nullable fields, anyOf, enum, and propertyNames (removed by the openai provider)
const CORPUS_IDS = ["bash", "nested_object", "already_nullable", "optional_anyof_scalars", "optional_enum", "kw_propertyNames"];
// Malformed schemas of the corpus, each sent on its own (never in the all-tools request): what the SDK does with them.
const MALFORMED_IDS = ["anyof_not_array", "properties_not_map", "root_boolean"];
const EXTRA_TOOLS = [
	{
		name: "lookaround_pattern",
		description: "Fixture tool: a pattern with a regex lookahead.",
		parameters: {
			type: "object",
			properties: { id: { type: "string", pattern: "^(?!tmp)[a-z]+$", description: "Identifier." }, tag: { type: "string", pattern: "^[(?=)]+$" } },
			required: ["id"],
		},
	},
	{
		name: "allof_ref",
		description: "Fixture tool: singleton allOf $ref at the root and below.",
		parameters: {
			allOf: [{ $ref: "#/$defs/args" }],
			$defs: {
				args: { type: "object", properties: { where: { allOf: [{ $ref: "#/$defs/place" }], description: "Where." } }, required: ["where"] },
				place: { type: "string" },
			},
		},
	},
	{
		name: "property_names_integer",
		description: "Fixture tool: propertyNames with a non-string schema (the openai provider refuses it).",
		parameters: { type: "object", properties: { x: { type: "object", propertyNames: { type: "integer" } } } },
		refused: true,
	},
];
const definitions = [
	...[...CORPUS_IDS, ...MALFORMED_IDS].map((id) => {
		const t = byId.get(id);
		if (!t) throw new Error(`${CORPUS_FILE}: no tool ${id}`);
		return { name: t.name, description: t.description, parameters: t.parameters };
	}),
	...EXTRA_TOOLS.map(({ refused, ...d }) => d),
];
const REFUSED = EXTRA_TOOLS.filter((d) => d.refused).map((d) => d.name);
const TOOLSETS = {
	all: definitions.filter((d) => !d.refused && !MALFORMED_IDS.includes(d.name)).map((d) => d.name),
	...Object.fromEntries(definitions.map((d) => [d.name, [d.name]])),
};

function toolSet(names, strict) {
	const out = {};
	for (const name of names) {
		const d = definitions.find((x) => x.name === name);
		const spec = { description: d.description, inputSchema: jsonSchema(structuredClone(d.parameters)) };
		if (strict !== undefined) spec.strict = strict;
		out[name] = tool(spec);
	}
	return out;
}

// ------------------------------------------------------------------ loopback server
const seen = new Map(); // cell key -> [{method, path, body}]
function reply(url, model) {
	if (url.pathname.endsWith("/responses")) {
		return {
			id: "resp_fixture_0001",
			object: "response",
			created_at: 1767225600,
			status: "completed",
			model,
			output: [
				{
					type: "message",
					id: "msg_fixture_0001",
					status: "completed",
					role: "assistant",
					content: [{ type: "output_text", text: "ok", annotations: [] }],
				},
			],
			incomplete_details: null,
			usage: { input_tokens: 10, input_tokens_details: { cached_tokens: 0 }, output_tokens: 1, output_tokens_details: { reasoning_tokens: 0 }, total_tokens: 11 },
		};
	}
	return {
		id: "chatcmpl-fixture-0001",
		object: "chat.completion",
		created: 1767225600,
		model,
		choices: [{ index: 0, message: { role: "assistant", content: "ok" }, finish_reason: "stop" }],
		usage: { prompt_tokens: 10, completion_tokens: 1, total_tokens: 11 },
	};
}
const server = http.createServer((req, res) => {
	const chunks = [];
	req.on("data", (c) => chunks.push(c));
	req.on("end", () => {
		const url = new URL(req.url, "http://stub");
		const [, key, ...rest] = url.pathname.split("/");
		let body;
		try {
			body = JSON.parse(Buffer.concat(chunks).toString("utf8"));
		} catch {
			body = Buffer.concat(chunks).toString("utf8");
		}
		if (!seen.has(key)) seen.set(key, []);
		seen.get(key).push({ method: req.method, path: `/${rest.join("/")}`, body });
		res.writeHead(200, { "content-type": "application/json" });
		res.end(JSON.stringify(reply(url, body?.model ?? MODEL)));
	});
});
await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
const PORT = server.address().port;

// ------------------------------------------------------------------ cells
const APIS = {
	responses: (baseURL) => createOpenAI({ baseURL, apiKey: API_KEY }).responses(MODEL),
	chat: (baseURL) => createOpenAI({ baseURL, apiKey: API_KEY }).chat(MODEL),
	"openai-compatible": (baseURL) => createOpenAICompatible({ name: "gateway", baseURL, apiKey: API_KEY })(MODEL),
};
const PROVIDER_OPTIONS_KEY = { responses: "openai", chat: "openai", "openai-compatible": "gateway" };
// strict on tool(): unset / true / false; then strictJsonSchema (the provider option for response_format) with strict unset
const OPTIONS = [
	{ strict: null },
	{ strict: true },
	{ strict: false },
	{ strict: null, strictJsonSchema: true },
	{ strict: null, strictJsonSchema: false },
];

let cellNo = 0;
async function runCell(api, options, toolset) {
	const key = `c${String(++cellNo).padStart(4, "0")}`;
	const model = APIS[api](`http://127.0.0.1:${PORT}/${key}/v1`);
	const call = {
		model,
		system: SYSTEM_PROMPT,
		prompt: USER_TEXT,
		tools: toolSet(TOOLSETS[toolset], options.strict ?? undefined),
		maxRetries: 0,
	};
	if (options.strictJsonSchema !== undefined) call.providerOptions = { [PROVIDER_OPTIONS_KEY[api]]: { strictJsonSchema: options.strictJsonSchema } };
	const cell = { api, options, toolset };
	let result;
	try {
		result = await generateText(call);
		cell.ok = true;
		cell.error = null;
	} catch (err) {
		cell.ok = false;
		cell.error = String(err?.message ?? err);
		cell.errorName = err?.name ?? null;
	}
	const reqs = seen.get(key) ?? [];
	const body = reqs.length ? reqs[reqs.length - 1].body : null;
	cell.requests = reqs.length;
	cell.http = reqs.map((r) => ({ method: r.method, path: r.path }));
	cell.tools = body?.tools ?? null;
	cell.warnings = result ? JSON.parse(JSON.stringify(result.warnings ?? [])) : null;
	return cell;
}

const cells = [];
for (const api of Object.keys(APIS)) {
	for (const options of OPTIONS) {
		for (const toolset of Object.keys(TOOLSETS)) {
			if (toolset !== "all" && options.strictJsonSchema !== undefined) continue; // one all-tools request suffices there
			cells.push(await runCell(api, options, toolset));
		}
	}
}
server.closeAllConnections?.();
server.close();

// ------------------------------------------------------------------ write
const pkg = async (name) => JSON.parse(await readFile(path.join(NM, name, "package.json"), "utf8"));
const versions = {};
for (const name of ["ai", "@ai-sdk/openai", "@ai-sdk/openai-compatible", "@ai-sdk/provider-utils", "@ai-sdk/provider"]) versions[name] = (await pkg(name)).version;
const wire = {
	note:
		"Each cell is one generateText call with the toolset's tools, each defined as tool({description, inputSchema: jsonSchema(parameters)}) " +
		"plus strict when options.strict is not null. options.strictJsonSchema, when present, is providerOptions[<provider>].strictJsonSchema. " +
		"toolset all = every definition in order but the refused ones (refused); any other toolset = that one tool. tools = body.tools as the server received it; " +
		"http paths are relative to the per-cell prefix. warnings = result.warnings.",
	corpus: CORPUS_FILE,
	definitions,
	refused: REFUSED,
	toolsets: TOOLSETS,
	cells,
};
const meta = {
	generator: "lab/ai-sdk-fixtures/generate.mjs",
	command: "node lab/ai-sdk-fixtures/generate.mjs --out tests/fixtures/ai_sdk",
	node: process.version,
	packages: versions,
	resolvedFrom: "lab/ai-sdk-fixtures/node_modules",
	functionsUsed: {
		ai: "dist/index.js prepareTools (src/prompt/prepare-tools.ts)",
		responses: "@ai-sdk/openai dist/index.js prepareResponsesTools, prepareFunctionTool, normalizeOpenAIJsonSchema",
		chat: "@ai-sdk/openai dist/index.js prepareChatTools, normalizeOpenAIJsonSchema",
		"openai-compatible": "@ai-sdk/openai-compatible dist/index.js prepareTools",
	},
	files: ["wire.json", "meta.json"],
};
const pretty = (v) => `${JSON.stringify(v, null, 2)}\n`;
await mkdir(outDir, { recursive: true });
await writeFile(path.join(outDir, "wire.json"), pretty(wire));
await writeFile(path.join(outDir, "meta.json"), pretty(meta));
process.stdout.write(`wrote 2 files to ${path.relative(process.cwd(), outDir) || "."} (${cells.length} wire cells)\n`);
process.exit(0);
