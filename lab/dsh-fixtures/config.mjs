#!/usr/bin/env node
// Records what the REAL DSH 0.1.0-rc.8 resolves from a settings.yaml, so the Python model of it
// (toolkit.load_settings(..., dsh="0.1.0-rc.8")) can be compared offline.
//
//   node lab/dsh-fixtures/config.mjs [--out tests/fixtures/dsh]
//
// Writes config.json (2-space JSON, key order as produced, no timestamps; regenerating gives identical bytes).
// Nothing here re-implements DSH. Per settings text:
//   1. dsh-settings-file's FileSettingsProvider#parse reads the YAML text (the `yaml` package, as DSH does);
//   2. dsh-llm-pi-ai's own `apply` runs against a stub context whose settings seam is dsh-settings'
//      SettingsProvider#register (schema defaults, base, user section, then llm-pi-ai's validator
//      `assertServiceable` -> resolveProfiles -> resolveRouteModels): the error it throws, or the profiles and
//      the pi-ai Model objects the adapter's Models collection serves;
//   3. for a route with apiKeyEnv, the adapter's `stream` is started without the variable set (stub credentials
//      service) and its MISSING_CREDENTIAL error recorded (it throws before anything is sent);
//   4. agent-default-model's own section schema, and the adapter's `resolveModel` for that selection.
// The lab install (package.json, --legacy-peer-deps) lacks a few packages these modules import but the paths
// recorded here never call (dsh-launch-environment, dsh-atomic-write, dsh-home-paths); a resolve hook stands in
// a module whose every export throws "lab stub: ... is not installed", so a record that touched one would say so.

import { mkdir, readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { outDir as outOption, standInForMissing } from "./harness.mjs";

standInForMissing("throw");

const HERE = path.dirname(fileURLToPath(import.meta.url));
const REPO = path.resolve(HERE, "../..");
const DSH_VERSION = "0.1.0-rc.8";
const KEY_ENV = "LAB_FAKE_GATEWAY_KEY"; // set only inside this harness (stub credentials service)
const ENV = { [KEY_ENV]: "sk-lab-FAKE-config-0000" };

const { apply: applyPiAi } = await import("@deepseek-ai/dsh-llm-pi-ai");
const { SettingsProvider } = await import("@deepseek-ai/dsh-settings");
const { FileSettingsProvider } = await import("@deepseek-ai/dsh-settings-file");
const { AGENT_DEFAULT_MODEL_SETTINGS_NAMESPACE, AGENT_DEFAULT_MODEL_SETTINGS_SCHEMA } = await import(
	"@deepseek-ai/dsh-agent-default-model"
);
const { createUserMessage } = await import("@deepseek-ai/dsh-llm");

const outDir = outOption("config.mjs", path.join(REPO, "tests/fixtures/dsh"));

// ---- the corpus: settings.yaml texts ------------------------------------------------------------------------

const URL_ = "http://127.0.0.1:18787/v1";
const yamlRoute = (body, { route = "gateway", head = "" } = {}) =>
	`${head}llm-pi-ai:\n  providers:\n    ${route}:\n${body
		.split("\n")
		.map((l) => (l ? `      ${l}` : l))
		.join("\n")}`;
const route = (extra = "", models = "models:\n  - id: gw-coder\n") =>
	yamlRoute(`api: openai-responses\nbaseURL: ${URL_}\n${extra}${models}`);
const model = (lines) => `models:\n  - id: gw-coder\n${lines.map((l) => `    ${l}\n`).join("")}`;
const dflt = (provider, m) => `agent-default-model:\n  provider: ${provider}\n  model: ${m}\n\n`;

const CORPUS = [
	["settings.before", await readFile(path.join(REPO, "data/configs/settings.before.yaml"), "utf8")],
	["settings.after", await readFile(path.join(REPO, "data/configs/settings.after.yaml"), "utf8")],
	// compat.supportsStrictMode at the route and on the model
	["strict-absent", route()],
	["strict-route-true", route("compat:\n  supportsStrictMode: true\n")],
	["strict-route-false", route("compat:\n  supportsStrictMode: false\n")],
	["strict-model-true", route("", model(["compat:", "  supportsStrictMode: true"]))],
	["strict-model-false-over-route-true", route("compat:\n  supportsStrictMode: true\n", model(["compat:", "  supportsStrictMode: false"]))],
	["strict-route-completions", yamlRoute(`api: openai-completions\nbaseURL: ${URL_}\ncompat:\n  supportsStrictMode: false\n  maxTokensField: max_tokens\nmodels:\n  - id: gw-chat\n`)],
	["strict-route-anthropic", yamlRoute(`api: anthropic-messages\nbaseURL: ${URL_}\ncompat:\n  supportsStrictMode: true\nmodels:\n  - id: gw-claude\n`)],
	["strict-model-anthropic", yamlRoute(`api: anthropic-messages\nbaseURL: ${URL_}\nmodels:\n  - id: gw-claude\n    compat:\n      supportsStrictMode: true\n`)],
	["compat-anthropic-tools", yamlRoute(`api: anthropic-messages\nbaseURL: ${URL_}\ncompat:\n  supportsStrictTools: true\nmodels:\n  - id: gw-claude\n`)],
	["compat-withheld", route("compat:\n  openRouterRouting: {}\n")],
	["compat-undeclared", route("compat:\n  supportsStrictMod: true\n")],
	["compat-valueless", route("compat:\n  supportsStrictMode:\n")],
	["compat-model-withheld", route("", model(["compat:", "  supportsToolSearch: true"]))],
	// removed keys
	["removed-provider", route("provider: openai\n")],
	["removed-max-retries", route("maxRetries: 3\n")],
	["removed-max-retry-delay", route("maxRetryDelayMs: 1000\n")],
	// input modalities
	["input-text", route("", model(["input: [text]"]))],
	["input-text-image", route("", model(["input: [text, image]"]))],
	["input-image-only", route("", model(["input: [image]"]))],
	["input-absent", route()],
	["input-empty", route("", model(["input: []"]))],
	["input-modalities-only", route("", model(["inputModalities: [text, image]"]))],
	["input-modalities-and-input", route("", model(["input: [text]", "inputModalities: [text, image]"]))],
	["input-unknown-modality", route("", model(["input: [text, audio]"]))],
	["default-input-image", route("defaultInput: [text, image]\n")],
	["default-input-image-model-text", route("defaultInput: [text, image]\n", model(["input: [text]"]))],
	["default-input-empty", route("defaultInput: []\n")],
	// sizes
	["sizes-declared", route("", model(["contextWindow: 128000", "maxTokens: 8192"]))],
	["sizes-route-defaults", route("defaultContextWindow: 65536\ndefaultMaxTokens: 4096\n")],
	["sizes-model-over-route", route("defaultContextWindow: 65536\ndefaultMaxTokens: 4096\n", model(["contextWindow: 1000000"]))],
	["context-window-zero", route("", model(["contextWindow: 0"]))],
	["max-tokens-fraction", route("", model(["maxTokens: 1.5"]))],
	["default-context-window-zero", route("defaultContextWindow: 0\n")],
	// credentials
	["api-key-set", route(`apiKeyEnv: ${KEY_ENV}\n`)],
	["api-key-unset", route("apiKeyEnv: LAB_FAKE_UNSET_KEY\n")],
	["api-key-invalid-name", route("apiKeyEnv: not-a-shell-name\n")],
	// default model selection
	["default-model-ok", dflt("gateway", "gw-coder") + route()],
	["default-model-missing", dflt("gateway", "gw-other") + route()],
	["default-route-missing", dflt("elsewhere", "gw-coder") + route()],
	["default-model-no-model-key", "agent-default-model:\n  provider: gateway\n\n" + route()],
	// names and display
	["display-name", route("displayName: Team gateway\n")],
	["display-name-empty", route('displayName: ""\n')],
	["base-url-empty", yamlRoute('api: openai-responses\nbaseURL: ""\nmodels:\n  - id: gw-coder\n')],
	["two-routes", `${route()}    second:\n      api: openai-completions\n      baseURL: ${URL_}\n      models:\n        - id: gw-chat\n          input: [text, image]\n`],
	["two-models", route("", "models:\n  - id: gw-coder\n  - id: gw-vision\n    input: [text, image]\n")],
	["reasoning-efforts-false", route("", model(["reasoningEfforts: false"]))],
	["reasoning-efforts-empty", route("", model(["reasoningEfforts: {}"]))],
	["reasoning-efforts-levels", route("", model(["reasoningEfforts:", "  off:", "  high: high"]))],
	// malformed
	["empty-model-id", route("", 'models:\n  - id: ""\n')],
	["missing-model-id", route("", "models:\n  - name: No id\n")],
	["duplicate-model", route("", "models:\n  - id: gw-coder\n  - id: gw-coder\n")],
	["missing-api", yamlRoute(`baseURL: ${URL_}\nmodels:\n  - id: gw-coder\n`)],
	["missing-base-url", yamlRoute("api: openai-responses\nmodels:\n  - id: gw-coder\n")],
	["no-models-empty-list", route("", "models: []\n")],
	["no-models-absent", yamlRoute(`api: openai-responses\nbaseURL: ${URL_}\n`)],
	["api-unsupported-azure", yamlRoute(`api: azure-openai-responses\nbaseURL: ${URL_}\nmodels:\n  - id: gw-coder\n`)],
	["api-unknown", yamlRoute(`api: openai-chat\nbaseURL: ${URL_}\nmodels:\n  - id: gw-coder\n`)],
	["providers-array", `llm-pi-ai:\n  providers:\n    - id: gateway\n      api: openai-responses\n`],
	["no-section", "permission:\n  defaultPreset: workspace-write\n"],
	["empty-text", ""],
	["empty-section", "llm-pi-ai:\n"],
	["empty-providers", "llm-pi-ai:\n  providers: {}\n"],
];

// ---- driving DSH ---------------------------------------------------------------------------------------------

const fail = (err) => ({ ok: false, error: String(err?.message ?? err), errorName: err?.name ?? typeof err, ...(err?.code === undefined ? {} : { code: err.code }) });

function parseText(text) {
	// FileSettingsProvider#parse reads only spec.format and spec.filename (named in its error text).
	const self = { spec: { format: "yaml", filename: "settings.yaml" } };
	return FileSettingsProvider.prototype.parse.call(self, text);
}

function settingsSeam(doc, warnings) {
	// dsh-settings' own SettingsProvider#register (a cordis Service, so built without its constructor: register
	// reads only these fields, and `effect` runs its registration at once).
	const seam = Object.create(SettingsProvider.prototype);
	Object.assign(seam, {
		registrations: new Map(),
		document: doc,
		ctx: { effect: (fn) => fn(), logger: { warn: (...a) => warnings.push(a.map(String).join(" ")) } },
	});
	return seam;
}

function mountPiAi(doc) {
	const warnings = [];
	const seam = settingsSeam(doc, warnings);
	let registered;
	const credentials = { resolve: async (ref) => (ENV[ref] === undefined ? undefined : { value: ENV[ref] }) };
	const ctx = {
		get: (name) => (name === "credentials" ? credentials : undefined),
		inject: (_deps, cb) => cb({ settings: seam, effect: () => {} }),
		llm: {
			registerConfigurableProviders: () => ({ replace: () => {} }),
			registerModelDiscovery: () => {},
			registerAdapter: (routes, adapter) => {
				registered = { routes: [...routes], adapter };
				return { replace: (next) => (registered.routes = [...next]) };
			},
		},
		logger: { warn: (...a) => warnings.push(a.map(String).join(" ")), error: (...a) => warnings.push(a.map(String).join(" ")) },
	};
	applyPiAi(ctx, {});
	return { registered, seam, warnings };
}

const PROFILE_KEYS = ["displayName", "api", "baseURL", "apiKeyEnv", "defaultInput", "defaultContextWindow", "defaultMaxTokens", "compat"];
const MODEL_KEYS = ["id", "name", "api", "provider", "baseUrl", "input", "contextWindow", "maxTokens", "reasoning", "compat"];
const pick = (obj, keys) => Object.fromEntries(keys.filter((k) => obj[k] !== undefined).map((k) => [k, obj[k]]));

async function firstError(iterable) {
	try {
		for await (const _ of iterable) break;
		return { ok: true };
	} catch (err) {
		return fail(err);
	}
}

async function run(text) {
	let doc;
	try {
		doc = parseText(text);
	} catch (err) {
		return { parse: fail(err) };
	}
	const out = { parse: { ok: true, namespaces: Object.keys(doc) } };
	let mounted;
	try {
		mounted = mountPiAi(doc);
	} catch (err) {
		out.llm_pi_ai = fail(err);
		return out;
	}
	const adapter = mounted.registered?.adapter;
	const snapshot = adapter?.current();
	const routes = [];
	for (const [provider, profile] of snapshot?.profiles ?? []) {
		const models = snapshot.models.getModels(provider).map((m) => pick(m, MODEL_KEYS));
		const r = { provider, ...pick(profile, PROFILE_KEYS), models };
		if (profile.apiKeyEnv !== undefined) {
			// resolveApiKey runs first in stream(); an unset reference throws MISSING_CREDENTIAL before any request.
			r.credential = ENV[profile.apiKeyEnv] !== undefined ? { ok: true, set: true } : await firstError(
				adapter.stream({ provider, model: models[0].id, messages: [createUserMessage({ content: [{ type: "text", text: "hi" }] })] }),
			);
		}
		routes.push(r);
	}
	out.llm_pi_ai = { ok: true, routes, registered_routes: mounted.registered?.routes ?? [], warnings: mounted.warnings };
	if (doc[AGENT_DEFAULT_MODEL_SETTINGS_NAMESPACE] !== undefined) {
		try {
			const scope = settingsSeam(doc, []).register(AGENT_DEFAULT_MODEL_SETTINGS_NAMESPACE, AGENT_DEFAULT_MODEL_SETTINGS_SCHEMA);
			const sel = scope.get();
			const selection = { ok: true, provider: sel.provider, model: sel.model };
			if (adapter === undefined) selection.resolve = { ok: false, error: "no llm-pi-ai route is registered", errorName: "lab" };
			else {
				try {
					const m = await adapter.resolveModel(sel.provider, sel.model);
					selection.resolve = { ok: true, id: m.id, inputModalities: m.inputModalities, contextWindow: m.context.contextWindow };
				} catch (err) {
					selection.resolve = fail(err);
				}
			}
			out.default_model = selection;
		} catch (err) {
			out.default_model = fail(err);
		}
	}
	return out;
}

const records = [];
for (const [id, settings] of CORPUS) records.push({ id, settings, dsh: await run(settings) });

const packages = JSON.parse(await readFile(path.join(HERE, "package.json"), "utf8")).dependencies;
const piAi = JSON.parse(await readFile(path.join(HERE, "node_modules/@earendil-works/pi-ai/package.json"), "utf8"));
const piAiRange = JSON.parse(
	await readFile(path.join(HERE, "node_modules/@deepseek-ai/dsh-llm-pi-ai/package.json"), "utf8"),
).dependencies["@earendil-works/pi-ai"];
const doc = {
	generator: "lab/dsh-fixtures/config.mjs",
	dsh_version: DSH_VERSION,
	packages,
	pi_ai: { range: piAiRange, installed: piAi.version },
	entry:
		"@deepseek-ai/dsh-settings-file FileSettingsProvider#parse -> @deepseek-ai/dsh-llm-pi-ai apply (settings seam: @deepseek-ai/dsh-settings SettingsProvider#register, validator assertServiceable) -> adapter Models.getModels / stream (credential) / resolveModel",
	env: { set: Object.keys(ENV) },
	records,
};
await mkdir(outDir, { recursive: true });
await writeFile(path.join(outDir, "config.json"), JSON.stringify(doc, null, 2) + "\n");
process.stdout.write(`wrote ${records.length} records to ${path.relative(REPO, path.join(outDir, "config.json"))}\n`);
