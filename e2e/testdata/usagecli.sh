#!/bin/sh
# usagecli: a cli account's program that reports its usage figures the way
# Claude's status line does, with `"$PULLCEPT_BIN" hook status` and a
# status-line JSON body on stdin (docs/hooks.md). A line
# "status P5 RESET5 P7 RESET7 CTX" (percentages, resets as epoch seconds)
# reports the model "Scripted", effort "high", context CTX % and the
# 5-hour and weekly windows; "context CTX" reports the model and the
# context only (no rate_limits, as Claude with an API key); every other
# line is echoed. With USAGECLI_LOG set, every line read is also appended
# to that file, as read.
# The room's MCP server, started as an MCP client would at launch (its env
# from the registration file pullcept wrote), so the seat is in the room.
cfg() { sed -n 's/^ *"'"$1"'": "\(.*\)",\{0,1\}$/\1/p' "$PULLCEPT_MCP_CONFIG"; }
for v in PULLCEPT_ROOM_URL PULLCEPT_ROOM_TOKEN PULLCEPT_AGENT_NAME PULLCEPT_ROOM_ID PULLCEPT_ACCOUNT_ID; do
  export "$v=$(cfg "$v")"
done
sleep 100000 | "$PULLCEPT_BIN" sidecar >/dev/null 2>&1 &
echo "usagecli READY"
while IFS= read -r line; do
  [ -n "$USAGECLI_LOG" ] && printf '%s\n' "$line" >>"$USAGECLI_LOG"
  case "$line" in
    "status "*)
      set -- ${line#status }
      printf '{"session_id":"usagecli","model":{"id":"scripted-1","display_name":"Scripted"},"effort":{"level":"high"},"context_window":{"used_percentage":%s},"rate_limits":{"five_hour":{"used_percentage":%s,"resets_at":%s},"seven_day":{"used_percentage":%s,"resets_at":%s}}}' \
        "$5" "$1" "$2" "$3" "$4" | "$PULLCEPT_BIN" hook status
      echo "REPORTED<$*>"
      ;;
    "context "*)
      printf '{"session_id":"usagecli","model":{"id":"scripted-1","display_name":"Scripted"},"context_window":{"used_percentage":%s}}' \
        "${line#context }" | "$PULLCEPT_BIN" hook status
      echo "REPORTED<context ${line#context }>"
      ;;
    *) echo "GOT<$line>" ;;
  esac
done
