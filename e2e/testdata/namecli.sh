#!/bin/sh
# namecli: a cli account's program that joins the room through its sidecar
# (started as an MCP client would at launch, its env from the registration
# file pullcept wrote) and appends every line typed into its terminal to
# $NAMECLI_LOG, so a test reads the tags exactly as typed.
cfg() { sed -n 's/^ *"'"$1"'": "\(.*\)",\{0,1\}$/\1/p' "$PULLCEPT_MCP_CONFIG"; }
for v in PULLCEPT_ROOM_URL PULLCEPT_ROOM_TOKEN PULLCEPT_AGENT_NAME PULLCEPT_AGENT_FULL_NAME PULLCEPT_ROOM_ID PULLCEPT_ACCOUNT_ID; do
  export "$v=$(cfg "$v")"
done
sleep 100000 | "$PULLCEPT_BIN" sidecar >/dev/null 2>&1 &
echo "namecli READY"
while IFS= read -r line; do
  printf '%s\n' "$line" >>"$NAMECLI_LOG"
  echo "GOT<$line>"
done
