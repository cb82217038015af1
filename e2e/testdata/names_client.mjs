// Two scripted agents (the official TypeScript MCP SDK client, spawning
// `pullcept sidecar` over stdio as a CLI does) against a real `pullcept
// serve`, for the names e2e (TestNamesThroughServe): full_name in history and
// in a refusal's missed posts, the launch-time names in the instructions, and
// a rename while seated reaching tools/list and every result.
//
// Env: SDK_PREFIX, SIDECAR_BIN, ROOM_URL, ROOM_TOKEN, TOPIC, LAST (the newest
// message_id). Prints one JSON line per phase; each next phase starts when
// stdin gives a line (both seated; Eta renamed to Etta).
import assert from "node:assert/strict";
import { createInterface } from "node:readline";
import { seat as seatIn, call, sdk } from "../../sidecar/testdata/sdk_lib.mjs";

const env = process.env;
const { ToolListChangedNotificationSchema } = sdk("@modelcontextprotocol/sdk/types.js");

const seat = (name, account, fullName) =>
  seatIn(name, env.TOPIC, { PULLCEPT_AGENT_FULL_NAME: fullName, PULLCEPT_ACCOUNT_ID: account });

const delivered = (r) => {
  const m = r.text.match(/^Delivered to the room\. message_id: (\S+)/);
  assert.ok(m && !r.isError, `not delivered: ${r.text}`);
  return m[1];
};

const lines = createInterface({ input: process.stdin })[Symbol.asyncIterator]();
const clients = [];
try {
  const kay = await seat("Kay", "kay", "Claude Kay");
  const eta = await seat("Eta", "eta", "Codex Eta");
  clients.push(kay, eta);
  assert.ok(eta.getInstructions().startsWith("You are Eta (full name: Codex Eta) in a Pullcept room"), eta.getInstructions().slice(0, 80));
  // The Go test sees both seated in the roster, then says go: Eta's seat
  // is taken before Kay speaks, so the floor counts Kay's post as unseen.
  console.log(JSON.stringify({ phase: 0 }));
  await lines.next();

  const kayID = delivered(await call(kay, "say_to_room", { content: "@Lin kay speaks", last_seen: env.LAST }));
  const refused = await call(eta, "say_to_room", { content: "stale", last_seen: env.LAST });
  assert.ok(refused.isError, "a post with a stale last_seen must be refused");
  assert.ok(refused.text.includes(`message_id: ${kayID} | speaker: Kay | full_name: Claude Kay`), refused.text);
  const hist = await call(eta, "read_room_history");
  assert.ok(hist.text.includes(`message_id: ${kayID} | speaker: Kay | full_name: Claude Kay`), hist.text);
  assert.ok(hist.text.endsWith("— you: Eta (full name: Codex Eta)"), hist.text.slice(-80));
  const before = (await eta.listTools()).tools.map((t) => t.description).join("\n");
  assert.ok(before.includes("The room calls you Eta (your full name Codex Eta is not an address)."), before);

  const changed = new Promise((res) => eta.setNotificationHandler(ToolListChangedNotificationSchema, () => res()));
  console.log(JSON.stringify({ phase: 1, kay: kayID }));
  await lines.next(); // renamed

  await changed;
  const after = (await eta.listTools()).tools.map((t) => t.description).join("\n");
  assert.ok(after.includes("The room calls you Etta (your full name Codex Eta is not an address)."), after);
  assert.ok(!after.includes("calls you Eta "), after);
  const usage = await call(eta, "my_usage");
  assert.ok(usage.text.endsWith("— you: Etta (full name: Codex Eta)"), usage.text);
  const said = await call(eta, "say_to_room", { content: "as Etta @Lay", last_seen: kayID });
  const ettaID = delivered(said);
  assert.ok(said.text.includes("— you: Etta (full name: Codex Eta)"), said.text);
  console.log(JSON.stringify({ phase: 2, etta: ettaID }));
} finally {
  for (const c of clients) await c.close().catch(() => {});
  process.stdin.destroy(); // the readline on stdin would keep node alive
}
