#!/usr/bin/env node
// Checks the generated fixtures (tests/fixtures/pi_ai) against docs/upstream.md (its pi-ai sections).
//
//   node lab/pi-ai-fixtures/check.mjs [--dir tests/fixtures/pi_ai]
//
// Every expectation below is written from the document, never from the library. The § numbers in the labels
// name the section checked: §2 = docs/upstream.md#pi-ai-tool-conversion, §3 = #pi-ai-strict-transform,
// §4 = #pi-ai-constrained-sampling, §5 = #pi-ai-observed-strict, §10 = #pi-ai-0-73-1, §V = #pi-ai-versions
// (0.82.1 and 0.99.1, whose records follow the 1.6.0 ones).
// A FAIL line is a place where the real library (as recorded in the fixtures) differs from the document;
// the library wins. NOTE lines are library behaviour the document does not state. Exit 1 on any FAIL.
// Also: the DSH bash schema in corpus.json must equal lab/scenarios.py (checked via the lab venv when present),
// and makeStrictJsonSchema must not mutate its input (checked by calling the library once).

import { execFileSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const HERE = path.dirname(fileURLToPath(import.meta.url));
const REPO = path.resolve(HERE, "../..");
let dir = path.join(REPO, "tests/fixtures/pi_ai");
const argv = process.argv.slice(2);
for (let i = 0; i < argv.length; i++) if (argv[i] === "--dir") dir = path.resolve(argv[++i]);
const read = (f) => JSON.parse(readFileSync(path.join(dir, f), "utf8"));
const corpus = read("corpus.json");
const makeStrict = read("make_strict.json");
const direct = read("convert_direct.json");
const wire = read("wire.json");

// docs/upstream.md#pi-ai-versions, as facts per version recorded like 1.6.0: where the transform's results are,
// whether it has rule 4, what completions' detectCompat answers for a custom URL, which option defers a tool.
const DOC_VERSIONS = {
	"1.6.0": { makeStrict: "make_strict.json", rule4: true, completionsDefault: false, defer: "toolSearchResult" },
	"0.82.1": { makeStrict: null, rule4: false, completionsDefault: true, defer: "deferLoading" },
	"0.99.1": { makeStrict: "make_strict_0.99.1.json", rule4: false, completionsDefault: false, defer: "toolSearchResult" },
};
const NEW_VERSIONS = ["0.82.1", "0.99.1"];

let pass = 0;
const fails = [];
const notes = [];
const S = (v) => JSON.stringify(v);
function check(label, cond, detail) {
	if (cond) pass++;
	else fails.push(`${label}${detail === undefined ? "" : `\n      ${detail}`}`);
}
const note = (t) => notes.push(t);

const entry = new Map(corpus.tools.map((e) => [e.id, e]));
const strictOf = new Map(makeStrict.map((r) => [r.id, r]));
const strictOfVersion = Object.fromEntries(
	Object.entries(DOC_VERSIONS).map(([v, d]) => [v, d.makeStrict === null ? null : new Map(read(d.makeStrict).map((r) => [r.id, r]))]),
);

// ====================================================================== section 3: doc model of the transform
const UNSUPPORTED = ["$ref", "$defs", "definitions", "allOf", "oneOf", "patternProperties", "dependentSchemas", "dependencies", "unevaluatedProperties", "propertyNames", "contains", "prefixItems", "not", "if", "then", "else"];
class DocError extends Error {}
const isObj = (v) => typeof v === "object" && v !== null && !Array.isArray(v);
const typesOf = (s) => (typeof s.type === "string" ? [s.type] : Array.isArray(s.type) ? s.type : []);
function allowsNull(s) {
	if (!isObj(s)) return false;
	if (s.type === "null" || (Array.isArray(s.type) && s.type.includes("null"))) return true;
	if (s.const === null || (Array.isArray(s.enum) && s.enum.includes(null))) return true;
	return Array.isArray(s.anyOf) && s.anyOf.some(allowsNull);
}
function docNode(s, rule4 = true) {
	if (!isObj(s)) throw new DocError("boolean schemas are unsupported"); // rule 1
	for (const k of UNSUPPORTED) if (s[k] !== undefined) throw new DocError(`${k} schemas are unsupported`); // rule 2
	if (rule4 && s.type === undefined && s.anyOf === undefined && s.enum === undefined) throw new DocError("schemas without a type are unsupported"); // rule 4 (1.6.0)
	if (s.anyOf !== undefined) {
		// rule 5
		if (!Array.isArray(s.anyOf) || s.anyOf.length === 0) throw new DocError("anyOf must contain at least one schema");
		for (const v of s.anyOf) {
			if (isObj(v) && (typesOf(v).includes("object") || typesOf(v).includes("array") || v.properties !== undefined || v.items !== undefined))
				throw new DocError("object and array unions are unsupported");
			docNode(v, rule4);
		}
	}
	if (s.items !== undefined) {
		// rule 6
		if (Array.isArray(s.items)) throw new DocError("tuple schemas are unsupported");
		docNode(s.items, rule4);
	}
	if (s.properties !== undefined && s.type !== "object") throw new DocError("properties require type object"); // rule 7
	if (s.type !== "object") return;
	if (s.additionalProperties !== undefined && s.additionalProperties !== false) throw new DocError("schema-valued or true additionalProperties is unsupported"); // rule 8
	if (s.properties !== undefined && !isObj(s.properties)) throw new DocError("(docs/upstream.md#pi-ai gives no message: properties must be an object)");
	if (s.required !== undefined && (!Array.isArray(s.required) || s.required.some((k) => typeof k !== "string"))) throw new DocError("(docs/upstream.md#pi-ai gives no message: required must be a string array)");
	const props = s.properties ?? {};
	const names = Object.keys(props);
	const req = new Set(s.required ?? []);
	if ([...req].some((k) => !names.includes(k))) throw new DocError("required contains an unknown property");
	for (const [k, p] of Object.entries(props)) {
		docNode(p, rule4); // rule 9
		if (!req.has(k) && !allowsNull(p)) props[k] = { anyOf: [p, { type: "null" }] };
	}
	s.required = names; // rule 10
	s.additionalProperties = false; // rule 11
}
function docStrict(schema, rule4 = true) {
	const c = structuredClone(schema);
	if (!isObj(c)) throw new DocError("root schema must have type object"); // checked before rule 1
	docNode(c, rule4);
	if (c.type !== "object") throw new DocError("root schema must have type object");
	return c;
}

for (const [version, d] of Object.entries(DOC_VERSIONS)) for (const e of d.makeStrict === null ? [] : corpus.tools) {
	const lib = strictOfVersion[version].get(e.id);
	let doc;
	try {
		doc = { ok: true, schema: docStrict(e.tool.parameters, d.rule4) };
	} catch (err) {
		if (!(err instanceof DocError)) throw err;
		doc = { ok: false, error: err.message };
	}
	if (version !== "1.6.0" && !doc.ok && doc.error.startsWith("(docs/upstream.md#pi-ai gives no message")) continue; // noted for 1.6.0
	const label = version === "1.6.0" ? `§3 makeStrictJsonSchema(${e.id})` : `§V ${version} makeStrictJsonSchema(${e.id}) (no rule 4)`;
	if (doc.ok && lib.ok) check(`${label}: output (incl. key order) matches the §3 rules`, S(doc.schema) === S(lib.schema), `doc ${S(doc.schema).slice(0, 300)}\n      lib ${S(lib.schema).slice(0, 300)}`);
	else if (!doc.ok && !lib.ok) {
		if (doc.error.startsWith("(docs/upstream.md#pi-ai gives no message")) note(`§3 ${e.id}: library message "${lib.error}" ${doc.error.slice(1, -1).replace("docs/upstream.md#pi-ai gives no message: ", "for: ")}`);
		else check(`${label}: error message`, doc.error === lib.error, `doc "${doc.error}" vs library "${lib.error}"`);
		check(`${label}: error class UnsupportedStrictJsonSchemaError`, lib.errorName === "UnsupportedStrictJsonSchemaError", lib.errorName);
	} else check(`${label}: ok/error agrees`, false, `doc ${doc.ok ? "ok" : `error "${doc.error}"`}; library ${lib.ok ? "ok" : `error "${lib.error}"`}`);
}

// §3 worked examples quoted in the document
{
	const ok = (id) => strictOf.get(id).schema;
	check("§3 example {type:object} -> {type:object, required:[], additionalProperties:false}", S(ok("empty_object")) === S({ type: "object", required: [], additionalProperties: false }), S(ok("empty_object")));
	check("§3 example: required [c,a] over a,b,c -> [a,b,c], b wrapped", S(ok("required_order").required) === S(["a", "b", "c"]) && S(ok("required_order").properties.b) === S({ anyOf: [{ type: "string", description: "b" }, { type: "null" }] }));
	check("§3 example: optional bare enum wrapped", S(ok("optional_enum").properties.bare_enum) === S({ anyOf: [{ enum: ["a", "b"], description: "bare enum, no type" }, { type: "null" }] }));
	check("§3 OpenAPI nullable not recognised: wrapped, nullable kept inside anyOf[0]", ok("openapi_nullable").properties.note.anyOf?.[0]?.nullable === true);
	check("§3 optional anyOf double-wrapped", S(ok("optional_anyof_scalars").properties.value) === S({ anyOf: [{ anyOf: [{ type: "string" }, { type: "number" }], description: "A string or a number." }, { type: "null" }] }));
	const nullable = ok("already_nullable");
	check("§3 already-nullable properties only added to required", S(nullable.properties) === S(entry.get("already_nullable").tool.parameters.properties) && S(nullable.required) === S(Object.keys(nullable.properties)));
	check("§3 description not hoisted out of a wrapped property", ok("bash").properties.timeoutMs.description === undefined && ok("bash").properties.timeoutMs.anyOf[0].description !== undefined);
	check("§3 not idempotent: second pass over an optional nested object throws 'object and array unions are unsupported'", strictOf.get("double_nested_object").error === "object and array unions are unsupported");
	check("§3 not idempotent: second pass over an optional array throws 'object and array unions are unsupported'", strictOf.get("double_array_of_objects").error === "object and array unions are unsupported");
	if (strictOf.get("double_bash").ok && S(strictOf.get("double_bash").schema) === S(entry.get("double_bash").tool.parameters))
		note("§3 a second pass over transformed bash (only scalar properties) is a fixed point: non-idempotence needs a nested object/array");
	const b = ok("bash");
	const orig = entry.get("bash").tool.parameters;
	check(
		"§3 DSH bash: required = all properties in properties order; command/description unchanged; the 5 optional wrapped; additionalProperties false last",
		S(b.required) === S(Object.keys(orig.properties)) &&
			S(b.properties.command) === S(orig.properties.command) &&
			S(b.properties.description) === S(orig.properties.description) &&
			["timeoutMs", "workdir", "run_in_background", "sandbox_permissions", "justification"].every((k) => S(b.properties[k]) === S({ anyOf: [orig.properties[k], { type: "null" }] })) &&
			S(Object.keys(b)) === S(["type", "properties", "required", "additionalProperties"]),
	);
}

// the library itself: no mutation, error class export
{
	const cs = await import(pathToFileURL(path.resolve(HERE, "../client/node_modules/pi-ai-1.6.0/dist/api/constrained-sampling.js")).href);
	const input = structuredClone(entry.get("bash").tool.parameters);
	const before = S(input);
	cs.makeStrictJsonSchema(input);
	check("§3 makeStrictJsonSchema does not mutate its input", S(input) === before);
	const cs099 = await import(pathToFileURL(path.resolve(HERE, "../client/node_modules/pi-ai-0.99.1/dist/api/constrained-sampling.js")).href);
	cs099.makeStrictJsonSchema(input);
	check("§V 0.99.1 makeStrictJsonSchema does not mutate its input", S(input) === before);
	const cs082 = await import(pathToFileURL(path.resolve(HERE, "../client/node_modules/pi-ai-0.82.1/dist/api/constrained-sampling.js")).href);
	check("§V 0.82.1 dist/api/constrained-sampling.js has no makeStrictJsonSchema", !("makeStrictJsonSchema" in cs082) && "resolveJsonSchemaStrictSampling" in cs082);
	if (!("UnsupportedStrictJsonSchemaError" in cs)) note("§3 UnsupportedStrictJsonSchemaError is NOT exported by dist/api/constrained-sampling.js (nor anywhere in dist); its instances have .name \"Error\" (the class sets no name)");
}

// root-level details (the doc model above already compares root_boolean/root_untyped with the library)
if (strictOf.get("root_untyped").error === "schemas without a type are unsupported")
	note("§3 an untyped root fails rule 4 (\"schemas without a type are unsupported\"), not \"root schema must have type object\"; a non-object root such as `true` fails the root check first");

// ====================================================================== section 2: direct calls
const isTransformed = (id, params) => S(params) === S(strictOf.get(id).schema);
const isOriginal = (id, params) => S(params) === S(entry.get(id).tool.parameters);
const strictState = (t) => (t === undefined ? "missing" : "strict" in t ? t.strict : "absent");
const dKey = (o) => (o === null ? "none" : S(o));
const row160 = (options, tool, cs) => direct["1.6.0"].find((r) => dKey(r.options) === dKey(options) && r.tool === tool && S(r.constrainedSampling) === S(cs));
const PREFER = { type: "json_schema", strict: "prefer" };
const REQUIRE = { type: "json_schema", strict: "require" };
const DOC_DIRECT = [
	// [options, plain strict, prefer strict, prefer transformed]
	[null, false, true, true],
	[{}, false, true, true],
	[{ supportsStrictMode: true }, false, true, true],
	[{ strict: null }, null, true, true],
	[{ strict: null, supportsStrictMode: true }, null, true, true],
	[{ strict: true }, true, true, true],
	[{ supportsStrictMode: false }, "absent", "absent", false],
	[{ strict: null, supportsStrictMode: false }, "absent", "absent", false],
];
for (const [options, plainStrict, preferStrict, preferT] of DOC_DIRECT) {
	const plain = row160(options, "bash", null);
	const prefer = row160(options, "bash", PREFER);
	const plainT = options?.strict === true;
	check(`§2 direct ${dKey(options)} plain bash: strict ${S(plainStrict)}, ${plainT ? "transformed" : "unchanged"}`, plain.ok && strictState(plain.result[0]) === plainStrict && (plainT ? isTransformed("bash", plain.result[0].parameters) : isOriginal("bash", plain.result[0].parameters)), S(plain.result?.[0] && { strict: strictState(plain.result[0]) }));
	check(`§2 direct ${dKey(options)} prefer bash: strict ${S(preferStrict)}, ${preferT ? "transformed" : "unchanged"}`, prefer.ok && strictState(prefer.result[0]) === preferStrict && (preferT ? isTransformed("bash", prefer.result[0].parameters) : isOriginal("bash", prefer.result[0].parameters)), S(prefer.result?.[0] && { strict: strictState(prefer.result[0]) }));
}
{
	const r = row160({ strict: true }, "kw_oneOf", null);
	check("§2 direct {strict:true} on an untransformable (oneOf) schema throws UnsupportedStrictJsonSchemaError", !r.ok && r.errorName === "UnsupportedStrictJsonSchemaError" && r.error === "oneOf schemas are unsupported", S(r));
	const r2 = row160({ strict: true, supportsStrictMode: false }, "bash", null);
	check("§2 direct {strict:true, supportsStrictMode:false} transforms but omits the key", r2.ok && strictState(r2.result[0]) === "absent" && isTransformed("bash", r2.result[0].parameters));
	const r3 = row160({ strict: true, supportsStrictMode: false }, "bash", PREFER);
	note(`§2 direct {strict:true, supportsStrictMode:false} prefer bash: strict ${S(strictState(r3.result[0]))}, ${isTransformed("bash", r3.result[0].parameters) ? "transformed" : "unchanged"} (not in the table)`);
	const g = direct["1.6.0"].find((x) => x.tool === "grammar_lark" && x.options === null);
	check("§2 grammar tool without grammar support falls back to a function tool", g.ok && g.result[0].type === "function");
	const g2 = direct["1.6.0"].find((x) => x.tool === "grammar_lark" && x.options?.supportsOpenAIGrammarTools && !x.options.toolSearchResult);
	check("§2 grammar tool with support -> {type:custom, name, description, format:{type:grammar, syntax:lark, definition}}", g2.ok && S(Object.keys(g2.result[0])) === S(["type", "name", "description", "format"]) && g2.result[0].format.syntax === "lark");
	const g3 = direct["1.6.0"].find((x) => x.tool === "grammar_lark" && x.options?.toolSearchResult);
	check("§2 grammar tool + toolSearchResult adds defer_loading:true", g3.result[0].defer_loading === true);
	const pr = row160({}, "kw_oneOf", PREFER);
	check("§4 prefer + untransformable schema -> defaultStrict, schema unchanged (direct {})", pr.ok && pr.result[0].strict === false && isOriginal("kw_oneOf", pr.result[0].parameters));
	const rq = row160({}, "kw_oneOf", REQUIRE);
	check("§4 require + untransformable schema throws Tool \"<name>\" requires JSON-schema constrained sampling, but <reason>.", !rq.ok && rq.error === 'Tool "kw_oneOf" requires JSON-schema constrained sampling, but oneOf schemas are unsupported.', rq.error);
	const rq2 = row160({ supportsStrictMode: false }, "bash", REQUIRE);
	check("§4 require + strict unsupported throws '... but strict tools are unsupported.'", !rq2.ok && rq2.error === 'Tool "bash" requires JSON-schema constrained sampling, but strict tools are unsupported.', rq2.error);
	const ko = row160(null, "bash", null).result[0];
	check("§2 function tool key order type,name,description,parameters,strict", S(Object.keys(ko)) === S(["type", "name", "description", "parameters", "strict"]), S(Object.keys(ko)));
}
// §V 0.82.1 and 0.99.1 direct: the §2 table's strict values; transformed as in 1.6.0 where the version has a transform,
// never in 0.82.1 (a direct {strict:true} on an untransformable schema then succeeds); deferral by the version's option.
for (const version of NEW_VERSIONS) {
	const d = DOC_VERSIONS[version];
	const sv = strictOfVersion[version];
	const row = (options, tool, cs) => direct[version].find((r) => dKey(r.options) === dKey(options) && r.tool === tool && S(r.constrainedSampling) === S(cs));
	const transformedBy = (id, params) => (sv === null ? false : S(params) === S(sv.get(id).schema));
	for (const [options, plainStrict, preferStrict, preferT] of DOC_DIRECT) {
		const plain = row(options, "bash", null);
		const prefer = row(options, "bash", PREFER);
		const plainT = sv !== null && options?.strict === true;
		const preferTT = sv !== null && preferT;
		check(`§V ${version} direct ${dKey(options)} plain bash: strict ${S(plainStrict)}, ${plainT ? "transformed" : "unchanged"}`, plain.ok && strictState(plain.result[0]) === plainStrict && (plainT ? transformedBy("bash", plain.result[0].parameters) : isOriginal("bash", plain.result[0].parameters)), S(plain.result?.[0] && { strict: strictState(plain.result[0]) }));
		check(`§V ${version} direct ${dKey(options)} prefer bash: strict ${S(preferStrict)}, ${preferTT ? "transformed" : "unchanged"}`, prefer.ok && strictState(prefer.result[0]) === preferStrict && (preferTT ? transformedBy("bash", prefer.result[0].parameters) : isOriginal("bash", prefer.result[0].parameters)), S(prefer.result?.[0] && { strict: strictState(prefer.result[0]) }));
	}
	const r = row({ strict: true }, "kw_oneOf", null);
	if (sv === null) check(`§V ${version} direct {strict:true} on a oneOf schema: strict true, schema unchanged (no transform)`, r.ok && r.result[0].strict === true && isOriginal("kw_oneOf", r.result[0].parameters), S(r).slice(0, 200));
	else check(`§V ${version} direct {strict:true} on a oneOf schema throws "oneOf schemas are unsupported"`, !r.ok && r.error === "oneOf schemas are unsupported", S(r).slice(0, 200));
	const rq = row({}, "kw_oneOf", REQUIRE);
	if (sv === null) check(`§V ${version} require + oneOf schema, strict supported: strict true, schema unchanged`, rq.ok && rq.result[0].strict === true && isOriginal("kw_oneOf", rq.result[0].parameters), S(rq).slice(0, 200));
	else check(`§V ${version} require + oneOf schema throws the §4 text`, !rq.ok && rq.error === 'Tool "kw_oneOf" requires JSON-schema constrained sampling, but oneOf schemas are unsupported.', rq.error);
	const rq2 = row({ supportsStrictMode: false }, "bash", REQUIRE);
	check(`§V ${version} require + strict unsupported throws '... but strict tools are unsupported.'`, !rq2.ok && rq2.error === 'Tool "bash" requires JSON-schema constrained sampling, but strict tools are unsupported.', rq2.error);
	for (const opt of ["toolSearchResult", "deferLoading"]) {
		const want = opt === d.defer;
		const f = row({ [opt]: true }, "bash", null);
		const g = direct[version].find((x) => x.tool === "grammar_lark" && x.options?.supportsOpenAIGrammarTools && x.options[opt]);
		check(`§V ${version} {${opt}:true}: defer_loading ${want ? "true" : "absent"} on a function tool and a grammar tool`, f.ok && g.ok && (f.result[0].defer_loading === true) === want && (g.result[0].defer_loading === true) === want && g.result[0].type === "custom", S([f.result?.[0]?.defer_loading, g.result?.[0]?.defer_loading]));
	}
}
// §10 0.73.1 direct
for (const [options, want] of [[null, false], [{}, false], [{ strict: null }, null], [{ strict: true }, true], [{ strict: false }, false]]) {
	for (const r of direct["0.73.1"].filter((x) => dKey(x.options) === dKey(options))) {
		check(`§10 0.73.1 direct ${dKey(options)} ${r.tool}${r.constrainedSampling ? " (prefer, ignored)" : ""}: strict ${S(want)}, schema never transformed`, r.ok && r.result[0].strict === want && isOriginal(r.tool, r.result[0].parameters) && S(Object.keys(r.result[0])) === S(["type", "name", "description", "parameters", "strict"]), S(r.result?.[0] && { strict: r.result[0].strict, keys: Object.keys(r.result[0]) }));
	}
}

// ====================================================================== section 5: wire
function toolList(cell) {
	if (cell.tools === null) return [];
	const raw = Array.isArray(cell.tools) ? cell.tools : [...(cell.tools.tools ?? []), ...(cell.tools.additional_tools ?? []).flat()];
	return raw.map((t) => (t.function ? { name: t.function.name, parameters: t.function.parameters, strict: strictState(t.function), keys: Object.keys(t.function), outer: Object.keys(t) } : { name: t.name, parameters: t.parameters, strict: strictState(t), keys: Object.keys(t) }));
}
const isSupported = (version, api, compat) =>
	version === "0.73.1"
		? null
		: api === "openai-codex-responses" || (api === "openai-completions" && DOC_VERSIONS[version].completionsDefault)
			? compat?.supportsStrictMode !== false
			: compat?.supportsStrictMode === true;
const defaultStrictFor = (api) => (api === "openai-codex-responses" ? null : false);
const cellName = (c) => `${c.piAi} ${c.catalog ?? c.api} compat=${c.catalog ? "catalog" : S(c.compat?.supportsStrictMode ?? "unset")} ${c.toolset}${c.tool ? `:${c.tool}` : ""}`;

for (const c of wire.cells) {
	const name = cellName(c);
	const tools = toolList(c);
	if (c.piAi === "0.73.1") {
		const want = c.api === "openai-codex-responses" ? null : c.api === "openai-completions" && c.compat?.supportsStrictMode === false ? "absent" : false;
		const bad = tools.filter((t) => t.strict !== want || !isOriginal(t.name, t.parameters));
		check(`§5/§10 ${name}: every tool strict ${S(want)}, schema untransformed`, c.ok && c.requests === 1 && tools.length > 0 && bad.length === 0, bad.slice(0, 3).map((t) => `${t.name}: ${S(t.strict)}`).join("; "));
		continue;
	}
	const supported = c.catalog ? (c.catalog.startsWith("openai-codex/") ? c.compat?.supportsStrictMode !== false : c.compat?.supportsStrictMode === true) : isSupported(c.piAi, c.api, c.compat);
	const sv = strictOfVersion[c.piAi]; // null: no transform, strict true sends the schema as defined
	const vlabel = c.piAi === "1.6.0" ? "" : "§V ";
	if (c.toolset === "require-single") {
		const refusal = !supported ? "strict tools are unsupported" : sv === null ? null : sv.get(c.tool).ok ? null : sv.get(c.tool).error;
		if (refusal === null) {
			const t = toolList(c)[0];
			check(`${vlabel}§4/§5 ${name}: sent, strict true, ${sv === null ? "schema unchanged" : "transformed"}`, c.ok && c.requests === 1 && t?.strict === true && (sv === null ? isOriginal(c.tool, t.parameters) : S(t.parameters) === S(sv.get(c.tool).schema)), `got ok=${c.ok} requests=${c.requests} error=${S(c.error)}`);
			continue;
		}
		const msg = `Tool "${entry.get(c.tool).tool.name}" requires JSON-schema constrained sampling, but ${refusal}.`;
		check(`${vlabel}§4/§5 ${name}: error before any request`, !c.ok && c.stopReason === "error" && !c.thrownSynchronously && c.requests === 0 && c.error === msg, `got ok=${c.ok} stop=${c.stopReason} requests=${c.requests} error=${S(c.error)}`);
		continue;
	}
	if (c.toolset === "require" && !supported) {
		check(`§5 ${name}: error, no request`, !c.ok && c.stopReason === "error" && c.requests === 0 && c.error === `Tool "bash" requires JSON-schema constrained sampling, but strict tools are unsupported.`, `ok=${c.ok} requests=${c.requests} error=${S(c.error)}`);
		continue;
	}
	check(`§5 ${name}: one request, completed`, c.ok && c.requests === 1, `ok=${c.ok} requests=${c.requests} error=${S(c.error)}`);
	const bad = [];
	for (const t of tools) {
		const transformable = sv === null || sv.get(t.name).ok;
		let want;
		let wantT;
		if (!supported) [want, wantT] = ["absent", false];
		else if (c.toolset === "plain") [want, wantT] = [defaultStrictFor(c.api), false];
		else if (transformable) [want, wantT] = [true, sv !== null];
		else [want, wantT] = [defaultStrictFor(c.api), false]; // prefer fallback
		const paramsOk = wantT ? S(t.parameters) === S(sv.get(t.name).schema) : isOriginal(t.name, t.parameters);
		if (t.strict !== want || !paramsOk) bad.push(`${t.name}: strict ${S(t.strict)} (want ${S(want)}), ${paramsOk ? "params ok" : `params ${wantT ? "not transformed" : "changed"}`}`);
	}
	const bash = tools.find((t) => t.name === "bash");
	check(`${vlabel}§5 ${name}: bash strict=${S(bash?.strict)}${bash && isTransformed("bash", bash.parameters) ? " T" : ""}; all ${tools.length} tools as the table says`, bad.length === 0 && tools.length > 0, bad.slice(0, 4).join("; "));
}
// the four §5 headline cells, spelled out
const cell = (v, api, compat, toolset) => wire.cells.find((c) => !c.catalog && c.piAi === v && c.api === api && S(c.compat?.supportsStrictMode ?? "unset") === S(compat) && c.toolset === toolset);
check("§5 openai-responses unset, 1.6.0 plain: strict ABSENT", strictState(cell("1.6.0", "openai-responses", "unset", "plain").tools[0]) === "absent");
check("§5 codex unset, 1.6.0 prefer: strict true, transformed", cell("1.6.0", "openai-codex-responses", "unset", "prefer").tools[0].strict === true);
check("§5 completions false, 0.73.1: strict absent", strictState(cell("0.73.1", "openai-completions", false, "plain").tools[0].function) === "absent");
// catalog rows
{
	const cx = wire.cells.find((c) => c.piAi === "1.6.0" && c.catalog?.startsWith("openai-codex/") && c.toolset === "plain");
	check("§5/§6 1.6.0 catalog Codex: tools only in input[0] {type:additional_tools, role:developer}, no top-level tools", cx.body.tools === undefined && cx.body.input[0].type === "additional_tools" && cx.body.input[0].role === "developer", S(Object.keys(cx.body)));
	check(`§5 1.6.0 catalog Codex is ${cx.catalog}`, cx.catalog === "openai-codex/gpt-5.6-luna");
	const cx7 = wire.cells.find((c) => c.piAi === "0.73.1" && c.catalog?.startsWith("openai-codex/"));
	check("§5 0.73.1 catalog Codex gpt-5.5: null in top-level tools", cx7.catalog === "openai-codex/gpt-5.5" && Array.isArray(cx7.body.tools) && cx7.body.tools[0].strict === null);
	note("§5 catalog `require` cells (doc: —): openai/gpt-4.1 and Codex gpt-5.6-luna send strict true, transformed, like `prefer`");
}

// ====================================================================== section 6/10: request details
for (const c of wire.cells.filter((x) => x.body)) {
	const name = cellName(c);
	const b = c.body;
	const keys = Object.keys(b);
	if (c.api === "openai-responses") {
		check(`§6 ${name}: POST /v1/responses, keys model,input,stream,store,tools; system prompt = input[0] {role:system}`, S(c.http) === S([{ method: "POST", path: "/v1/responses" }]) && S(keys) === S(["model", "input", "stream", "store", "tools"]) && b.stream === true && b.store === false && b.input[0].role === "system" && S(Object.keys(b.input[0])) === S(["role", "content"]), `${S(c.http)} ${S(keys)}`);
	} else if (c.api === "openai-codex-responses") {
		if (c.piAi === "1.6.0") {
			const allowed = ["model", "store", "stream", "input", "text", "include", "prompt_cache_key", "tool_choice", "parallel_tool_calls", "tools", "max_output_tokens", "temperature", "service_tier", "reasoning"];
			check(`§6 ${name}: POST /codex/responses; no instructions; text.verbosity low; include; tool_choice auto; parallel_tool_calls; keys within §6 list`, S(c.http) === S([{ method: "POST", path: "/codex/responses" }]) && b.instructions === undefined && b.text?.verbosity === "low" && S(b.include) === S(["reasoning.encrypted_content"]) && b.tool_choice === "auto" && b.parallel_tool_calls === true && keys.every((k) => allowed.includes(k)), S(keys));
			const sys = b.input.find((i) => i.role === "system" || i.role === "developer");
			if (!c.catalog) check(`§6 ${name}: system prompt is the leading input item`, b.input[0] === sys && b.input[0].role === "system", S(b.input[0]).slice(0, 120));
		} else {
			check(`${c.piAi === "0.73.1" ? "§10" : "§V"} ${name}: top-level instructions = system prompt, tool_choice auto`, typeof b.instructions === "string" && b.instructions.length > 0 && b.tool_choice === "auto" && b.input[0].role === "user", S(keys));
		}
	} else {
		check(`§6 ${name}: POST /v1/chat/completions, keys model,messages,stream,stream_options{include_usage},store,tools`, S(c.http) === S([{ method: "POST", path: "/v1/chat/completions" }]) && S(keys) === S(["model", "messages", "stream", "stream_options", "store", "tools"]) && b.stream_options?.include_usage === true && b.store === false, S(keys));
		const t = c.tools[0];
		check(`§6 ${name}: completions tool shape {type:function, function:{name,description,parameters,strict?}}`, S(Object.keys(t)) === S(["type", "function"]) && S(Object.keys(t.function).slice(0, 3)) === S(["name", "description", "parameters"]));
	}
}
{
	const cx = wire.cells.find((c) => c.piAi === "1.6.0" && c.api === "openai-codex-responses" && !c.catalog && c.toolset === "plain");
	if (!("prompt_cache_key" in cx.body)) note("§6 Codex 1.6.0 without sessionId: prompt_cache_key is undefined, so the key is absent from the JSON body");
	const cat = wire.cells.find((c) => c.piAi === "1.6.0" && c.catalog?.startsWith("openai-codex/"));
	if (cat.body.reasoning) note(`§6 1.6.0 catalog Codex (reasoning model) sends reasoning ${S(cat.body.reasoning)} with no reasoningEffort option given`);
}

// ====================================================================== DSH bash == lab/scenarios.py
{
	const py = path.join(REPO, ".venv/bin/python");
	if (existsSync(py)) {
		const out = execFileSync(py, ["-c", "import sys, json; sys.path.insert(0, 'lab'); import scenarios; print(json.dumps({'description': scenarios.BASH_DESCRIPTION, 'parameters': scenarios.BASH_PARAMETERS}))"], { cwd: REPO, encoding: "utf8" });
		const want = JSON.parse(out);
		const got = entry.get("bash").tool;
		check("corpus bash == lab/scenarios.py BASH_DESCRIPTION/BASH_PARAMETERS", S(got.description) === S(want.description) && S(got.parameters) === S(want.parameters));
	} else note("lab venv not found: corpus bash not compared with lab/scenarios.py");
}

// ====================================================================== report
for (const n of notes) process.stdout.write(`NOTE  ${n}\n`);
for (const f of fails) process.stdout.write(`FAIL  ${f}\n`);
process.stdout.write(`\n${pass} passed, ${fails.length} failed, ${notes.length} notes\n`);
process.exit(fails.length ? 1 : 0);
