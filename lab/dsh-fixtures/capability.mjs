#!/usr/bin/env node
// Records DSH 0.1.0-rc.8's image gates for models that declare image input, do not, or declare nothing, so
// the Python model (toolkit.knowledge.dsh_images, toolkit.layers.capability) can be compared offline.
//
//   node lab/dsh-fixtures/capability.mjs [--out tests/fixtures/dsh]
//
// Writes capability.json (2-space JSON, key order as produced, no timestamps; identical bytes on every run).
// Each gate is DSH's own code, reached through the package's exported or registered functions:
//   read_image      dsh-tool-fs `apply` registers it; its execute runs through dsh-tools ToolRuntime's
//                   dispatchToolBody (so a throw becomes the model-facing result via toolErrorResult);
//   mcp             dsh-mcp-client `apply` connects a real MCP server (stdio child, the MCP SDK's Server)
//                   whose tool returns text + PNG + text; the registered tool's execute and finalizeContent
//                   give the content the model gets;
//   web prompt      dsh-host-apiproxy `createApiProxy` handlers `prompt` and `selectModel`;
//   pi-ai adapter   dsh-llm-pi-ai `apply` over a settings section; the adapter's `stream` with an image message.
// Model metadata comes from the real pi-ai adapter (models configured in a llm-pi-ai section with `input`
// [text], [text, image] or absent) and, for "undeclared" (an adapter that reports no inputModalities at all),
// from a stub llm service. Packages the lab install lacks are stood in by inert stubs that log every touch;
// each record lists the touches made while it ran (`stub_touches`), so a record that depended on one says so.

import { mkdir, readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { outDir as outOption, standInForMissing, touches } from "./harness.mjs";

standInForMissing("inert");
const TOUCHES = touches;
// dsh-mcp-client calls Promise.withResolvers (ES2024, Node 22); the lab's Node 20 lacks it, so it is supplied here.
Promise.withResolvers ??= function withResolvers() {
	let resolve;
	let reject;
	const promise = new Promise((res, rej) => {
		resolve = res;
		reject = rej;
	});
	return { promise, resolve, reject };
};

const HERE = path.dirname(fileURLToPath(import.meta.url));
const REPO = path.resolve(HERE, "../..");
const DSH_VERSION = "0.1.0-rc.8";
const KEY_ENV = "LAB_FAKE_GATEWAY_KEY";
const ENV = { [KEY_ENV]: "sk-lab-FAKE-capability-0000" };
const ROUTE = "gateway";
const IMAGE_PATH = "shots/screen.png";
// 1x1 PNG, canonical base64
const PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==";

const importTouches = TOUCHES.length;
const { apply: applyPiAi } = await import("@deepseek-ai/dsh-llm-pi-ai");
const { SettingsProvider } = await import("@deepseek-ai/dsh-settings");
const { apply: applyToolFs } = await import("@deepseek-ai/dsh-tool-fs");
const { ToolRuntime } = await import("@deepseek-ai/dsh-tools");
const mcp = await import("@deepseek-ai/dsh-mcp-client");
const { createUserMessage } = await import("@deepseek-ai/dsh-llm");
const apiproxy = await import("@deepseek-ai/dsh-host-apiproxy");
const importStubTouches = [...new Set(TOUCHES.splice(importTouches))].sort();

const outDir = outOption("capability.mjs", path.join(REPO, "tests/fixtures/dsh"));

const fail = (err) => ({
	ok: false,
	error: String(err?.message ?? err),
	errorName: err?.name ?? typeof err,
	...(err?.code === undefined ? {} : { code: err.code }),
});

// ---- the models: declared through a real llm-pi-ai section, or an adapter that declares nothing -------------

const MODELS = [
	{ id: "gw-text", declared: "input: [text]", input: ["text"] },
	{ id: "gw-vision", declared: "input: [text, image]", input: ["text", "image"] },
	{ id: "gw-plain", declared: "(no input: route defaultInput)", input: null },
];
const SETTINGS = {
	"llm-pi-ai": {
		providers: {
			[ROUTE]: {
				api: "openai-responses",
				baseURL: "http://127.0.0.1:18787/v1",
				apiKeyEnv: KEY_ENV,
				models: MODELS.map((m) => (m.input === null ? { id: m.id } : { id: m.id, input: m.input })),
			},
		},
	},
};

function mountPiAi() {
	const seam = Object.create(SettingsProvider.prototype);
	Object.assign(seam, { registrations: new Map(), document: SETTINGS, ctx: { effect: (fn) => fn(), logger: console } });
	let adapter;
	const ctx = {
		get: (name) =>
			name === "credentials"
				? { resolve: async (ref) => (ENV[ref] === undefined ? undefined : { value: ENV[ref] }) }
				: undefined,
		inject: (_deps, cb) => cb({ settings: seam, effect: () => {} }),
		llm: {
			registerConfigurableProviders: () => ({ replace: () => {} }),
			registerModelDiscovery: () => {},
			registerAdapter: (_routes, a) => {
				adapter = a;
				return { replace: () => {} };
			},
		},
		logger: console,
	};
	applyPiAi(ctx, {});
	return adapter;
}
const adapter = mountPiAi();

// The llm service the gates ask (`resolveModelInfo`): the pi-ai adapter's resolveModel for the configured
// models, and for "undeclared" an adapter answer that carries no inputModalities.
const UNDECLARED = { id: "gw-undeclared", declared: "adapter reports no inputModalities", input: undefined };
const llmService = {
	resolveModelInfo: async (provider, model) =>
		model === UNDECLARED.id ? { provider, id: model, name: model, context: { contextWindow: 262144 } } : adapter.resolveModel(provider, model),
	listProviders: () => [{ id: ROUTE, name: ROUTE }],
	resolveCallConfig: async (selection) => ({ ...selection }),
};
const CASES = [...MODELS, UNDECLARED];

function execFor(model, extra = {}) {
	return {
		agent: {
			session: { header: { cwd: "/workspace" }, requestHeader: () => ({ config: { provider: ROUTE, model } }) },
			options: { provider: ROUTE, model },
		},
		callId: "call-1",
		signal: new AbortController().signal,
		...extra,
	};
}

// ---- read_image (dsh-tool-fs), model-facing result through dsh-tools' dispatchToolBody ----------------------

const ATTACHMENTS = {
	imageLimits: {
		mediaTypes: ["image/png", "image/jpeg", "image/webp", "image/gif"],
		maxImageBytes: 3670016,
		maxMessageImageBytes: 3670016,
	},
	saveImages: async (images) =>
		images.map((img, i) => ({ attachmentId: `att-${i}`, mediaType: img.mediaType, bytes: img.data.length, width: 1, height: 1 })),
};

const PAST_GATE = "lab: past the image gate; the file read is not part of this record";

function readImageTool(services) {
	const registered = [];
	const ctx = {
		get: (name) => services[name],
		inject: (_deps, cb) => cb(ctx),
		tools: { register: (tool) => registered.push(tool) },
		// reached only after the image gate passed: every filesystem call answers with this sentinel
		// (a non-confining backend: no sandboxMode)
		fs: new Proxy(
			{},
			{
				get: (_t, key) =>
					key === "sandboxMode" ? undefined : () => Promise.reject(new Error(`${PAST_GATE} (fs.${String(key)})`)),
			},
		),
		emit: () => {},
		systemPrompt: { section: () => {} },
	};
	applyToolFs(ctx, { readLimit: 2000, readMaxLineLength: 2000, readMaxBytes: 262144, readStreamMinSize: 65536 });
	return registered.find((t) => t.name === "read_image");
}

async function dispatch(tool, args, base) {
	// ToolRuntime#dispatchToolBody: runs the body; a throw becomes toolErrorResult (`Error: <message>`).
	const exec = { ...base, name: tool.name, arguments: args };
	const state = { callerSignal: exec.signal, bodyInvoked: false };
	const self = {
		cancellationStates: new WeakMap([[exec, state]]),
		resolveExecution: () => tool,
		createSuccessResult: (_exec, _tool, value) => ({ isError: false, value }),
	};
	const result = await ToolRuntime.prototype.dispatchToolBody.call(self, exec);
	return result.isError ? { isError: true, content: result.content, error: result.error } : { isError: false };
}

async function readImage(modelId, services) {
	const tool = readImageTool(services);
	const exec = execFor(modelId);
	return dispatch(tool, { file_path: IMAGE_PATH }, exec);
}

// ---- MCP (dsh-mcp-client) against a real stdio MCP server ---------------------------------------------------

const SERVER = `
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { CallToolRequestSchema, ListToolsRequestSchema } from "@modelcontextprotocol/sdk/types.js";
const server = new Server({ name: "lab-shots", version: "1.0.0" }, { capabilities: { tools: {} } });
server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: [{ name: "screenshot", description: "Take a screenshot", inputSchema: { type: "object", properties: {} } }] }));
server.setRequestHandler(CallToolRequestSchema, async () => ({ content: [{ type: "text", text: "before" }, { type: "image", data: ${JSON.stringify(PNG)}, mimeType: "image/png" }, { type: "text", text: "after" }] }));
await server.connect(new StdioServerTransport());
`;

async function mountMcp(services) {
	const registered = [];
	const disposers = [];
	const ctx = {
		root: {},
		get: (name) => services.current[name],
		effect: (fn) => {
			const dispose = fn();
			if (typeof dispose === "function") disposers.push(dispose);
		},
		tools: { register: (tool) => (registered.push(tool), () => {}) },
		logger: { info() {}, warn() {}, error() {}, debug() {} },
	};
	const config = mcp.Config({
		transport: "stdio",
		serverName: "lab",
		command: process.execPath,
		args: ["--input-type=module", "-e", SERVER],
		cwd: HERE,
		failOnStartupError: true,
	});
	await mcp.apply(ctx, config);
	return { tool: registered[0], close: () => disposers.reverse().forEach((d) => d()) };
}

async function mcpCall(mounted, modelId) {
	const exec = execFor(modelId);
	const value = await mounted.tool.execute({}, exec);
	const fallback = mounted.tool.output.render({}, value);
	const projected = mounted.tool.finalizeContent(exec, { isError: false, value, content: fallback }) ?? fallback;
	return { isError: false, content: projected.map((b) => (b.type === "text" ? b : { type: b.type })) };
}

// ---- web prompt and model switch (dsh-host-apiproxy createApiProxy) -----------------------------------------

function webAgent(modelId, historyHasImage) {
	const listeners = [];
	return {
		id: "agent-1",
		ctx: { on: (name, fn) => (listeners.push(name), () => {}) },
		session: {
			id: "session-1",
			header: {},
			requestHeader: () => ({ config: { provider: ROUTE, model: modelId } }),
			deriveMessages: () =>
				historyHasImage
					? [createUserMessage({ content: [{ type: "image", attachment: { attachmentId: "att-0", mediaType: "image/png", bytes: 68 } }] })]
					: [],
		},
		inbox: { nextTurn: [], nextStep: [] },
		followup: () => {},
		steer: () => {},
	};
}

function webApi(agent) {
	const services = { llm: llmService, attachments: ATTACHMENTS };
	const ctx = new Proxy(
		{
			get: (name) => services[name],
			inject: () => {},
			on: () => () => {},
			effect: () => {},
			llm: llmService,
			attachments: ATTACHMENTS,
			agents: { get: (id) => (id === agent.session.id ? agent : undefined), isOwnedBy: () => false },
			sessions: { get: () => undefined },
			logger: { info() {}, warn() {}, error() {}, debug() {} },
		},
		{
			get(target, key) {
				if (key in target) return target[key];
				if (typeof key === "symbol" || key === "then") return undefined;
				return globalThis.__labInert(`ctx.${key}`); // a service this path does not mount; touches are logged
			},
		},
	);
	return apiproxy.createApiProxy(ctx, { defaultModelSelection: () => ({ provider: ROUTE, model: agent.session.requestHeader().config.model }) });
}

function handler(api, name) {
	for (const group of Object.values(api)) if (group && typeof group[name] === "function") return group[name];
	throw new Error(`createApiProxy has no ${name} handler`);
}

async function webPrompt(modelId) {
	const agent = webAgent(modelId, false);
	const api = webApi(agent);
	const reply = await handler(api, "prompt")({
		rpcId: "rpc-1",
		payload: {
			sessionId: agent.session.id,
			mode: "followup",
			content: [{ type: "image", data: PNG, mediaType: "image/png" }],
		},
	});
	return reply.result;
}

async function webSelect(modelId) {
	const agent = webAgent("gw-vision", true);
	const api = webApi(agent);
	const reply = await handler(api, "selectModel")({ rpcId: "rpc-2", payload: { sessionId: agent.session.id, provider: ROUTE, model: modelId } });
	return reply.result;
}

// ---- pi-ai adapter guard (dsh-llm-pi-ai stream) -------------------------------------------------------------

async function adapterCall(modelId) {
	const message = createUserMessage({
		content: [{ type: "image", attachment: { attachmentId: "att-0", mediaType: "image/png", bytes: 68 } }],
	});
	try {
		for await (const _ of adapter.stream({ provider: ROUTE, model: modelId, messages: [message] })) break;
		return { ok: true };
	} catch (err) {
		return fail(err);
	}
}

// ---- run ------------------------------------------------------------------------------------------------------

async function recorded(fn) {
	const from = TOUCHES.length;
	let result;
	try {
		result = await fn();
	} catch (err) {
		result = { thrown: fail(err) };
	}
	return { result, stub_touches: [...new Set(TOUCHES.splice(from))].sort() };
}

const mcpServices = { current: { llm: llmService, attachments: ATTACHMENTS } };
const mounted = await mountMcp(mcpServices);
const records = [];
for (const m of CASES) {
	const info = await recorded(() => llmService.resolveModelInfo(ROUTE, m.id).then((i) => ({ inputModalities: i.inputModalities ?? null })));
	const model = { id: m.id, declared: m.declared, inputModalities: info.result.inputModalities };
	const gates = {};
	gates.read_image = await recorded(() => readImage(m.id, { llm: llmService, attachments: ATTACHMENTS }));
	gates.mcp = await recorded(() => mcpCall(mounted, m.id));
	gates.web_prompt = await recorded(() => webPrompt(m.id));
	gates.web_model_switch = await recorded(() => webSelect(m.id));
	if (m !== UNDECLARED) gates.pi_ai_adapter = await recorded(() => adapterCall(m.id));
	records.push({ id: m.id, model, gates });
}
// The route-level refusals: no llm service (read_image, mcp), and no attachment store (mcp).
const extra = [];
extra.push({ id: "read_image/no-llm", gate: "read_image", ...(await recorded(() => readImage("gw-text", { attachments: ATTACHMENTS }))) });
mcpServices.current = { attachments: ATTACHMENTS };
extra.push({ id: "mcp/no-llm", gate: "mcp", ...(await recorded(() => mcpCall(mounted, "gw-text"))) });
mcpServices.current = { llm: llmService };
extra.push({ id: "mcp/no-attachments", gate: "mcp", ...(await recorded(() => mcpCall(mounted, "gw-text"))) });
mounted.close();

const doc = {
	generator: "lab/dsh-fixtures/capability.mjs",
	dsh_version: DSH_VERSION,
	packages: JSON.parse(await readFile(path.join(HERE, "package.json"), "utf8")).dependencies,
	settings: SETTINGS,
	env: { set: Object.keys(ENV) },
	route: ROUTE,
	image_path: IMAGE_PATH,
	past_gate: PAST_GATE,
	mcp_media_type: "image/png",
	import_stub_touches: importStubTouches,
	records,
	route_refusals: extra,
};
await mkdir(outDir, { recursive: true });
await writeFile(path.join(outDir, "capability.json"), JSON.stringify(doc, null, 2) + "\n");
process.stdout.write(`wrote ${records.length} models, ${extra.length} route refusals to ${path.relative(REPO, path.join(outDir, "capability.json"))}\n`);
process.exit(0);
