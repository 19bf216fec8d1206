// Records two gzip-compressed exchanges through the real Polly.js node-http adapter and fs persister.
// Usage: node record.mjs BASE_URL RECORDINGS_DIR (run by lab/polly_har.py, which starts the gateway).
import http from "node:http";

import NodeHttpAdapter from "@pollyjs/adapter-node-http";
import { Polly } from "@pollyjs/core";
import FSPersister from "@pollyjs/persister-fs";

Polly.register(NodeHttpAdapter);
Polly.register(FSPersister);

const [base, dir] = process.argv.slice(2);
const BASH = {
  type: "function",
  name: "bash",
  description: "Run a shell command.",
  parameters: {
    type: "object",
    properties: { command: { type: "string" }, justification: { type: "string" } },
    required: ["command"],
  },
};

function post(path, body) {
  return new Promise((resolve, reject) => {
    const data = JSON.stringify(body);
    const req = http.request(
      `${base}${path}`,
      {
        method: "POST",
        headers: {
          "content-type": "application/json",
          "accept-encoding": "gzip",
          authorization: "Bearer sk-lab-polly-0000000000000000",
          "content-length": Buffer.byteLength(data),
        },
      },
      (res) => {
        const chunks = [];
        res.on("data", (c) => chunks.push(c));
        res.on("end", () => resolve({ status: res.statusCode, bytes: Buffer.concat(chunks).length }));
        res.on("error", reject);
      },
    );
    req.on("error", reject);
    req.end(data);
  });
}

const polly = new Polly("polly-gzip", {
  adapters: ["node-http"],
  persister: "fs",
  persisterOptions: { fs: { recordingsDir: dir } },
  mode: "record",
  logLevel: "silent",
  matchRequestsBy: { headers: false, order: true },
});
const input = [{ role: "user", content: [{ type: "input_text", text: "List the files, once." }] }];
try {
  const streamed = await post("/passthrough/v1/responses", { model: "gw-coder", input, tools: [BASH], stream: true });
  const plain = await post("/passthrough/v1/responses", { model: "gw-coder", input, tools: [BASH], stream: false });
  console.log(JSON.stringify({ streamed, plain }));
} finally {
  await polly.stop();
}
