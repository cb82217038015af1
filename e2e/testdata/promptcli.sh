#!/bin/sh
# promptcli: a cli account's program that reads its terminal line by line
# (canonical mode) and reports each room post it reads as a prompt, with
# `pullcept hook UserPromptSubmit` carrying the tag line and the body (as
# docs/hooks.md lets any CLI do), then Stop. A body "ask CMD" makes it ask
# the person before it "runs" CMD, as askcli.sh does.
hook() { printf '%s' "$2" | "$PULLCEPT_BIN" hook "$1"; }
esc() { printf '%s' "$1" | sed 's/\\/\\\\/g; s/"/\\"/g'; }
# The room's MCP server, started as an MCP client would at launch (its env
# from the registration file pullcept wrote), so the seat is in the room.
cfg() { sed -n 's/^ *"'"$1"'": "\(.*\)",\{0,1\}$/\1/p' "$PULLCEPT_MCP_CONFIG"; }
for v in PULLCEPT_ROOM_URL PULLCEPT_ROOM_TOKEN PULLCEPT_AGENT_NAME PULLCEPT_ROOM_ID PULLCEPT_ACCOUNT_ID; do
  export "$v=$(cfg "$v")"
done
sleep 100000 | "$PULLCEPT_BIN" sidecar >/dev/null 2>&1 &
echo "promptcli READY"
tag=""
while IFS= read -r line; do
  case "$line" in
    "[pullcept] "*) tag=$line; continue ;;
  esac
  [ -n "$tag" ] && hook UserPromptSubmit "{\"prompt\":\"$(esc "$tag")\\n$(esc "$line")\"}"
  tag=""
  case "$line" in
    "ask "*)
      hook PreToolUse '{"tool_name":"Bash","tool_use_id":"t1"}'
      hook PermissionRequest '{"tool_name":"Bash"}'
      printf 'Allow %s? [y/n] ' "${line#ask }"
      IFS= read -r answer
      echo "ANSWER<$answer>"
      hook PostToolUse '{"tool_name":"Bash","tool_use_id":"t1"}'
      ;;
    *) echo "GOT<$line>" ;;
  esac
  hook Stop '{}'
done
