// The bundled github-webhook-mcp bridge, as pullcept starts it (spec 003
// "webhook の通知": node webhook-bridge.mjs). It loads the bridge as it is
// and adds one thing: it ends when its standard input ends. The bridge's
// stdio transport listens to stdin's data and error only, and while its
// WebSocket and keepalive timers run, Node would go on after pullcept closed
// or crashed. Standard input is pullcept's pipe: however pullcept ends, the
// OS closes it.
//
// Install: put this file in pullcept's folder (beside the binary, or in
// ../share/pullcept) and `npm install github-webhook-mcp` there, so that
// node_modules/github-webhook-mcp/server/index.js is beside it. pullcept
// writes the default mcp-servers.json entry only when both are there.
import { createRequire } from "node:module";
import { pathToFileURL } from "node:url";

const end = () => process.exit(0);
process.stdin.on("end", end);
process.stdin.on("close", end);

const require = createRequire(import.meta.url);
let entry;
try {
  entry = require.resolve("github-webhook-mcp/server/index.js");
} catch {
  entry = new URL("./node_modules/github-webhook-mcp/server/index.js", import.meta.url).pathname;
}
await import(pathToFileURL(entry).href);
