// What the DSH fixture generators share: the --out option, and the stand-ins for packages the lab install lacks.
//
// The lab installs DSH's packages with --legacy-peer-deps, so a few packages that modules import but the recorded
// paths never call may be missing. `standInForMissing(kind)` registers a module resolve hook (before DSH's modules
// are imported) that serves a stand-in for a missing `@deepseek-ai/*` package: with kind "throw" every export throws
// "lab stub: <package> <name> is not installed"; with kind "inert" every use is logged in `touches` (a record then
// lists what it touched), so a record that depended on a stand-in says so.

import { register } from "node:module";
import path from "node:path";

export function outDir(script, fallback) {
	let out = fallback;
	const argv = process.argv.slice(2);
	for (let i = 0; i < argv.length; i++) {
		if (argv[i] === "--out" && i + 1 < argv.length) out = path.resolve(argv[++i]);
		else if (argv[i].startsWith("--out=")) out = path.resolve(argv[i].slice(6));
		else {
			process.stderr.write(`usage: node lab/dsh-fixtures/${script} [--out DIR]\n`);
			process.exit(2);
		}
	}
	return out;
}

const HOOKS = (kind) => `
import { readFileSync } from "node:fs";
export async function resolve(specifier, context, next) {
	try {
		return await next(specifier, context);
	} catch (err) {
		if (err?.code !== "ERR_MODULE_NOT_FOUND" || !specifier.startsWith("@deepseek-ai/")) throw err;
		return { url: "dsh-stub:" + specifier + "?from=" + encodeURIComponent(context.parentURL), shortCircuit: true };
	}
}
export async function load(url, context, next) {
	if (!url.startsWith("dsh-stub:")) return next(url, context);
	const u = new URL(url);
	const spec = u.pathname;
	const parent = readFileSync(new URL(u.searchParams.get("from")), "utf8");
	const names = new Set();
	for (const m of parent.matchAll(/import\\s*\\{([^}]*)\\}\\s*from\\s*"([^"]+)"/g)) {
		if (m[2] !== spec) continue;
		for (const part of m[1].split(",")) {
			const n = part.trim().split(/\\s+as\\s+/)[0];
			if (n) names.add(n);
		}
	}
	const withDefault = new RegExp("import\\\\s+\\\\w+\\\\s+from\\\\s+\\"" + spec + "\\"").test(parent);
	let src = "";
	if (${JSON.stringify(kind)} === "throw") {
		const fail = (n) => "{ throw new Error(" + JSON.stringify("lab stub: " + spec + " " + n + " is not installed") + "); }";
		for (const n of names) src += "export function " + n + "() " + fail(n) + "\\n";
		if (withDefault) src += "export default function stub() " + fail("default") + "\\n";
	} else {
		src = "const inert = globalThis.__labInert;\\n";
		for (const n of names) src += "export const " + n + " = inert(" + JSON.stringify(spec + " " + n) + ");\\n";
		if (withDefault) src += "export default inert(" + JSON.stringify(spec + " default") + ");\\n";
	}
	return { format: "module", source: src, shortCircuit: true };
}
`;

export const touches = [];

function inert(label) {
	return new Proxy(function stub() {}, {
		get(_t, key) {
			if (key === Symbol.toPrimitive) return () => `[lab stub ${label}]`;
			if (key === "then" || typeof key === "symbol") return undefined;
			if (key === "prototype") return {};
			touches.push(`${label}.${key}`);
			return inert(`${label}.${key}`);
		},
		apply() {
			touches.push(`${label}()`);
			return inert(`${label}()`);
		},
		construct() {
			touches.push(`new ${label}`);
			return inert(`new ${label}`);
		},
	});
}

export function standInForMissing(kind) {
	if (kind === "inert") globalThis.__labInert = inert;
	register(`data:text/javascript,${encodeURIComponent(HOOKS(kind))}`);
}
