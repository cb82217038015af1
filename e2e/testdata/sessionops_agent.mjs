// A scripted agent for e2e/sessionops_test.go: run by `pullcept serve` as a
// cli account's command in a real PTY, it launches the room's sidecar from
// the per-launch MCP registration the way a CLI does (the official
// TypeScript MCP SDK client over stdio, its own environment passed on, as
// Claude Code does) and drives the session-operation tools.
//
//   node sessionops_agent.mjs ROLE MCP_CONFIG [...]
//
// ROLE idle: sit in the room. ROLE restarter: wait until TARGET (env) sits
// in the room, restart it through control_account_session with OP_ID (env),
// follow account_session_status until the new launch is in the room, ask
// again with the same id, then post "RESULT <json>" with what it saw.
// Env: SDK_PREFIX (npm prefix with @modelcontextprotocol/sdk), AGENT_OUT (a
// folder: the agent writes its capability there for the test's secrecy
// checks), TARGET, OP_ID.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { call as callTool, fromRegistration } from "../../sidecar/testdata/sdk_lib.mjs";

const env = process.env;
const [role, mcpConfig] = process.argv.slice(2);
const { client, entry } = await fromRegistration(mcpConfig, "sessionops-agent");
const me = entry.env.PULLCEPT_ACCOUNT_ID;
if (env.AGENT_OUT) {
  writeFileSync(join(env.AGENT_OUT, `capability-${me}-${process.pid}`), env.PULLCEPT_OPERATION_CAPABILITY ?? "", { mode: 0o600 });
}

const call = (name, args = {}) => callTool(client, name, args);
async function json(name, args = {}) {
  const { text, isError } = await call(name, args);
  let v;
  try {
    v = JSON.parse(text);
  } catch (e) {
    throw new Error(`${name} did not answer one JSON object: ${text}`);
  }
  return { v, isError };
}
const pause = (ms) => new Promise((r) => setTimeout(r, ms));

console.log(`AGENT READY ${role} ${me}`);
if (role === "restarter") {
  const out = { listed: null, control: null, final: null, again: null, errors: [] };
  try {
    // The target's current launch, once its sidecar sits in the room.
    let target;
    for (let i = 0; i < 600 && !target; i++) {
      const { v } = await json("list_account_sessions");
      out.listed = v;
      for (const t of v.topics ?? []) {
        for (const s of t.sessions ?? []) {
          if (s.account_id === env.TARGET && s.room_connected && t.topic_id === v.you.topic_id) target = s;
        }
      }
      if (!target) await pause(50); // polling the list: nothing pushes a change to a tool client
    }
    if (!target) throw new Error("the target never sat in the room");
    const op = { operation_id: env.OP_ID, action: "restart", account_id: env.TARGET, topic_id: out.listed.you.topic_id, expected_pty_id: target.pty_id };
    out.control = (await json("control_account_session", op)).v;
    let rec = out.control;
    for (let i = 0; i < 600 && !(rec.state === "process_started" && rec.room_connected) && rec.state !== "failed"; i++) {
      await pause(50); // polling the record: the new launch's sidecar connects on its own
      rec = (await json("account_session_status", { operation_id: env.OP_ID })).v;
    }
    out.final = rec;
    out.again = (await json("control_account_session", op)).v;
    out.expected = target.pty_id;
  } catch (e) {
    out.errors.push(String(e));
  }
  // The floor refuses a post whose author has not seen the newest posts
  // (the app's notice came first): send the draft with what was missed.
  let said = await call("say_to_room", { content: "RESULT " + JSON.stringify(out) });
  for (let i = 0; i < 3 && said.isError && said.text.includes("Not delivered: nothing was posted"); i++) {
    const ids = [...said.text.matchAll(/message_id: (\S+)/g)].map((m) => m[1]);
    said = await call("say_to_room", { last_seen: ids[ids.length - 1] });
  }
  console.log(said.isError ? "SAY FAILED " + said.text : "SAID");
}
setInterval(() => {}, 1 << 30);
