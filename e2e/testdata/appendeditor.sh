#!/bin/sh
# appendeditor: an $EDITOR for the ctrl+g test. It appends one line to the
# file it is given, naming the terminal it runs on (the person's, through
# the attached client, not the server's). Like a real editor it takes "--"
# before the file (the client puts it there).
[ "$1" = -- ] && shift
if [ -s "$1" ] && [ -n "$(tail -c 1 "$1")" ]; then
  echo >>"$1" # end the last line first, as an editor saving does
fi
printf 'edited on %s\n' "$(tty)" >>"$1"
