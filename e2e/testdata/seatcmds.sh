#!/bin/sh
# seatcmds: a cli account's program that runs pullcept's commands from
# inside its seat, as an agent in the seat's shell would, and writes what
# each printed and its exit status to $SEAT_OUT (whole, once done). The
# person-only ones (attach, serve, kill-server, accounts add) must refuse
# on the seat's own home; reading (ls, topics list) works; another home
# ($SEAT_OTHER_HOME) is the agent's own and allowed. Then it reads its
# terminal, so the seat keeps running.
try() {
  echo "== $*"
  timeout 10 "$@" </dev/null 2>&1
  echo "rc=$?"
}
{
  echo "seat=$PULLCEPT_SEAT"
  echo "seat_home=$PULLCEPT_SEAT_HOME"
  echo "home=$PULLCEPT_HOME"
  try "$PULLCEPT_BIN" kill-server
  try "$PULLCEPT_BIN"
  try "$PULLCEPT_BIN" serve
  try "$PULLCEPT_BIN" accounts add --kind cli --id sneaky --name Sneaky --command true
  try "$PULLCEPT_BIN" ls
  try "$PULLCEPT_BIN" topics list
  try env PULLCEPT_HOME="$SEAT_OTHER_HOME" "$PULLCEPT_BIN" kill-server
  try env PULLCEPT_HOME="$SEAT_OTHER_HOME" "$PULLCEPT_BIN" accounts add --kind cli --id mine --name Mine --command true
} >"$SEAT_OUT.tmp" 2>&1
mv "$SEAT_OUT.tmp" "$SEAT_OUT"
echo "seatcmds DONE"
exec cat
