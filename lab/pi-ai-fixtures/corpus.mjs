// Tool-definition corpus for the pi-ai fixtures (see generate.mjs). Pure data plus two derived entries
// ("double application") that generate.mjs fills in with pi-ai 1.6.0's own strict transform.
//
// Groups:
//   dsh      DSH tool schemas (docs/upstream.md#dsh-tool-schemas). `bash` is lab/scenarios.py BASH_DESCRIPTION/BASH_PARAMETERS
//            byte for byte (dsh-bash.json, dumped from scenarios.py). pwsh/write/edit follow docs/upstream.md#dsh-tool-schemas;
//            their description texts are lab-made (docs/upstream.md#dsh quotes no exact text for them).
//   shape    schema shapes the strict transform is expected to accept.
//   refusal  one tool per refusal rule of docs/upstream.md#pi-ai-strict-transform (plus the library's extra messages).
//   double   the 1.6.0 transform's own output fed again (non-idempotence).

import { readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const HERE = path.dirname(fileURLToPath(import.meta.url));
const DSH_BASH = JSON.parse(readFileSync(path.join(HERE, "dsh-bash.json"), "utf8"));

const clone = (v) => structuredClone(v);
const obj = (properties, required) => {
	const schema = { type: "object", properties };
	if (required !== undefined) schema.required = required;
	return schema;
};
const STR = (description) => ({ type: "string", description });

const FILE_ESCALATION = {
	sandbox_permissions: {
		type: "string",
		description:
			"The wider sandbox mode this file operation needs. Only valid as a one-shot retry of a file operation the sandbox just denied; requires justification and user approval.",
		enum: ["workspace-write", "danger-full-access"],
	},
	justification: {
		type: "string",
		description:
			"Required with sandbox_permissions: one sentence for the user explaining why this exact file operation needs the wider access.",
	},
};

const entries = [];
const add = (group, id, parameters, extra = {}) =>
	entries.push({ id, group, ...extra, tool: { name: id, description: extra.description ?? `Fixture tool ${id}.`, parameters } });

// ------------------------------------------------------------------ DSH
add("dsh", "bash", clone(DSH_BASH.parameters), { description: DSH_BASH.description, source: "lab/scenarios.py BASH_DESCRIPTION, BASH_PARAMETERS" });
add("dsh", "pwsh", clone(DSH_BASH.parameters), {
	description:
		"Execute a PowerShell command and return its output. Each call runs in a fresh session. (lab-made description; parameters as bash per docs/upstream.md#dsh-tool-schemas)",
	source: "deepseek-ai/deepseek-harness packages/shell/tool-bash/src/index.ts @ dsh-v0.1.1-rc.2 (docs/upstream.md#dsh-tool-schemas): same parameters as bash",
});
add(
	"dsh",
	"write",
	obj(
		{
			file_path: STR("Path of the file to write."),
			content: STR("The full content to write to the file."),
			...clone(FILE_ESCALATION),
		},
		["file_path", "content"],
	),
	{ description: "Write a file in the workspace, replacing it if it exists. (lab-made description)", source: "deepseek-ai/deepseek-harness packages/fs/tool-fs/src/write.ts @ dsh-v0.1.1-rc.2 (docs/upstream.md#dsh-tool-schemas) write + fs escalation fields" },
);
add(
	"dsh",
	"edit",
	obj(
		{
			file_path: STR("Path of the file to edit."),
			old_string: STR("The exact text to replace."),
			new_string: STR("The replacement text."),
			replace_all: { type: "boolean", description: "Replace every occurrence of old_string (default false)." },
			...clone(FILE_ESCALATION),
		},
		["file_path", "old_string", "new_string"],
	),
	{ description: "Replace text in a workspace file. (lab-made description)", source: "deepseek-ai/deepseek-harness packages/fs/tool-fs/src/edit.ts @ dsh-v0.1.1-rc.2 (docs/upstream.md#dsh-tool-schemas) edit + fs escalation fields" },
);

// ------------------------------------------------------------------ shapes expected to transform
add(
	"shape",
	"nested_object",
	obj(
		{
			target: obj({ host: STR("Host name."), port: { type: "integer", description: "Port." } }, ["host"]),
			options: obj({ verbose: { type: "boolean" }, depth: { type: "integer", minimum: 0 } }, ["verbose"]),
		},
		["target"],
	),
	{ note: "required nested object `target`, optional nested object `options`" },
);
add(
	"shape",
	"array_of_objects",
	obj(
		{
			query: STR("Search query."),
			edits: {
				type: "array",
				description: "Optional list of edits.",
				items: obj({ path: STR("File path."), line: { type: "integer" } }, ["path"]),
			},
		},
		["query"],
	),
	{ note: "optional array of objects" },
);
add(
	"shape",
	"already_nullable",
	obj({
		type_array: { type: ["string", "null"], description: "type list with null" },
		anyof_null: { anyOf: [{ type: "string" }, { type: "null" }], description: "anyOf with a null variant" },
		enum_null: { type: "string", enum: ["a", "b", null], description: "enum containing null" },
		const_null: { type: "string", const: null, description: "const null (typed, so rule 4 passes)" },
		type_null: { type: "null" },
	}),
	{ note: "every property already allows null and is optional: only added to required" },
);
add(
	"shape",
	"optional_anyof_scalars",
	obj({ value: { anyOf: [{ type: "string" }, { type: "number" }], description: "A string or a number." } }),
	{ note: "optional anyOf of scalars: double-wrapped" },
);
add(
	"shape",
	"optional_enum",
	obj({
		bare_enum: { enum: ["a", "b"], description: "bare enum, no type" },
		typed_enum: { type: "string", enum: ["x", "y"] },
	}),
);
add("shape", "const_typed", obj({ kind: { type: "string", const: "fixed" }, opt_kind: { type: "string", const: "other" } }, ["kind"]));
add("shape", "empty_object", { type: "object" }, { note: "object with no properties" });
add("shape", "empty_properties", { type: "object", properties: {} });
add("shape", "nested_empty_object", obj({ meta: { type: "object" } }), { note: "optional nested object without properties" });
add("shape", "required_order", obj({ a: STR("a"), b: STR("b"), c: STR("c") }, ["c", "a"]), { note: "required listed in a different order than properties" });
add("shape", "openapi_nullable", obj({ note: { type: "string", nullable: true, description: "OpenAPI nullable" } }));
add(
	"shape",
	"keywords_kept",
	obj(
		{
			name: { type: "string", title: "Name", description: "d", default: "x", examples: ["x"], minLength: 1, maxLength: 10, pattern: "^[a-z]+$" },
			when: { type: "string", format: "date-time" },
			count: { type: "integer", minimum: 1, maximum: 5, multipleOf: 1, default: 2 },
			ratio: { type: "number", exclusiveMinimum: 0, exclusiveMaximum: 1 },
			tags: { type: "array", items: { type: "string" }, minItems: 1, maxItems: 3, uniqueItems: true },
		},
		["name"],
	),
	{ note: "annotations and bounds are kept verbatim" },
);
add("shape", "array_without_items", obj({ list: { type: "array" } }), { note: "array without items is left as is" });
add("shape", "additional_properties_false", { ...obj({ a: STR("a") }, ["a"]), additionalProperties: false });
add("shape", "all_required", obj({ a: STR("a"), b: { type: "integer" } }, ["a", "b"]));

// ------------------------------------------------------------------ refusals (docs/upstream.md#pi-ai-strict-transform)
add("refusal", "boolean_true_property", obj({ x: true }), { rule: 1 });
add("refusal", "boolean_false_property", obj({ x: false }), { rule: 1 });
add("refusal", "kw_ref", obj({ x: { $ref: "#/definitions/thing" } }), { rule: 2 });
add("refusal", "kw_defs", { type: "object", $defs: { thing: { type: "string" } }, properties: { x: { type: "string" } } }, { rule: 2 });
add("refusal", "kw_definitions", { type: "object", definitions: { thing: { type: "string" } }, properties: { x: { type: "string" } } }, { rule: 2 });
add("refusal", "kw_allOf", obj({ x: { allOf: [{ type: "string" }, { minLength: 1 }] } }), { rule: 2 });
add("refusal", "kw_oneOf", obj({ x: { oneOf: [{ type: "string" }, { type: "number" }] } }), { rule: 2 });
add("refusal", "kw_patternProperties", obj({ x: { type: "object", patternProperties: { "^s_": { type: "string" } } } }), { rule: 2 });
add("refusal", "kw_dependentSchemas", { ...obj({ a: STR("a"), b: STR("b") }), dependentSchemas: { a: { required: ["b"] } } }, { rule: 2 });
add("refusal", "kw_dependencies", { ...obj({ a: STR("a"), b: STR("b") }), dependencies: { a: ["b"] } }, { rule: 2 });
add("refusal", "kw_unevaluatedProperties", { ...obj({ a: STR("a") }), unevaluatedProperties: false }, { rule: 2 });
add("refusal", "kw_propertyNames", obj({ x: { type: "object", propertyNames: { pattern: "^[a-z]+$" } } }), { rule: 2 });
add("refusal", "kw_contains", obj({ x: { type: "array", items: { type: "string" }, contains: { const: "y" } } }), { rule: 2 });
add("refusal", "kw_prefixItems", obj({ x: { type: "array", prefixItems: [{ type: "string" }] } }), { rule: 2 });
add("refusal", "kw_not", obj({ x: { type: "string", not: { const: "" } } }), { rule: 2 });
add("refusal", "kw_if", obj({ x: { type: "string", if: { minLength: 1 }, then: { pattern: "^a" }, else: { const: "" } } }), { rule: 2 });
add("refusal", "kw_then", obj({ x: { type: "string", then: { pattern: "^a" } } }), { rule: 2 });
add("refusal", "kw_else", obj({ x: { type: "string", else: { const: "" } } }), { rule: 2 });
add("refusal", "untyped_property", obj({ x: { description: "only a description" } }), { rule: 4 });
add("refusal", "bare_const", obj({ x: { const: "fixed" } }), { rule: 4 });
add("refusal", "bare_const_null", obj({ x: { const: null } }), { rule: 4 });
add("refusal", "anyof_empty", obj({ x: { anyOf: [] } }), { rule: 5 });
add("refusal", "anyof_not_array", obj({ x: { anyOf: { type: "string" } } }), { rule: 5 });
add("refusal", "anyof_object_variant", obj({ x: { anyOf: [{ type: "string" }, { type: "object", properties: { a: STR("a") } }] } }), { rule: 5 });
add("refusal", "anyof_array_variant", obj({ x: { anyOf: [{ type: "string" }, { type: "array", items: { type: "string" } }] } }), { rule: 5 });
add("refusal", "anyof_nullable_object", obj({ x: { anyOf: [{ type: "object", properties: {} }, { type: "null" }] } }), { rule: 5 });
add("refusal", "tuple_items", obj({ x: { type: "array", items: [{ type: "string" }, { type: "number" }] } }), { rule: 6 });
add("refusal", "properties_on_string", obj({ x: { type: "string", properties: { a: STR("a") } } }), { rule: 7 });
add("refusal", "properties_on_object_or_null", obj({ x: { type: ["object", "null"], properties: { a: STR("a") } } }), { rule: 7 });
add("refusal", "additional_properties_true", { ...obj({ a: STR("a") }), additionalProperties: true }, { rule: 8 });
add("refusal", "additional_properties_schema", { ...obj({ a: STR("a") }), additionalProperties: { type: "string" } }, { rule: 8 });
add("refusal", "nested_additional_properties_true", obj({ x: { type: "object", properties: {}, additionalProperties: true } }), { rule: 8 });
add("refusal", "required_unknown", obj({ a: STR("a") }, ["a", "missing"]), { rule: 8 });
add("refusal", "properties_not_map", { type: "object", properties: [] }, { rule: 8, note: "library message not in docs/upstream.md#pi-ai" });
add("refusal", "required_not_string_array", { type: "object", properties: { a: STR("a") }, required: "a" }, { rule: 8, note: "library message not in docs/upstream.md#pi-ai" });
add("refusal", "root_string", { type: "string" }, { rule: "root" });
add("refusal", "root_array", { type: "array", items: { type: "string" } }, { rule: "root" });
add("refusal", "root_untyped", { properties: { a: STR("a") } }, { rule: "root" });
add("refusal", "root_boolean", true, { rule: "root" });

// ------------------------------------------------------------------ double application (filled by generate.mjs)
entries.push({ id: "double_nested_object", group: "double", derivedFrom: "nested_object", tool: null });
entries.push({ id: "double_array_of_objects", group: "double", derivedFrom: "array_of_objects", tool: null });
entries.push({ id: "double_bash", group: "double", derivedFrom: "bash", tool: null });

export const CORPUS = entries;
