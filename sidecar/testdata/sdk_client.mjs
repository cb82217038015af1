// The sidecar seen by the official TypeScript MCP SDK client, the way a CLI
// sees it: spawned over stdio (StdioClientTransport), against the real room
// that the Go test (TestTypeScriptSDKClient) runs in-process.
//
// Env from the Go test:
//   SDK_PREFIX    npm prefix holding @modelcontextprotocol/sdk
//   SIDECAR_BIN   a binary whose `sidecar` subcommand is sidecar.Run
//   ROOM_URL, ROOM_TOKEN, TOPIC, OTHER_TOPIC
//   LIMIT         the instructions' limit in UTF-16 units
//
// Prints one JSON line with what it did; exits non-zero on any failed
// assertion.
import assert from "node:assert/strict";
import { seat, call } from "./sdk_lib.mjs";

const env = process.env;
const LIMIT = Number(env.LIMIT);

const ids = (text) => [...text.matchAll(/message_id: (\S+)/g)].map((m) => m[1]);
const bodies = (text) => text.split("\n").filter((l) => l.startsWith("  ")).map((l) => l.slice(2));

const clients = [];
try {
  // ── instructions: both forms, measured as JavaScript measures them ──────
  const lin = await seat("Lin", env.TOPIC, { PULLCEPT_UNSEEN_HISTORY: "1", PULLCEPT_AGENT_HUE: "145" });
  clients.push(lin);
  const linInstr = lin.getInstructions();
  assert.ok(linInstr.startsWith("You are Lin in a Pullcept room"), linInstr.slice(0, 80));
  assert.ok(linInstr.includes("earlier posts this session has not seen; read_room_history fetches them"), "unseen form");
  assert.ok(!linInstr.includes("Posts from before you joined"), "the unseen line replaces the general one");
  assert.ok(linInstr.length <= LIMIT, `instructions ${linInstr.length} > ${LIMIT}`);

  const wideName = "😀".repeat(64);
  for (const unseen of ["", "1"]) {
    const wide = await seat(wideName, env.TOPIC, { PULLCEPT_UNSEEN_HISTORY: unseen });
    const instr = wide.getInstructions();
    assert.ok(instr.startsWith(`You are ${wideName} in a Pullcept room`), "the wide name in the opening line");
    assert.ok(instr.length <= LIMIT, `64-emoji name, unseen=${unseen}: ${instr.length} > ${LIMIT}`);
    await wide.close();
  }

  // ── tools and schemas ─────────────────────────────────────────────────────
  const { tools } = await lin.listTools();
  const byName = Object.fromEntries(tools.map((t) => [t.name, t]));
  assert.deepEqual(Object.keys(byName).sort(), ["account_session_status", "control_account_session", "list_account_sessions", "my_usage", "read_room_history", "say_to_room"]);
  const say = byName.say_to_room.inputSchema;
  assert.deepEqual(Object.keys(say.properties).sort(), ["content", "last_seen", "to"]);
  assert.ok(!say.required || say.required.length === 0, "content may be omitted to resend a draft");
  assert.deepEqual(say.properties.to.anyOf.map((s) => s.type), ["string", "array"]);
  assert.deepEqual(Object.keys(byName.read_room_history.inputSchema.properties).sort(), ["before", "limit"]);
  assert.deepEqual(Object.keys(byName.my_usage.inputSchema.properties ?? {}), []);
  assert.match(byName.say_to_room.description, /Delivered to the room\. message_id: <id>/);
  assert.match(byName.read_room_history.description, /oldest first/);

  // ── history: pages back through what the topic held before ───────────────
  let page = await call(lin, "read_room_history", { limit: 2 });
  assert.equal(page.isError, false, page.text);
  assert.deepEqual(bodies(page.text), ["h2", "h3"]);
  assert.match(page.text, /Not addressed to you/);
  assert.match(page.text, /has_more: true/);
  const oldest = ids(page.text)[0];
  page = await call(lin, "read_room_history", { limit: 2, before: oldest });
  assert.deepEqual(bodies(page.text), ["h1"]);
  assert.match(page.text, /has_more: false/);

  // ── post, refusal, draft ─────────────────────────────────────────────────
  const lay = await seat("Lay", env.TOPIC);
  clients.push(lay);
  // A round trip seats Lay before Lin speaks (hello goes first).
  assert.equal((await call(lay, "read_room_history", {})).isError, false);

  const posted = await call(lin, "say_to_room", { content: "node hello", to: ["Lay", " Lay ", ""] });
  assert.equal(posted.isError, false, posted.text);
  const postedID = posted.text.match(/^Delivered to the room\. message_id: (\S+)$/m)?.[1];
  assert.ok(postedID, posted.text);

  const refused = await call(lay, "say_to_room", { content: "node reply", to: "Lin" });
  assert.equal(refused.isError, true, refused.text);
  assert.match(refused.text, /Not delivered/);
  assert.ok(refused.text.includes(`message_id: ${postedID} | speaker: Lin | to: Lay`), refused.text);
  assert.ok(refused.text.includes("  node hello"), refused.text);
  assert.match(refused.text, /kept as a draft/);

  const resent = await call(lay, "say_to_room", { last_seen: postedID });
  assert.equal(resent.isError, false, resent.text);
  const resentID = resent.text.match(/^Delivered to the room\. message_id: (\S+)$/m)?.[1];
  assert.ok(resentID && resentID !== postedID, resent.text);

  const empty = await call(lay, "say_to_room", {});
  assert.equal(empty.isError, true);
  assert.match(empty.text, /no draft/);

  // ── another topic sees none of it ───────────────────────────────────────
  const other = await seat("Other", env.OTHER_TOPIC);
  clients.push(other);
  const otherPage = await call(other, "read_room_history", {});
  assert.ok(!otherPage.text.includes("node hello") && !otherPage.text.includes("  h1"), otherPage.text);
  const elsewhere = await call(other, "say_to_room", { content: "elsewhere" });
  assert.equal(elsewhere.isError, false, elsewhere.text);

  const usage = await call(lin, "my_usage", {});
  assert.equal(usage.isError, true, "Lin launched without an account");
  assert.match(usage.text, /no account/);

  process.stdout.write(JSON.stringify({ posted: postedID, resent: resentID, instructions: linInstr.length }) + "\n");
} finally {
  for (const c of clients) await c.close();
}
