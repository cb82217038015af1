// A scripted agent for e2e/loop_test.go (issue 36): run by `pullcept serve`
// as a cli account's command in a real PTY, it launches the room's sidecar
// from its per-launch MCP registration with the official TypeScript MCP SDK
// client (sdk_lib.mjs fromRegistration) and answers, one at a time, every
// post typed into its terminal whose speaker is in ANSWER — the agents that
// always answer each other.
//
//   node loop_agent.mjs MCP_CONFIG
//
// Env: SDK_PREFIX, ANSWER (comma-separated speaker names), MAX (answers at
// most, a safety), AGENT_OUT (a folder: each say_to_room answer is appended
// to answers-<account>.jsonl).
import { appendFileSync } from "node:fs";
import { join } from "node:path";
import { call as callTool, fromRegistration } from "../../sidecar/testdata/sdk_lib.mjs";

const env = process.env;
const [mcpConfig] = process.argv.slice(2);
const answer = new Set((env.ANSWER ?? "").split(",").filter(Boolean));
const max = Number(env.MAX ?? 20);
const { client, entry } = await fromRegistration(mcpConfig, "loop-agent");
const me = entry.env.PULLCEPT_ACCOUNT_ID;
console.log(`AGENT READY ${me}`);

let newest = ""; // the newest message_id typed in
let answered = 0;
const todo = [];
let busy = false;

async function work() {
  if (busy) return;
  busy = true;
  while (todo.length > 0 && answered < max) {
    const tag = todo.shift();
    answered++;
    let said = await callTool(client, "say_to_room", { content: `${me} answers ${tag.from} (${tag.message_id})`, last_seen: newest });
    // A refusal returns what this seat had not seen (posts held for it
    // among them): send the draft after the newest of them.
    for (let i = 0; i < 5 && said.isError && said.text.includes("Not delivered: nothing was posted"); i++) {
      const ids = [...said.text.matchAll(/message_id: (\S+)/g)].map((m) => m[1]);
      said = await callTool(client, "say_to_room", { last_seen: ids[ids.length - 1] });
    }
    if (env.AGENT_OUT) {
      appendFileSync(join(env.AGENT_OUT, `answers-${me}.jsonl`), JSON.stringify({ to: tag.message_id, isError: said.isError, text: said.text }) + "\n");
    }
  }
  busy = false;
}

// The terminal is in canonical mode (\r reads as \n): a post arrives as
// its tag line and its body, one line in these tests, ended by its \r.
let tag = null;
let buf = "";
process.stdin.setEncoding("utf8");
process.stdin.on("data", (chunk) => {
  buf += chunk;
  let i;
  while ((i = buf.indexOf("\n")) >= 0) {
    const line = buf.slice(0, i).replace(/\r$/, "");
    buf = buf.slice(i + 1);
    if (line.startsWith("[pullcept] ")) {
      try {
        tag = JSON.parse(line.slice("[pullcept] ".length));
        newest = tag.message_id;
      } catch {
        tag = null;
      }
    } else if (tag) {
      if (answer.has(tag.from)) todo.push(tag);
      tag = null;
      work();
    }
  }
});
setInterval(() => {}, 1 << 30);
