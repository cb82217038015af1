// The scripted agents' one way to reach `pullcept sidecar`: the official
// TypeScript MCP SDK client spawning it over stdio (StdioClientTransport), as
// a CLI does. Shared by sdk_client.mjs and the e2e scripts.
//
// Env: SDK_PREFIX (npm prefix holding @modelcontextprotocol/sdk),
// SIDECAR_BIN (a binary whose `sidecar` subcommand is the sidecar),
// ROOM_URL, ROOM_TOKEN.
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";

const env = process.env;
export const sdk = createRequire(join(env.SDK_PREFIX, "node_modules", "noop.cjs"));
const { Client } = sdk("@modelcontextprotocol/sdk/client/index.js");
const { StdioClientTransport } = sdk("@modelcontextprotocol/sdk/client/stdio.js");

// seat spawns a sidecar named name in topic (extra: more PULLCEPT_* env)
// and connects a client to it.
export async function seat(name, topic, extra = {}) {
  const transport = new StdioClientTransport({
    command: env.SIDECAR_BIN,
    args: ["sidecar"],
    env: {
      PULLCEPT_ROOM_URL: env.ROOM_URL,
      PULLCEPT_ROOM_TOKEN: env.ROOM_TOKEN,
      PULLCEPT_AGENT_NAME: name,
      PULLCEPT_ROOM_ID: topic,
      ...extra,
    },
    stderr: "pipe",
  });
  const client = new Client({ name: "pullcept-scripted-agent", version: "0" });
  await client.connect(transport);
  return client;
}

// fromRegistration connects a client named name to the sidecar a seat's
// per-launch MCP registration (mcpConfig, the CLI's {mcp_config}) names,
// passing the agent's own environment on as a CLI does; it returns the
// client and the registration's entry.
export async function fromRegistration(mcpConfig, name) {
  const entry = JSON.parse(readFileSync(mcpConfig, "utf8")).mcpServers.pullcept;
  const transport = new StdioClientTransport({
    command: entry.command,
    args: entry.args,
    env: { ...process.env, ...entry.env },
    stderr: "ignore",
  });
  const client = new Client({ name, version: "0" });
  await client.connect(transport);
  return { client, entry };
}

// call calls a tool and returns its text and whether it is an error.
export async function call(client, name, args = {}) {
  const res = await client.callTool({ name, arguments: args });
  const text = (res.content ?? []).filter((c) => c.type === "text").map((c) => c.text).join("");
  return { text, isError: res.isError === true };
}
